/*
 * Variant 2: right-looking blocked LU.  Each panel of NB columns is factored
 * recursively (its updates are matrix multiplies too), its row swaps are
 * applied across the matrix, the block row is solved with the unit lower
 * triangle, and the trailing matrix gets the packed, vectorised multiply,
 * shared by the threads.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "gemm.h"
#include "lu.h"

#define PANEL_LEAF 8

static void swap_rows(double *a, int lda, int r1, int r2, int c0, int c1)
{
	double t;
	int j;

	if (r1 == r2)
		return;
	for (j = c0; j < c1; j++) {
		t = a[r1 + (size_t)j * lda];
		a[r1 + (size_t)j * lda] = a[r2 + (size_t)j * lda];
		a[r2 + (size_t)j * lda] = t;
	}
}

/* Apply the row interchanges IPIV[K0..K1) to columns C0..C1, column by
 * column so each column is walked once while it is in cache. */
static void swap_block(double *a, int lda, const int *ipiv, int k0, int k1, int c0, int c1)
{
	double t;
	int j, k;

	for (j = c0; j < c1; j++) {
		double *col = a + (size_t)j * lda;

		for (k = k0; k < k1; k++)
			if (ipiv[k] != k) {
				t = col[k];
				col[k] = col[ipiv[k]];
				col[ipiv[k]] = t;
			}
	}
}

#define TRSM_LEAF 16

/* B (nb x ncols) = L^-1 B, L unit lower nb x nb; recursive, so most of the
 * work is the packed multiply (one thread: TID's buffers). */
static void trsm_lower_unit(struct gemm_ws *ws, int tid, int nb, const double *l, int lda,
			    double *b, int ncols)
{
	int i, k, j, n1;

	if (nb <= TRSM_LEAF) {
		for (j = 0; j < ncols; j++) {
			double *col = b + (size_t)j * lda;

			for (k = 0; k < nb; k++) {
				const double *lk = l + (size_t)k * lda;
				double t = col[k];

				for (i = k + 1; i < nb; i++)
					col[i] -= t * lk[i];
			}
		}
		return;
	}
	n1 = nb / 2;
	trsm_lower_unit(ws, tid, n1, l, lda, b, ncols);
	gemm_sub_serial(ws, tid, nb - n1, ncols, n1, l + n1, lda, b, lda, b + n1, lda);
	trsm_lower_unit(ws, tid, nb - n1, l + n1 + (size_t)n1 * lda, lda, b + n1, ncols);
}

/* The unblocked leaf: right-looking on an m x n panel (n small). */
static int panel_leaf(int m, int n, double *a, int lda, int *ipiv)
{
	int k, i, j, l, info = 0;
	double best, t;

	for (k = 0; k < n && k < m; k++) {
		double *colk = a + (size_t)k * lda;

		for (l = k, best = -1, i = k; i < m; i++)
			if (fabs(colk[i]) > best) {
				best = fabs(colk[i]);
				l = i;
			}
		ipiv[k] = l;
		if (colk[l] == 0.0) {
			if (!info)
				info = k + 1;
			continue;
		}
		swap_rows(a, lda, k, l, 0, n);
		t = 1.0 / colk[k];
		for (i = k + 1; i < m; i++)
			colk[i] *= t;
		for (j = k + 1; j < n; j++) {
			double *colj = a + (size_t)j * lda, u = colj[k];

			for (i = k + 1; i < m; i++)
				colj[i] -= u * colk[i];
		}
	}
	return info;
}

/* Recursive panel factorisation (as LAPACK's dgetrf2): halves the columns,
 * so most of the panel's work is a matrix multiply. */
static int panel(struct gemm_ws *ws, int m, int n, double *a, int lda, int *ipiv)
{
	int n1, n2, k, info, info2;

	if (n <= PANEL_LEAF)
		return panel_leaf(m, n, a, lda, ipiv);
	n1 = n / 2;
	n2 = n - n1;
	info = panel(ws, m, n1, a, lda, ipiv);
	swap_block(a, lda, ipiv, 0, n1, n1, n);
	trsm_lower_unit(ws, 0, n1, a, lda, a + (size_t)n1 * lda, n2);
	gemm_sub(ws, m - n1, n2, n1, a + n1, lda, a + (size_t)n1 * lda, lda,
		 a + n1 + (size_t)n1 * lda, lda);
	info2 = panel(ws, m - n1, n2, a + n1 + (size_t)n1 * lda, lda, ipiv + n1);
	for (k = n1; k < n && k < m; k++)
		ipiv[k] += n1;
	swap_block(a, lda, ipiv, n1, n < m ? n : m, 0, n1);
	return info ? info : info2 ? info2 + n1 : 0;
}

int lu_factor_blocked(int n, double *a, int lda, int *ipiv, int nb)
{
	struct gemm_ws ws = { 0 };
	int j0, jb, k, info = 0, pinfo;

	if (gemm_ws_init(&ws, omp_get_max_threads()) < 0) {
		gemm_ws_fini(&ws);
		return -1;
	}
	for (j0 = 0; j0 < n; j0 += nb) {
		jb = n - j0 < nb ? n - j0 : nb;
		pinfo = panel(&ws, n - j0, jb, a + j0 + (size_t)j0 * lda, lda, ipiv + j0);
		if (pinfo && !info)
			info = pinfo + j0;
		for (k = j0; k < j0 + jb; k++)
			ipiv[k] += j0;
		const int right = j0 + jb, m2 = n - right;
#pragma omp parallel
		{
			int t = omp_get_thread_num(), nt = omp_get_num_threads();
			int chunk_l = (j0 + nt - 1) / nt, chunk_r = (m2 + nt - 1) / nt;
			int l0 = t * chunk_l, l1 = l0 + chunk_l < j0 ? l0 + chunk_l : j0;
			int r0 = right + t * chunk_r, r1 = r0 + chunk_r < n ? r0 + chunk_r : n;

			/* Each thread swaps and solves its own columns: no sharing. */
			swap_block(a, lda, ipiv, j0, j0 + jb, l0, l1);
			swap_block(a, lda, ipiv, j0, j0 + jb, r0, r1);
			if (r0 < r1)
				trsm_lower_unit(&ws, t, jb, a + j0 + (size_t)j0 * lda, lda,
						a + j0 + (size_t)r0 * lda, r1 - r0);
#pragma omp barrier
			gemm_sub(&ws, m2, m2, jb, a + right + (size_t)j0 * lda, lda,
				 a + j0 + (size_t)right * lda, lda, a + right + (size_t)right * lda, lda);
		}
	}
	gemm_ws_fini(&ws);
	return info;
}
