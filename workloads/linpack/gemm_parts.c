/* What limits the multiply on one thread: its parts timed apart (see
 * gemm.h), so that a share of the peak it misses can be traced to the
 * kernel, the memory behind it or the packing. */
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "timing.h"

/* Each part's best pass is kept: a pass the hypervisor took the core
 * away in runs longer, never shorter. */
#define PASSES 3

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

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

/* Seconds to pack A and B for C -= A B of order N, the multiply's loops
 * without its kernel. */
static double packing_s(const struct gemm_ws *ws, int n, const double *a, const double *b)
{
	double best = 0, t0, el;
	int p, jc, pc, ic, kc;

	for (p = 0; p < PASSES; p++) {
		t0 = thread_cpu_s();
		for (jc = 0; jc < n; jc += ws->nc)
			for (pc = 0; pc < n; pc += ws->kc) {
				kc = min_int(n - pc, ws->kc);
				gemm_pack_b(ws->k->nr, kc, min_int(n - jc, ws->nc), b + pc + (size_t)jc * n, n,
					    ws->bpack[0]);
				for (ic = 0; ic < n; ic += ws->mc)
					gemm_pack_a(ws->k->mr, min_int(n - ic, ws->mc), kc,
						    a + ic + (size_t)pc * n, n, ws->apack[0]);
			}
		el = thread_cpu_s() - t0;
		if (p == 0 || el < best)
			best = el;
	}
	return best;
}

static double whole_gflops(struct gemm_ws *ws, int n, const double *a, const double *b, double *c)
{
	double best = 0, t0, el;
	int p;

	for (p = 0; p < PASSES; p++) {
		t0 = thread_cpu_s();
		gemm_sub_serial(ws, 0, n, n, n, a, n, b, n, c, n);
		el = thread_cpu_s() - t0;
		if (el > 0 && 2.0 * n * n * n / el / 1e9 > best)
			best = 2.0 * n * n * n / el / 1e9;
	}
	return best;
}

int gemm_parts_measure(int n, double peak, struct gemm_parts *parts)
{
	struct gemm_ws ws = { 0 };
	const size_t nn = (size_t)n * n;
	double *a = NULL, *b = NULL, *c = NULL, *bstream = NULL, *ctile = NULL;
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
	parts->whole = whole_gflops(&ws, n, a, b, c) / peak;
	parts->packing = packing_s(&ws, n, a, b) / (2.0 * n * n * n / (peak * 1e9));
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
