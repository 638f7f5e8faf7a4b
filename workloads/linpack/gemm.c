/* Packed matrix multiply for the LU trailing update (see gemm.h). */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gemm.h"
#include "placement.h"
#include "timing.h"

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_X86 1
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

/*
 * The micro-kernels.  A tile is MRV vectors of VW doubles tall and NR
 * columns wide; its accumulators, the MRV vectors of A and the broadcast B
 * value fill the vector registers (32 with AVX-512, 16 with AVX2 and
 * SSE2).  Each k step loads MRV vectors of the A sliver and broadcasts NR
 * values of the B sliver; the A sliver is prefetched PF_A steps ahead,
 * every line of the C tile before the loop, for writing (only its first
 * and last: the whole multiply 0.96 as fast, median of 14 pairs), and the
 * next B sliver into L2 step by step (the next column block's tiles read
 * it: without this the first of them waited on L3 or memory, and the
 * kernel sweeping B ran at 0.77-0.79 of the FMA peak at 2000^3 on a Zen 5
 * against 0.87-0.90).
 * A full tile is updated in C with vector loads and stores; an edge tile
 * through a scratch tile.
 */
#define PF_A 8
#define DEFINE_TILE(fname, attr, VW, MRV, NR)                                                   \
	attr static void fname(int kc, const double *restrict ap, const double *restrict bp,    \
			       double *restrict c, size_t ldc, int rows, int cols)              \
	{                                                                                       \
		typedef double v_t __attribute__((vector_size((VW) * sizeof(double))));         \
		enum { MR = (VW) * (MRV) };                                                      \
		v_t acc[MRV][NR], av[MRV];                                                       \
		int k, i, j;                                                                     \
                                                                                                \
		_Pragma("GCC unroll 16") for (j = 0; j < NR; j++)                                \
		{                                                                                \
			_Pragma("GCC unroll 4") for (i = 0; i < MRV; i++) acc[i][j] = (v_t){ 0 }; \
			_Pragma("GCC unroll 4") for (i = 0; i < MR; i += 8)                      \
				__builtin_prefetch(c + j * ldc + i, 1);                          \
			__builtin_prefetch(c + j * ldc + MR - 1, 1);                             \
		}                                                                                \
		_Pragma("GCC unroll 4") for (k = 0; k < kc; k++) {                               \
			__builtin_prefetch(ap + PF_A * MR, 0);                                   \
			__builtin_prefetch(bp + (size_t)kc * NR, 0, 2);                          \
			_Pragma("GCC unroll 4") for (i = 0; i < MRV; i++)                        \
				memcpy(&av[i], ap + i * (VW), sizeof(v_t));                      \
			_Pragma("GCC unroll 16") for (j = 0; j < NR; j++)                        \
			{                                                                        \
				const double b = bp[j];                                          \
				_Pragma("GCC unroll 4") for (i = 0; i < MRV; i++)                \
					acc[i][j] += av[i] * b;                                  \
			}                                                                        \
			ap += MR;                                                                \
			bp += NR;                                                                \
		}                                                                                \
		if (rows == MR && cols == NR) {                                                  \
			_Pragma("GCC unroll 16") for (j = 0; j < NR; j++)                        \
				_Pragma("GCC unroll 4") for (i = 0; i < MRV; i++)                \
				{                                                                \
					v_t t;                                                   \
					memcpy(&t, c + j * ldc + i * (VW), sizeof(v_t));         \
					t -= acc[i][j];                                          \
					memcpy(c + j * ldc + i * (VW), &t, sizeof(v_t));         \
				}                                                                \
		} else {                                                                         \
			double t[MR * NR];                                                       \
                                                                                                \
			for (j = 0; j < NR; j++)                                                 \
				for (i = 0; i < MRV; i++)                                        \
					memcpy(t + j * MR + i * (VW), &acc[i][j], sizeof(v_t));  \
			for (j = 0; j < cols; j++)                                               \
				for (i = 0; i < rows; i++)                                       \
					c[i + j * ldc] -= t[i + j * MR];                         \
		}                                                                                \
	}

/* Independent FMA chains hide the FMA latency: one core's peak at that
 * vector width, in the thread's CPU time, as the best of 10 ms slices (a
 * slice the hypervisor took the core away in counts that time as the
 * thread's in a VM: the best slice is the one it ran through). */
#define PEAK_SLICE_S 0.01
/* FMAs (adds) between two reads of the thread's clock: that read is a
 * system call, 1.4 us in our VMs, so it comes every 0.1 ms or so (at
 * 1000 FMAs a read it cost a third of the measured peak). */
#define PEAK_INNER 960000
#define DEFINE_PEAK(fname, attr, VW, CHAINS)                                                    \
	attr static double fname(double seconds)                                                \
	{                                                                                       \
		typedef double v_t __attribute__((vector_size((VW) * sizeof(double))));         \
		v_t x[CHAINS], m, a;                                                             \
		double start = thread_cpu_s(), t0 = start, now, best = 0, sum = 0;                \
		long iters = 0;                                                                  \
		int i, j;                                                                        \
                                                                                                \
		for (j = 0; j < (VW); j++) {                                                     \
			m[j] = 1.0000001;                                                        \
			a[j] = 1e-9;                                                             \
		}                                                                                \
		for (j = 0; j < (CHAINS); j++)                                                   \
			for (i = 0; i < (VW); i++)                                               \
				x[j][i] = j;                                                     \
		do {                                                                             \
			for (i = 0; i < PEAK_INNER / (CHAINS); i++)                              \
				_Pragma("GCC unroll 32") for (j = 0; j < (CHAINS); j++)          \
					x[j] = x[j] * m + a;                                     \
			iters += PEAK_INNER / (CHAINS);                                          \
			now = thread_cpu_s();                                                    \
			if (now - t0 >= PEAK_SLICE_S) {                                          \
				best = fmax(best, (double)iters * (CHAINS) * (VW) * 2 / (now - t0) / 1e9); \
				iters = 0;                                                       \
				t0 = now;                                                        \
			}                                                                        \
		} while (now - start < seconds);                                                 \
		for (j = 0; j < (CHAINS); j++)                                                   \
			sum += x[j][0];                                                          \
		/* Keep the result alive. */                                                     \
		return sum == 42.4242 ? 0 : best;                                                \
	}

#ifdef HAVE_X86
#define AVX512 __attribute__((target("avx512f,fma")))
#define AVX2 __attribute__((target("avx2,fma")))
DEFINE_TILE(tile_avx512_24x8, AVX512, 8, 3, 8)
DEFINE_TILE(tile_avx512_16x14, AVX512, 8, 2, 14)
DEFINE_TILE(tile_avx2_12x4, AVX2, 4, 3, 4)
DEFINE_TILE(tile_avx2_8x6, AVX2, 4, 2, 6)
/* Several chain counts per width, the best kept: whether a count's
 * chains and operands all stay in registers depends on the compiler's
 * register allocation (at 24 chains GCC under -march=native once kept an
 * operand on the stack, and that loop ran at 2/3 of the FMA peak). */
DEFINE_PEAK(peak_avx512_8, AVX512, 8, 8)
DEFINE_PEAK(peak_avx512_12, AVX512, 8, 12)
DEFINE_PEAK(peak_avx512_16, AVX512, 8, 16)
DEFINE_PEAK(peak_avx512_24, AVX512, 8, 24)
DEFINE_PEAK(peak_avx2_8, AVX2, 4, 8)
DEFINE_PEAK(peak_avx2_10, AVX2, 4, 10)
DEFINE_PEAK(peak_avx2_12, AVX2, 4, 12)

static bool has_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
}

static bool has_avx2_fma(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

/* The generic kernel: 128-bit vectors (SSE2 on x86-64, whatever the
 * target has elsewhere), built for the build's own flags. */
DEFINE_TILE(tile_generic_4x6, , 2, 2, 6)

static bool always(void)
{
	return true;
}

/* The preferred first: a measurement within 3 % keeps the earlier. */
const struct gemm_kernel gemm_kernels[] = {
#ifdef HAVE_X86
	{ "avx512-24x8", "AVX-512F FMA, 512-bit", "avx512f fma", 24, 8, 8, true, has_avx512,
	  tile_avx512_24x8 },
	{ "avx512-16x14", "AVX-512F FMA, 512-bit", "avx512f fma", 16, 14, 8, true, has_avx512,
	  tile_avx512_16x14 },
	{ "avx2-12x4", "AVX2 FMA, 256-bit", "avx2 fma", 12, 4, 4, true, has_avx2_fma,
	  tile_avx2_12x4 },
	{ "avx2-8x6", "AVX2 FMA, 256-bit", "avx2 fma", 8, 6, 4, true, has_avx2_fma,
	  tile_avx2_8x6 },
#endif
	{ "generic-4x6", "generic 128-bit vectors, without FMA", "", 4, 6, 2, false, always,
	  tile_generic_4x6 },
};
const int gemm_nkernels = sizeof(gemm_kernels) / sizeof(gemm_kernels[0]);

/* This machine's L1d, L2 and L3 sizes, read once: from hwloc (the caches
 * above the PU this thread runs on), else from the C library (cpuid),
 * else sizes common today. */
static struct {
	long size[3];
	char text[96];
} caches;

static void read_caches(void)
{
	static const int names[3] = { _SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE,
				       _SC_LEVEL3_CACHE_SIZE };
	static const long common[3] = { 32 << 10, 1 << 20, 8 << 20 };
	static const char *const from[] = { "hwloc", "the C library", "assumed" };
	pl_topology_t topo = NULL;
	int cpu = sched_getcpu(), i, worst = 0, src;
	bool hw = cpu >= 0 && pl_topology_init(&topo) == 0 && pl_topology_set_caches(topo, true) == 0 &&
		  pl_topology_load(topo) == 0;

	for (i = 0; i < 3; i++) {
		unsigned long long v = hw ? pl_topology_get_cache_size(topo, (unsigned)cpu, (unsigned)i + 1) : 0;
		long c = sysconf(names[i]);

		src = v > 0 && v < (1ull << 40) ? 0 : c > 0 ? 1 : 2;
		caches.size[i] = src == 0 ? (long)v : src == 1 ? c : common[i];
		worst = src > worst ? src : worst;
	}
	pl_topology_destroy(topo);
	snprintf(caches.text, sizeof(caches.text), "L1d %ld KiB, L2 %ld KiB, L3 %ld KiB (%s)",
		 caches.size[0] >> 10, caches.size[1] >> 10, caches.size[2] >> 10, from[worst]);
}

void gemm_read_caches(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, read_caches);
}

static int clamp(long v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : (int)v;
}

/*
 * The analytical model (Low et al., "Analytical modeling is enough for
 * high-performance BLIS"): the B sliver KC x NR stays in half of L1 while
 * the A slivers stream through it, the A block MC x KC in half of L2, the B
 * panel KC x NC in a part of L3.  Cache sizes from hwloc (read_caches()).
 */
void gemm_blocking_for(const struct gemm_kernel *k, struct gemm_blocking *b)
{
	long l1, l2, l3;

	gemm_read_caches();
	l1 = caches.size[0];
	l2 = caches.size[1];
	l3 = caches.size[2];

	b->kc = clamp(l1 / 2 / ((long)k->nr * 8), 128, 512) / 8 * 8;
	b->mc = clamp(l2 / 2 / ((long)b->kc * 8), k->mr, 4096) / k->mr * k->mr;
	b->nc = clamp(l3 / 4 / ((long)b->kc * 8), k->nr * 16, 4096) / k->nr * k->nr;
}

int gemm_ws_init_with(struct gemm_ws *ws, int nthreads, const struct gemm_kernel *k, int mc,
		      int kc, int nc)
{
	struct gemm_blocking b;
	int i;

	memset(ws, 0, sizeof(*ws));
	gemm_blocking_for(k, &b);
	ws->k = k;
	ws->kc = kc > 0 ? kc : b.kc;
	ws->mc = mc > 0 ? (mc + k->mr - 1) / k->mr * k->mr : b.mc;
	ws->nc = nc > 0 ? (nc + k->nr - 1) / k->nr * k->nr : b.nc;
	ws->nthreads = nthreads;
	ws->apack = calloc((size_t)nthreads, sizeof(double *));
	ws->bpack = calloc((size_t)nthreads, sizeof(double *));
	if (!ws->apack || !ws->bpack)
		return -1;
	for (i = 0; i < nthreads; i++)
		if (!(ws->apack[i] = big_alloc(sizeof(double) * (size_t)ws->mc * ws->kc)) ||
		    !(ws->bpack[i] = big_alloc(sizeof(double) * (size_t)ws->kc * ws->nc)))
			return -1;
	return 0;
}

int gemm_ws_init(struct gemm_ws *ws, int nthreads)
{
	const struct gemm_choice *c = gemm_choice();

	return gemm_ws_init_with(ws, nthreads, c->kernel, c->blk.mc, c->blk.kc, c->blk.nc);
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

/* A block (mc x kc) into MR-row slivers, zero-padded; a whole sliver's
 * column is one fixed-size copy, so the tile heights the kernels have get
 * their own inlined copies. */
static inline void pack_a_mr(const int mr, int mc, int kc, const double *a, int lda, double *p)
{
	int i, k, ir, rows;

	for (ir = 0; ir < mc; ir += mr) {
		rows = mc - ir < mr ? mc - ir : mr;
		if (rows == mr) {
			for (k = 0; k < kc; k++, p += mr)
				memcpy(p, a + ir + (size_t)k * lda, sizeof(double) * (size_t)mr);
			continue;
		}
		for (k = 0; k < kc; k++, p += mr) {
			const double *col = a + ir + (size_t)k * lda;

			for (i = 0; i < rows; i++)
				p[i] = col[i];
			for (; i < mr; i++)
				p[i] = 0;
		}
	}
}

static void pack_a(int mr, int mc, int kc, const double *a, int lda, double *p)
{
	switch (mr) {
	case 24: pack_a_mr(24, mc, kc, a, lda, p); break;
	case 16: pack_a_mr(16, mc, kc, a, lda, p); break;
	case 12: pack_a_mr(12, mc, kc, a, lda, p); break;
	case 8: pack_a_mr(8, mc, kc, a, lda, p); break;
	case 4: pack_a_mr(4, mc, kc, a, lda, p); break;
	default: pack_a_mr(mr, mc, kc, a, lda, p); break;
	}
}

/* B block (kc x nc) into NR-column slivers, zero-padded; the same for the
 * kernels' widths. */
static inline void pack_b_nr(const int nr, int kc, int nc, const double *b, int ldb, double *p)
{
	int j, k, jr, cols;

	for (jr = 0; jr < nc; jr += nr) {
		const double *bj = b + (size_t)jr * ldb;

		cols = nc - jr < nr ? nc - jr : nr;
		if (cols == nr) {
			for (k = 0; k < kc; k++, p += nr)
				for (j = 0; j < nr; j++)
					p[j] = bj[k + (size_t)j * ldb];
			continue;
		}
		for (k = 0; k < kc; k++, p += nr) {
			for (j = 0; j < cols; j++)
				p[j] = bj[k + (size_t)j * ldb];
			for (; j < nr; j++)
				p[j] = 0;
		}
	}
}

static void pack_b(int nr, int kc, int nc, const double *b, int ldb, double *p)
{
	switch (nr) {
	case 14: pack_b_nr(14, kc, nc, b, ldb, p); break;
	case 8: pack_b_nr(8, kc, nc, b, ldb, p); break;
	case 6: pack_b_nr(6, kc, nc, b, ldb, p); break;
	case 4: pack_b_nr(4, kc, nc, b, ldb, p); break;
	default: pack_b_nr(nr, kc, nc, b, ldb, p); break;
	}
}

/* M rows as the packed A holds them: whole slivers of MR, zero-padded. */
static size_t padded_rows(int m, int mr)
{
	return (size_t)(m + mr - 1) / (size_t)mr * (size_t)mr;
}

/* Serial C -= A * B on one thread's part, with that thread's buffers; A
 * packed here block by block, or all of it before (PRE, from gemm_pack_a:
 * A and LDA unused). */
static void gemm_serial(const struct gemm_ws *ws, double *apack, double *bpack, const double *pre,
			int m, int n, int k, const double *a, int lda, const double *b, int ldb,
			double *c, int ldc)
{
	const struct gemm_kernel *kern = ws->k;
	const int mr = kern->mr, nr = kern->nr;
	const size_t mpad = padded_rows(m, mr);
	int jc, pc, ic, jr, ir, nc, kc, mc;
	const double *ablock;

	for (jc = 0; jc < n; jc += ws->nc) {
		nc = n - jc < ws->nc ? n - jc : ws->nc;
		for (pc = 0; pc < k; pc += ws->kc) {
			kc = k - pc < ws->kc ? k - pc : ws->kc;
			pack_b(nr, kc, nc, b + pc + (size_t)jc * ldb, ldb, bpack);
			for (ic = 0; ic < m; ic += ws->mc) {
				mc = m - ic < ws->mc ? m - ic : ws->mc;
				if (pre) {
					ablock = pre + (size_t)pc * mpad + (size_t)ic * kc;
				} else {
					pack_a(mr, mc, kc, a + ic + (size_t)pc * lda, lda, apack);
					ablock = apack;
				}
				for (jr = 0; jr < nc; jr += nr)
					for (ir = 0; ir < mc; ir += mr)
						kern->tile(kc, ablock + (size_t)ir * kc, bpack + (size_t)jr * kc,
							   c + ic + ir + (size_t)(jc + jr) * ldc, (size_t)ldc,
							   mc - ir < mr ? mc - ir : mr,
							   nc - jr < nr ? nc - jr : nr);
			}
		}
	}
}

size_t gemm_packed_a_len(const struct gemm_ws *ws, int m, int k)
{
	return m > 0 && k > 0 ? padded_rows(m, ws->k->mr) * (size_t)k : 0;
}

void gemm_pack_a(const struct gemm_ws *ws, int m, int k, const double *a, int lda, double *p)
{
	const size_t mpad = padded_rows(m, ws->k->mr);
	int pc;

	for (pc = 0; m > 0 && pc < k; pc += ws->kc)
		pack_a(ws->k->mr, m, k - pc < ws->kc ? k - pc : ws->kc, a + (size_t)pc * lda, lda,
		       p + (size_t)pc * mpad);
}

void gemm_sub_serial_packed(struct gemm_ws *ws, int tid, int m, int n, int k, const double *pre,
			    const double *b, int ldb, double *c, int ldc)
{
	if (m > 0 && n > 0 && k > 0)
		gemm_serial(ws, NULL, ws->bpack[tid % ws->nthreads], pre, m, n, k, NULL, 0, b, ldb,
			    c, ldc);
}

void gemm_sub(struct gemm_ws *ws, int m, int n, int k, const double *a, int lda,
	      const double *b, int ldb, double *c, int ldc)
{
	int nt = omp_in_parallel() ? omp_get_num_threads() : 1;
	int t = omp_in_parallel() ? omp_get_thread_num() : 0;
	const int mr = ws->k->mr, nr = ws->k->nr;
	int lo, hi, chunk;

	if (m <= 0 || n <= 0 || k <= 0)
		return;
	/* Split the larger side in NR/MR-aligned chunks, one per thread. */
	if (n >= m || n >= nt * nr * 4) {
		chunk = ((n + nt - 1) / nt + nr - 1) / nr * nr;
		lo = t * chunk;
		hi = lo + chunk < n ? lo + chunk : n;
		if (lo < hi)
			gemm_serial(ws, ws->apack[t % ws->nthreads], ws->bpack[t % ws->nthreads], NULL, m,
				    hi - lo, k, a, lda, b + (size_t)lo * ldb, ldb, c + (size_t)lo * ldc,
				    ldc);
	} else {
		chunk = ((m + nt - 1) / nt + mr - 1) / mr * mr;
		lo = t * chunk;
		hi = lo + chunk < m ? lo + chunk : m;
		if (lo < hi)
			gemm_serial(ws, ws->apack[t % ws->nthreads], ws->bpack[t % ws->nthreads], NULL,
				    hi - lo, n, k, a + lo, lda, b, ldb, c + lo, ldc);
	}
}

void gemm_sub_serial(struct gemm_ws *ws, int tid, int m, int n, int k, const double *a, int lda,
		     const double *b, int ldb, double *c, int ldc)
{
	if (m > 0 && n > 0 && k > 0)
		gemm_serial(ws, ws->apack[tid % ws->nthreads], ws->bpack[tid % ws->nthreads], NULL, m, n,
			    k, a, lda, b, ldb, c, ldc);
}

/* K's rate on a multiply of order TRIAL with its own blocking, GFLOPS:
 * packing and the cache blocks included, best of PASSES after one that
 * warms the caches and the vector units. */
#define TRIAL 256
static double time_kernel(const struct gemm_kernel *k, double *a, int passes)
{
	struct gemm_ws ws;
	double best = 0, t0, el, *b = a + TRIAL * TRIAL, *c = b + TRIAL * TRIAL;
	int p;

	if (gemm_ws_init_with(&ws, 1, k, 0, 0, 0) < 0) {
		gemm_ws_fini(&ws);
		return 0;
	}
	for (p = 0; p <= passes; p++) {
		t0 = thread_cpu_s();
		gemm_serial(&ws, ws.apack[0], ws.bpack[0], NULL, TRIAL, TRIAL, TRIAL, a, TRIAL, b, TRIAL, c,
			    TRIAL);
		el = thread_cpu_s() - t0;
		if (p > 0 && el > 0 && 2.0 * TRIAL * TRIAL * TRIAL / el / 1e9 > best)
			best = 2.0 * TRIAL * TRIAL * TRIAL / el / 1e9;
	}
	gemm_ws_fini(&ws);
	return best;
}

static struct gemm_choice chosen;

/* The kernels are timed in turns, each kernel's best of the rounds kept:
 * a clock that changes for a while (a shared host, another thread's
 * start-up) changes every kernel's rate, not one's. */
#define ROUNDS 3
static void choose(void)
{
	const size_t len = 3 * TRIAL * TRIAL;
	double *buf = malloc(sizeof(double) * len), best = -1, rate[16] = { 0 }, r;
	const struct gemm_kernel *generic = NULL;
	int i, round, timed = 0;
	size_t j;

	for (j = 0; buf && j < len; j++)
		buf[j] = j < 2 * TRIAL * TRIAL ? 1e-3 * (double)(j % 7) : 0;
	for (round = 0; buf && round < ROUNDS; round++)
		for (i = 0; i < gemm_nkernels && i < 16; i++)
			if (gemm_kernels[i].fma && gemm_kernels[i].supported() &&
			    (r = time_kernel(&gemm_kernels[i], buf, 1)) > rate[i])
				rate[i] = r;
	for (i = 0; i < gemm_nkernels; i++) {
		const struct gemm_kernel *k = &gemm_kernels[i];

		if (!k->supported())
			continue;
		if (!k->fma) {
			generic = generic ? generic : k;
			continue;
		}
		if (!buf) {
			/* No memory to time them: the first the CPU runs. */
			chosen.kernel = k;
			break;
		}
		timed++;
		/* Within 3 % is a tie, kept by the earlier in the table: the
		 * choice does not flip with the noise of a shared machine. */
		if (rate[i] > best * 1.03) {
			best = rate[i];
			chosen.kernel = k;
		}
	}
	free(buf);
	if (!chosen.kernel) {
		chosen.kernel = generic;
		snprintf(chosen.why, sizeof(chosen.why),
			 "%s (%s: the CPU has no AVX2 FMA or AVX-512)", generic->name, generic->isa);
	} else {
		snprintf(chosen.why, sizeof(chosen.why), "%s (%s; fastest of %d timed, ties to the first)",
			 chosen.kernel->name, chosen.kernel->isa, timed);
	}
	gemm_blocking_for(chosen.kernel, &chosen.blk);
	snprintf(chosen.caches, sizeof(chosen.caches), "%s", caches.text);
}

const struct gemm_choice *gemm_choice(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, choose);
	return &chosen;
}

/* The FMA loops --peak runs: every chain count at every width. */
static const struct peak_loop {
	const char *width;
	int vw, chains;
	bool (*supported)(void);
	double (*run)(double seconds);
} peak_loops[] = {
#ifdef HAVE_X86
	{ "512-bit", 8, 8, has_avx512, peak_avx512_8 },
	{ "512-bit", 8, 12, has_avx512, peak_avx512_12 },
	{ "512-bit", 8, 16, has_avx512, peak_avx512_16 },
	{ "512-bit", 8, 24, has_avx512, peak_avx512_24 },
	{ "256-bit", 4, 8, has_avx2_fma, peak_avx2_8 },
	{ "256-bit", 4, 10, has_avx2_fma, peak_avx2_10 },
	{ "256-bit", 4, 12, has_avx2_fma, peak_avx2_12 },
#endif
};

/* The clock while this thread runs, in GHz: a chain of dependent integer
 * adds of one register to another retires one add per cycle on every x86-64
 * core, so adds per second of thread CPU time are cycles per second (the
 * best 10 ms slice, as for the FMA loops).  Not adds of an immediate: Intel's
 * cores since Golden Cove fold those at rename, several a cycle (a chain of
 * them read 17 GHz on a 3 GHz Sapphire Rapids).  0 elsewhere.  Not inlined:
 * tests/sh/peak_code.sh checks its adds in the binary. */
__attribute__((noinline)) static double add_chain_ghz(double seconds)
{
#ifdef HAVE_X86
	double start = thread_cpu_s(), t0 = start, now, best = 0;
	long adds = 0, x = 0, one = 1;

	do {
		for (int i = 0; i < PEAK_INNER / 100; i++)
			__asm__ volatile(".rept 100\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
		adds += PEAK_INNER / 100 * 100;
		now = thread_cpu_s();
		if (now - t0 >= PEAK_SLICE_S) {
			best = fmax(best, (double)adds / (now - t0) / 1e9);
			adds = 0;
			t0 = now;
		}
	} while (now - start < seconds);
	return best;
#else
	(void)seconds;
	return 0;
#endif
}

void fma_peak_measure(double seconds, struct fma_peak *p)
{
	size_t i, n = 0, nloops = sizeof(peak_loops) / sizeof(peak_loops[0]);
	const struct peak_loop *best = NULL;
	double rate, fpc;

	*p = (struct fma_peak){ .width = "none" };
	for (i = 0; i < nloops; i++)
		n += peak_loops[i].supported();
	for (i = 0; i < nloops; i++) {
		if (!peak_loops[i].supported())
			continue;
		rate = peak_loops[i].run(seconds / (double)n);
		if (rate > p->gflops) {
			p->gflops = rate;
			best = &peak_loops[i];
		}
	}
	if (!best)
		return;
	p->width = best->width;
	p->vw = best->vw;
	p->chains = best->chains;
	p->ghz = add_chain_ghz(fmin(seconds / 4, 0.2));
	if (p->ghz <= 0)
		return;
	/* The CPU states no FMA unit count: the nearest whole number of
	 * full-width FMAs per cycle is the theory the measurement is held to. */
	fpc = p->gflops / (p->ghz * p->vw * 2);
	p->fma_per_cycle = fpc < 0.75 ? 0.5 : round(fpc);
	p->theoretical = p->fma_per_cycle * p->vw * 2 * p->ghz;
}

/* The theory against the measured peak, in words.  Below the theory, the
 * clock the measured rate means at that many FMAs a cycle: many cores run
 * wide vector code at a lower clock than the scalar adds that clocked them
 * (an Intel core with two 512-bit FMA ports: 2.76 GHz under the FMAs
 * against 2.97 under the adds). */
static void peak_verdict(const struct fma_peak *p, char *buf, size_t len)
{
	const double r = p->gflops / p->theoretical;

	if (fabs(r - 1) <= 0.05)
		snprintf(buf, len, ": they agree");
	else if (r < 1)
		snprintf(buf, len,
			 ": they DISAGREE by more than 5%%: at %g FMA per cycle the measured rate means %.2f GHz under the FMAs, against the add chain's %.2f (many cores run %s code at a lower clock than scalar code), or the loops did not reach the units",
			 p->fma_per_cycle, p->gflops / (p->fma_per_cycle * p->vw * 2), p->ghz, p->width);
	else
		snprintf(buf, len,
			 ": they DISAGREE by more than 5%%: the measured rate is above the theory (the clock moved between the two measurements)");
}

void fma_peak_print(FILE *out, const struct fma_peak *p)
{
	char verdict[320];

	fprintf(out, "  peak method: the best of %zu loops of independent FMA chains (8 to 24 per width), thread CPU time; best %d chains at %s\n",
		sizeof(peak_loops) / sizeof(peak_loops[0]), p->chains, p->width);
	if (p->theoretical <= 0) {
		fputs("  theoretical peak: not measured here (no x86-64 add chain to clock the core)\n", out);
		return;
	}
	peak_verdict(p, verdict, sizeof(verdict));
	fprintf(out, "  theoretical peak: %g x %s FMA per cycle x %d doubles x 2 x %.2f GHz (a dependent add chain) = %.1f GFLOPS; measured %.0f%% of it%s\n",
		p->fma_per_cycle, p->width, p->vw, p->ghz, p->theoretical, 100 * p->gflops / p->theoretical,
		verdict);
}
