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
};

extern const struct unit_props units[UNIT_COUNT];

/* The unit a row names, or NULL: not one of ours (a --metric's own). */
const struct unit_props *unit_find(const char *name);

static inline const char *unit_name(enum unit u)
{
	return units[u].name;
}

#endif
