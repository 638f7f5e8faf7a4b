/* The rates' units (units.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

const struct unit_props units[UNIT_COUNT] = {
	[UNIT_BYTES_S] = { "bytes/s", COUNTED_BYTES, RC_BYTES, 1, "bytes processed per second",
			   "cycles per byte", "cyc/B", "B/s" },
	[UNIT_OPS_S] = { "ops/s", COUNTED_OPS, RC_OPS, 1, "operations (a signature, a verification) per second",
			 "cycles per op", "cyc/op" },
	[UNIT_MFLOPS] = { "MFLOPS", COUNTED_FLOPS, RC_OPS, 1e6,
			  "millions of floating-point operations per second", "FLOPs per cycle", "FLOP/cyc",
			  "FLOPS" },
	[UNIT_RUNS_S] = { "runs/s", COUNTED_RUNS, RC_OPS, 1, "whole runs of a program per second (threadrun's own row)",
			  NULL, NULL },
	[UNIT_SIGN_S] = { "sign/s", COUNTED_OPS, RC_OPS, 1, "signatures made per second",
			  "cycles per op", "cyc/op" },
	[UNIT_VERIFY_S] = { "verify/s", COUNTED_OPS, RC_OPS, 1, "signatures verified per second",
			    "cycles per op", "cyc/op" },
	[UNIT_DERIVE_S] = { "derive/s", COUNTED_OPS, RC_OPS, 1, "shared secrets derived per second",
			    "cycles per op", "cyc/op" },
};

const struct unit_props *unit_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < UNIT_COUNT; i++)
		if (!strcmp(name, units[i].name))
			return &units[i];
	return NULL;
}

/* SI prefixes, a power of 10^3 apart, from 10^-9 to 10^18. */
static const char *const prefixes[] = { "n", "µ", "m", "", "k", "M", "G", "T", "P", "E" };
enum { ONE = 3, NPREFIXES = sizeof(prefixes) / sizeof(prefixes[0]) };

/* How a unit reads for people: its figures times SCALE are in the base
 * unit, SYMBOL takes the prefix, and the prefixes from LO to HI fit it. */
struct reading {
	double scale;
	const char *symbol;
	bool word; /* the prefix stands before it: "k ops/s" */
	int lo, hi;
};

static struct reading reading_of(const char *unit)
{
	const struct unit_props *u = unit_find(unit);

	if (unit && !strcmp(unit, UNITS_SECONDS))
		return (struct reading){ 1, UNITS_SECONDS, false, 0, ONE };
	if (u && u->symbol)
		return (struct reading){ u->scale, u->symbol, false, ONE, NPREFIXES - 1 };
	return (struct reading){ u ? u->scale : 1, unit ? unit : "", true, ONE, NPREFIXES - 1 };
}

/* |V|'s three significant digits into D ("197"); returns its power of ten
 * (9 for 1.97e9), after the rounding (999.5: "100", 3). */
static int digits_of(double v, char d[4])
{
	char e[32];

	snprintf(e, sizeof(e), "%.2e", fabs(v));
	d[0] = e[0];
	d[1] = e[2];
	d[2] = e[3];
	d[3] = '\0';
	return atoi(e + 5);
}

/* The prefix V reads with (after its rounding), within R's. */
static int prefix_of(const struct reading *r, double v)
{
	char d[4];
	int e = v == 0 ? 0 : digits_of(v, d), p = ONE + (e >= 0 ? e / 3 : -((2 - e) / 3));

	return p < r->lo ? r->lo : p > r->hi ? r->hi : p;
}

/* V in prefix P's units with three significant digits: the digits with
 * the point placed ("1.97", "19.7", "197", "1970", "0.0197"). */
static const char *number(char *buf, size_t n, double v, int p)
{
	static const char zeros[] = "000000000000000000000000000000";
	const char *sign = v < 0 ? "-" : "";
	char d[4];
	int s;

	if (v == 0)
		return "0";
	s = digits_of(v, d) - 3 * (p - ONE);
	if (s >= 2)
		snprintf(buf, n, "%s%s%.*s", sign, d, s - 2 < (int)sizeof(zeros) ? s - 2 : (int)sizeof(zeros), zeros);
	else if (s >= 0)
		snprintf(buf, n, "%s%.*s.%s", sign, s + 1, d, d + s + 1);
	else
		snprintf(buf, n, "%s0.%.*s%s", sign, -s - 1 < (int)sizeof(zeros) ? -s - 1 : (int)sizeof(zeros), zeros, d);
	return buf;
}

/* LO.. (where RANGE) and HI with HI's prefix, then the unit. */
static const char *human(char *buf, size_t n, double lo, double hi, const char *unit, bool range)
{
	const struct reading r = reading_of(unit);
	char a[48], b[48];
	const char *pre;
	int p;

	lo *= r.scale;
	hi *= r.scale;
	if (!isfinite(lo) || !isfinite(hi)) {
		snprintf(buf, n, "n/a");
		return buf;
	}
	p = prefix_of(&r, fabs(lo) > fabs(hi) ? lo : hi);
	pre = prefixes[p];
	snprintf(buf, n, "%s%s%s%s%s%s%s", range ? number(a, sizeof(a), lo, p) : "", range ? ".." : "",
		 number(b, sizeof(b), hi, p), *pre || *r.symbol ? " " : "", pre, r.word && *pre && *r.symbol ? " " : "",
		 r.symbol);
	return buf;
}

const char *units_human(char *buf, size_t n, double value, const char *unit)
{
	return human(buf, n, value, value, unit, false);
}

const char *units_human_range(char *buf, size_t n, double lo, double hi, const char *unit)
{
	return human(buf, n, lo, hi, unit, true);
}

int units_human_width(const char *unit)
{
	const struct reading r = reading_of(unit);
	int sym = (int)strlen(r.symbol);

	/* "1.97", a space, the prefix (one column, µ too), the unit. */
	return 4 + 1 + 1 + (r.word && sym ? 1 : 0) + sym;
}
