/* The latency histogram (src/lib/histogram.h): bucket bounds, percentiles
 * of known distributions within the stated error, and that merging
 * histograms gives the histogram of the merged data. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "histogram.h"

/* A fixed-seed generator (splitmix64), so every run tests the same data. */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rng_unit(void)
{
	return (double)(rng_next() >> 11) / 9007199254740992.0;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct histogram *hist_new(void)
{
	struct histogram *h = malloc(sizeof(*h));

	assert_non_null(h);
	histogram_init(h);
	return h;
}

/* Every bucket: its bounds map back to it, buckets tile the range without
 * gaps, and none is wider than 1/128 of its lower bound. */
static void buckets(void **state)
{
	unsigned i;

	(void)state;
	assert_int_equal(histogram_bucket_low(0), 0);
	for (i = 0; i < HISTOGRAM_BUCKETS; i++) {
		uint64_t lo = histogram_bucket_low(i), hi = histogram_bucket_high(i);

		assert_true(lo <= hi);
		assert_int_equal(histogram_index(lo), i);
		assert_int_equal(histogram_index(hi), i);
		if (i + 1 < HISTOGRAM_BUCKETS)
			assert_int_equal(histogram_bucket_low(i + 1), hi + 1);
		if (lo >= 2 * HISTOGRAM_SUB && (double)(hi - lo + 1) / (double)lo > 1.0 / HISTOGRAM_SUB)
			fail_msg("bucket %u [%llu, %llu] wider than 1/128", i, (unsigned long long)lo,
				 (unsigned long long)hi);
	}
	assert_int_equal(histogram_bucket_high(HISTOGRAM_BUCKETS - 1), HISTOGRAM_MAX_NS);
	/* 10 ns to 100 s are inside the range. */
	assert_true(HISTOGRAM_MAX_NS >= UINT64_C(100000000000));
	assert_true(HISTOGRAM_REL_ERR <= 0.01);
}

/* Compare P-th percentiles of H with the exact ones of V (sorted here). */
static void check_percentiles(const struct histogram *h, uint64_t *v, size_t n, const char *what)
{
	static const double ps[] = { 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100 };
	size_t i;

	qsort(v, n, sizeof(*v), by_u64);
	assert_int_equal(h->count, n);
	assert_int_equal(h->max, v[n - 1]);
	assert_int_equal(h->min, v[0]);
	assert_true(histogram_max(h) == (double)v[n - 1]);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		size_t rank = (size_t)ceil(ps[i] / 100.0 * (double)n);
		double exact = (double)v[(rank ? rank : 1) - 1];
		double got = histogram_percentile(h, ps[i]);

		if (fabs(got - exact) > HISTOGRAM_REL_ERR * exact + 1e-9)
			fail_msg("%s: p%g is %.0f, exact %.0f: off by %.3f%%, allowed %.3f%%", what,
				 ps[i], got, exact, 100 * fabs(got - exact) / exact,
				 100 * HISTOGRAM_REL_ERR);
	}
}

enum { N = 200000 };

static void distributions(void **state)
{
	struct histogram *h = hist_new();
	uint64_t *v = malloc(N * sizeof(*v));
	size_t i;

	(void)state;
	assert_non_null(v);
	rng_state = 1;
	/* Uniform, 1 us .. 3 us. */
	for (i = 0; i < N; i++) {
		v[i] = 1000 + rng_next() % 2001;
		histogram_record(h, v[i]);
	}
	check_percentiles(h, v, N, "uniform 1..3 us");

	/* Log-uniform over the whole stated range, 10 ns .. 100 s. */
	histogram_init(h);
	for (i = 0; i < N; i++) {
		v[i] = (uint64_t)(10.0 * pow(1e10, rng_unit()));
		histogram_record(h, v[i]);
	}
	check_percentiles(h, v, N, "log-uniform 10 ns..100 s");

	/* Exponential, mean 50 us (an RSA-like service time). */
	histogram_init(h);
	for (i = 0; i < N; i++) {
		v[i] = 20000 + (uint64_t)(-50000.0 * log(1.0 - rng_unit()));
		histogram_record(h, v[i]);
	}
	check_percentiles(h, v, N, "exponential");

	/* Bimodal: 99.5% near 40 ns (exact buckets), 0.5% near 3 ms: p99 in
	 * the first mode, p99.9 in the second. */
	histogram_init(h);
	for (i = 0; i < N; i++) {
		v[i] = i % 200 == 0 ? 3000000 + rng_next() % 100000 : 30 + rng_next() % 20;
		histogram_record(h, v[i]);
	}
	check_percentiles(h, v, N, "bimodal");
	assert_true(histogram_percentile(h, 99) < 50);
	assert_true(histogram_percentile(h, 99.9) > 3000000 * (1 - HISTOGRAM_REL_ERR));

	/* One value: every percentile is it, exactly. */
	histogram_init(h);
	histogram_record(h, 123456789);
	assert_true(histogram_percentile(h, 50) == 123456789.0);
	assert_true(histogram_percentile(h, 99.9) == 123456789.0);
	assert_true(histogram_mean(h) == 123456789.0);
	free(v);
	free(h);
}

static void edges(void **state)
{
	struct histogram *h = hist_new();

	(void)state;
	/* Empty: zeros, no division by zero. */
	assert_true(histogram_percentile(h, 50) == 0);
	assert_true(histogram_max(h) == 0);
	assert_true(histogram_mean(h) == 0);
	/* Above the range: the top bucket, counted as over; max stays exact. */
	histogram_record(h, HISTOGRAM_MAX_NS + 1000);
	histogram_record(h, 0);
	assert_int_equal(h->over, 1);
	assert_int_equal(h->bucket[HISTOGRAM_BUCKETS - 1], 1);
	assert_int_equal(h->bucket[0], 1);
	assert_true(histogram_max(h) == (double)(HISTOGRAM_MAX_NS + 1000));
	assert_true(histogram_percentile(h, 100) == (double)(HISTOGRAM_MAX_NS + 1000));
	assert_true(histogram_percentile(h, 50) == 0);
	/* p out of (0, 100]: 0 below, the max above. */
	assert_true(histogram_percentile(h, 0) == 0);
	assert_true(histogram_percentile(h, 150) == (double)(HISTOGRAM_MAX_NS + 1000));
	free(h);
}

/* Merged histograms are the histogram of the merged data: the same
 * buckets, counts, min, max and sum, so the same percentiles. */
static void merging(void **state)
{
	enum { PARTS = 4 };
	struct histogram *part[PARTS], *all = hist_new(), *merged = hist_new();
	static const double ps[] = { 50, 90, 99, 99.9, 100 };
	size_t i, k;

	(void)state;
	for (k = 0; k < PARTS; k++)
		part[k] = hist_new();
	rng_state = 7;
	for (i = 0; i < N; i++) {
		/* Each part its own distribution, as workers on shared cores. */
		k = rng_next() % PARTS;
		uint64_t v = (uint64_t)((double)(100 << k) * pow(1e4, rng_unit()));

		histogram_record(part[k], v);
		histogram_record(all, v);
	}
	for (k = 0; k < PARTS; k++)
		histogram_merge(merged, part[k]);
	/* Merging an empty histogram changes nothing. */
	histogram_init(part[0]);
	histogram_merge(merged, part[0]);
	assert_memory_equal(merged->bucket, all->bucket, sizeof(all->bucket));
	assert_int_equal(merged->count, all->count);
	assert_int_equal(merged->over, all->over);
	assert_int_equal(merged->min, all->min);
	assert_int_equal(merged->max, all->max);
	assert_true(fabs(merged->sum - all->sum) <= 1e-9 * all->sum);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		assert_true(histogram_percentile(merged, ps[i]) == histogram_percentile(all, ps[i]));
	for (k = 0; k < PARTS; k++)
		free(part[k]);
	free(all);
	free(merged);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets),
		cmocka_unit_test(distributions),
		cmocka_unit_test(edges),
		cmocka_unit_test(merging),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
