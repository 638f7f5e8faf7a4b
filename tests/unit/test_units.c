/* Unit tests of units_human(): SI prefixes, three significant digits,
 * the rounding at a prefix's edge, the units' spellings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "units.h"

#define HUMAN(v, unit) units_human(buf, sizeof(buf), (v), (unit))

static void three_digits(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(HUMAN(1966550000, "bytes/s"), "1.97 GB/s");
	assert_string_equal(HUMAN(19665500000, "bytes/s"), "19.7 GB/s");
	assert_string_equal(HUMAN(196655000000, "bytes/s"), "197 GB/s");
	assert_string_equal(HUMAN(6690, "events/s"), "6.69 k events/s");
	assert_string_equal(HUMAN(2400, "ops/s"), "2.40 k ops/s");
	assert_string_equal(HUMAN(2410, "sign/s"), "2.41 k sign/s");
	assert_string_equal(HUMAN(1, "ops/s"), "1.00 ops/s");
	assert_string_equal(HUMAN(100, "bytes/s"), "100 B/s");
	assert_string_equal(HUMAN(1e15, "bytes/s"), "1.00 PB/s");
	/* MFLOPS rows read in FLOPS with their prefix. */
	assert_string_equal(HUMAN(118253, "MFLOPS"), "118 GFLOPS");
	assert_string_equal(HUMAN(950, "MFLOPS"), "950 MFLOPS");
	assert_string_equal(HUMAN(1.5, "MFLOPS"), "1.50 MFLOPS");
	/* No unit (a series without one): the prefix alone. */
	assert_string_equal(HUMAN(6690, ""), "6.69 k");
	assert_string_equal(HUMAN(669, ""), "669");
}

/* Rounding to three digits can carry into the next prefix. */
static void rounding_edges(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(HUMAN(999.5, "ops/s"), "1.00 k ops/s");
	assert_string_equal(HUMAN(999.4, "ops/s"), "999 ops/s");
	assert_string_equal(HUMAN(999499, "ops/s"), "999 k ops/s");
	assert_string_equal(HUMAN(999500, "ops/s"), "1.00 M ops/s");
	assert_string_equal(HUMAN(9.995e9, "bytes/s"), "10.0 GB/s");
	assert_string_equal(HUMAN(99.96, "ops/s"), "100 ops/s");
	assert_string_equal(HUMAN(1234567, "ops/s"), "1.23 M ops/s");
	assert_string_equal(HUMAN(1235678, "ops/s"), "1.24 M ops/s");
	/* Past the last prefix: the digits, then zeros. */
	assert_string_equal(HUMAN(1.234e21, "bytes/s"), "1230 EB/s");
}

static void zero_negative_not_finite(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(HUMAN(0, "bytes/s"), "0 B/s");
	assert_string_equal(HUMAN(0, "ops/s"), "0 ops/s");
	assert_string_equal(HUMAN(-1966550000, "bytes/s"), "-1.97 GB/s");
	assert_string_equal(HUMAN(-0.25, "runs/s"), "-0.250 runs/s");
	assert_string_equal(HUMAN(NAN, "bytes/s"), "n/a");
	assert_string_equal(HUMAN(INFINITY, "ops/s"), "n/a");
	assert_string_equal(HUMAN(-INFINITY, "s"), "n/a");
}

/* Rates take no prefix below 1; seconds go down to ns. */
static void tiny(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(HUMAN(0.25, "runs/s"), "0.250 runs/s");
	assert_string_equal(HUMAN(0.001234, "runs/s"), "0.00123 runs/s");
	assert_string_equal(HUMAN(1e-7, "ops/s"), "0.000000100 ops/s");
	assert_string_equal(HUMAN(500e-6, UNITS_SECONDS), "500 µs");
	assert_string_equal(HUMAN(0.001, UNITS_SECONDS), "1.00 ms");
	assert_string_equal(HUMAN(24e-9, UNITS_SECONDS), "24.0 ns");
	assert_string_equal(HUMAN(0.99951e-3, UNITS_SECONDS), "1.00 ms");
	assert_string_equal(HUMAN(2.5, UNITS_SECONDS), "2.50 s");
	assert_string_equal(HUMAN(1234, UNITS_SECONDS), "1230 s");
	assert_string_equal(HUMAN(1e-10, UNITS_SECONDS), "0.100 ns");
}

static void ranges_and_widths(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(units_human_range(buf, sizeof(buf), 1.9e9, 2.1e9, "bytes/s"), "1.90..2.10 GB/s");
	assert_string_equal(units_human_range(buf, sizeof(buf), 990e6, 1.01e9, "bytes/s"), "0.990..1.01 GB/s");
	assert_string_equal(units_human_range(buf, sizeof(buf), 0, 2000, "ops/s"), "0..2.00 k ops/s");
	assert_string_equal(units_human_range(buf, sizeof(buf), 90, 110, "ops/s"), "90.0..110 ops/s");
	assert_string_equal(units_human_range(buf, sizeof(buf), NAN, 110, "ops/s"), "n/a");
	/* The widest figure of each unit fits its width. */
	assert_int_equal(units_human_width("bytes/s"), (int)strlen("1.97 GB/s"));
	assert_int_equal(units_human_width("ops/s"), (int)strlen("1.97 k ops/s"));
	assert_int_equal(units_human_width("MFLOPS"), (int)strlen("1.97 GFLOPS"));
	assert_int_equal(units_human_width("events/s"), (int)strlen("1.97 k events/s"));
	assert_int_equal(units_human_width(UNITS_SECONDS), (int)strlen("1.97 ms"));
	assert_int_equal(units_human_width(""), (int)strlen("1.97 k"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(three_digits),
		cmocka_unit_test(rounding_edges),
		cmocka_unit_test(zero_negative_not_finite),
		cmocka_unit_test(tiny),
		cmocka_unit_test(ranges_and_widths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
