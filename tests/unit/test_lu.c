/* The LU variants: residual below 16 and the same x, at awkward sizes; and
 * every multiply kernel compiled in against a naive product. */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gemm.h"
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
	/* Partial pivoting: each pivot the largest left in its column, so no
	 * multiplier is over 1 (by more than a rounding).  A smaller pivot can
	 * still give a residual below 16 on a random matrix. */
	for (int j = 0; j < n; j++)
		for (int i = j + 1; i < n; i++)
			if (!(fabs(a[i + (size_t)j * n]) <= 1 + 4 * DBL_EPSILON))
				fail_msg("%s N=%d NB=%d: multiplier L(%d,%d) = %g, over 1: not the largest pivot",
					 v->name, n, nb, i, j, a[i + (size_t)j * n]);
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
/* The buffers made before the clock (lu_blocked_prepare) give the same
 * factors, bit for bit, as the factorisation's own; a prepare for another
 * order or panel leaves the factorisation to its own; after a release too. */
static void prepared_buffers(void **state)
{
	static const int cases[][4] = { /* N, NB, prepared N, prepared NB */
		{ 203, 32, 203, 32 }, { 300, 64, 300, 64 }, { 203, 32, 300, 32 }, { 203, 32, 203, 64 } };
	const int n_max = 300;
	double *a0 = malloc(sizeof(double) * n_max * n_max), *b0 = malloc(sizeof(double) * n_max);
	double *own = malloc(sizeof(double) * n_max * n_max), *prep = malloc(sizeof(double) * n_max * n_max);
	int *pown = malloc(sizeof(int) * n_max), *pprep = malloc(sizeof(int) * n_max);

	(void)state;
	assert_true(a0 && b0 && own && prep && pown && pprep);
	for (int threads = 1; threads <= 2; threads++) {
		omp_set_num_threads(threads);
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			const int n = cases[c][0], nb = cases[c][1];

			matrix_random(n, a0, n, b0, 7 + c);
			memcpy(own, a0, sizeof(double) * n * n);
			assert_int_equal(lu_factor_blocked(n, own, n, pown, nb), 0);
			assert_int_equal(lu_blocked_prepare(cases[c][2], cases[c][3]), 0);
			for (int twice = 0; twice < 2; twice++) {
				memcpy(prep, a0, sizeof(double) * n * n);
				assert_int_equal(lu_factor_blocked(n, prep, n, pprep, nb), 0);
				if (memcmp(own, prep, sizeof(double) * n * n) != 0 ||
				    memcmp(pown, pprep, sizeof(int) * n) != 0)
					fail_msg("N=%d NB=%d, %d thread(s), prepared for N=%d NB=%d: factors differ (pass %d)",
						 n, nb, threads, cases[c][2], cases[c][3], twice + 1);
			}
			lu_blocked_release();
			memcpy(prep, a0, sizeof(double) * n * n);
			assert_int_equal(lu_factor_blocked(n, prep, n, pprep, nb), 0);
			assert_memory_equal(own, prep, sizeof(double) * n * n);
		}
	}
	assert_int_equal(lu_blocked_prepare(0, 32), -1);
	free(a0);
	free(b0);
	free(own);
	free(prep);
	free(pown);
	free(pprep);
}

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

/* C -= A B by the definition, column-major. */
static void naive_sub(int m, int n, int k, const double *a, int lda, const double *b, int ldb,
		      double *c, int ldc)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double s = 0;

			for (int l = 0; l < k; l++)
				s += a[i + (size_t)l * lda] * b[l + (size_t)j * ldb];
			c[i + (size_t)j * ldc] -= s;
		}
}

/* One product with kernel WS at m x n x k, leading dimensions off by 3 and
 * a guard band below each column of C that must stay untouched; on a team
 * of TEAM threads, or with TEAM 0 on one thread from A packed before
 * (gemm_pack_a, as the LU's steps share it). */
static void check_product(struct gemm_ws *ws, int team, int m, int n, int k)
{
	const int lda = m + 3, ldb = k + 3, ldc = m + 3;
	double *a = malloc(sizeof(double) * (size_t)lda * k), *b = malloc(sizeof(double) * (size_t)ldb * n);
	double *c = malloc(sizeof(double) * (size_t)ldc * n), *want = malloc(sizeof(double) * (size_t)ldc * n);
	double err = 0, scale = 0;
	int i;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_non_null(want);
	for (i = 0; i < lda * k; i++)
		a[i] = (double)(((long)i * 7919) % 1013) / 1013 - 0.5;
	for (i = 0; i < ldb * n; i++)
		b[i] = (double)(((long)i * 104729) % 997) / 997 - 0.5;
	for (i = 0; i < ldc * n; i++)
		c[i] = want[i] = (double)(i % 17) - 8;
	naive_sub(m, n, k, a, lda, b, ldb, want, ldc);
	if (team > 1) {
#pragma omp parallel num_threads(team)
		gemm_sub(ws, m, n, k, a, lda, b, ldb, c, ldc);
	} else if (team == 0) {
		double *pre = malloc(sizeof(double) * gemm_packed_a_len(ws, m, k));

		assert_non_null(pre);
		gemm_pack_a(ws, m, k, a, lda, pre);
		gemm_sub_serial_packed(ws, 0, m, n, k, pre, b, ldb, c, ldc);
		free(pre);
	} else {
		gemm_sub_serial(ws, 0, m, n, k, a, lda, b, ldb, c, ldc);
	}
	for (i = 0; i < ldc * n; i++) {
		err = fmax(err, fabs(c[i] - want[i]));
		scale = fmax(scale, fabs(want[i]));
		if (i % ldc >= m && c[i] != want[i])
			fail_msg("%s m=%d n=%d k=%d: wrote C below row m (at %d)", ws->k->name, m, n, k, i);
	}
	if (!(err <= 1e-13 * (k + 1) * (scale + 1)))
		fail_msg("%s (mc %d kc %d nc %d, %d threads) m=%d n=%d k=%d: off the naive product by %g",
			 ws->k->name, ws->mc, ws->kc, ws->nc, team, m, n, k, err);
	free(a);
	free(b);
	free(c);
	free(want);
}

/* Every tile edge (1, the tile minus one, the tile, one more, several
 * tiles and a part) in m, n and k, with small cache blocks so every block
 * loop runs more than once and ends short, and with the kernel's own. */
static void kernel_matches_naive(void **state)
{
	const struct gemm_kernel *kern = *state;
	const int mr = kern->mr, nr = kern->nr;
	const int ms[] = { 1, mr - 1, mr, mr + 1, 3 * mr + 5 }, ns[] = { 1, nr - 1, nr, nr + 1, 3 * nr + 2 };
	const int ks[] = { 1, 2, 15, 16, 17, 41 };
	struct gemm_ws ws;

	if (!kern->supported()) {
		print_message("skipped: kernel %s needs %s, which this CPU lacks\n", kern->name, kern->needs);
		skip();
	}
	for (int blk = 0; blk < 2; blk++) {
		if (blk == 0)
			assert_int_equal(gemm_ws_init_with(&ws, 3, kern, 2 * mr, 16, 2 * nr), 0);
		else
			assert_int_equal(gemm_ws_init_with(&ws, 3, kern, 0, 0, 0), 0);
		for (size_t x = 0; x < sizeof(ms) / sizeof(ms[0]); x++)
			for (size_t y = 0; y < sizeof(ns) / sizeof(ns[0]); y++)
				for (size_t z = 0; z < sizeof(ks) / sizeof(ks[0]); z++)
					if (ms[x] > 0 && ns[y] > 0) {
						check_product(&ws, 1, ms[x], ns[y], ks[z]);
						check_product(&ws, 0, ms[x], ns[y], ks[z]);
					}
		/* Larger than the blocks, and split over a team of 3. */
		check_product(&ws, 1, 5 * mr + 3, 7 * nr + 1, ws.kc + 3);
		check_product(&ws, 0, 5 * mr + 3, 7 * nr + 1, 2 * ws.kc + 3);
		check_product(&ws, 3, 5 * mr + 3, 7 * nr + 1, ws.kc + 3);
		check_product(&ws, 3, 2 * mr + 1, 40 * nr + 5, 9);
		gemm_ws_fini(&ws);
	}
}

/* The choice is a kernel this CPU runs, with FMA where the CPU has it. */
static void kernel_choice(void **state)
{
	const struct gemm_choice *c = gemm_choice();
	bool any_fma = false;

	(void)state;
	for (int i = 0; i < gemm_nkernels; i++)
		any_fma |= gemm_kernels[i].fma && gemm_kernels[i].supported();
	assert_non_null(c->kernel);
	assert_true(c->kernel->supported());
	assert_true(c->kernel->fma == any_fma);
	assert_non_null(strstr(c->why, c->kernel->name));
	assert_true(c->blk.kc >= 128 && c->blk.mc % c->kernel->mr == 0 && c->blk.nc % c->kernel->nr == 0);
	print_message("chosen: %s\n", c->why);
}

/* The multiply's parts are each timed (with a peak of 1 GFLOPS their
 * shares are their rates), and bad input is refused. */
static void multiply_parts(void **state)
{
	struct gemm_parts p;

	(void)state;
	assert_int_equal(gemm_parts_measure(0, 1.0, &p), -1);
	assert_int_equal(gemm_parts_measure(64, 0, &p), -1);
	assert_int_equal(gemm_parts_measure(100, 1.0, &p), 0);
	assert_true(p.tile_cached > 0 && p.tile_streaming > 0 && p.whole > 0 && p.packing > 0);
	print_message("GFLOPS: cached %.1f, streaming %.1f, whole %.1f; packing %.3f\n", p.tile_cached,
		      p.tile_streaming, p.whole, p.packing);
}

/* The LU's parts: refused arguments, and every part measured (the time
 * outside the kernel too); no timing is compared. */
static void lu_parts(void **state)
{
	struct lu_parts p;

	(void)state;
	assert_int_equal(lu_parts_measure(0, 1, 1.0, &p), -1);
	assert_int_equal(lu_parts_measure(64, 0, 1.0, &p), -1);
	assert_int_equal(lu_parts_measure(64, 65, 1.0, &p), -1);
	assert_int_equal(lu_parts_measure(64, 16, 0, &p), -1);
	assert_int_equal(lu_parts_measure(300, 64, 1.0, &p), 0);
	assert_true(p.whole > 0 && p.outside > 0 && p.kernel >= 0);
	print_message("GFLOPS: LU %.2f, kernel %.2f; %.3f of the time outside the kernel\n", p.whole,
		      p.kernel, p.outside);
}

/* --peak's theory line for a measured peak at, below and above the
 * theory: below, the clock the measured rate means is named. */
static void peak_theory_line(void **state)
{
	static const struct {
		double gflops, ghz;
		const char *says;
	} cases[] = {
		{ 94.0, 2.97, "measured 99% of it: they agree\n" },
		{ 88.3, 2.97, "measured 93% of it: they DISAGREE by more than 5%: at 2 FMA per cycle the measured rate means 2.76 GHz under the FMAs, against the add chain's 2.97 (many cores run 512-bit code" },
		{ 88.3, 2.50, "measured 110% of it: they DISAGREE by more than 5%: the measured rate is above the theory" },
	};
	struct fma_peak p = { .width = "512-bit", .vw = 8, .chains = 16, .fma_per_cycle = 2 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		p.gflops = cases[i].gflops;
		p.ghz = cases[i].ghz;
		p.theoretical = p.fma_per_cycle * p.vw * 2 * p.ghz;
		fma_peak_print(f, &p);
		fclose(f);
		if (!strstr(text, cases[i].says))
			fail_msg("case %zu: wanted '%s' in:\n%s", i, cases[i].says, text);
		free(text);
	}
}

int main(void)
{
	/* One group: the fixed tests, then one per kernel compiled in. */
	struct CMUnitTest tests[40] = {
		cmocka_unit_test(known_answer),
		cmocka_unit_test(variants_agree),
		cmocka_unit_test(prepared_buffers),
		cmocka_unit_test(singular_reported),
		cmocka_unit_test(flops_and_residual),
		cmocka_unit_test(residual_by_hand),
		cmocka_unit_test(kernel_choice),
		cmocka_unit_test(multiply_parts),
		cmocka_unit_test(lu_parts),
		cmocka_unit_test(peak_theory_line),
	};
	char names[24][64];
	size_t nt = 0;

	/* After the fixed tests, however many the list above has. */
	while (tests[nt].test_func)
		nt++;
	for (int i = 0; i < gemm_nkernels && i < 24; i++, nt++) {
		snprintf(names[i], sizeof(names[i]), "kernel %s", gemm_kernels[i].name);
		tests[nt] = (struct CMUnitTest){ names[i], kernel_matches_naive, NULL, NULL,
						 (void *)&gemm_kernels[i] };
	}
	return _cmocka_run_group_tests("test_lu", tests, nt, NULL, NULL);
}
