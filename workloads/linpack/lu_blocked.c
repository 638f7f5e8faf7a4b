/*
 * Variant 2: right-looking blocked LU with look-ahead.  Each panel of NB
 * columns is factored recursively (its updates are matrix multiplies too);
 * its row swaps, the solve with its unit lower triangle and the packed,
 * vectorised multiply are applied to the columns on its right one column
 * block at a time, each block whole by one thread.  Thread 0 first updates
 * the next panel's columns and factors that panel, while the other threads
 * take the remaining blocks from a shared counter and thread 0 joins them
 * when its panel is done: the next panel is factored while the trailing
 * matrix is updated, and one barrier per step remains.  The first panel,
 * and the last ones, where too little update is left to hide a panel
 * behind, are factored by the whole team (its multiplies split).  The
 * finished columns on the left of each step take their later row swaps
 * at the end, each column all of them in one pass.
 */
#include <math.h>
#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "lu.h"

#define PANEL_LEAF 8

static void swap_rows(double *a, int lda, int r1, int r2, int c0, int c1)
{
	double t;
	int j;

	if (r1 == r2)
		return;
	for (j = c0; j < c1; j++) {
		t = a[r1 + (size_t)j * lda];
		a[r1 + (size_t)j * lda] = a[r2 + (size_t)j * lda];
		a[r2 + (size_t)j * lda] = t;
	}
}

/* Apply the row interchanges IPIV[K0..K1) to columns C0..C1, column by
 * column so each column is walked once while it is in cache.  The rows
 * swapped in are scattered down the column, where no hardware prefetcher
 * follows: the next column's are asked for while this one is swapped
 * (1.5x on the swaps of a 4000-row panel step, measured alone). */
static void swap_block(double *a, int lda, const int *ipiv, int k0, int k1, int c0, int c1)
{
	double t;
	int j, k;

	for (j = c0; j < c1; j++) {
		double *col = a + (size_t)j * lda;

		if (j + 1 < c1)
			for (k = k0; k < k1; k++)
				if (ipiv[k] != k)
					__builtin_prefetch(col + lda + ipiv[k], 1, 3);
		for (k = k0; k < k1; k++)
			if (ipiv[k] != k) {
				t = col[k];
				col[k] = col[ipiv[k]];
				col[ipiv[k]] = t;
			}
	}
}

#define TRSM_LEAF 16

/*
 * A leaf: B = L^-1 B for an NB x NB unit lower L, NB <= TRSM_LEAF.  L's
 * inverse is formed once (the L of a partially pivoted LU: its entries are
 * at most 1), so each column of B is a small multiply whose products are
 * independent, a whole column of vectors per step, where substitution is a
 * chain of dependent updates of shrinking length (a fifth of the FMA rate
 * in the profile).  The inverse's columns are vectors of 8 doubles (its
 * zeros above the diagonal skipped a vector at a time): left to the
 * vectoriser, the loop over a column's 16 rows came out as shuffles and
 * no FMA, and the leaves took 8% of a 2-thread LU at N = 4000 (this way
 * a 384-row panel's solve runs 1.38x as fast, and the LU at N = 4000 1.05x
 * on 1 thread and 1.14x on 2, medians of alternating runs).
 */
typedef double leaf_v __attribute__((vector_size(8 * sizeof(double))));
enum { LEAF_V = TRSM_LEAF / 8 };

/* Inlined always: each constant NB gets its own unrolled copy. */
static inline __attribute__((always_inline)) void trsm_leaf(const int nb, const double *l, int lda,
							    double *b, int ldb, int ncols)
{
	double inv[TRSM_LEAF][LEAF_V * 8] = { { 0 } };
	const int nv = (nb + 7) / 8;
	int i, j, k, m, v;

	/* Column k of the inverse solves L x = e_k; above the diagonal 0. */
	for (k = 0; k < nb; k++) {
		double *x = inv[k];

		x[k] = 1;
		for (m = k; m < nb; m++)
			for (i = m + 1; i < nb; i++)
				x[i] -= l[i + (size_t)m * lda] * x[m];
	}
	for (j = 0; j < ncols; j++) {
		double *col = b + (size_t)j * ldb, out[LEAF_V * 8];
		leaf_v acc[2][LEAF_V] = { { { 0 } } }, w;

		/* Two sums: half the dependent chain. */
#pragma GCC unroll 16
		for (k = 0; k < nb; k++)
#pragma GCC unroll 2
			for (v = k / 8; v < nv; v++) {
				memcpy(&w, inv[k] + 8 * v, sizeof(w));
				acc[k & 1][v] += w * col[k];
			}
		for (v = 0; v < nv; v++) {
			w = acc[0][v] + acc[1][v];
			memcpy(out + 8 * v, &w, sizeof(w));
		}
		memcpy(col, out, sizeof(double) * (size_t)nb);
	}
}

/* B (nb x ncols) = L^-1 B, L unit lower nb x nb; recursive, so most of the
 * work is the packed multiply (one thread: TID's buffers). */
static void trsm_lower_unit(struct gemm_ws *ws, int tid, int nb, const double *l, int lda,
			    double *b, int ncols)
{
	int n1;

	if (nb <= TRSM_LEAF) {
		/* The sizes the recursion makes of a power-of-two panel. */
		if (nb == TRSM_LEAF)
			trsm_leaf(TRSM_LEAF, l, lda, b, lda, ncols);
		else if (nb == TRSM_LEAF / 2)
			trsm_leaf(TRSM_LEAF / 2, l, lda, b, lda, ncols);
		else
			trsm_leaf(nb, l, lda, b, lda, ncols);
		return;
	}
	n1 = nb / 2;
	trsm_lower_unit(ws, tid, n1, l, lda, b, ncols);
	gemm_sub_serial(ws, tid, nb - n1, ncols, n1, l + n1, lda, b, lda, b + n1, lda);
	trsm_lower_unit(ws, tid, nb - n1, l + n1 + (size_t)n1 * lda, lda, b + n1, ncols);
}

/* The row of the largest |value| in COL[K..M): the first of equals, as
 * idamax; K where none compares (all NaN).  The largest first, in vectors
 * of 8, then its row: the scalar compare-and-select was one dependent chain
 * down the column, 60% of the panel leaves' time. */
static int pivot_row(const double *col, int k, int m)
{
	typedef long long bits_v __attribute__((vector_size(8 * sizeof(double))));
	leaf_v best = { 0 }, x;
	bits_v bits, gt;
	double top = 0;
	int i;

	for (i = k; i + 8 <= m; i += 8) {
		memcpy(&bits, col + i, sizeof(bits));
		x = (leaf_v)(bits & 0x7fffffffffffffffLL);
		gt = x > best;
		best = (leaf_v)(((bits_v)x & gt) | ((bits_v)best & ~gt));
	}
	for (int l = 0; l < 8; l++)
		top = best[l] > top ? best[l] : top;
	for (; i < m; i++)
		top = fabs(col[i]) > top ? fabs(col[i]) : top;
	for (i = k; i < m; i++)
		if (fabs(col[i]) == top)
			return i;
	return k;
}

/* The unblocked leaf: right-looking on an m x n panel (n small). */
static int panel_leaf(int m, int n, double *a, int lda, int *ipiv)
{
	int k, i, j, l, info = 0;
	double t;

	for (k = 0; k < n && k < m; k++) {
		double *colk = a + (size_t)k * lda;

		ipiv[k] = l = pivot_row(colk, k, m);
		if (colk[l] == 0.0) {
			if (!info)
				info = k + 1;
			continue;
		}
		swap_rows(a, lda, k, l, 0, n);
		t = 1.0 / colk[k];
		for (i = k + 1; i < m; i++)
			colk[i] *= t;
		for (j = k + 1; j < n; j++) {
			double *colj = a + (size_t)j * lda, u = colj[k];

			for (i = k + 1; i < m; i++)
				colj[i] -= u * colk[i];
		}
	}
	return info;
}

/* Recursive panel factorisation (as LAPACK's dgetrf2): halves the columns,
 * so most of the panel's work is a matrix multiply. */
static int panel(struct gemm_ws *ws, int tid, int m, int n, double *a, int lda, int *ipiv)
{
	int n1, n2, k, info, info2;

	if (n <= PANEL_LEAF)
		return panel_leaf(m, n, a, lda, ipiv);
	n1 = n / 2;
	n2 = n - n1;
	info = panel(ws, tid, m, n1, a, lda, ipiv);
	swap_block(a, lda, ipiv, 0, n1, n1, n);
	trsm_lower_unit(ws, tid, n1, a, lda, a + (size_t)n1 * lda, n2);
	gemm_sub_serial(ws, tid, m - n1, n2, n1, a + n1, lda, a + (size_t)n1 * lda, lda,
			a + n1 + (size_t)n1 * lda, lda);
	info2 = panel(ws, tid, m - n1, n2, a + n1 + (size_t)n1 * lda, lda, ipiv + n1);
	for (k = n1; k < n && k < m; k++)
		ipiv[k] += n1;
	swap_block(a, lda, ipiv, n1, n < m ? n : m, 0, n1);
	return info ? info : info2 ? info2 + n1 : 0;
}

/* The same, called by every thread of the team: the multiplies split
 * across the threads, the rest on thread 0, whose return value counts.
 * For the first panel, which nothing else overlaps. */
#define PANEL_TEAM_MIN 32
static int panel_team(struct gemm_ws *ws, int m, int n, double *a, int lda, int *ipiv)
{
	const int t = omp_get_thread_num();
	int n1, n2, k, info = 0, info2;

	if (n <= PANEL_TEAM_MIN) {
		if (t == 0)
			info = panel(ws, 0, m, n, a, lda, ipiv);
#pragma omp barrier
		return info;
	}
	n1 = n / 2;
	n2 = n - n1;
	info = panel_team(ws, m, n1, a, lda, ipiv);
	if (t == 0) {
		swap_block(a, lda, ipiv, 0, n1, n1, n);
		trsm_lower_unit(ws, 0, n1, a, lda, a + (size_t)n1 * lda, n2);
	}
#pragma omp barrier
	gemm_sub(ws, m - n1, n2, n1, a + n1, lda, a + (size_t)n1 * lda, lda,
		 a + n1 + (size_t)n1 * lda, lda);
#pragma omp barrier
	info2 = panel_team(ws, m - n1, n2, a + n1 + (size_t)n1 * lda, lda, ipiv + n1);
	if (t == 0) {
		for (k = n1; k < n && k < m; k++)
			ipiv[k] += n1;
		swap_block(a, lda, ipiv, n1, n < m ? n : m, 0, n1);
	}
#pragma omp barrier
	return info ? info : info2 ? info2 + n1 : 0;
}

/* Step J0's panel (JB columns, factored, pivots in IPIV; the rows below
 * it packed at L21, pack_l21) applied to columns C0..C1: row swaps, solve
 * with the unit lower triangle, and the multiply of the rows below, by
 * thread TID alone.  The swaps and the solve go SOLVE_COLS columns at a
 * time: the solve's recursion sweeps its columns once per leaf and per
 * level, and a 384-row panel's 256 columns stay in L2 for all of them (the
 * solve of 3600 columns 1.15x as fast). */
#define SOLVE_COLS 256
static void update_cols(struct gemm_ws *ws, int tid, int n, double *a, int lda, const int *ipiv,
			const double *l21, int j0, int jb, int c0, int c1)
{
	const int right = j0 + jb;
	int c, w;

	for (c = c0; c < c1; c += w) {
		w = c1 - c < SOLVE_COLS ? c1 - c : SOLVE_COLS;
		swap_block(a, lda, ipiv, j0, right, c, c + w);
		trsm_lower_unit(ws, tid, jb, a + j0 + (size_t)j0 * lda, lda,
				a + j0 + (size_t)c * lda, w);
	}
	gemm_sub_serial_packed(ws, tid, n - right, c1 - c0, jb, l21, a + j0 + (size_t)c0 * lda, lda,
			       a + right + (size_t)c0 * lda, lda);
}

/* The buffer of the step at column J0: step S's panel rows are at
 * L21[S % 2], so the next step's are packed while this step's are read. */
static double *l21_of(double *const *l21, int j0, int nb)
{
	return l21[j0 / nb % 2];
}

/* The rows below the panel at J0 (JB wide, factored) packed once for all
 * of its step's column blocks, whichever thread takes them (each block
 * packed them again: 10% of a 2-thread LU at N = 4000 was packing). */
static void pack_l21(const struct gemm_ws *ws, int n, const double *a, int lda, int j0, int jb,
		     double *const *l21, int nb)
{
	gemm_pack_a(ws, n - j0 - jb, jb, a + j0 + jb + (size_t)j0 * lda, lda, l21_of(l21, j0, nb));
}

/* Factor the panel at column J0 (JB wide) on thread TID: its pivots
 * become rows of the whole matrix; the first zero pivot goes to *INFO. */
static void factor_panel(struct gemm_ws *ws, int tid, int n, double *a, int lda, int *ipiv,
			 int j0, int jb, int *info)
{
	int k, pinfo = panel(ws, tid, n - j0, jb, a + j0 + (size_t)j0 * lda, lda, ipiv + j0);

	if (pinfo && !*info)
		*info = pinfo + j0;
	for (k = j0; k < j0 + jb; k++)
		ipiv[k] += j0;
}

/* The final row swaps of columns C0..C1 (left of later steps): each
 * panel's columns take the swaps of every step after theirs, as a block. */
#define SWAP_CHUNK 16
static void swap_left(double *a, int lda, const int *ipiv, int n, int nb, int c0, int c1)
{
	while (c0 < c1) {
		const int next = (c0 / nb + 1) * nb, end = next < c1 ? next : c1;

		if (next < n)
			swap_block(a, lda, ipiv, next, n, c0, end);
		c0 = end;
	}
}

/* Guided blocks of COLS columns for NT threads: each a multiple of NR,
 * a 2 NT-th of what is left, within 64..MAXW; block INDEX is [*C0, *C1).
 * Returns how many blocks there are (INDEX < 0: only that). */
static int guided(int cols, int nt, int nr, int maxw, int index, int *c0, int *c1)
{
	int done = 0, i, w;

	for (i = 0; done < cols; i++, done += w) {
		/* One thread: one block as wide as the multiply's. */
		w = nt == 1 ? maxw : (cols - done + 2 * nt - 1) / (2 * nt);
		w = w < 64 ? 64 : w > maxw ? maxw : w;
		w = (w + nr - 1) / nr * nr;
		w = w < cols - done ? w : cols - done;
		if (i == index) {
			*c0 = done;
			*c1 = done + w;
			return i + 1;
		}
	}
	return i;
}

/* In the team: step J0's update right of REST0, in blocks of whole tiles
 * taken in order (*NEXT, the step's next block), each a share of what is
 * left (guided: large first, narrow at the end, so the threads finish
 * together; not under 64 columns, each block swaps, solves and packs its
 * own rows of the panel's row block). */
static void update_rest(struct gemm_ws *ws, int n, double *a, int lda, const int *ipiv,
			const double *l21, int j0, int jb, int rest0, int *next)
{
	const int t = omp_get_thread_num(), nt = omp_get_num_threads(), nr = ws->k->nr;
	const int nright = guided(n - rest0, nt, nr, ws->nc, -1, NULL, NULL);
	int c, c0 = 0, c1 = 0;

	for (;;) {
#pragma omp atomic capture
		c = (*next)++;
		if (c >= nright)
			break;
		guided(n - rest0, nt, nr, ws->nc, c, &c0, &c1);
		update_cols(ws, t, n, a, lda, ipiv, l21, j0, jb, rest0 + c0, rest0 + c1);
	}
}

/* In the team: the panel at column RIGHT, LA wide, factored together; its
 * pivots made global, its first zero pivot kept in *INFO, the rows below it
 * packed (pack_l21). */
static void team_next_panel(struct gemm_ws *ws, int n, double *a, int lda, int *ipiv, int nb,
			    double *const *l21, int right, int la, int *info)
{
	int c = panel_team(ws, n - right, la, a + right + (size_t)right * lda, lda, ipiv + right);

	if (omp_get_thread_num() == 0) {
		if (c && !*info)
			*info = c + right;
		for (c = right; c < right + la; c++)
			ipiv[c] += right;
		pack_l21(ws, n, a, lda, right, la, l21, nb);
	}
#pragma omp barrier
}

/* In the team: one step of NB columns at J0 (the panel factored): update
 * the rest, the next panel factored ahead by thread 0 while the others
 * update, or by the whole team near the end. */
static void team_step(struct gemm_ws *ws, int n, double *a, int lda, int *ipiv, int nb,
		      double *const *l21, int j0, int *next, int *info)
{
	const int t = omp_get_thread_num(), nt = omp_get_num_threads();
	const int jb = n - j0 < nb ? n - j0 : nb, right = j0 + jb;
	const int la = n - right < nb ? n - right : nb;
	/* Look-ahead while the rest of the update keeps the other threads
	 * busy meanwhile (at least a panel width each); near the end the
	 * whole team updates, then factors the next panel together. */
	const bool ahead = la > 0 && (nt == 1 || n - right - la >= nb * (nt - 1));
	const double *step_l21 = l21_of(l21, j0, nb);

	if (t == 0 && ahead) {
		update_cols(ws, 0, n, a, lda, ipiv, step_l21, j0, jb, right, right + la);
		factor_panel(ws, 0, n, a, lda, ipiv, right, la, info);
		pack_l21(ws, n, a, lda, right, la, l21, nb);
	}
	update_rest(ws, n, a, lda, ipiv, step_l21, j0, jb, ahead ? right + la : right, next);
#pragma omp barrier
	if (la > 0 && !ahead)
		team_next_panel(ws, n, a, lda, ipiv, nb, l21, right, la, info);
}

/* A factorisation's buffers: the multiply's packing (an A block and a B
 * panel per thread), the two L21 buffers and the steps' counters. */
struct lu_ws {
	struct gemm_ws g;
	double *l21[2];
	/* Per step, the next column block to take: no extra barrier. */
	int *next;
	int n, nb, nsteps;
};

static void lu_ws_fini(struct lu_ws *w)
{
	gemm_ws_fini(&w->g);
	free(w->next);
	free(w->l21[0]);
	free(w->l21[1]);
	memset(w, 0, sizeof(*w));
}

static int lu_ws_init(struct lu_ws *w, int n, int nb)
{
	size_t len;

	memset(w, 0, sizeof(*w));
	w->n = n;
	w->nb = nb;
	w->nsteps = (n + nb - 1) / nb;
	if (!(w->next = calloc((size_t)w->nsteps, sizeof(int))) ||
	    gemm_ws_init(&w->g, omp_get_max_threads()) < 0)
		return -1;
	len = gemm_packed_a_len(&w->g, n, nb);
	return (w->l21[0] = big_alloc(sizeof(double) * len)) &&
			       (w->l21[1] = big_alloc(sizeof(double) * len)) ? 0 : -1;
}

/* The buffers lu_blocked_prepare made, for the factorisations of its order
 * and panel width on as many threads. */
static struct lu_ws prepared;

int lu_blocked_prepare(int n, int nb)
{
	size_t l21_bytes;

	lu_ws_fini(&prepared);
	if (n < 1 || nb < 1 || lu_ws_init(&prepared, n, nb) < 0) {
		lu_ws_fini(&prepared);
		return -1;
	}
	l21_bytes = sizeof(double) * gemm_packed_a_len(&prepared.g, n, nb);
	/* Each page written once here, each thread's by that thread (its
	 * NUMA node), so that no factorisation waits on the kernel zeroing
	 * them: 16-43 MB at N = 4000, 1-2% of the LU's time. */
#pragma omp parallel
	{
		const int t = omp_get_thread_num();

		if (t < prepared.g.nthreads) {
			memset(prepared.g.apack[t], 0, sizeof(double) * (size_t)prepared.g.mc * prepared.g.kc);
			memset(prepared.g.bpack[t], 0, sizeof(double) * (size_t)prepared.g.kc * prepared.g.nc);
		}
#pragma omp for
		for (int i = 0; i < 2; i++)
			memset(prepared.l21[i], 0, l21_bytes);
	}
	return 0;
}

void lu_blocked_release(void)
{
	lu_ws_fini(&prepared);
}

int lu_factor_blocked_with(int n, double *a, int lda, int *ipiv, int nb,
			   const struct gemm_kernel *k)
{
	struct lu_ws own = { 0 }, *w = &prepared;
	int info = -1;

	/* K packs as the chosen kernel does (lu.h): the prepared buffers serve. */
	if (prepared.n != n || prepared.nb != nb || prepared.g.nthreads != omp_get_max_threads()) {
		w = &own;
		if (lu_ws_init(w, n, nb) < 0)
			goto out;
	}
	w->g.k = k ? k : gemm_choice()->kernel;
	memset(w->next, 0, sizeof(int) * (size_t)w->nsteps);
	info = 0;
#pragma omp parallel
	{
		int step, c;

		/* The first panel on the whole team. */
		c = panel_team(&w->g, n, n < nb ? n : nb, a, lda, ipiv);
		if (omp_get_thread_num() == 0) {
			info = c;
			pack_l21(&w->g, n, a, lda, 0, n < nb ? n : nb, w->l21, nb);
		}
#pragma omp barrier
		for (step = 0; step < w->nsteps; step++)
			team_step(&w->g, n, a, lda, ipiv, nb, w->l21, step * nb, &w->next[step], &info);
		/* The row swaps of the columns left of each step, last: a
		 * column takes every later step's swaps in one pass, while it
		 * is in cache (nothing reads it before the solve), where
		 * swapping at every step walked the whole left part each time. */
#pragma omp for schedule(dynamic, 1)
		for (c = 0; c < n; c += SWAP_CHUNK)
			swap_left(a, lda, ipiv, n, nb, c, c + SWAP_CHUNK < n ? c + SWAP_CHUNK : n);
	}
out:
	lu_ws_fini(&own);
	return info;
}

int lu_factor_blocked(int n, double *a, int lda, int *ipiv, int nb)
{
	return lu_factor_blocked_with(n, a, lda, ipiv, nb, NULL);
}
