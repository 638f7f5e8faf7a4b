/* Medians, the USL fit and the backend cutoff. */
#include <math.h>
#include <stdlib.h>

#include "analysis.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double usl_capacity(const struct usl_fit *fit, double n)
{
	return n / (1 + fit->s * (n - 1) + fit->k * n * (n - 1));
}

/* Least squares with one regressor through the origin: y = b x. */
static double ls1(const double *x, const double *y, size_t n)
{
	double sxx = 0, sxy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	return sxx > 0 ? sxy / sxx : 0;
}

int usl_fit(const double *n, const double *capacity, size_t count, struct usl_fit *fit)
{
	double *x1 = calloc(count, sizeof(double)), *x2 = calloc(count, sizeof(double));
	double *y = calloc(count, sizeof(double));
	double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0, det, err = 0, c;
	size_t i, distinct = 0, m = 0;
	bool has_one = false;
	int ret = -1;

	fit->ok = fit->poor = false;
	fit->s = fit->k = fit->rms_error = NAN;
	fit->n_peak = NAN;
	if (!x1 || !x2 || !y)
		goto out;
	for (i = 0; i < count; i++) {
		size_t j;

		has_one |= n[i] == 1;
		for (j = 0; j < i && n[j] != n[i]; j++)
			;
		distinct += j == i;
		if (!(capacity[i] > 0))
			continue;
		x1[m] = n[i] - 1;
		x2[m] = n[i] * (n[i] - 1);
		y[m] = n[i] / capacity[i] - 1;
		m++;
	}
	ret = 0;
	if (distinct < 4 || !has_one || m < 4)
		goto out;
	for (i = 0; i < m; i++) {
		a11 += x1[i] * x1[i];
		a12 += x1[i] * x2[i];
		a22 += x2[i] * x2[i];
		b1 += x1[i] * y[i];
		b2 += x2[i] * y[i];
	}
	det = a11 * a22 - a12 * a12;
	if (det == 0)
		goto out;
	fit->s = (b1 * a22 - b2 * a12) / det;
	fit->k = (a11 * b2 - a12 * b1) / det;
	/* Negative coefficients have no physical meaning: refit without them. */
	if (fit->k < 0) {
		fit->k = 0;
		fit->s = ls1(x1, y, m);
	}
	if (fit->s < 0) {
		fit->s = 0;
		fit->k = fmax(0, ls1(x2, y, m));
	}
	for (i = 0; i < count; i++) {
		if (!(capacity[i] > 0))
			continue;
		c = usl_capacity(fit, n[i]);
		err += pow((c - capacity[i]) / capacity[i], 2);
	}
	fit->rms_error = sqrt(err / (double)m);
	fit->n_peak = fit->k > 0 ? sqrt(fmax(0, 1 - fit->s) / fit->k) : INFINITY;
	fit->ok = true;
	fit->poor = fit->rms_error > 0.10;
out:
	free(x1);
	free(x2);
	free(y);
	return ret;
}

int cutoff_find(const double *size, const double *rate_a, const double *rate_b, size_t n,
		double *cut, bool *a_wins_above)
{
	double l0, l1, t;
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (!(rate_a[i] > 0 && rate_b[i] > 0 && rate_a[i + 1] > 0 && rate_b[i + 1] > 0))
			continue;
		l0 = log(rate_a[i] / rate_b[i]);
		l1 = log(rate_a[i + 1] / rate_b[i + 1]);
		if ((l0 < 0) == (l1 < 0) || l0 == l1)
			continue;
		/* Where the log ratio crosses zero, on a log size axis. */
		t = l0 / (l0 - l1);
		*cut = exp(log(size[i]) + t * (log(size[i + 1]) - log(size[i])));
		*a_wins_above = l1 > 0;
		return 1;
	}
	return 0;
}
