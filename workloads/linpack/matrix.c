/* The test matrix, the solve and the residual: shared by every variant. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "lu.h"

const struct lu_variant lu_variants[] = {
	{ 0, "classic", "column dgefa, a parallel loop (fork/join) per pivot step", lu_factor_classic },
	{ 1, "region", "column dgefa in one parallel region, barriers between steps", lu_factor_region },
	{ 2, "blocked", "blocked right-looking LU with look-ahead, packed vectorised multiply (kernel chosen at start-up)", lu_factor_blocked,
	  lu_blocked_prepare, lu_blocked_release },
};
const int lu_nvariants = sizeof(lu_variants) / sizeof(lu_variants[0]);

/* xorshift64*: fast, reproducible, good enough for test matrices. */
static double next_value(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 2685821657736338717ull) >> 11) * 0x1.0p-53 - 0.5;
}

void matrix_random(int n, double *a, int lda, double *b, unsigned long seed)
{
	unsigned long long s = seed * 0x9e3779b97f4a7c15ull + 1;
	int i, j;

	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			a[i + (size_t)j * lda] = next_value(&s);
	for (i = 0; i < n; i++)
		b[i] = next_value(&s);
}

void lu_solve(int n, const double *lu, int lda, const int *ipiv, double *b)
{
	double t;
	int i, k;

	for (k = 0; k < n; k++)
		if (ipiv[k] != k) {
			t = b[k];
			b[k] = b[ipiv[k]];
			b[ipiv[k]] = t;
		}
	for (k = 0; k < n; k++) {
		const double *col = lu + (size_t)k * lda;

		for (i = k + 1; i < n; i++)
			b[i] -= b[k] * col[i];
	}
	for (k = n - 1; k >= 0; k--) {
		const double *col = lu + (size_t)k * lda;

		b[k] /= col[k];
		for (i = 0; i < k; i++)
			b[i] -= b[k] * col[i];
	}
}

double lu_scaled_residual(int n, const double *a, int lda, const double *x, const double *b)
{
	double *r = malloc(sizeof(double) * (size_t)n), *rowsum = calloc((size_t)n, sizeof(double));
	double rn = 0, an = 0, xn = 0, bn = 0, res = INFINITY;
	int i, j;

	if (!r || !rowsum)
		goto out;
	for (i = 0; i < n; i++)
		r[i] = -b[i];
	for (j = 0; j < n; j++) {
		const double *col = a + (size_t)j * lda;

		for (i = 0; i < n; i++) {
			r[i] += col[i] * x[j];
			rowsum[i] += fabs(col[i]);
		}
	}
	for (i = 0; i < n; i++) {
		/* fmax() skips NaNs: a NaN in x must make the residual infinite. */
		if (isnan(r[i]) || isnan(x[i]))
			goto out;
		rn = fmax(rn, fabs(r[i]));
		an = fmax(an, rowsum[i]);
		xn = fmax(xn, fabs(x[i]));
		bn = fmax(bn, fabs(b[i]));
	}
	res = rn / (DBL_EPSILON * (an * xn + bn) * n);
	if (isnan(res))
		res = INFINITY;
out:
	free(r);
	free(rowsum);
	return res;
}

/* A leading dimension off powers of two spares the caches' sets. */
int lu_leading_dim(int n)
{
	return n % 256 == 0 ? n + 8 : n;
}

int lu_fits(int n, double *need, double *have)
{
	*need = 2.0 * n * (double)lu_leading_dim(n) * sizeof(double);
	*have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
	return *have > 0 && *need > 0.9 * *have ? -1 : 0;
}

/* 256 columns (N when smaller), also for NTHREADS 0 (not known yet).  On
 * one thread a panel as wide as the multiply's KC (384) pays off once the
 * matrix is large (measured); with more threads narrower panels keep them
 * busier. */
int lu_default_block(int n, int nthreads)
{
	if (nthreads == 1 && n >= 2000)
		return 384;
	return n < 256 ? n : 256;
}

/* HPL's (HPL_pdtest: 2/3 N^3 + 3/2 N^2), the default so that rates compare
 * with HPL's; and LINPACK 100's (2/3 N^3 + 2 N^2). */
static double flops_hpl(int n)
{
	return 2.0 / 3.0 * (double)n * n * n + 1.5 * (double)n * n;
}

static double flops_linpack100(int n)
{
	return 2.0 / 3.0 * (double)n * n * n + 2.0 * (double)n * n;
}

const struct lu_flop_count lu_flop_counts[] = {
	{ "hpl", "HPL's 2/3 N^3 + 3/2 N^2", flops_hpl },
	{ "linpack100", "LINPACK 100's 2/3 N^3 + 2 N^2", flops_linpack100 },
};
const size_t lu_nflop_counts = sizeof(lu_flop_counts) / sizeof(lu_flop_counts[0]);
