/* Medians, the USL fit, the backend cutoffs and the verdicts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

int cmp_first(const int *c, size_t n)
{
	size_t i;

	for (i = 0; i < n && !c[i]; i++)
		;
	return i < n ? c[i] : 0;
}

int cmp_words(const uintptr_t *a, const uintptr_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	return i < n ? NUM_CMP(a[i], b[i]) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	return NUM_CMP(*(const double *)a, *(const double *)b);
}

double median_sort(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double usl_capacity(const struct usl_fit *fit, double n)
{
	return n / (1 + fit->s * (n - 1) + fit->k * n * (n - 1));
}

/* Least squares with one regressor through the origin: y = b x. */
static double ls1(const double *x, const double *y, size_t n)
{
	double sxx = 0, sxy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	return sxx > 0 ? sxy / sxx : 0;
}

/* The linear form of the points with a capacity: x1 = N - 1, x2 = N (N - 1),
 * y = N / C - 1.  How many, or 0 without enough to fit: 4 distinct N, N = 1
 * among them, 4 with a capacity. */
static size_t usl_points(const double *n, const double *capacity, size_t count, double *x1,
			 double *x2, double *y)
{
	size_t i, j, distinct = 0, m = 0;
	bool has_one = false;

	for (i = 0; i < count; i++) {
		has_one |= n[i] == 1;
		for (j = 0; j < i && n[j] != n[i]; j++)
			;
		distinct += j == i;
		if (!(capacity[i] > 0))
			continue;
		x1[m] = n[i] - 1;
		x2[m] = n[i] * (n[i] - 1);
		y[m] = n[i] / capacity[i] - 1;
		m++;
	}
	return distinct < 4 || !has_one || m < 4 ? 0 : m;
}

/* s and k by least squares on the M points, kept >= 0; false when the
 * normal equations are singular. */
static bool usl_solve(const double *x1, const double *x2, const double *y, size_t m,
		      struct usl_fit *fit)
{
	double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0, det;
	size_t i;

	for (i = 0; i < m; i++) {
		a11 += x1[i] * x1[i];
		a12 += x1[i] * x2[i];
		a22 += x2[i] * x2[i];
		b1 += x1[i] * y[i];
		b2 += x2[i] * y[i];
	}
	det = a11 * a22 - a12 * a12;
	if (det == 0)
		return false;
	fit->s = (b1 * a22 - b2 * a12) / det;
	fit->k = (a11 * b2 - a12 * b1) / det;
	/* Negative coefficients have no physical meaning: refit without them. */
	if (fit->k < 0) {
		fit->k = 0;
		fit->s = ls1(x1, y, m);
	}
	if (fit->s < 0) {
		fit->s = 0;
		fit->k = fmax(0, ls1(x2, y, m));
	}
	return true;
}

int usl_fit(const double *n, const double *capacity, size_t count, struct usl_fit *fit)
{
	double *x1 = calloc(count, sizeof(double)), *x2 = calloc(count, sizeof(double));
	double *y = calloc(count, sizeof(double));
	double err = 0;
	size_t i, m;
	int ret = -1;

	*fit = (struct usl_fit){ .s = NAN, .k = NAN, .n_peak = NAN, .rms_error = NAN };
	if (!x1 || !x2 || !y)
		goto out;
	ret = 0;
	m = usl_points(n, capacity, count, x1, x2, y);
	if (!m || !usl_solve(x1, x2, y, m, fit))
		goto out;
	for (i = 0; i < count; i++)
		if (capacity[i] > 0)
			err += pow((usl_capacity(fit, n[i]) - capacity[i]) / capacity[i], 2);
	fit->rms_error = sqrt(err / (double)m);
	fit->n_peak = fit->k > 0 ? sqrt(fmax(0, 1 - fit->s) / fit->k) : INFINITY;
	fit->ok = true;
	fit->poor = fit->rms_error > 0.10;
out:
	free(x1);
	free(x2);
	free(y);
	return ret;
}

int cutoff_find(const double *size, const double *rate_a, const double *rate_b, size_t n,
		double *cut, bool *a_wins_above)
{
	double l0, l1, t;
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (!(rate_a[i] > 0 && rate_b[i] > 0 && rate_a[i + 1] > 0 && rate_b[i + 1] > 0))
			continue;
		l0 = log(rate_a[i] / rate_b[i]);
		l1 = log(rate_a[i + 1] / rate_b[i + 1]);
		if ((l0 < 0) == (l1 < 0) || l0 == l1)
			continue;
		/* Where the log ratio crosses zero, on a log size axis. */
		t = l0 / (l0 - l1);
		*cut = exp(log(size[i]) + t * (log(size[i + 1]) - log(size[i])));
		/* exp(log(x)) may miss x by a rounding: never outside the pair. */
		*cut = fmin(fmax(*cut, fmin(size[i], size[i + 1])), fmax(size[i], size[i + 1]));
		*a_wins_above = l1 > 0;
		return 1;
	}
	return 0;
}

/* A point of one backend at one size of a family and config (sorted by
 * that, then input order), or a pair's shared size (A and B both set). */
struct cut_key {
	size_t family, config, a, b;
	double size;
	size_t ia, ib;          /* input indices: the points of a and b */
};

/* Points: family, config, size, backend, input order. */
static int by_point(const void *x, const void *y)
{
	const struct cut_key *p = x, *q = y;
	const int c[] = { NUM_CMP(p->family, q->family), NUM_CMP(p->config, q->config),
			  NUM_CMP(p->size, q->size), NUM_CMP(p->a, q->a), NUM_CMP(p->ia, q->ia) };

	return cmp_first(c, sizeof(c) / sizeof(c[0]));
}

/* Shared sizes: family, backend a, backend b, config, size. */
static int by_pair(const void *x, const void *y)
{
	const struct cut_key *p = x, *q = y;
	const int c[] = { NUM_CMP(p->family, q->family), NUM_CMP(p->a, q->a), NUM_CMP(p->b, q->b),
			  NUM_CMP(p->config, q->config), NUM_CMP(p->size, q->size) };

	return cmp_first(c, sizeof(c) / sizeof(c[0]));
}

static bool same_pair(const struct cut_key *p, const struct cut_key *q)
{
	return p->family == q->family && p->a == q->a && p->b == q->b && p->config == q->config;
}

/* The end of the points of K[I]'s family, config and size (K sorted by_point). */
static size_t same_size_end(const struct cut_key *k, size_t m, size_t i)
{
	size_t j;

	for (j = i; j < m && k[j].family == k[i].family && k[j].config == k[i].config &&
	     k[j].size == k[i].size; j++)
		;
	return j;
}

/* How many pairs of backends meet at a size, over all sizes of the M points
 * (a backend's first point at a size counts, the rest are duplicates);
 * SIZE_MAX when they would not fit in memory. */
static size_t count_pairs(const struct cut_key *k, size_t m)
{
	size_t i, j, x, cap = 0, backends;

	for (i = 0; i < m; i = j) {
		j = same_size_end(k, m, i);
		for (x = i, backends = 0; x < j; x++)
			backends += x == i || k[x].a != k[x - 1].a;
		if (backends > 1 && (backends - 1) > (SIZE_MAX / sizeof(*k) - cap) / backends)
			return SIZE_MAX;
		cap += backends * (backends - 1) / 2;
	}
	return cap;
}

/* Those pairs into PAIR; how many. */
static size_t fill_pairs(const struct cut_key *k, size_t m, struct cut_key *pair)
{
	size_t i, j, x, y, npair = 0;

	for (i = 0; i < m; i = j) {
		j = same_size_end(k, m, i);
		for (x = i; x < j; x++) {
			if (x > i && k[x].a == k[x - 1].a)
				continue;
			for (y = x + 1; y < j; y++)
				if (k[y].a != k[y - 1].a)
					pair[npair++] = (struct cut_key){ k[i].family, k[i].config, k[x].a,
									  k[y].a, k[i].size, k[x].ia, k[y].ia };
		}
	}
	return npair;
}

/* The cutoff of each backend pair, family and config with two shared sizes
 * or more, from PAIR (sorted by_pair) into RES; how many.  SIZE, RA, RB:
 * room for NPAIR. */
static size_t pair_cutoffs(const struct cutoff_point *pts, const struct cut_key *pair, size_t npair,
			   struct cutoff *res, double *size, double *ra, double *rb)
{
	size_t i, j, nc = 0;
	struct cutoff *c;

	for (i = 0; i < npair; i = j) {
		for (j = i; j < npair && same_pair(&pair[i], &pair[j]); j++) {
			size[j - i] = pair[j].size;
			ra[j - i] = pts[pair[j].ia].rate;
			rb[j - i] = pts[pair[j].ib].rate;
		}
		if (j - i < 2)
			continue;
		c = &res[nc++];
		*c = (struct cutoff){ .family = pair[i].family, .config = pair[i].config,
			.backend_a = pair[i].a, .backend_b = pair[i].b, .tag_a = pts[pair[i].ia].tag,
			.tag_b = pts[pair[i].ib].tag, .sizes = j - i, .min_size = size[0],
			.max_size = size[j - i - 1], .ratio_min = ra[0] / rb[0],
			.ratio_max = ra[j - i - 1] / rb[j - i - 1], .cut = NAN };
		c->found = cutoff_find(size, ra, rb, j - i, &c->cut, &c->a_wins_above) == 1;
	}
	return nc;
}

int cutoffs_compute(const struct cutoff_point *pts, size_t n, struct cutoff **out, size_t *nout)
{
	struct cut_key *k = malloc((n ? n : 1) * sizeof(*k)), *pair = NULL;
	double *size = NULL, *ra = NULL, *rb = NULL;
	size_t i, m = 0, npair = 0, cap;
	struct cutoff *res = NULL;
	int ret = -1;

	*out = NULL;
	*nout = 0;
	if (!k)
		goto out;
	/* A size that cannot sit on a log axis takes no part. */
	for (i = 0; i < n; i++)
		if (isfinite(pts[i].size) && pts[i].size > 0)
			k[m++] = (struct cut_key){ pts[i].family, pts[i].config, pts[i].backend, 0,
						   pts[i].size, i, 0 };
	qsort(k, m, sizeof(*k), by_point);
	cap = count_pairs(k, m);
	pair = cap == SIZE_MAX ? NULL : malloc((cap ? cap : 1) * sizeof(*pair));
	if (!pair)
		goto out;
	npair = fill_pairs(k, m, pair);
	qsort(pair, npair, sizeof(*pair), by_pair);
	size = malloc((npair ? npair : 1) * sizeof(*size));
	ra = malloc((npair ? npair : 1) * sizeof(*ra));
	rb = malloc((npair ? npair : 1) * sizeof(*rb));
	res = malloc((npair ? npair : 1) * sizeof(*res));
	if (!size || !ra || !rb || !res)
		goto out;
	*nout = pair_cutoffs(pts, pair, npair, res, size, ra, rb);
	*out = res;
	res = NULL;
	ret = 0;
out:
	free(k);
	free(pair);
	free(size);
	free(ra);
	free(rb);
	free(res);
	return ret;
}

enum verdict verdict_above(const struct sample *a, const struct sample *b)
{
	if (a->n < VERDICT_MIN_REPEATS || b->n < VERDICT_MIN_REPEATS)
		return VERDICT_FEW_REPEATS;
	return a->min > b->max ? VERDICT_WINNER : VERDICT_OVERLAP;
}

enum verdict verdict_differ(const struct sample *a, const struct sample *b)
{
	enum verdict v = verdict_above(a, b);

	return v == VERDICT_OVERLAP ? verdict_above(b, a) : v;
}

enum verdict verdict_best(const struct sample *s, size_t n, size_t *best, size_t *worst)
{
	enum verdict v = VERDICT_WINNER, w;
	size_t i;

	*best = *worst = 0;
	for (i = 1; i < n; i++) {
		if (s[i].median > s[*best].median)
			*best = i;
		if (s[i].median < s[*worst].median)
			*worst = i;
	}
	for (i = 0; i < n; i++) {
		if (i == *best)
			continue;
		w = verdict_above(&s[*best], &s[i]);
		if (w == VERDICT_FEW_REPEATS || (w == VERDICT_OVERLAP && v == VERDICT_WINNER))
			v = w;
	}
	return n < 2 ? VERDICT_FEW_REPEATS : v;
}

bool samples_disagree(const struct sample *s, size_t n)
{
	double top_min = -INFINITY, low_max = INFINITY;
	size_t i;

	/* Some a.min > b.max (a != b: a point's own min is never above its
	 * max) among the points with enough repeats to say. */
	for (i = 0; i < n; i++)
		if (s[i].n >= VERDICT_MIN_REPEATS) {
			top_min = fmax(top_min, s[i].min);
			low_max = fmin(low_max, s[i].max);
		}
	return top_min > low_max;
}

struct sample sample_pool(const struct sample *s, size_t n)
{
	struct sample p = { .median = NAN, .min = NAN, .max = NAN };
	double *med = malloc((n ? n : 1) * sizeof(*med));
	size_t i;

	for (i = 0; i < n; i++) {
		p.min = i ? fmin(p.min, s[i].min) : s[i].min;
		p.max = i ? fmax(p.max, s[i].max) : s[i].max;
		p.n += s[i].n;
		if (med)
			med[i] = s[i].median;
	}
	/* Without memory for the medians, the first one's stands. */
	p.median = med ? median_sort(med, n) : n ? s[0].median : NAN;
	free(med);
	return p;
}

bool plans_same(const char *const *plan_a, const char *const *plan_b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!plan_a[i] || !plan_b[i] || !*plan_a[i] || !*plan_b[i] || strcmp(plan_a[i], plan_b[i]))
			return false;
	return n > 0;
}
