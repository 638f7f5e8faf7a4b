/*
 * The reporter's arithmetic, kept apart from reading and printing so it can
 * be tested on hand-made numbers: medians, speedup and efficiency, the
 * Universal Scalability Law fit, and the cutoff where one backend overtakes
 * another.
 */
#ifndef ANALYSIS_H
#define ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* Sorting: -1, 0 or 1 as A is below, equal to or above B (numbers of any
 * type, NAN equal to all); the first of N such answers that is not 0; two
 * arrays of N words compared in order. */
#define NUM_CMP(a, b) (((a) > (b)) - ((a) < (b)))
int cmp_first(const int *c, size_t n);
int cmp_words(const uintptr_t *a, const uintptr_t *b, size_t n);


/*
 * Universal Scalability Law: C(N) = N / (1 + s (N - 1) + k N (N - 1)).
 * Fitted by least squares on the linear form N/C(N) - 1 = s (N-1) + k N(N-1)
 * (Gunther), with s and k kept >= 0.  N_peak = sqrt((1 - s) / k) (infinite
 * when k = 0); rms_error is the root mean square of the relative error of
 * the fitted C against the measured one.
 */
struct usl_fit {
	double s, k, n_peak, rms_error;
	bool ok;                /* enough points (4 distinct N, N=1 among them) */
	bool poor;              /* rms_error above 10% */
};

int usl_fit(const double *n, const double *capacity, size_t count, struct usl_fit *fit);
double usl_capacity(const struct usl_fit *fit, double n);

/*
 * The cutoff between two series measured at the same sizes: the size at
 * which A's rate crosses B's, interpolated on log size and log ratio between
 * the two neighbouring sizes.  Returns 1 with *SIZE set (and *A_WINS_ABOVE
 * saying which side wins past it), 0 when one is faster at every size.
 */
int cutoff_find(const double *size, const double *rate_a, const double *rate_b, size_t n,
		double *cut, bool *a_wins_above);

/*
 * One measured point for cutoffs_compute.  The caller numbers what tells
 * points apart: FAMILY (what may be compared: workload, algorithm, host and
 * unit), CONFIG (policy and thread count) and BACKEND (its rank in the
 * order pairs are named: a before b).  TAG is the caller's, handed back.
 */
struct cutoff_point {
	size_t family, config, backend, tag;
	double size, rate;
};

/*
 * The cutoff of one backend pair in one family and config, over every size
 * both measured (the first point of a backend at a size counts, later ones
 * are duplicates).  TAG_A and TAG_B are the tags of each backend's point at
 * the smallest shared size.
 */
struct cutoff {
	size_t family, config, backend_a, backend_b, tag_a, tag_b;
	size_t sizes;                   /* sizes both measured, >= 2 */
	double min_size, max_size;
	double ratio_min, ratio_max;    /* rate a / rate b at min_size and max_size */
	bool found, a_wins_above;       /* cutoff_find's answer */
	double cut;                     /* NAN when not found */
};

/*
 * Every cutoff of the N points: for each family, config and backend pair
 * with at least two shared sizes, one struct cutoff, ordered by family,
 * backend a, backend b, config.  No mixing across families or configs,
 * any number of points: sorting, n log n plus one entry per pair and shared
 * size.  *OUT is malloc'd (free it); -1 when memory runs out.
 */
int cutoffs_compute(const struct cutoff_point *pts, size_t n, struct cutoff **out, size_t *nout);

/*
 * Verdicts from evidence.  A point is the repeats of one measurement: their
 * median, range and count.  One point beats another only when each has at
 * least VERDICT_MIN_REPEATS repeats and their ranges (min..max) do not
 * overlap; otherwise no difference was measured.
 */
enum { VERDICT_MIN_REPEATS = 3 };

struct sample {
	double median, min, max;
	size_t n;
};

enum verdict {
	VERDICT_WINNER,         /* a winner beyond the spread of the repeats */
	VERDICT_FEW_REPEATS,    /* no difference measured: under 3 repeats on a side */
	VERDICT_OVERLAP,        /* no difference measured: the ranges overlap */
	VERDICT_NOT_SIGNIFICANT,        /* no difference measured: Mann-Whitney p >= VERDICT_ALPHA */
};
/* The report's verdicts test at this level (verdicts.h). */
#define VERDICT_ALPHA 0.05

/* Whether A is higher than B beyond their spread (VERDICT_WINNER), or why
 * no difference was measured.  Says nothing about B higher than A. */
enum verdict verdict_above(const struct sample *a, const struct sample *b);

/* Whether A and B differ beyond their spread, either way (VERDICT_WINNER),
 * or why no difference was measured. */
enum verdict verdict_differ(const struct sample *a, const struct sample *b);

/*
 * The best of N points (N >= 2): *BEST the highest median, *WORST the
 * lowest.  VERDICT_WINNER only when BEST is above every other point
 * (verdict_above); else why not (few repeats before overlap).
 */
enum verdict verdict_best(const struct sample *s, size_t n, size_t *best, size_t *worst);

/* Whether two of the N points (of one plan) are apart beyond their spread:
 * the same plan measured twice gave different answers. */
bool samples_disagree(const struct sample *s, size_t n);

/*
 * The points of one plan pooled: range and count over all, median the
 * median of their medians (the repeats themselves are not at hand).
 */
struct sample sample_pool(const struct sample *s, size_t n);

/*
 * Whether two policies plan the same PUs: PLAN_A[i] and PLAN_B[i] are their
 * plans (the cpus column) at the N thread counts both measured; NULL or ""
 * when not known.  True only when N > 0 and every pair is known and equal.
 */
bool plans_same(const char *const *plan_a, const char *const *plan_b, size_t n);

#endif
