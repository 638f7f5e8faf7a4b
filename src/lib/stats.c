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

double stats_median(double *x, size_t n)
{
	if (!n)
		return NAN;
	qsort(x, n, sizeof(*x), by_value);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
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

/* P(U >= U0) for samples of M and N without ties: the number of orderings
 * with U = u by f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u), over all
 * C(m + n, m) orderings. */
static double mwu_sf_exact(size_t m, size_t n, double u0)
{
	size_t umax = m * n, i, j, u;
	double *f = calloc((m + 1) * (n + 1) * (umax + 1), sizeof(*f)), total = 0, tail = 0;

#define F(i, j, u) f[((i) * (n + 1) + (j)) * (umax + 1) + (u)]
	if (!f)
		return NAN;
	for (i = 0; i <= m; i++)
		for (j = 0; j <= n; j++)
			for (u = 0; u <= i * j; u++)
				F(i, j, u) = !i || !j ? (u == 0) : (u >= j ? F(i - 1, j, u - j) : 0) + F(i, j - 1, u);
	for (u = 0; u <= umax; u++) {
		total += F(m, n, u);
		if ((double)u >= u0 - 1e-9)
			tail += F(m, n, u);
	}
#undef F
	free(f);
	return tail / total;
}

double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u, int *exact)
{
	size_t n = na + nb, i, j;
	double *all = malloc(n * sizeof(*all)), r1 = 0, ties = 0, u1, big, mu, sigma, p = NAN;

	if (!na || !nb || !all) {
		free(all);
		return NAN;
	}
	memcpy(all, a, na * sizeof(*all));
	memcpy(all + na, b, nb * sizeof(*all));
	qsort(all, n, sizeof(*all), by_value);
	/* A's rank sum with average ranks for ties, and the tie term. */
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && all[j] == all[i]; j++)
			;
		ties += (double)(j - i) * (double)(j - i) * (double)(j - i) - (double)(j - i);
		for (size_t k = 0; k < na; k++)
			if (a[k] == all[i])
				r1 += ((double)i + 1 + (double)j) / 2;
	}
	u1 = r1 - (double)na * ((double)na + 1) / 2;
	big = fmax(u1, (double)na * (double)nb - u1);
	if (exact)
		*exact = ties == 0 && (na <= 8 || nb <= 8);
	if (ties == 0 && (na <= 8 || nb <= 8)) {
		p = 2 * mwu_sf_exact(na, nb, big);
	} else {
		mu = (double)na * (double)nb / 2;
		sigma = sqrt((double)na * (double)nb / 12 * ((double)n + 1 - ties / ((double)n * ((double)n - 1))));
		p = sigma > 0 ? erfc((big - mu - 0.5) / sigma / sqrt(2)) : 1;
	}
	if (u)
		*u = u1;
	free(all);
	return fmin(p, 1);
}

/* Sum over the groups of equal values of X of F(t) = t(t-1)(2t+5), t(t-1)(t-2)
 * and t(t-1) (the sizes T of the groups) into T3, T2 and T1. */
static void tie_sums(const double *x, size_t n, double *t3, double *t2, double *t1)
{
	*t3 = *t2 = *t1 = 0;
	for (size_t i = 0; i < n; i++) {
		double t = 0;

		for (size_t j = 0; j < n; j++)
			t += x[j] == x[i];
		/* Each of a group's T members adds 1/T of its term. */
		*t3 += (t - 1) * (2 * t + 5);
		*t2 += (t - 1) * (t - 2);
		*t1 += t - 1;
	}
}

double stats_kendall_s(const double *x, const double *y, size_t n, double *var)
{
	double s = 0, nn = (double)n, x3, x2, x1, y3, y2, y1;

	*var = 0;
	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			s += ((x[j] > x[i]) - (x[j] < x[i])) * ((y[j] > y[i]) - (y[j] < y[i]));
	tie_sums(x, n, &x3, &x2, &x1);
	tie_sums(y, n, &y3, &y2, &y1);
	*var = (nn * (nn - 1) * (2 * nn + 5) - x3 - y3) / 18 + x1 * y1 / (2 * nn * (nn - 1)) +
	       (n > 2 ? x2 * y2 / (9 * nn * (nn - 1) * (nn - 2)) : 0);
	return s;
}

/* The z with P(N(0, 1) > z) = Q, 0 < Q < 1, by bisection on erfc. */
static double normal_upper_quantile(double q)
{
	double lo = -40, hi = 40, mid;

	for (int i = 0; i < 100; i++) {
		mid = (lo + hi) / 2;
		if (0.5 * erfc(mid / M_SQRT2) > q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

unsigned stats_mw_repeats(double p, size_t n, double alpha)
{
	double z, need;

	if (!(p > 0 && p < 1) || !(alpha > 0 && alpha < 1) || !n)
		return 0;
	z = normal_upper_quantile(p / 2);
	if (!(z > 0))
		return 0;
	need = ceil((double)n * pow(normal_upper_quantile(alpha / 2) / z, 2));
	return need > 10000 ? 10000 : need < 4 ? 4 : need <= (double)n ? (unsigned)n + 1 : (unsigned)need;
}
