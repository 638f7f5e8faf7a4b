/*
 * Variants 0 and 1: the column-oriented dgefa of LINPACK (pivot search, row
 * swap, scale, daxpy updates of the trailing columns).  Multipliers are
 * stored LAPACK's way (l = a / pivot) and swaps are applied to whole rows,
 * so one solve serves every variant.
 */
#include <math.h>

#include "lu.h"

static int idamax(int n, const double *x)
{
	double best = -1;
	int i, at = 0;

	for (i = 0; i < n; i++)
		if (fabs(x[i]) > best) {
			best = fabs(x[i]);
			at = i;
		}
	return at;
}

/* Pivot search, swap and scale of column K; returns the pivot row, with
 * *ZERO set when the pivot is exactly zero (the column is left as is). */
static int pivot_column(int n, double *a, int lda, int k, int *zero)
{
	double *colk = a + (size_t)k * lda, t;
	int l = k + idamax(n - k, colk + k), i;

	*zero = colk[l] == 0.0;
	if (*zero)
		return l;
	t = colk[l];
	colk[l] = colk[k];
	colk[k] = t;
	t = 1.0 / colk[k];
	for (i = k + 1; i < n; i++)
		colk[i] *= t;
	return l;
}

/* Column J at step K: the row swap, and for trailing columns the daxpy. */
static inline void update_column(int n, double *a, int lda, int k, int l, int j)
{
	const double *colk = a + (size_t)k * lda;
	double *colj = a + (size_t)j * lda, t = colj[l];
	int i;

	colj[l] = colj[k];
	colj[k] = t;
	if (j < k)
		return;
	for (i = k + 1; i < n; i++)
		colj[i] -= t * colk[i];
}

/* Variant 0: a fork/join (parallel loop) per pivot step. */
int lu_factor_classic(int n, double *a, int lda, int *ipiv, int nb)
{
	int k, l, zero, info = 0;

	(void)nb;
	for (k = 0; k < n; k++) {
		l = pivot_column(n, a, lda, k, &zero);
		ipiv[k] = l;
		if (zero) {
			if (!info)
				info = k + 1;
			continue;
		}
#pragma omp parallel for schedule(static)
		for (int j = 0; j < n; j++)
			if (j != k)
				update_column(n, a, lda, k, l, j);
	}
	return info;
}

/* Variant 1: the same arithmetic in one persistent parallel region, with
 * barriers between the steps instead of a fork/join each. */
int lu_factor_region(int n, double *a, int lda, int *ipiv, int nb)
{
	int info = 0, l = 0, zero = 0;

	(void)nb;
#pragma omp parallel
	for (int k = 0; k < n; k++) {
#pragma omp single
		{
			l = pivot_column(n, a, lda, k, &zero);
			ipiv[k] = l;
			if (zero && !info)
				info = k + 1;
		}
		if (zero) {
			/* Nobody may start the next step's pivot while another
			 * thread still reads this one's flag. */
#pragma omp barrier
			continue;
		}
#pragma omp for schedule(static)
		for (int j = 0; j < n; j++)
			if (j != k)
				update_column(n, a, lda, k, l, j);
	}
	return info;
}
