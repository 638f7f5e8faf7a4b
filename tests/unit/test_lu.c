/* The LU variants: residual below 16 and the same x, at awkward sizes. */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lu.h"

static double *solve_with(const struct lu_variant *v, int n, int nb, const double *a0,
			  const double *b0, double *residual)
{
	double *a = malloc(sizeof(double) * (size_t)n * n), *x = malloc(sizeof(double) * (size_t)n);
	int *ipiv = malloc(sizeof(int) * (size_t)n);

	assert_non_null(a);
	memcpy(a, a0, sizeof(double) * (size_t)n * n);
	memcpy(x, b0, sizeof(double) * (size_t)n);
	assert_int_equal(v->factor(n, a, n, ipiv, nb), 0);
	lu_solve(n, a, n, ipiv, x);
	*residual = lu_scaled_residual(n, a0, n, x, b0);
	free(a);
	free(ipiv);
	return x;
}

static void variants_agree(void **state)
{
	static const int sizes[][2] = { { 1, 1 }, { 2, 1 }, { 7, 3 }, { 64, 64 }, { 65, 16 },
					{ 203, 32 }, { 300, 128 }, { 517, 50 } };
	int threads;

	(void)state;
	for (threads = 1; threads <= 3; threads += 2) {
		omp_set_num_threads(threads);
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			int n = sizes[s][0], nb = sizes[s][1], i, v;
			double *a0 = malloc(sizeof(double) * (size_t)n * n), *b0 = malloc(sizeof(double) * (size_t)n);
			double *x0, res, xn = 0, diff;

			matrix_random(n, a0, n, b0, 42 + (unsigned long)s);
			x0 = solve_with(&lu_variants[0], n, nb, a0, b0, &res);
			if (!(res < 16))
				fail_msg("variant 0 N=%d: residual %g", n, res);
			for (i = 0; i < n; i++)
				xn = fmax(xn, fabs(x0[i]));
			for (v = 1; v < lu_nvariants; v++) {
				double *x = solve_with(&lu_variants[v], n, nb, a0, b0, &res);

				if (!(res < 16))
					fail_msg("variant %d N=%d NB=%d threads=%d: residual %g", v, n, nb,
						 threads, res);
				for (diff = 0, i = 0; i < n; i++)
					diff = fmax(diff, fabs(x[i] - x0[i]));
				if (!(diff <= 1e-8 * xn))
					fail_msg("variant %d N=%d: x differs from variant 0 by %g", v, n, diff);
				free(x);
			}
			free(x0);
			free(a0);
			free(b0);
		}
	}
}

/* A known system: A = [[4,3],[6,3]], b = [10,12] gives x = [1,2]. */
static void known_answer(void **state)
{
	(void)state;
	for (int v = 0; v < lu_nvariants; v++) {
		double a[4] = { 4, 6, 3, 3 }, b[2] = { 10, 12 };
		int ipiv[2];

		assert_int_equal(lu_variants[v].factor(2, a, 2, ipiv, 1), 0);
		assert_int_equal(ipiv[0], 1);
		lu_solve(2, a, 2, ipiv, b);
		assert_true(fabs(b[0] - 1) < 1e-14 && fabs(b[1] - 2) < 1e-14);
	}
}

static void singular_reported(void **state)
{
	(void)state;
	for (int v = 0; v < lu_nvariants; v++) {
		int n = 40, ipiv[40];
		double *a = malloc(sizeof(double) * 1600), b[40];

		matrix_random(n, a, n, b, 7);
		memset(a + 5 * n, 0, sizeof(double) * (size_t)n);
		assert_int_equal(lu_variants[v].factor(n, a, n, ipiv, 8), 6);
		free(a);
	}
}

static void flops_and_residual(void **state)
{
	double a[1] = { 2 }, x[1] = { 0.5 }, b[1] = { 1 }, bad[1] = { NAN };

	(void)state;
	/* N = 3: 2/3 27 = 18, plus 3/2 9 = 13.5 (HPL) or 2 9 = 18 (LINPACK 100). */
	assert_string_equal(lu_flop_counts[0].name, "hpl");
	assert_true(fabs(lu_flop_counts[0].flops(3) - (18 + 13.5)) < 1e-9);
	assert_string_equal(lu_flop_counts[1].name, "linpack100");
	assert_true(fabs(lu_flop_counts[1].flops(3) - (18 + 18)) < 1e-9);
	assert_true(lu_scaled_residual(1, a, 1, x, b) == 0);
	assert_true(isinf(lu_scaled_residual(1, a, 1, bad, b)));
}

/* A wrong solution of a non-symmetric system, its residual worked out by
 * hand: A = [4 1; 2 5] (column-major 4 2 1 5), b = (1, 2), x = (0.2, 0.5).
 * Ax = (1.3, 2.9), r = (-0.3, -0.9): ||r|| = 0.9; ||A|| = max row sum = 7
 * (the transpose would give 6); ||x|| = 0.5; ||b|| = 2; N = 2:
 * 0.9 / (eps (7 0.5 + 2) 2) = 0.9 / (11 eps). */
static void residual_by_hand(void **state)
{
	double a[4] = { 4, 2, 1, 5 }, x[2] = { 0.2, 0.5 }, b[2] = { 1, 2 };
	double want = 0.9 / (11 * DBL_EPSILON), got = lu_scaled_residual(2, a, 2, x, b);

	(void)state;
	assert_true(fabs(got - want) / want < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_answer),
		cmocka_unit_test(variants_agree),
		cmocka_unit_test(singular_reported),
		cmocka_unit_test(flops_and_residual),
		cmocka_unit_test(residual_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
