/*
 * LU factorisation with partial pivoting of a column-major N x N matrix
 * (leading dimension LDA), and the solve.  Three variants, one table
 * (lu.c): the classic column-oriented dgefa with a fork/join per pivot step,
 * the same arithmetic in one persistent parallel region, and a blocked,
 * vectorised right-looking LU.
 */
#ifndef LU_H
#define LU_H

#include <stddef.h>

struct lu_variant {
	int id;
	const char *name;
	const char *what;
	/* Factor A in place; IPIV[k] is the row swapped with k at step k.
	 * Returns 0, or k + 1 when the pivot of column k is exactly zero. */
	int (*factor)(int n, double *a, int lda, int *ipiv, int nb);
	/* Before the clock (NULL: nothing to do): the buffers the
	 * factorisations of order N, panel NB, use, made and written once;
	 * 0, or -1 without the memory.  Undone by RELEASE. */
	int (*prepare)(int n, int nb);
	void (*release)(void);
};

extern const struct lu_variant lu_variants[];
extern const int lu_nvariants;

int lu_factor_classic(int n, double *a, int lda, int *ipiv, int nb);
int lu_factor_region(int n, double *a, int lda, int *ipiv, int nb);
int lu_factor_blocked(int n, double *a, int lda, int *ipiv, int nb);
int lu_blocked_prepare(int n, int nb);
void lu_blocked_release(void);
/* Variant 2 with kernel K in place of the one start-up chose (NULL: that
 * one); K has the chosen one's tile shape.  For timing the LU's parts. */
struct gemm_kernel;
int lu_factor_blocked_with(int n, double *a, int lda, int *ipiv, int nb,
			   const struct gemm_kernel *k);
/* Variant 2's panel width when -b is not given, for NTHREADS threads
 * (0: not known yet). */
int lu_default_block(int n, int nthreads);
/* The leading dimension linpack gives a matrix of order N. */
int lu_leading_dim(int n);
/* Whether a matrix of order N and its copy fit in this machine's memory,
 * a tenth kept spare: 0, else -1; *NEED and *HAVE in bytes either way. */
int lu_fits(int n, double *need, double *have);

/* What limits variant 2 on one thread at order N with panel NB, given as
 * shares of PEAK (one core's FMA peak, GFLOPS): the factorisation's 2/3 N^3
 * flops over its thread CPU time (best of 3); the share of that time spent
 * outside the multiply's kernel (row swaps, the leaves of the solves and
 * panels, packing: the same factorisation with a kernel that does
 * nothing); and the kernel's rate in the time left, every flop counted as
 * its (the leaves' few too).  -1 on bad arguments or without memory
 * (lu_fits first). */
struct lu_parts {
	double whole, outside, kernel;
};
int lu_parts_measure(int n, int nb, double peak, struct lu_parts *parts);

/* Solve A x = b with the factors: B is overwritten by x. */
void lu_solve(int n, const double *lu, int lda, const int *ipiv, double *b);

/* A reproducible random matrix and right-hand side, values in [-0.5, 0.5). */
void matrix_random(int n, double *a, int lda, double *b, unsigned long seed);

/* HPL's scaled residual ||Ax-b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) N). */
double lu_scaled_residual(int n, const double *a, int lda, const double *x, const double *b);

/* How many flops a factorisation and solve of order N is credited with:
 * the conventions results are compared under, in one table. */
struct lu_flop_count {
	const char *name;       /* what --flops takes */
	const char *formula;    /* for help, rows and output */
	double (*flops)(int n);
};
extern const struct lu_flop_count lu_flop_counts[];
extern const size_t lu_nflop_counts;

#endif
