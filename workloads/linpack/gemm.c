/* Packed matrix multiply for the LU trailing update (see gemm.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gemm.h"
#include "timing.h"

/* Register tile MR x NR, cache blocks MC x KC of A and KC x NC of B.  The
 * tile is MRV vectors tall; with AVX-512 (32 vector registers) 3 x 8 doubles
 * by 8 columns, else 2 x 4 by 6, so the accumulators fill the registers. */
#if defined(__AVX512F__)
#define VW 8
#define MRV 3
#define NR 8
#else
#define VW 4
#define MRV 2
#define NR 6
#endif
#define MR (VW * MRV)
#define MC (6 * MR)
#define KC 384
#define NC 3072

#if defined(__GNUC__)
typedef double vd __attribute__((vector_size(VW * sizeof(double))));
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
	vd c[MRV][NR], a[MRV];
	int k, v, j;

	memset(c, 0, sizeof(c));
	for (k = 0; k < kc; k++) {
#pragma GCC unroll 4
		for (v = 0; v < MRV; v++)
			memcpy(&a[v], ap + v * VW, sizeof(vd));
#pragma GCC unroll 8
		for (j = 0; j < NR; j++) {
			const double b = bp[j];
#pragma GCC unroll 4
			for (v = 0; v < MRV; v++)
				c[v][j] += a[v] * b;
		}
		ap += MR;
		bp += NR;
	}
	for (j = 0; j < NR; j++)
		for (v = 0; v < MRV; v++)
			memcpy(t + j * MR + v * VW, &c[v][j], sizeof(vd));
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

const char *gemm_kernel_name(void)
{
	/* The register tile is MR (VW x MRV) rows by NR columns. */
#if defined(HAVE_VECTORS) && defined(__AVX512F__) && defined(__FMA__)
	return "AVX-512 FMA, 24x8 tile";
#elif defined(HAVE_VECTORS) && defined(__AVX512F__)
	return "AVX-512 without FMA, 24x8 tile";
#elif defined(HAVE_VECTORS) && defined(__AVX2__) && defined(__FMA__)
	return "AVX2 FMA, 8x6 tile";
#elif defined(HAVE_VECTORS)
	return "generic vectors without FMA, 8x6 tile";
#else
	return "plain C, no vectors";
#endif
}

double fma_peak_gflops(double seconds)
{
#ifdef HAVE_VECTORS
	/* Independent chains, as many as the kernel's accumulators, hide the
	 * FMA latency; the vectors are the kernel's, the widest built for. */
	enum { CHAINS = MRV * NR };
	vd x[CHAINS], m, a;
	const int inner = 1000;
	double start = now_s(), el, sum = 0;
	long iters = 0;
	int i, j;

	for (j = 0; j < VW; j++) {
		m[j] = 1.0000001;
		a[j] = 1e-9;
	}
	for (j = 0; j < CHAINS; j++)
		for (i = 0; i < VW; i++)
			x[j][i] = j;
	do {
		for (i = 0; i < inner; i++)
#pragma GCC unroll 32
			for (j = 0; j < CHAINS; j++)
				x[j] = x[j] * m + a;
		iters += inner;
		el = now_s() - start;
	} while (el < seconds);
	for (j = 0; j < CHAINS; j++)
		sum += x[j][0];
	/* Keep the result alive. */
	if (sum == 42.4242)
		return 0;
	return (double)iters * CHAINS * VW * 2 / el / 1e9;
#else
	(void)seconds;
	return 0;
#endif
}
