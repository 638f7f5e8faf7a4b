/* What limits the multiply and the LU on one thread: their parts timed
 * apart (see gemm.h and lu.h), so that a share of the peak they miss can
 * be traced to the kernel, the memory behind it, the packing or the LU's
 * work outside the multiply. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "lu.h"
#include "timing.h"

/* Each part's best pass is kept: a pass the hypervisor took the core
 * away in runs longer, never shorter. */
#define PASSES 3

/* The kernel over WS's packed A block and NC columns of packed B at BP,
 * REPS times, C (MC x NC) in its own buffer: GFLOPS. */
static double tiles(const struct gemm_ws *ws, const double *bp, double *c, int nc, int reps)
{
	const struct gemm_kernel *k = ws->k;
	const double flops = 2.0 * ws->mc * nc * ws->kc * reps;
	double best = 0, t0, el;
	int p, r, jr, ir;

	for (p = 0; p < PASSES; p++) {
		t0 = thread_cpu_s();
		for (r = 0; r < reps; r++)
			for (jr = 0; jr < nc; jr += k->nr)
				for (ir = 0; ir < ws->mc; ir += k->mr)
					k->tile(ws->kc, ws->apack[0] + (size_t)ir * ws->kc,
						bp + (size_t)jr * ws->kc, c + ir + (size_t)jr * ws->mc,
						(size_t)ws->mc, k->mr, k->nr);
		el = thread_cpu_s() - t0;
		if (el > 0 && flops / el / 1e9 > best)
			best = flops / el / 1e9;
	}
	return best;
}

/* Seconds of C -= A B of order N on one thread, with WS's kernel. */
static double multiply_s(struct gemm_ws *ws, int n, const double *a, const double *b, double *c)
{
	double best = 0, t0, el;
	int p;

	for (p = 0; p < PASSES; p++) {
		t0 = thread_cpu_s();
		gemm_sub_serial(ws, 0, n, n, n, a, n, b, n, c, n);
		el = thread_cpu_s() - t0;
		if (p == 0 || el < best)
			best = el;
	}
	return best;
}

/* A kernel that does nothing: the multiply with it is its packing alone. */
static void no_tile(int kc, const double *ap, const double *bp, double *c, size_t ldc, int rows,
		    int cols)
{
	(void)kc, (void)ap, (void)bp, (void)c, (void)ldc, (void)rows, (void)cols;
}

int gemm_parts_measure(int n, double peak, struct gemm_parts *parts)
{
	struct gemm_ws ws = { 0 };
	struct gemm_kernel nop;
	const size_t nn = (size_t)n * n;
	double *a = NULL, *b = NULL, *c = NULL, *bstream = NULL, *ctile = NULL, ideal, secs;
	int ncols, rc = -1;
	size_t i;

	memset(parts, 0, sizeof(*parts));
	if (n < 1 || peak <= 0 || gemm_ws_init(&ws, 1) < 0)
		goto out;
	/* N columns of B, whole slivers: as many as the multiply sweeps. */
	ncols = (n + ws.k->nr - 1) / ws.k->nr * ws.k->nr;
	a = malloc(sizeof(double) * nn);
	b = malloc(sizeof(double) * nn);
	c = calloc(nn, sizeof(double));
	bstream = malloc(sizeof(double) * (size_t)ws.kc * (size_t)ncols);
	ctile = calloc((size_t)ws.mc * (size_t)ncols, sizeof(double));
	if (!a || !b || !c || !bstream || !ctile)
		goto out;
	for (i = 0; i < nn; i++) {
		a[i] = 1e-3 * (double)(i % 7);
		b[i] = 1e-3 * (double)(i % 5);
	}
	for (i = 0; i < (size_t)ws.kc * (size_t)ncols; i++)
		bstream[i] = 1e-3 * (double)(i % 3);
	for (i = 0; i < (size_t)ws.mc * (size_t)ws.kc; i++)
		ws.apack[0][i] = 1e-3 * (double)(i % 7);
	/* As many flops cached as streaming: one sliver, swept again. */
	parts->tile_cached = tiles(&ws, bstream, ctile, ws.k->nr, ncols / ws.k->nr) / peak;
	parts->tile_streaming = tiles(&ws, bstream, ctile, ncols, 1) / peak;
	ideal = 2.0 * n * n * n / (peak * 1e9);
	secs = multiply_s(&ws, n, a, b, c);
	parts->whole = secs > 0 ? ideal / secs : 0;
	nop = *ws.k;
	nop.tile = no_tile;
	ws.k = &nop;
	parts->packing = multiply_s(&ws, n, a, b, c) / ideal;
	rc = 0;
out:
	gemm_ws_fini(&ws);
	free(a);
	free(b);
	free(c);
	free(bstream);
	free(ctile);
	return rc;
}

/* Seconds of the best of PASSES factorisations of A0 (order N, leading
 * dimension LDA) in A, with kernel K (NULL: the chosen one). */
static double factor_s(int n, int lda, int nb, const double *a0, double *a, int *ipiv,
		       const struct gemm_kernel *k)
{
	double best = 0, t0, el;
	int p;

	for (p = 0; p < PASSES; p++) {
		memcpy(a, a0, sizeof(double) * (size_t)lda * (size_t)n);
		t0 = thread_cpu_s();
		if (lu_factor_blocked_with(n, a, lda, ipiv, nb, k) < 0)
			return -1;
		el = thread_cpu_s() - t0;
		if (p == 0 || el < best)
			best = el;
	}
	return best;
}

int lu_parts_measure(int n, int nb, double peak, struct lu_parts *parts)
{
	const int lda = lu_leading_dim(n), threads = omp_get_max_threads();
	const size_t bytes = sizeof(double) * (size_t)lda * (size_t)n;
	double *a0 = NULL, *a = NULL, *rhs = NULL, ideal, whole, outside, need, have;
	int *ipiv = NULL, rc = -1;
	struct gemm_kernel nop;

	memset(parts, 0, sizeof(*parts));
	if (n < 1 || nb < 1 || nb > n || peak <= 0 || lu_fits(n, &need, &have) < 0)
		return -1;
	a0 = big_alloc(bytes);
	a = big_alloc(bytes);
	rhs = malloc(sizeof(double) * (size_t)n);
	ipiv = malloc(sizeof(int) * (size_t)n);
	if (!a0 || !a || !rhs || !ipiv)
		goto out;
	matrix_random(n, a0, lda, rhs, 1);
	nop = *gemm_choice()->kernel;
	nop.tile = no_tile;
	/* One thread: its CPU time is the factorisation's; its buffers made
	 * before the clock, as linpack makes them. */
	omp_set_num_threads(1);
	if (lu_blocked_prepare(n, nb) < 0)
		goto out;
	whole = factor_s(n, lda, nb, a0, a, ipiv, NULL);
	outside = factor_s(n, lda, nb, a0, a, ipiv, &nop);
	if (whole <= 0 || outside < 0)
		goto out;
	ideal = 2.0 / 3.0 * n * (double)n * n / (peak * 1e9);
	parts->whole = ideal / whole;
	parts->outside = outside / whole;
	parts->kernel = whole > outside ? ideal / (whole - outside) : 0;
	rc = 0;
out:
	lu_blocked_release();
	omp_set_num_threads(threads);
	free(a0);
	free(a);
	free(rhs);
	free(ipiv);
	return rc;
}
