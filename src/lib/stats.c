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

/* P(Bin(n, 1/2) = i), from logs so that a large n stays exact enough. */
static double binom_half_pmf(size_t n, size_t i)
{
	return exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
		   (double)n * log(2));
}

double stats_median_ci(const double *x, size_t n, double alpha, double *lo, double *hi)
{
	double *s = sorted(x, n), cdf = binom_half_pmf(n, 0), coverage = 1 - 2 * cdf;
	size_t k = 1; /* x(k) .. x(n+1-k), 1-based */

	*lo = *hi = NAN;
	if (!s)
		return 0;
	/* Widen inwards while the next k still covers 1 - ALPHA; CDF is
	 * P(Bin(n, 1/2) < k), a term added a step (n log n in all). */
	while (k + 1 <= (n + 1) / 2) {
		cdf += binom_half_pmf(n, k);
		if (1 - 2 * cdf < 1 - alpha)
			break;
		coverage = 1 - 2 * cdf;
		k++;
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

/* A value and the side it came from (1: A). */
struct sided {
	double v;
	int a;
};

static int by_sided_value(const void *x, const void *y)
{
	return by_value(&((const struct sided *)x)->v, &((const struct sided *)y)->v);
}

/* The exact distribution's table, (M + 1)(N + 1)(MN + 1) doubles, at most
 * 32 MiB: beyond (one side of 8 against one of about 240), the normal
 * approximation, which is then close. */
#define MWU_EXACT_MAX ((size_t)1 << 22)

double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u, int *exact)
{
	size_t n = na + nb, i, j, in_a;
	struct sided *all = malloc(n * sizeof(*all));
	double r1 = 0, ties = 0, u1, big, mu, sigma, p = NAN;
	int use_exact;

	if (!na || !nb || !all) {
		free(all);
		return NAN;
	}
	for (i = 0; i < n; i++)
		all[i] = i < na ? (struct sided){ a[i], 1 } : (struct sided){ b[i - na], 0 };
	qsort(all, n, sizeof(*all), by_sided_value);
	/* A's rank sum with average ranks for ties, and the tie term. */
	for (i = 0; i < n; i = j) {
		for (j = i, in_a = 0; j < n && all[j].v == all[i].v; j++)
			in_a += (size_t)all[j].a;
		ties += (double)(j - i) * (double)(j - i) * (double)(j - i) - (double)(j - i);
		r1 += (double)in_a * ((double)i + 1 + (double)j) / 2;
	}
	u1 = r1 - (double)na * ((double)na + 1) / 2;
	big = fmax(u1, (double)na * (double)nb - u1);
	use_exact = ties == 0 && (na <= 8 || nb <= 8) &&
		    (double)(na + 1) * (double)(nb + 1) * ((double)na * (double)nb + 1) <= (double)MWU_EXACT_MAX;
	if (exact)
		*exact = use_exact;
	if (use_exact) {
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

/* A pair of Kendall's S. */
struct xy {
	double x, y;
};

static int by_x_then_y(const void *p, const void *q)
{
	const struct xy *a = p, *b = q;
	int c = by_value(&a->x, &b->x);

	return c ? c : by_value(&a->y, &b->y);
}

/* Of a group of T equal values, into T3, T2 and T1: t(t-1)(2t+5),
 * t(t-1)(t-2) and t(t-1) (twice its pairs). */
static void tie_group(double t, double *t3, double *t2, double *t1)
{
	*t3 += t * (t - 1) * (2 * t + 5);
	*t2 += t * (t - 1) * (t - 2);
	*t1 += t * (t - 1);
}

/* Sorts Y[lo..hi) by merging (TMP as long), counting the pairs out of
 * order (an earlier value greater) into *SWAPS. */
static void merge_count(double *y, double *tmp, size_t lo, size_t hi, double *swaps)
{
	size_t mid = lo + (hi - lo) / 2, i = lo, j = mid, k = lo;

	if (hi - lo < 2)
		return;
	merge_count(y, tmp, lo, mid, swaps);
	merge_count(y, tmp, mid, hi, swaps);
	while (i < mid && j < hi) {
		if (y[j] < y[i]) {
			*swaps += (double)(mid - i);
			tmp[k++] = y[j++];
		} else {
			tmp[k++] = y[i++];
		}
	}
	while (i < mid)
		tmp[k++] = y[i++];
	while (j < hi)
		tmp[k++] = y[j++];
	memcpy(y + lo, tmp + lo, (hi - lo) * sizeof(*y));
}

/* Knight's n log n count (1966): sorted by x then y, the discordant pairs
 * are the swaps a merge sort of y makes; the pairs tied in x, in y and in
 * both come from the sorted runs. */
double stats_kendall_s(const double *x, const double *y, size_t n, double *var)
{
	struct xy *p = n > 1 ? malloc(n * sizeof(*p)) : NULL;
	double *ys = n > 1 ? malloc(2 * n * sizeof(*ys)) : NULL;
	double nn = (double)n, x3 = 0, x2 = 0, x1 = 0, y3 = 0, y2 = 0, y1 = 0;
	double tb = 0, swaps = 0, s = NAN;
	size_t i, j, k, m;

	*var = 0;
	if (n < 2 || !p || !ys) {
		s = n < 2 ? 0 : NAN;
		goto out;
	}
	for (i = 0; i < n; i++)
		p[i] = (struct xy){ x[i], y[i] };
	qsort(p, n, sizeof(*p), by_x_then_y);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && p[j].x == p[i].x; j++)
			;
		tie_group((double)(j - i), &x3, &x2, &x1);
		for (k = i; k < j; k = m) {
			for (m = k; m < j && p[m].y == p[k].y; m++)
				;
			tb += (double)(m - k) * (double)(m - k - 1) / 2;
		}
	}
	for (i = 0; i < n; i++)
		ys[i] = p[i].y;
	merge_count(ys, ys + n, 0, n, &swaps);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && ys[j] == ys[i]; j++)
			;
		tie_group((double)(j - i), &y3, &y2, &y1);
	}
	/* The pairs tied in neither, less twice the discordant ones. */
	s = nn * (nn - 1) / 2 - x1 / 2 - y1 / 2 + tb - 2 * swaps;
	*var = (nn * (nn - 1) * (2 * nn + 5) - x3 - y3) / 18 + x1 * y1 / (2 * nn * (nn - 1)) +
	       (n > 2 ? x2 * y2 / (9 * nn * (nn - 1) * (nn - 2)) : 0);
out:
	free(p);
	free(ys);
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
