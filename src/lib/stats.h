/*
 * The statistics the measurements are judged by, written once for threadrun
 * (adaptive repeats) and threadreport (intervals, verdicts, drift): no
 * normality assumed anywhere.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

/* The median of X[0..N), sorting X in place; NAN when N is 0. */
double stats_median(double *x, size_t n);

/*
 * The distribution-free confidence interval of the median of X[0..N) from
 * order statistics: [x(k), x(n+1-k)] with the largest k whose binomial
 * coverage 1 - 2 P(Bin(n, 1/2) < k) is at least 1 - ALPHA.  Where even
 * [min, max] covers less (n <= 5 at ALPHA 0.05), that is the interval.
 * Returns its exact coverage (0 when N is 0: LO and HI NAN).
 */
double stats_median_ci(const double *x, size_t n, double alpha, double *lo, double *hi);

/*
 * The Mann-Whitney U test of A[0..NA) against B[0..NB), two-sided, as
 * scipy.stats.mannwhitneyu(a, b, alternative='two-sided') computes it by
 * default: exact where there are no ties and NA or NB is at most 8 (and
 * the other at most about 240: the exact table is held to 32 MiB), else
 * the normal approximation with the tie correction and the continuity
 * correction.  Returns the p-value (NAN when a side is empty); U gets A's
 * U statistic and EXACT whether the exact distribution was used, where
 * not NULL.
 */
double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u, int *exact);

/*
 * About how many values a side would make a Mann-Whitney p of P, measured
 * with N a side, reach ALPHA if the effect stays what it is: the normal
 * approximation's z grows as the square root of N, so N (z_ALPHA/2 /
 * z_P/2)^2, at least N + 1 and at least 4 (the fewest with which 4 + 4
 * values can give an exact p under 0.05).  0 when P or N says nothing.
 */
unsigned stats_mw_repeats(double p, size_t n, double alpha);

/*
 * Kendall's S of X[0..N) against Y[0..N) (concordant pairs less discordant
 * ones) and its variance under independence with the tie corrections (Kendall
 * 1970) into VAR.  Strata add: a test within groups sums S and VAR over
 * them, z = S / sqrt(VAR) ~ N(0, 1).  N log N (Knight 1966); NAN when
 * memory runs out.
 */
double stats_kendall_s(const double *x, const double *y, size_t n, double *var);

#endif
