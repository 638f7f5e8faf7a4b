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
};

extern const struct lu_variant lu_variants[];
extern const int lu_nvariants;

int lu_factor_classic(int n, double *a, int lda, int *ipiv, int nb);
int lu_factor_region(int n, double *a, int lda, int *ipiv, int nb);
int lu_factor_blocked(int n, double *a, int lda, int *ipiv, int nb);

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
