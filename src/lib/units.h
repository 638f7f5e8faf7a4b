/*
 * The rates' units, said once: the name a row's `unit` column holds, what
 * its work is (the column the rate divides by wall time), and how a person
 * and threadrun --counters read it.  Rows keep the name; code compares
 * through unit_find(), never by spelling the name again.
 */
#ifndef UNITS_H
#define UNITS_H

#include "results.h"

enum unit {
	UNIT_BYTES_S, UNIT_OPS_S, UNIT_MFLOPS, UNIT_RUNS_S,
	UNIT_SIGN_S, UNIT_VERIFY_S, UNIT_DERIVE_S,   /* t2accel's public-key rows */
	UNIT_COUNT
};

/* What the work of a unit is. */
enum unit_counted { COUNTED_BYTES, COUNTED_OPS, COUNTED_FLOPS, COUNTED_RUNS };

struct unit_props {
	const char *name;       /* the rows' unit column: "bytes/s" */
	enum unit_counted counted;
	enum results_col work;  /* the column holding the work: RC_BYTES or RC_OPS */
	double scale;           /* rate = work / wall_s / scale (MFLOPS: 1e6) */
	const char *reads;      /* how a person reads it: "bytes per second" */
	/* threadrun --counters' figure per unit of work and its column head
	 * ("cycles per byte", "cyc/B"); NULL: none. */
	const char *per_cycle, *per_cycle_head;
	/* For people: the symbol an SI prefix joins ("B/s": "1.97 GB/s", per
	 * the base unit, so MFLOPS reads "FLOPS" with scale 1e6); NULL: the
	 * name is a word the prefix stands before ("6.69 k ops/s"). */
	const char *symbol;
};

extern const struct unit_props units[UNIT_COUNT];

/* The unit a row names, or NULL: not one of ours (a --metric's own). */
const struct unit_props *unit_find(const char *name);

/* The unit latencies are in: units_human() scales it down (ns, µs, ms). */
#define UNITS_SECONDS "s"

/*
 * VALUE, in UNIT as a row names it (or UNITS_SECONDS, or "" for none), as a
 * person reads it: three significant digits and an SI prefix, decimal
 * (1 GB/s = 10^9 bytes/s): "1.97 GB/s", "118 GFLOPS", "6.69 k events/s",
 * "500 µs".  Rates take no prefix below 1 ("0.250 runs/s"); 0 is "0 UNIT";
 * not finite: "n/a".  Returns BUF.
 */
const char *units_human(char *buf, size_t n, double value, const char *unit);
/* "LO..HI UNIT", both with HI's prefix (the larger one): "0.990..1.01 GB/s";
 * "n/a" where either is not finite. */
const char *units_human_range(char *buf, size_t n, double lo, double hi, const char *unit);
/* The columns units_human() takes at most for UNIT (values from 0.1 up). */
int units_human_width(const char *unit);

static inline const char *unit_name(enum unit u)
{
	return units[u].name;
}

#endif
