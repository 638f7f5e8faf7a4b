/*
 * The trailing update of blocked LU, C -= A * B (column-major), as a
 * packed, register-blocked matrix multiply in portable C: GCC/Clang vector
 * types the compiler turns into FMA instructions, with a plain-C fallback.
 */
#ifndef GEMM_H
#define GEMM_H

#include <stddef.h>

/* Per-thread packing buffers, allocated once per factorisation. */
struct gemm_ws {
	double **apack, **bpack;
	int nthreads;
};

int gemm_ws_init(struct gemm_ws *ws, int nthreads);
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

/* Memory for large arrays: 2 MiB aligned and asking for transparent huge
 * pages, so the strided walks of packing miss the TLB less.  free() it. */
void *big_alloc(size_t bytes);

/* Flops a single core reaches on independent FMA chains, measured over
 * about SECONDS: the peak the LU kernel is compared with. */
double fma_peak_gflops(double seconds);

/* The multiply kernel this build has: "AVX-512 FMA, 24x8 tile", or a
 * name that says it has no FMA vector path. */
const char *gemm_kernel_name(void);

#endif
