/*
 * The trailing update of blocked LU, C -= A * B (column-major), as a
 * packed, register-blocked matrix multiply in portable C: GCC/Clang vector
 * types, one micro-kernel per instruction set and tile shape in one binary
 * (GCC target attributes), the one this CPU runs fastest chosen at start-up
 * by cpuid and a short measurement, cache blocks from the cache sizes.
 */
#ifndef GEMM_H
#define GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One micro-kernel: an MR x NR tile of C -= Ap * Bp over KC, Ap packed in
 * MR-row slivers, Bp in NR-column slivers (zero-padded).  A tile at the edge
 * (ROWS < MR or COLS < NR) updates only those. */
struct gemm_kernel {
	const char *name;       /* "avx512-24x8": what the rows' note names */
	const char *isa;        /* "AVX-512F FMA, 512-bit" */
	const char *needs;      /* the cpuid features, as __builtin_cpu_supports names them */
	int mr, nr, vw;         /* tile rows, columns; doubles per vector */
	bool fma;
	bool (*supported)(void);
	void (*tile)(int kc, const double *ap, const double *bp, double *c, size_t ldc, int rows,
		     int cols);
};

extern const struct gemm_kernel gemm_kernels[];
extern const int gemm_nkernels;

/* Cache blocks: MC x KC of A (in L2), KC x NC of B (in L3). */
struct gemm_blocking {
	int mc, kc, nc;
};

/* The kernel start-up chose: among those the CPU runs (cpuid), the
 * fastest FMA one timed on packed data (a few ms in all), or the generic
 * one without FMA; blocking from the cache sizes; WHY for the note
 * ("avx512-24x8 (AVX-512F FMA, 512-bit; fastest of 4 timed, ties to the
 * first)").  The first call decides, thread-safely. */
struct gemm_choice {
	const struct gemm_kernel *kernel;
	struct gemm_blocking blk;
	char why[192];
	char caches[96];        /* the cache sizes the blocks are made for, and their source */
};
const struct gemm_choice *gemm_choice(void);

/* Read this machine's cache sizes (hwloc's, through the placement
 * library) for the blocking, once: call it before any other thread
 * starts, as loading a topology edits the environment (gemm_choice()
 * and gemm_blocking_for() read them if nobody did). */
void gemm_read_caches(void);

/* The blocking for kernel K from this machine's cache sizes. */
void gemm_blocking_for(const struct gemm_kernel *k, struct gemm_blocking *b);

/* Per-thread packing buffers and the kernel and blocks they serve,
 * allocated once per factorisation. */
struct gemm_ws {
	const struct gemm_kernel *k;
	int mc, kc, nc;
	double **apack, **bpack;
	int nthreads;
};

/* With the chosen kernel and blocking. */
int gemm_ws_init(struct gemm_ws *ws, int nthreads);
/* With kernel K and blocks MC, KC, NC (each 0: from the caches); MC and
 * NC are rounded up to multiples of the tile. */
int gemm_ws_init_with(struct gemm_ws *ws, int nthreads, const struct gemm_kernel *k, int mc,
		      int kc, int nc);
void gemm_ws_fini(struct gemm_ws *ws);

/*
 * C[m x n] -= A[m x k] * B[k x n], shared by the threads of the enclosing
 * team if called inside a parallel region (all threads must call it), or
 * serial otherwise.
 */
void gemm_sub(struct gemm_ws *ws, int m, int n, int k, const double *a, int lda,
	      const double *b, int ldb, double *c, int ldc);

/* The same on one thread alone, with thread TID's buffers. */
void gemm_sub_serial(struct gemm_ws *ws, int tid, int m, int n, int k, const double *a, int lda,
		     const double *b, int ldb, double *c, int ldc);

/* A (M x K, leading dimension LDA) packed once for several multiplies that
 * share it (the LU's column blocks of one step, each on its own thread):
 * gemm_packed_a_len doubles at P, in WS's blocks and tile shape. */
size_t gemm_packed_a_len(const struct gemm_ws *ws, int m, int k);
void gemm_pack_a(const struct gemm_ws *ws, int m, int k, const double *a, int lda, double *p);
/* gemm_sub_serial with A packed by gemm_pack_a (the same WS, M and K). */
void gemm_sub_serial_packed(struct gemm_ws *ws, int tid, int m, int n, int k, const double *pre,
			    const double *b, int ldb, double *c, int ldc);

/* What limits one thread's multiply of order N, each part timed alone
 * with the chosen kernel and blocking (thread CPU time, best of 3) and
 * given as a share of PEAK, one core's FMA peak in GFLOPS:
 * the kernel on packed data the caches hold (B's sliver in L1, A's block
 * in L2), the kernel sweeping N columns of packed B as the multiply does
 * (a new sliver from L3 or memory every NR columns), the whole multiply,
 * and packing A and B for it over the time the multiply takes at PEAK.
 * -1 without memory, else 0. */
struct gemm_parts {
	double tile_cached, tile_streaming, whole, packing;
};
int gemm_parts_measure(int n, double peak, struct gemm_parts *p);

/* Memory for large arrays: 2 MiB aligned and asking for transparent huge
 * pages, so the strided walks of packing miss the TLB less.  free() it. */
void *big_alloc(size_t bytes);

/* One core's FMA peak, measured over about SECONDS: the best rate of
 * independent FMA chains at every vector width the CPU runs (0 without
 * FMA), how it was measured, and the theory it is held to. */
struct fma_peak {
	double gflops;        /* the best loop's rate; 0 without FMA */
	const char *width;    /* its vector width ("512-bit"), "none" */
	int vw, chains;       /* doubles per vector, independent chains */
	double ghz;           /* the clock by a dependent add chain; 0 where not measured */
	double fma_per_cycle; /* full-width FMAs per cycle: the measured rate's, rounded */
	double theoretical;   /* fma_per_cycle x vw x 2 x ghz; 0 where not measured */
};
void fma_peak_measure(double seconds, struct fma_peak *p);
/* Two lines under --peak's first: the method, the theory and whether they agree. */
void fma_peak_print(FILE *out, const struct fma_peak *p);

#endif
