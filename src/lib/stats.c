/* Order statistics and rank tests (stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A sorted copy of X; NULL when N is 0 or memory ran out. */
static double *sorted(const double *x, size_t n)
{
	double *s = n ? malloc(n * sizeof(*s)) : NULL;

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), by_value);
	return s;
}

double stats_median(const double *x, size_t n)
{
	double *s = sorted(x, n), m;

	if (!s)
		return NAN;
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

/* P(Bin(n, 1/2) <= k), summed in logs so that large n stays exact enough. */
static double binom_half_cdf(size_t n, size_t k)
{
	double p = 0;

	for (size_t i = 0; i <= k && i <= n; i++)
		p += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
			 (double)n * log(2));
	return fmin(p, 1);
}

double stats_median_ci(const double *x, size_t n, double alpha, double *lo, double *hi)
{
	double *s = sorted(x, n), coverage = 1 - 2 * binom_half_cdf(n, 0);
	size_t k = 1; /* x(k) .. x(n+1-k), 1-based */

	*lo = *hi = NAN;
	if (!s)
		return 0;
	/* Widen inwards while the next k still covers 1 - ALPHA. */
	while (k + 1 <= (n + 1) / 2 && 1 - 2 * binom_half_cdf(n, k) >= 1 - alpha) {
		k++;
		coverage = 1 - 2 * binom_half_cdf(n, k - 1);
	}
	*lo = s[k - 1];
	*hi = s[n - k];
	free(s);
	return n == 1 ? 0 : coverage;
}
