/*
 * The peer for linpack's benchmark: OpenBLAS dgetrf + dgetrs (LAPACKE) on
 * the same seeded matrix, timed and checked the same way.  Built and used by
 * `make bench` only.  Prints: MFLOPS residual openblas-config
 *   openblas_lu N [SEED]      (threads: OPENBLAS_NUM_THREADS; one untimed
 *                              factorisation first)
 * and for the multiply alone, C -= A B of order N, one untimed call first:
 *   openblas_lu --gemm ours N      MFLOPS kernel  (linpack's, OMP_NUM_THREADS)
 *   openblas_lu --gemm openblas N  MFLOPS openblas-config
 *   openblas_lu --gemm-parts N     what limits linpack's multiply (1 thread):
 *       kernel-cached kernel-streaming whole packing peak-GFLOPS
 *       (shares of the FMA peak measured first; packing over the
 *       multiply's time at the peak; see gemm_parts_measure)
 *   openblas_lu --lu-parts N       what limits linpack's LU (1 thread):
 *       whole outside-kernel kernel peak-GFLOPS NB (lu_parts_measure)
 */
#include <cblas.h>
#include <lapacke.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "lu.h"
#include "timing.h"

char *openblas_get_config(void);

static int gemm_main(const char *who, int n)
{
	const int ours = strcmp(who, "ours") == 0;
	double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
	double *c = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n), t0 = 0, secs;
	struct gemm_ws ws = { 0 };
	int rep;

	if (n < 1 || (!ours && strcmp(who, "openblas"))) {
		fprintf(stderr, "usage: openblas_lu --gemm ours|openblas N\n");
		return 2;
	}
	if (!a || !b || !c || !x || (ours && gemm_ws_init(&ws, omp_get_max_threads()) < 0))
		return 1;
	matrix_random(n, a, n, x, 1);
	matrix_random(n, b, n, x, 2);
	memset(c, 0, sizeof(double) * n * n);
	for (rep = 0; rep < 2; rep++) {
		t0 = now_s();
		if (ours) {
#pragma omp parallel
			gemm_sub(&ws, n, n, n, a, n, b, n, c, n);
		} else {
			cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, -1.0, a, n, b, n,
				    1.0, c, n);
		}
	}
	secs = now_s() - t0;
	printf("%.1f %s\n", 2.0 * n * n * n / secs / 1e6, ours ? gemm_choice()->why : openblas_get_config());
	gemm_ws_fini(&ws);
	free(a);
	free(b);
	free(c);
	free(x);
	return 0;
}

/* --gemm-parts N or --lu-parts N: the parts of the multiply or of the
 * LU (the panel width linpack takes on one thread), as shares of the peak
 * measured first in the same process. */
static int parts_main(const char *what, int n)
{
	const bool lu = strcmp(what, "--lu-parts") == 0;
	struct fma_peak peak;
	struct gemm_parts g;
	struct lu_parts l;
	const int nb = n >= 1 ? lu_default_block(n, 1) : 0;
	double need, have;

	if (n < 1) {
		fprintf(stderr, "usage: openblas_lu %s N (N a whole number >= 1)\n", what);
		return 2;
	}
	if (lu && lu_fits(n, &need, &have) < 0) {
		fprintf(stderr, "openblas_lu: N: %d needs %.1f GiB for the matrix and its copy, this machine has %.1f GiB\n",
			n, need / (1 << 30), have / (1 << 30));
		return 2;
	}
	fma_peak_measure(0.3, &peak);
	if (peak.gflops <= 0) {
		fprintf(stderr, "openblas_lu: this CPU has no FMA: no peak to take shares of\n");
		return 3;
	}
	if (lu ? lu_parts_measure(n, nb, peak.gflops, &l) < 0
	       : gemm_parts_measure(n, peak.gflops, &g) < 0) {
		fprintf(stderr, "openblas_lu: out of memory for the %s parts at N=%d\n",
			lu ? "LU's" : "multiply's", n);
		return 1;
	}
	if (lu)
		printf("%.3f %.3f %.3f %.1f %d\n", l.whole, l.outside, l.kernel, peak.gflops, nb);
	else
		printf("%.3f %.3f %.3f %.3f %.1f\n", g.tile_cached, g.tile_streaming, g.whole,
		       g.packing, peak.gflops);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, info;
	unsigned long seed = argc > 2 ? strtoul(argv[2], NULL, 10) : 1;
	size_t lda = n >= 1 ? (size_t)lu_leading_dim(n) : 1;
	double *a0, *a, *b0, *x, t0, secs;
	lapack_int *ipiv;

	if (argc == 4 && strcmp(argv[1], "--gemm") == 0)
		return gemm_main(argv[2], atoi(argv[3]));
	if (argc == 3 && (strcmp(argv[1], "--gemm-parts") == 0 || strcmp(argv[1], "--lu-parts") == 0))
		return parts_main(argv[1], atoi(argv[2]));
	if (n < 1) {
		fprintf(stderr, "usage: openblas_lu N [SEED]\n");
		return 2;
	}
	a0 = malloc(sizeof(double) * lda * n);
	a = malloc(sizeof(double) * lda * n);
	b0 = malloc(sizeof(double) * n);
	x = malloc(sizeof(double) * n);
	ipiv = malloc(sizeof(lapack_int) * n);
	if (!a0 || !a || !b0 || !x || !ipiv)
		return 1;
	matrix_random(n, a0, (int)lda, b0, seed);
	/* One factorisation untimed first: OpenBLAS's buffers made and their
	 * pages written before the clock, as linpack's are (its prepare). */
	memcpy(a, a0, sizeof(double) * lda * n);
	LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, (lapack_int)lda, ipiv);
	memcpy(a, a0, sizeof(double) * lda * n);
	memcpy(x, b0, sizeof(double) * n);
	t0 = now_s();
	info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, (lapack_int)lda, ipiv);
	if (info == 0)
		info = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, 1, a, (lapack_int)lda, ipiv, x, n);
	secs = now_s() - t0;
	if (info) {
		fprintf(stderr, "openblas_lu: dgetrf/dgetrs info %d\n", info);
		return 1;
	}
	printf("%.1f %.4g %s\n", lu_flop_counts[0].flops(n) / secs / 1e6,
	       lu_scaled_residual(n, a0, (int)lda, x, b0), openblas_get_config());
	return 0;
}
