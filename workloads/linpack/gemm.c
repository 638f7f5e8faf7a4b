/* Packed matrix multiply for the LU trailing update (see gemm.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gemm.h"
#include "timing.h"

/* Register tile MR x NR, cache blocks MC x KC of A and KC x NC of B. */
#define MR 8
#define NR 6
#define MC 120
#define KC 256
#define NC 3072

#if defined(__GNUC__)
typedef double v4d __attribute__((vector_size(32)));
#define HAVE_VECTORS 1
#endif

void *big_alloc(size_t bytes)
{
	const size_t huge = 2u << 20;
	void *p = NULL;

	if (bytes < huge)
		return malloc(bytes ? bytes : 1);
	if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge))
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

int gemm_ws_init(struct gemm_ws *ws, int nthreads)
{
	int i;

	ws->nthreads = nthreads;
	ws->apack = calloc((size_t)nthreads, sizeof(double *));
	ws->bpack = calloc((size_t)nthreads, sizeof(double *));
	if (!ws->apack || !ws->bpack)
		return -1;
	for (i = 0; i < nthreads; i++)
		if (!(ws->apack[i] = big_alloc(sizeof(double) * MC * KC)) ||
		    !(ws->bpack[i] = big_alloc(sizeof(double) * KC * NC)))
			return -1;
	return 0;
}

void gemm_ws_fini(struct gemm_ws *ws)
{
	int i;

	for (i = 0; ws->apack && i < ws->nthreads; i++) {
		free(ws->apack[i]);
		free(ws->bpack[i]);
	}
	free(ws->apack);
	free(ws->bpack);
	memset(ws, 0, sizeof(*ws));
}

/* A block (mc x kc) into MR-row slivers, zero-padded. */
static void pack_a(int mc, int kc, const double *a, int lda, double *p)
{
	int i, k, ir, rows;

	for (ir = 0; ir < mc; ir += MR) {
		rows = mc - ir < MR ? mc - ir : MR;
		for (k = 0; k < kc; k++) {
			const double *col = a + ir + (size_t)k * lda;
			for (i = 0; i < rows; i++)
				p[i] = col[i];
			for (; i < MR; i++)
				p[i] = 0;
			p += MR;
		}
	}
}

/* B block (kc x nc) into NR-column slivers, zero-padded. */
static void pack_b(int kc, int nc, const double *b, int ldb, double *p)
{
	int j, k, jr, cols;

	for (jr = 0; jr < nc; jr += NR) {
		cols = nc - jr < NR ? nc - jr : NR;
		for (k = 0; k < kc; k++) {
			for (j = 0; j < cols; j++)
				p[j] = b[k + (size_t)(jr + j) * ldb];
			for (; j < NR; j++)
				p[j] = 0;
			p += NR;
		}
	}
}

/* The MR x NR tile: T = Ap * Bp over kc, accumulated in registers. */
static void kernel(int kc, const double *restrict ap, const double *restrict bp, double *restrict t)
{
#ifdef HAVE_VECTORS
	v4d c00 = { 0 }, c10 = { 0 }, c01 = { 0 }, c11 = { 0 }, c02 = { 0 }, c12 = { 0 };
	v4d c03 = { 0 }, c13 = { 0 }, c04 = { 0 }, c14 = { 0 }, c05 = { 0 }, c15 = { 0 };
	int k;

	for (k = 0; k < kc; k++) {
		v4d a0, a1;

		memcpy(&a0, ap, sizeof(a0));
		memcpy(&a1, ap + 4, sizeof(a1));
		c00 += a0 * bp[0]; c10 += a1 * bp[0];
		c01 += a0 * bp[1]; c11 += a1 * bp[1];
		c02 += a0 * bp[2]; c12 += a1 * bp[2];
		c03 += a0 * bp[3]; c13 += a1 * bp[3];
		c04 += a0 * bp[4]; c14 += a1 * bp[4];
		c05 += a0 * bp[5]; c15 += a1 * bp[5];
		ap += MR;
		bp += NR;
	}
	memcpy(t + 0, &c00, 32); memcpy(t + 4, &c10, 32);
	memcpy(t + 8, &c01, 32); memcpy(t + 12, &c11, 32);
	memcpy(t + 16, &c02, 32); memcpy(t + 20, &c12, 32);
	memcpy(t + 24, &c03, 32); memcpy(t + 28, &c13, 32);
	memcpy(t + 32, &c04, 32); memcpy(t + 36, &c14, 32);
	memcpy(t + 40, &c05, 32); memcpy(t + 44, &c15, 32);
#else
	int i, j, k;

	memset(t, 0, sizeof(double) * MR * NR);
	for (k = 0; k < kc; k++, ap += MR, bp += NR)
		for (j = 0; j < NR; j++)
			for (i = 0; i < MR; i++)
				t[i + j * MR] += ap[i] * bp[j];
#endif
}

/* Serial C -= A * B on one thread's part, with that thread's buffers. */
static void gemm_serial(double *apack, double *bpack, int m, int n, int k, const double *a,
			int lda, const double *b, int ldb, double *c, int ldc)
{
	double t[MR * NR];
	int jc, pc, ic, jr, ir, nc, kc, mc, i, j, rows, cols;

	for (jc = 0; jc < n; jc += NC) {
		nc = n - jc < NC ? n - jc : NC;
		for (pc = 0; pc < k; pc += KC) {
			kc = k - pc < KC ? k - pc : KC;
			pack_b(kc, nc, b + pc + (size_t)jc * ldb, ldb, bpack);
			for (ic = 0; ic < m; ic += MC) {
				mc = m - ic < MC ? m - ic : MC;
				pack_a(mc, kc, a + ic + (size_t)pc * lda, lda, apack);
				for (jr = 0; jr < nc; jr += NR) {
					cols = nc - jr < NR ? nc - jr : NR;
					for (ir = 0; ir < mc; ir += MR) {
						double *cc = c + ic + ir + (size_t)(jc + jr) * ldc;

						rows = mc - ir < MR ? mc - ir : MR;
						kernel(kc, apack + (size_t)ir * kc, bpack + (size_t)jr * kc, t);
						for (j = 0; j < cols; j++)
							for (i = 0; i < rows; i++)
								cc[i + (size_t)j * ldc] -= t[i + j * MR];
					}
				}
			}
		}
	}
}

void gemm_sub(struct gemm_ws *ws, int m, int n, int k, const double *a, int lda,
	      const double *b, int ldb, double *c, int ldc)
{
	int nt = omp_in_parallel() ? omp_get_num_threads() : 1;
	int t = omp_in_parallel() ? omp_get_thread_num() : 0;
	int lo, hi, chunk;

	if (m <= 0 || n <= 0 || k <= 0)
		return;
	/* Split the larger side in NR/MR-aligned chunks, one per thread. */
	if (n >= m || n >= nt * NR * 4) {
		chunk = ((n + nt - 1) / nt + NR - 1) / NR * NR;
		lo = t * chunk;
		hi = lo + chunk < n ? lo + chunk : n;
		if (lo < hi)
			gemm_serial(ws->apack[t % ws->nthreads], ws->bpack[t % ws->nthreads], m,
				    hi - lo, k, a, lda, b + (size_t)lo * ldb, ldb, c + (size_t)lo * ldc,
				    ldc);
	} else {
		chunk = ((m + nt - 1) / nt + MR - 1) / MR * MR;
		lo = t * chunk;
		hi = lo + chunk < m ? lo + chunk : m;
		if (lo < hi)
			gemm_serial(ws->apack[t % ws->nthreads], ws->bpack[t % ws->nthreads],
				    hi - lo, n, k, a + lo, lda, b, ldb, c + lo, ldc);
	}
}

void gemm_sub_serial(struct gemm_ws *ws, int tid, int m, int n, int k, const double *a, int lda,
		     const double *b, int ldb, double *c, int ldc)
{
	if (m > 0 && n > 0 && k > 0)
		gemm_serial(ws->apack[tid % ws->nthreads], ws->bpack[tid % ws->nthreads], m, n, k, a,
			    lda, b, ldb, c, ldc);
}

double fma_peak_gflops(double seconds)
{
#ifdef HAVE_VECTORS
	/* Twelve independent chains hide the FMA latency, as the kernel does. */
	v4d x[12], m = { 1.0000001, 1.0000001, 1.0000001, 1.0000001 }, a = { 1e-9, 1e-9, 1e-9, 1e-9 };
	const int unroll = 12, inner = 1000;
	double start = now_s(), el, sum = 0;
	long iters = 0;
	int i, j;

	for (j = 0; j < unroll; j++)
		x[j] = (v4d){ j, j, j, j };
	do {
		for (i = 0; i < inner; i++)
			for (j = 0; j < unroll; j++)
				x[j] = x[j] * m + a;
		iters += inner;
		el = now_s() - start;
	} while (el < seconds);
	for (j = 0; j < unroll; j++)
		sum += x[j][0];
	/* Keep the result alive. */
	if (sum == 42.4242)
		return 0;
	return (double)iters * unroll * 4 * 2 / el / 1e9;
#else
	(void)seconds;
	return 0;
#endif
}
