/* The reporter's arithmetic on numbers with known answers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis.h"
#include "cluster.h"
#include "dataset.h"
#include "stats.h"
#include "verdicts.h"

#define NEAR(a, b, tol) (fabs((double)(a) - (double)(b)) <= (tol) * fabs((double)(b)))

static void medians(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(stats_median(odd, 3) == 3);
	assert_true(stats_median(even, 4) == 2.5);
	assert_true(isnan(stats_median(odd, 0)));
}

/* The three-way compares every sort of the reporter is written with. */
static void compares(void **state)
{
	const uintptr_t a[] = { 1, 2, 3 }, b[] = { 1, 2, 4 };
	const int none[] = { 0, 0, 0 }, later[] = { 0, -1, 1 };

	(void)state;
	assert_int_equal(NUM_CMP(1, 2), -1);
	assert_int_equal(NUM_CMP(2.5, 2.5), 0);
	assert_int_equal(NUM_CMP((size_t)3, (size_t)1), 1);
	/* NAN is equal to all, as the comparisons it replaced had it. */
	assert_int_equal(NUM_CMP(NAN, 1.0), 0);
	assert_int_equal(cmp_first(none, 3), 0);
	assert_int_equal(cmp_first(later, 3), -1);
	assert_int_equal(cmp_first(later, 0), 0);
	assert_int_equal(cmp_words(a, b, 3), -1);
	assert_int_equal(cmp_words(b, a, 3), 1);
	assert_int_equal(cmp_words(a, b, 2), 0);
}

/* Synthetic USL data: the fit must give s and k back within 1%. */
static void usl_recovers(void **state)
{
	static const double cases[][2] = { { 0.05, 0.001 }, { 0.2, 0.0001 }, { 0.01, 0.02 } };
	double n[] = { 1, 2, 4, 8, 16, 32, 64 }, c[7];
	struct usl_fit fit;

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		struct usl_fit truth = { .s = cases[k][0], .k = cases[k][1] };

		/* The law written out here, not the module's usl_capacity. */
		for (int i = 0; i < 7; i++)
			c[i] = n[i] / (1 + truth.s * (n[i] - 1) + truth.k * n[i] * (n[i] - 1));
		usl_fit(n, c, 7, &fit);
		assert_true(fit.ok);
		if (!NEAR(fit.s, truth.s, 0.01) || !NEAR(fit.k, truth.k, 0.01))
			fail_msg("s %g k %g, want %g %g", fit.s, fit.k, truth.s, truth.k);
		assert_true(NEAR(fit.n_peak, sqrt((1 - truth.s) / truth.k), 0.01));
		assert_true(fit.rms_error < 1e-9);
		assert_false(fit.poor);
	}
	/* Too few points: no fit. */
	usl_fit(n, c, 3, &fit);
	assert_false(fit.ok);
	/* Linear scaling: s = k = 0, no peak. */
	usl_fit(n, n, 7, &fit);
	assert_true(fit.ok && fit.s < 1e-12 && fit.k < 1e-12 && isinf(fit.n_peak));
}

/*
 * Noisy data whose unconstrained fit has a negative coefficient: the fit
 * keeps it at 0 and refits the other alone.  The answers by hand, with
 * y = N/C - 1, x1 = N - 1, x2 = N (N - 1) at N = 2, 4, 8 (N = 1 gives 0):
 */
static void usl_clamps(void **state)
{
	double n[] = { 1, 2, 4, 8 };
	/* C = 1, 1.9, 3.5, 6.4: y = 1/19, 1/7, 1/4 grows slower than x1, so
	 * k < 0 unconstrained (-0.00294); k = 0 and
	 * s = sum x1 y / sum x1^2 = (1/19 + 3/7 + 7/4) / 59 = 0.0378170. */
	double slow[] = { 1, 1.9, 3.5, 6.4 };
	/* y = -0.006, -0.006, 0.042: s < 0 unconstrained (-0.01); s = 0 and
	 * k = sum x2 y / sum x2^2 = (2 (-0.006) + 12 (-0.006) + 56 0.042) / 3284
	 * = 2.268 / 3284. */
	double fast[] = { 1, 2 / 0.994, 4 / 0.994, 8 / 1.042 };
	struct usl_fit fit;

	(void)state;
	usl_fit(n, slow, 4, &fit);
	assert_true(fit.ok);
	if (fit.k != 0 || !NEAR(fit.s, (1.0 / 19 + 3.0 / 7 + 7.0 / 4) / 59, 1e-9))
		fail_msg("slow: s %g k %g, want 0.0378170 0", fit.s, fit.k);
	assert_true(isinf(fit.n_peak));
	usl_fit(n, fast, 4, &fit);
	assert_true(fit.ok);
	if (fit.s != 0 || !NEAR(fit.k, 2.268 / 3284, 1e-9))
		fail_msg("fast: s %g k %g, want 0 %g", fit.s, fit.k, 2.268 / 3284);
	assert_true(NEAR(fit.n_peak, sqrt(3284 / 2.268), 1e-9));
}

static void cutoff_interpolates(void **state)
{
	/* A: 10 and 40; B: 20 and 20 at sizes 16 and 1024.  log(A/B) goes
	 * from -ln2 to +ln2: the crossing is half way on log size, at 128. */
	double size[] = { 16, 1024 }, a[] = { 10, 40 }, b[] = { 20, 20 }, cut;
	bool a_above;

	(void)state;
	assert_int_equal(cutoff_find(size, a, b, 2, &cut, &a_above), 1);
	assert_true(NEAR(cut, 128, 1e-9));
	assert_true(a_above);
	assert_int_equal(cutoff_find(size, b, a, 2, &cut, &a_above), 1);
	assert_false(a_above);
	double faster[] = { 30, 50 };
	assert_int_equal(cutoff_find(size, faster, b, 2, &cut, &a_above), 0);
}

/* An asymmetric crossing, by hand: A/B = 2 at 16 bytes and 1/8 at 256.
 * log ratio ln 2 -> -3 ln 2 crosses zero a quarter of the way:
 * t = ln2 / (ln2 + 3 ln2) = 1/4, cut = 16 (256/16)^(1/4) = 32 bytes (the
 * other way round would give 128).  Three sizes, the crossing between the
 * second and third: 64 -> 1024 with ratios 3 and 1/3: half way, 256. */
static void cutoff_asymmetric(void **state)
{
	double size[] = { 16, 256 }, a[] = { 20, 10 }, b[] = { 10, 80 }, cut;
	double size3[] = { 16, 64, 1024 }, a3[] = { 50, 30, 10 }, b3[] = { 10, 10, 30 };
	bool a_above;

	(void)state;
	assert_int_equal(cutoff_find(size, a, b, 2, &cut, &a_above), 1);
	if (!NEAR(cut, 32, 1e-9))
		fail_msg("cutoff %g, want 32", cut);
	assert_false(a_above);
	assert_int_equal(cutoff_find(size3, a3, b3, 3, &cut, &a_above), 1);
	if (!NEAR(cut, 256, 1e-9))
		fail_msg("cutoff %g, want 256", cut);
}

/* Points of two families (hosts) and units never pair up, even when
 * their backends and configs match; within one, every pair of backends. */
static void cutoffs_never_mix(void **state)
{
	/* Family 0: backend 0 at 16 and 1024; family 1: backend 1 there. */
	const struct cutoff_point split[] = {
		{ 0, 0, 0, 0, 16, 20 }, { 0, 0, 0, 1, 1024, 20 },
		{ 1, 0, 1, 2, 16, 10 }, { 1, 0, 1, 3, 1024, 40 },
	};
	/* One family, three backends, two configs (only config 0 has b2). */
	const struct cutoff_point three[] = {
		{ 0, 0, 0, 0, 16, 20 }, { 0, 0, 0, 1, 1024, 20 },
		{ 0, 0, 1, 2, 16, 10 }, { 0, 0, 1, 3, 1024, 40 },
		{ 0, 0, 2, 4, 16, 5 }, { 0, 0, 2, 5, 1024, 5 },
		{ 0, 1, 0, 6, 16, 20 }, { 0, 1, 0, 7, 1024, 20 },
		{ 0, 1, 1, 8, 16, 10 }, { 0, 1, 1, 9, 1024, 40 },
	};
	struct cutoff *c;
	size_t n;

	(void)state;
	assert_int_equal(cutoffs_compute(split, 4, &c, &n), 0);
	assert_int_equal(n, 0);
	free(c);
	assert_int_equal(cutoffs_compute(three, 10, &c, &n), 0);
	/* (0,1) config 0, (0,1) config 1, (0,2), (1,2): by family, a, b, config. */
	assert_int_equal(n, 4);
	assert_int_equal(c[0].backend_a, 0);
	assert_int_equal(c[0].backend_b, 1);
	assert_int_equal(c[0].config, 0);
	assert_int_equal(c[1].config, 1);
	assert_int_equal(c[1].tag_a, 6);
	assert_int_equal(c[1].tag_b, 8);
	assert_true(c[0].found && NEAR(c[0].cut, 128, 1e-9) && !c[0].a_wins_above);
	assert_int_equal(c[2].backend_b, 2);
	assert_false(c[2].found);
	assert_true(NEAR(c[2].ratio_min, 4, 1e-12) && NEAR(c[2].ratio_max, 4, 1e-12));
	assert_int_equal(c[3].backend_a, 1);
	free(c);
}

/* Any number of sizes: 300 of them, in reverse order, with duplicates
 * (the first point of a backend at a size counts) and sizes that cannot
 * sit on a log axis (left out).  The crossing is between the last two. */
static void cutoffs_many_sizes(void **state)
{
	enum { N = 300 };
	struct cutoff_point *p = calloc(2 * N + 4, sizeof(*p));
	struct cutoff *c;
	size_t n, i, m = 0;

	(void)state;
	assert_non_null(p);
	for (i = N; i >= 1; i--) {
		p[m] = (struct cutoff_point){ 0, 0, 0, m, 10.0 * (double)i, 100 };
		m++;
		p[m] = (struct cutoff_point){ 0, 0, 1, m, 10.0 * (double)i, 10.0 * (double)i / 2995 * 100 };
		m++;
	}
	/* A duplicate (ignored), then sizes no log axis holds. */
	p[m] = (struct cutoff_point){ 0, 0, 1, m, 10, 1e9 };
	m++;
	p[m] = (struct cutoff_point){ 0, 0, 0, m, NAN, 1 };
	m++;
	p[m] = (struct cutoff_point){ 0, 0, 1, m, 0, 1 };
	m++;
	p[m] = (struct cutoff_point){ 0, 0, 1, m, -5, 1 };
	m++;
	assert_int_equal(cutoffs_compute(p, m, &c, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].sizes, N);
	assert_true(c[0].min_size == 10 && c[0].max_size == 10.0 * N);
	assert_true(c[0].found && c[0].cut > 2990 && c[0].cut < 3000);
	assert_false(c[0].a_wins_above);
	/* The smallest size's points: tags of the last pair written. */
	assert_int_equal(c[0].tag_a, 2 * N - 2);
	assert_int_equal(c[0].tag_b, 2 * N - 1);
	free(c);
	assert_int_equal(cutoffs_compute(p, 0, &c, &n), 0);
	assert_int_equal(n, 0);
	free(c);
	free(p);
}

/* A winner only with 3 repeats a side and ranges apart; why not, else. */
static void verdicts_need_evidence(void **state)
{
	const struct sample fast = { 200, 190, 210, 3 }, slow = { 105, 100, 110, 3 };
	const struct sample few = { 200, 190, 210, 2 }, wide = { 150, 100, 205, 3 };
	const struct sample touch = { 105, 100, 190, 3 };
	struct sample three[] = { slow, fast, wide }, apart[] = { slow, fast, { 50, 40, 60, 5 } };
	size_t best, worst;

	(void)state;
	assert_int_equal(verdict_above(&fast, &slow), VERDICT_WINNER);
	assert_int_equal(verdict_above(&slow, &fast), VERDICT_OVERLAP);
	assert_int_equal(verdict_above(&few, &slow), VERDICT_FEW_REPEATS);
	assert_int_equal(verdict_above(&fast, &wide), VERDICT_OVERLAP);
	/* Either way round for a difference. */
	assert_int_equal(verdict_differ(&slow, &fast), VERDICT_WINNER);
	assert_int_equal(verdict_differ(&fast, &slow), VERDICT_WINNER);
	assert_int_equal(verdict_differ(&fast, &wide), VERDICT_OVERLAP);
	assert_int_equal(verdict_differ(&wide, &few), VERDICT_FEW_REPEATS);
	/* Touching ranges (190 = 190) overlap. */
	assert_int_equal(verdict_above(&fast, &touch), VERDICT_OVERLAP);
	/* The best by median must clear every other point, not only the worst. */
	assert_int_equal(verdict_best(three, 3, &best, &worst), VERDICT_OVERLAP);
	assert_int_equal(best, 1);
	assert_int_equal(worst, 0);
	assert_int_equal(verdict_best(apart, 3, &best, &worst), VERDICT_WINNER);
	assert_int_equal(best, 1);
	assert_int_equal(worst, 2);
	/* Too few repeats is said before an overlap. */
	three[0] = few;
	three[1] = (struct sample){ 300, 290, 310, 3 };
	assert_int_equal(verdict_best(three, 3, &best, &worst), VERDICT_FEW_REPEATS);
}

/* One plan's points pooled; plans compared where both ran. */
static void plans_and_pools(void **state)
{
	const struct sample two[] = { { 4714, 4700, 4720, 3 }, { 8250, 8200, 8263, 3 } };
	const char *compact[] = { "0", "0,1" }, *scatter[] = { "0", "0,1" }, *other[] = { "0", "1,0" };
	const char *unbound[] = { "0", "" }, *unknown[] = { "0", NULL };
	struct sample p;

	(void)state;
	p = sample_pool(two, 2);
	assert_true(p.min == 4700 && p.max == 8263 && p.n == 6 && p.median == (4714 + 8250) / 2.0);
	assert_true(plans_same(compact, scatter, 2));
	/* Worker order is part of the plan. */
	assert_false(plans_same(compact, other, 2));
	assert_false(plans_same(compact, unbound, 2));
	assert_false(plans_same(compact, unknown, 2));
	assert_false(plans_same(unbound, unbound, 2));
	/* No thread count in common: nothing shows them the same. */
	assert_false(plans_same(compact, scatter, 0));
	/* One plan, two answers apart beyond their spread: the machine moved. */
	assert_true(samples_disagree(two, 2));
	const struct sample close[] = { { 100, 90, 110, 3 }, { 105, 100, 120, 3 }, { 300, 200, 400, 2 } };
	assert_false(samples_disagree(close, 3));
	assert_false(samples_disagree(two, 1));
}

/* The plan travels from the file's cpus column to each cell: the same
 * pointer for the same text, NULL where unbound. */
static const char *data_file(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", getenv("TEST_DATA") ? getenv("TEST_DATA") : "tests/data",
		 name);
	return path;
}

static void cells_carry_plans(void **state)
{
	struct dataset ds = { 0 };
	const struct series *s = NULL;
	const struct cell *a, *b;
	char err[256];
	size_t i;

	(void)state;
	assert_int_equal(dataset_read(&ds, data_file("verdicts.csv"), stderr, err, sizeof(err)), 0);
	assert_int_equal(dataset_build(&ds), 0);
	for (i = 0; i < ds.nseries; i++)
		if (!strcmp(ds.series[i].key->algorithm, "rsa-sign"))
			s = &ds.series[i];
	assert_non_null(s);
	a = series_cell(s, "compact", 2);
	b = series_cell(s, "scatter", 2);
	assert_non_null(a->cpus);
	assert_string_equal(a->cpus, "0,1");
	assert_ptr_equal(a->cpus, b->cpus);
	assert_false(a->busy || a->unverified || a->oversubscribed);
	for (i = 0; i < ds.nseries; i++)
		if (!strcmp(ds.series[i].key->algorithm, "sha256"))
			s = &ds.series[i];
	assert_null(series_cell(s, "none", 2)->cpus);
	dataset_free(&ds);
}

static const struct series *series_of(const struct dataset *ds, const char *algorithm)
{
	for (size_t i = 0; i < ds->nseries; i++)
		if (!strcmp(ds->series[i].key->algorithm, algorithm))
			return &ds->series[i];
	fail_msg("no series %s", algorithm);
	return NULL;
}

/* The repeats that would settle a Mann-Whitney p: 3 + 3 apart (exact p
 * 0.1, z 1.645) needs about 5 a side; a p near 0.05 one more; nothing to
 * say of an empty side or a p of 1. */
static void repeats_to_settle(void **state)
{
	(void)state;
	assert_int_equal(stats_mw_repeats(0.1, 3, 0.05), 5);
	assert_int_equal(stats_mw_repeats(0.06, 10, 0.05), 11);
	assert_int_equal(stats_mw_repeats(0.19, 3, 0.05), 7);
	assert_int_equal(stats_mw_repeats(0.1, 0, 0.05), 0);
	assert_int_equal(stats_mw_repeats(1, 5, 0.05), 0);
}

/* The verdicts of tests/data/verdicts.csv's series, as the report prints
 * them: one plan, overlap, a winner, too few repeats. */
static void series_verdicts_from_file(void **state)
{
	struct dataset ds = { 0 };
	struct verdicts v;
	const struct series *s;
	char err[256];

	(void)state;
	assert_int_equal(dataset_read(&ds, data_file("verdicts.csv"), stderr, err, sizeof(err)), 0);
	assert_int_equal(dataset_build(&ds), 0);
	/* rsa-sign: compact = scatter at 1 and 2 threads, one plan whose
	 * policies disagree at 2 (4700..4720 against 8200..8263). */
	s = series_of(&ds, "rsa-sign");
	assert_int_equal(series_verdicts(s, &v), 0);
	assert_int_equal(v.nt, 2);
	assert_int_equal(v.t[0].ngroups, 1);
	assert_int_equal(v.t[1].ngroups, 1);
	assert_false(v.t[0].disagree);
	assert_true(v.t[1].disagree);
	assert_int_equal(v.same[1], 0);
	assert_string_equal(cell_verdict(&v, 1), "");
	verdicts_free(&v);
	s = series_of(&ds, "sha256");
	assert_int_equal(series_verdicts(s, &v), 0);
	assert_int_equal(v.t[0].ngroups, 2);
	assert_int_equal(v.t[0].v, VERDICT_NOT_SIGNIFICANT);
	assert_true(v.t[0].test.p > 0.05);
	assert_int_equal(v.same[1], 1);
	assert_string_equal(cell_verdict(&v, 0), "no difference measured");
	verdicts_free(&v);
	/* md5: scatter (0,2) beats compact (0,1) at 2, 5 repeats a side apart
	 * (exact Mann-Whitney p 2/252); the median of the paired ratios
	 * 200/105 with its interval min..max; one plan at 4. */
	s = series_of(&ds, "md5");
	assert_int_equal(series_verdicts(s, &v), 0);
	assert_int_equal(v.t[0].v, VERDICT_WINNER);
	assert_true(NEAR(v.t[0].ratio, 200.0 / 105, 1e-12));
	assert_true(NEAR(v.t[0].test.p, 2.0 / 252, 1e-12));
	assert_true(v.t[0].test.paired);
	assert_true(NEAR(v.t[0].test.lo, 205.0 / 108, 1e-12) && NEAR(v.t[0].test.hi, 195.0 / 102, 1e-12));
	assert_string_equal(cell_verdict(&v, 0), "beaten");
	assert_string_equal(cell_verdict(&v, 2), "winner");
	assert_int_equal(v.t[1].ngroups, 1);
	/* Same at 4 threads, not at 2: two policies, not one plan. */
	assert_int_equal(v.same[1], 1);
	verdicts_free(&v);
	s = series_of(&ds, "sha1");
	assert_int_equal(series_verdicts(s, &v), 0);
	assert_int_equal(v.t[0].v, VERDICT_FEW_REPEATS);
	verdicts_free(&v);
	dataset_free(&ds);
}

/* A hand-made file: medians, the rerun that replaces a repeat, speedup,
 * efficiency, warnings' counts. */
static void handmade_series(void **state)
{
	struct dataset ds = { 0 };
	const struct series *s;
	const struct cell *c;
	char err[256];

	(void)state;
	assert_int_equal(dataset_read(&ds, data_file("handmade.csv"), stderr, err, sizeof(err)), 0);
	assert_int_equal(dataset_build(&ds), 0);
	assert_int_equal(ds.nseries, 1);
	s = &ds.series[0];
	assert_int_equal(s->npolicies, 2);
	c = series_cell(s, "c1", 1);
	assert_true(c->median == 100 && c->min == 90 && c->max == 110 && c->n == 3);
	c = series_cell(s, "c1", 4);
	/* repeat 1 was written twice: the later row (380) counts. */
	assert_true(c->median == 370 && c->min == 360 && c->n == 3);
	/* Paired: the median of 360/100, 380/110 and 370/90 is 3.6 (repeats 0,
	 * 1, 2); the ratio of medians 370/100 is kept beside it. */
	assert_true(NEAR(c->speedup, 3.6, 1e-12) && NEAR(c->efficiency, 0.9, 1e-12));
	assert_true(NEAR(c->speedup_of_medians, 3.7, 1e-12) && c->pairs == 3);
	assert_true(c->median_lo == 360 && c->median_hi == 380 && NEAR(c->ci_coverage, 0.75, 1e-12));
	assert_false(s->unpaired);
	/* c2 has no 1-thread point: no speedup, no efficiency. */
	c = series_cell(s, "c2", 4);
	assert_true(isnan(c->speedup) && isnan(c->efficiency));
	assert_true(s->no_one_thread);
	c = series_cell(s, "c2", 16);
	assert_true(c->oversubscribed);
	assert_int_equal(s->unverified, 1);
	assert_int_equal(s->misplaced, 1);
	assert_int_equal(s->pus, 8);
	dataset_free(&ds);
}

/* The published T2-era scaling figures read as a real input. */
static void published_figures(void **state)
{
	struct dataset ds = { 0 };
	const char *ref = getenv("REFERENCE_CSV");
	char err[256];
	size_t i, found = 0;

	(void)state;
	/* Published scaling figures (the src4_scale and smd5_scale rows, with
	 * their source column), kept in tests/data. */
	if (!ref)
		ref = data_file("published-scale.csv");
	assert_int_equal(dataset_read(&ds, ref, stderr, err, sizeof(err)), 0);
	assert_int_equal(dataset_build(&ds), 0);
	for (i = 0; i < ds.nseries; i++) {
		const struct series *s = &ds.series[i];
		const struct cell *c4 = series_cell(s, "-", 4);
		struct usl_fit fit;

		if (strcmp(s->key->workload, "src4_scale kernel module") ||
		    strcmp(s->key->impl, "before the assembly patch"))
			continue;
		/* 409836000 / 107758000 at 4 threads. */
		assert_true(NEAR(c4->speedup, 409836000.0 / 107758000.0, 1e-9));
		series_usl(s, "-", &fit);
		assert_true(fit.ok && fit.s > 0 && fit.s < 0.1 && !fit.poor);
		found++;
	}
	assert_int_equal(found, 1);
	dataset_free(&ds);
}

/* The overlap of the ranks' windows: 1 when they coincide, negative when
 * apart, NAN without them. */
static void cluster_windows(void **state)
{
	const double s1[] = { 0, 0 }, e1[] = { 19, 20 };
	const double s2[] = { 0, 90 }, e2[] = { 100, 200 };
	const double s3[] = { 0, 300 }, e3[] = { 100, 400 };
	const double s4[] = { 5, 5 }, e4[] = { 5, 5 };
	const double s5[] = { 0, NAN }, e5[] = { 10, 10 };

	(void)state;
	assert_true(NEAR(cluster_overlap(s1, e1, 2), 0.95, 1e-12));
	assert_true(NEAR(cluster_overlap(s2, e2, 2), 0.05, 1e-12));
	assert_true(cluster_overlap(s3, e3, 2) < 0);
	assert_true(cluster_overlap(s4, e4, 2) == 1);
	assert_true(isnan(cluster_overlap(s5, e5, 2)));
	assert_true(isnan(cluster_overlap(e2, s2, 2)));   /* ends before it starts */
	assert_true(isnan(cluster_overlap(s1, e1, 0)));
}

/* Rows of one job and different ranks are one measurement: all kept, the
 * rate all ranks' work over the longest wall time (MFLOPS: flops / 1e6),
 * n/a with a reason when a rank is missing or there is no work to add. */
static void cluster_measurements(void **state)
{
	struct dataset ds = { 0 };
	struct cluster cl;
	char err[256];
	FILE *null = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(null);
	assert_int_equal(dataset_read(&ds, data_file("cluster-ranks.csv"), stderr, err, sizeof(err)), 0);
	assert_int_equal(dataset_build(&ds), 0);
	assert_int_equal(cluster_build(&ds, &cl, null), 0);
	assert_int_equal(cl.nrows, 6);
	assert_int_equal(cl.nm, 3);
	assert_int_equal(cl.nseries, 2);
	assert_int_equal(cl.ncells, 3);
	assert_string_equal(cl.series[0].key->workload, "linpack");
	assert_int_equal(cl.cells[0].ranks, 2);
	assert_true(NEAR(cl.cells[0].median, 2 * 666666666 / 1e6 / 2.5, 1e-12));
	assert_true(NEAR(cl.cells[0].overlap_min, 0.96, 1e-12));
	assert_int_equal(cl.cells[0].nhosts, 2);
	assert_int_equal(cl.cells[1].ranks, 3);
	assert_int_equal(cl.cells[1].na, 1);
	assert_true(isnan(cl.cells[1].median));
	assert_string_equal(cl.cells[1].reason, "2 of 3 ranks");
	assert_true(isnan(cl.cells[2].median));
	assert_non_null(strstr(cl.cells[2].reason, "no work to add up"));
	cluster_free(&cl);
	dataset_free(&ds);
	fclose(null);
}

/*
 * The median's 95% interval from order statistics covers the true median as
 * often as its exact coverage says: 1,000 samples of n = 5, 9 and 15 from the
 * exponential distribution (skewed, median ln 2), a fixed generator.  Exact
 * coverage: n = 5 0.9375 (min..max), n = 9 0.9609, n = 15 0.9648.
 */
static void median_interval_covers(void **state)
{
	static const struct { size_t n; double exact; } cases[] = { { 5, 0.9375 }, { 9, 0.9609 }, { 15, 0.9648 } };
	uint64_t seed = 88172645463325252ull;
	double x[15], lo, hi;

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t hits = 0;
		double cov = 0;

		for (int k = 0; k < 1000; k++) {
			for (size_t i = 0; i < cases[c].n; i++) {
				seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
				x[i] = -log(((double)(seed >> 11) + 0.5) / 9007199254740992.0);
			}
			cov = stats_median_ci(x, cases[c].n, 0.05, &lo, &hi);
			hits += lo <= M_LN2 && M_LN2 <= hi;
		}
		assert_true(fabs(cov - cases[c].exact) < 1e-4);
		print_message("n = %zu: covered %zu of 1000 (exact %.4f)\n", cases[c].n, hits, cov);
		assert_true(hits >= 930 && hits <= 970);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(medians),
		cmocka_unit_test(median_interval_covers),
		cmocka_unit_test(compares),
		cmocka_unit_test(usl_recovers),
		cmocka_unit_test(usl_clamps),
		cmocka_unit_test(cutoff_interpolates),
		cmocka_unit_test(cutoff_asymmetric),
		cmocka_unit_test(cutoffs_never_mix),
		cmocka_unit_test(cutoffs_many_sizes),
		cmocka_unit_test(verdicts_need_evidence),
		cmocka_unit_test(plans_and_pools),
		cmocka_unit_test(cells_carry_plans),
		cmocka_unit_test(repeats_to_settle),
		cmocka_unit_test(series_verdicts_from_file),
		cmocka_unit_test(handmade_series),
		cmocka_unit_test(published_figures),
		cmocka_unit_test(cluster_windows),
		cmocka_unit_test(cluster_measurements),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
