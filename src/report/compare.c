/* threadreport --compare: ratios of medians, after / before, per configuration,
 * in benchstat's shape: each median with its 95% interval, a Mann-Whitney U
 * test of the two sides' rates, and "~" where the change is not significant. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "compare.h"
#include "opt.h"
#include "results.h"
#include "stats.h"
#include "table.h"

#define PROG "threadreport"

/* The columns --compare-by accepts: each names its field of an observation. */
struct by_column {
	const char *name;
	size_t field;
};

static const struct by_column by_columns[] = {
	{ "host", offsetof(struct obs, host) },
	{ "backend", offsetof(struct obs, backend) },
	{ "impl", offsetof(struct obs, impl) },
	{ "versions", offsetof(struct obs, versions) },
};

enum { BEFORE, AFTER };
/* The test's level, and the intervals' (95%). */
#define ALPHA 0.05
static const char *const side_name[] = { "before", "after" };

/* One configuration: its cell on each side (NULL where not measured). */
struct entry {
	const struct series *s[2];
	const struct cell *c[2];
	size_t group;
	double ratio, lo, hi;   /* NAN where a side is missing or a median is 0 */
	double med_lo[2], med_hi[2];    /* each side's median's 95% interval */
	double p;               /* Mann-Whitney U; NAN where a side has one repeat */
	/* The median of after / before of the rows paired by repeat, and its
	 * interval: NAN unless both sides ran the same repeats. */
	double paired, paired_lo, paired_hi;
};

struct compare {
	struct dataset all, ds[2];
	const char *label[2];
	/* --compare-by: the column and its two values (pointing into by_copy
	 * or the interned texts); label_buf holds "COL=VALUE". */
	const struct by_column *col;
	const char *val[2];
	char *by_copy, *label_buf[2];
	bool own;               /* the files hold rows programs wrote themselves */
	/* Host, backend and impl belong to a configuration only where a side
	 * holds several of them; otherwise they are what the sides differ in. */
	bool key_host, key_backend, key_impl;
	struct entry *e;
	size_t ne, ngroups, few, unverified[2], overlap, untested, weak;
};

static const char *field_of(const struct obs *o, const struct by_column *col)
{
	return *(char *const *)((const char *)o + col->field);
}

static const struct by_column *by_column_named(const char *name, size_t len)
{
	for (size_t i = 0; i < NCOLS(by_columns); i++)
		if (strlen(by_columns[i].name) == len && !strncmp(by_columns[i].name, name, len))
			return &by_columns[i];
	return NULL;
}

static bool is_run_row(const struct obs *o)
{
	return !strcmp(o->algorithm, RESULTS_RUN_ALGORITHM);
}

/* Whether the files hold rows a program wrote itself (not threadrun's
 * whole-run rows). */
static bool has_own_rows(const struct dataset *all)
{
	for (size_t i = 0; i < all->nobs; i++)
		if (!is_run_row(&all->obs[i]))
			return true;
	return false;
}

/* Where programs wrote rows of their own, threadrun's whole-run rows stand
 * aside (as in dataset_build): their backend, "threadrun", names no side. */
static bool names_side(const struct compare *k, const struct obs *o)
{
	return !k->own || !is_run_row(o);
}

/* msg_error() writes every value on one line (escape.h); the column name
 * is cut from BY escaped whole, as it always was. */
static void say_unknown_column(const char *by)
{
	size_t len = 4 * strlen(by) + 1; /* an escape is at most 4 bytes for 1 */
	char names[64] = "", *t = malloc(len);

	for (size_t i = 0; i < NCOLS(by_columns); i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? " " : "", by_columns[i].name);
	msg_error(PROG, "compare-by: column '%.*s' not known, choices are: %s", (int)strcspn(by, "="),
		  t ? esc_text(by, t, len) : "", names);
	free(t);
}

/* "COL=A,COL=B" splits at ",COL="; "COL=A,B" at its one comma.  -1 with
 * the message said; -2 out of memory. */
static int by_named(struct compare *k, const char *by)
{
	char *sep, *second = NULL, pat[16];
	size_t i;

	snprintf(pat, sizeof(pat), ",%s=", k->col->name);
	k->by_copy = strdup(strchr(by, '=') + 1);
	if (!k->by_copy)
		return -2;
	sep = strstr(k->by_copy, pat);
	if (sep)
		second = sep + strlen(pat);
	else if ((sep = strchr(k->by_copy, ',')) && !strchr(sep + 1, ','))
		second = sep + 1;
	if (!second) {
		msg_error(PROG, "compare-by: '%s' is not two values, allowed COL, COL=A,COL=B or COL=A,B", by);
		return -1;
	}
	*sep = '\0';
	k->val[BEFORE] = k->by_copy;
	k->val[AFTER] = second;
	if (!strcmp(k->val[BEFORE], k->val[AFTER])) {
		msg_error(PROG, "compare-by: '%s' names one value twice, allowed two different values", by);
		return -1;
	}
	for (int s = 0; s < 2; s++) {
		for (i = 0; i < k->all.nobs; i++)
			if (names_side(k, &k->all.obs[i]) && !strcmp(field_of(&k->all.obs[i], k->col), k->val[s]))
				break;
		if (i == k->all.nobs) {
			msg_error(PROG, "compare-by: no row has %s '%s'", k->col->name, k->val[s]);
			return -1;
		}
	}
	return 0;
}

/* "COL": exactly two values in the rows, the first seen before. */
static int by_seen(struct compare *k)
{
	const char *name = k->col->name;
	size_t nval = 0;

	for (size_t i = 0; i < k->all.nobs; i++) {
		const char *v = field_of(&k->all.obs[i], k->col);

		/* Interned: equal texts are one pointer. */
		if (!names_side(k, &k->all.obs[i]) || (nval && (v == k->val[0] || (nval > 1 && v == k->val[1]))))
			continue;
		if (nval == 2) {
			msg_error(PROG, "compare-by: column '%s' has more than two values ('%s', '%s', '%s', ...), "
				  "allowed exactly two: name them, %s=A,%s=B", name, k->val[0], k->val[1], v, name, name);
			return -1;
		}
		k->val[nval++] = v;
	}
	if (nval < 2) {
		msg_error(PROG, "compare-by: column '%s' has %s value in the rows, allowed exactly two", name,
			  nval ? "only one" : "no");
		return -1;
	}
	return 0;
}

/* The sides' names: the two files, or BY's column and values ("COL",
 * "COL=A,COL=B" or "COL=A,B").  Returns an exit status. */
static int name_sides(struct compare *k, char **files, const char *by)
{
	int ret;

	k->own = has_own_rows(&k->all);
	if (!by) {
		k->label[BEFORE] = files[0];
		k->label[AFTER] = files[1];
		return 0;
	}
	k->col = by_column_named(by, strcspn(by, "="));
	ret = strchr(by, '=') ? by_named(k, by) : by_seen(k);
	for (int s = 0; s < 2 && !ret; s++) {
		if (asprintf(&k->label_buf[s], "%s=%s", k->col->name, k->val[s]) < 0) {
			k->label_buf[s] = NULL;
			ret = -2;
		}
		k->label[s] = k->label_buf[s];
	}
	if (ret == -2)
		msg_error(PROG, "out of memory");
	return ret == -2 ? 1 : ret ? 2 : 0;
}

/* Each side's rows into a dataset of its own (pointing at ALL's interned
 * texts), so repeats and supersedes never cross sides. */
static int split(struct compare *k, size_t boundary)
{
	for (int s = 0; s < 2; s++) {
		k->ds[s].obs = malloc((k->all.nobs ? k->all.nobs : 1) * sizeof(struct obs));
		if (!k->ds[s].obs)
			return -1;
	}
	for (size_t i = 0; i < k->all.nobs; i++) {
		const struct obs *o = &k->all.obs[i];
		int s = i < boundary ? BEFORE : AFTER;

		if (k->col) {
			const char *v = field_of(o, k->col);

			if (!names_side(k, o) || (strcmp(v, k->val[BEFORE]) && strcmp(v, k->val[AFTER])))
				continue;
			s = strcmp(v, k->val[BEFORE]) ? AFTER : BEFORE;
		}
		k->ds[s].obs[k->ds[s].nobs++] = *o;
	}
	for (int s = 0; s < 2; s++) {
		/* ALL's runs that lost a row (freed with ALL, not here). */
		k->ds[s].lost = k->all.lost;
		if (dataset_build(&k->ds[s]) < 0)
			return -1;
	}
	return 0;
}

static const struct obs *entry_key(const struct entry *e)
{
	return e->s[BEFORE] ? e->s[BEFORE]->key : e->s[AFTER]->key;
}

static bool both(const struct entry *e)
{
	return e->c[BEFORE] && e->c[AFTER];
}

static int cmp_num(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(b) - isnan(a);
	return a < b ? -1 : a > b;
}

/* The family of a configuration: all of its key but size, policy, threads. */
static int cmp_family(const struct compare *k, const struct obs *a, const struct obs *b)
{
	int c = strcmp(a->workload, b->workload);

	if (!c)
		c = strcmp(a->algorithm, b->algorithm);
	if (!c)
		c = strcmp(a->unit, b->unit);
	if (!c && k->key_host)
		c = strcmp(a->host, b->host);
	if (!c && k->key_backend)
		c = strcmp(a->backend, b->backend);
	if (!c && k->key_impl)
		c = strcmp(a->impl, b->impl);
	if (!c)
		c = strcmp(a->size_unit, b->size_unit);
	return c;
}

/* A configuration's cell: on both sides it has one policy and thread count. */
static const struct cell *cell_of(const struct entry *e)
{
	return e->c[BEFORE] ? e->c[BEFORE] : e->c[AFTER];
}

static int cmp_config(const struct compare *k, const struct entry *a, const struct entry *b)
{
	int c = cmp_family(k, entry_key(a), entry_key(b));

	if (!c)
		c = cmp_num(entry_key(a)->size, entry_key(b)->size);
	if (!c)
		c = strcmp(cell_of(a)->policy, cell_of(b)->policy);
	if (!c)
		c = cell_of(a)->threads < cell_of(b)->threads ? -1 : cell_of(a)->threads > cell_of(b)->threads;
	return c;
}

/* A configuration, then its before side first. */
static int by_config(const void *x, const void *y, void *k)
{
	const struct entry *a = x, *b = y;
	int c = cmp_config(k, a, b);

	return c ? c : !a->c[BEFORE] - !b->c[BEFORE];
}

/* Whether a side's series differ in host, or in backend. */
static bool varies(const struct dataset *ds, size_t field)
{
	for (size_t i = 1; i < ds->nseries; i++)
		if (*(char *const *)((const char *)ds->series[i].key + field) !=
		    *(char *const *)((const char *)ds->series[0].key + field))
			return true;
	return false;
}

static int by_backend_impl(const void *x, const void *y)
{
	const struct obs *const *a = x, *const *b = y;
	int c = strcmp((*a)->backend, (*b)->backend);

	return c ? c : strcmp((*a)->impl, (*b)->impl);
}

/* Whether a side ran one backend with several implementations: an evp
 * file holding two OpenSSL versions is matched version by version, while
 * a side of evp and pkcs11 (whose impls differ as a matter of course) is
 * not, so a library upgrade on both still compares.  -1: out of memory. */
static int impl_varies(const struct dataset *ds)
{
	const struct obs **k = malloc((ds->nseries ? ds->nseries : 1) * sizeof(*k));
	int ret = 0;

	if (!k)
		return -1;
	for (size_t i = 0; i < ds->nseries; i++)
		k[i] = ds->series[i].key;
	qsort(k, ds->nseries, sizeof(*k), by_backend_impl);
	for (size_t i = 1; i < ds->nseries && !ret; i++)
		ret = k[i]->backend == k[i - 1]->backend && k[i]->impl != k[i - 1]->impl;
	free(k);
	return ret;
}

static void ratios(struct entry *e)
{
	const struct cell *b = e->c[BEFORE], *a = e->c[AFTER];

	e->ratio = e->lo = e->hi = NAN;
	if (!a || !b || !(b->median > 0) || !(b->max > 0) || !(b->min > 0))
		return;
	e->ratio = a->median / b->median;
	/* The spread: the worst and the best pairing of the repeats' ranges. */
	e->lo = a->min / b->max;
	e->hi = a->max / b->min;
}

/* A row of a configuration: its repeat and rate. */
struct rep {
	int repeat;
	double rate;
};

static int by_repeat(const void *x, const void *y)
{
	const struct rep *a = x, *b = y;

	return a->repeat < b->repeat ? -1 : a->repeat > b->repeat;
}

/* Side S's rows of E's configuration (its cell's n of them), by repeat;
 * NULL: out of memory. */
static struct rep *side_rows(const struct compare *k, const struct entry *e, int s)
{
	const struct cell *c = e->c[s];
	struct rep *r = malloc(c->n * sizeof(*r));
	size_t n = 0;

	for (size_t i = 0; r && i < k->ds[s].nobs && n < c->n; i++) {
		const struct obs *o = &k->ds[s].obs[i];

		if (!o->dropped && !o->failed && o->sid == e->s[s]->key->sid && o->policy == c->policy &&
		    o->threads == c->threads)
			r[n++] = (struct rep){ o->repeat, o->rate };
	}
	if (r)
		qsort(r, n, sizeof(*r), by_repeat);
	return r;
}

/* Whether the sides ran the same repeats, numbered, before's rates above 0:
 * then their rows pair up by repeat. */
static bool same_repeats(struct rep *const r[2], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r[BEFORE][i].repeat < 0 || r[BEFORE][i].repeat != r[AFTER][i].repeat || !(r[BEFORE][i].rate > 0))
			return false;
	return true;
}

/* The smallest p the exact test can give NA against NB: 2 / C(NA+NB, NA).
 * Where that is not below ALPHA, "~" there says nothing. */
static bool can_reach_alpha(size_t na, size_t nb)
{
	double c = 1;

	for (size_t i = 1; i <= nb; i++)
		c = c * (double)(na + i) / (double)i;
	return 2 / c < ALPHA;
}

/* E's intervals, its test and its paired ratio.  -1: out of memory. */
static int test_entry(const struct compare *k, struct entry *e)
{
	struct rep *r[2] = { NULL, NULL };
	double *x[2] = { NULL, NULL }, *q = NULL;
	size_t n[2] = { 0, 0 };
	int ret = -1;

	e->p = e->paired = e->paired_lo = e->paired_hi = NAN;
	for (int s = 0; s < 2; s++) {
		e->med_lo[s] = e->med_hi[s] = NAN;
		if (!e->c[s])
			continue;
		n[s] = e->c[s]->n;
		r[s] = side_rows(k, e, s);
		x[s] = malloc(n[s] * sizeof(*x[s]));
		if (!r[s] || !x[s])
			goto out;
		for (size_t i = 0; i < n[s]; i++)
			x[s][i] = r[s][i].rate;
		stats_median_ci(x[s], n[s], ALPHA, &e->med_lo[s], &e->med_hi[s]);
	}
	if (both(e) && n[BEFORE] > 1 && n[AFTER] > 1)
		e->p = stats_mann_whitney(x[AFTER], n[AFTER], x[BEFORE], n[BEFORE], NULL, NULL);
	if (both(e) && n[BEFORE] == n[AFTER] && same_repeats(r, n[BEFORE])) {
		q = malloc(n[BEFORE] * sizeof(*q));
		if (!q)
			goto out;
		for (size_t i = 0; i < n[BEFORE]; i++)
			q[i] = r[AFTER][i].rate / r[BEFORE][i].rate;
		e->paired = stats_median(q, n[BEFORE]);
		stats_median_ci(q, n[BEFORE], ALPHA, &e->paired_lo, &e->paired_hi);
	}
	ret = 0;
out:
	for (int s = 0; s < 2; s++) {
		free(r[s]);
		free(x[s]);
	}
	free(q);
	return ret;
}

/* 1 where E changed significantly, 0 where not, -1 where not tested. */
static int significant(const struct entry *e)
{
	return isnan(e->p) ? -1 : e->p < ALPHA;
}

/* Every cell of both sides as an entry, sorted by configuration, then
 * each configuration's cells into one entry. */
static int match(struct compare *k)
{
	size_t n = 0, i, j, cap = 0;
	int v;

	for (int s = 0; s < 2; s++)
		for (i = 0; i < k->ds[s].nseries; i++)
			cap += k->ds[s].series[i].ncells;
	k->e = calloc(cap ? cap : 1, sizeof(*k->e));
	if (!k->e)
		return -1;
	for (int s = 0; s < 2; s++) {
		const struct dataset *ds = &k->ds[s];

		k->key_host |= varies(ds, offsetof(struct obs, host));
		k->key_backend |= varies(ds, offsetof(struct obs, backend));
		v = impl_varies(ds);
		if (v < 0)
			return -1;
		k->key_impl |= v;
		for (i = 0; i < ds->nseries; i++) {
			k->unverified[s] += ds->series[i].unverified;
			for (j = 0; j < ds->series[i].ncells; j++, n++) {
				k->e[n].s[s] = &ds->series[i];
				k->e[n].c[s] = &ds->series[i].cells[j];
			}
		}
	}
	qsort_r(k->e, n, sizeof(*k->e), by_config, k);
	for (i = 0; i < n; i = j) {
		struct entry e = k->e[i];

		/* Within a side a configuration is one cell: its key holds every
		 * field in which the side's series differ. */
		for (j = i + 1; j < n && !cmp_config(k, &k->e[i], &k->e[j]); j++)
			for (int s = 0; s < 2; s++)
				if (k->e[j].c[s]) {
					e.s[s] = k->e[j].s[s];
					e.c[s] = k->e[j].c[s];
				}
		if (k->ne && cmp_family(k, entry_key(&k->e[k->ne - 1]), entry_key(&e)))
			k->ngroups++;
		e.group = k->ngroups;
		ratios(&e);
		if (test_entry(k, &e) < 0)
			return -1;
		if (both(&e)) {
			k->few += e.c[BEFORE]->n < 3 || e.c[AFTER]->n < 3;
			k->overlap += e.lo <= 1 && e.hi >= 1;
			k->untested += significant(&e) < 0;
			k->weak += significant(&e) >= 0 && !can_reach_alpha(e.c[BEFORE]->n, e.c[AFTER]->n);
		}
		k->e[k->ne++] = e;
	}
	if (k->ne)
		k->ngroups++;
	return 0;
}

/* A group's entries are K->e[FIRST] up to the one returned. */
static size_t group_end(const struct compare *k, size_t first)
{
	size_t i = first;

	while (i < k->ne && k->e[i].group == k->e[first].group)
		i++;
	return i;
}

/* A group's smallest and largest ratio (NULL: none) and how many it has;
 * the same of its significant changes. */
struct extremes {
	const struct entry *lo, *hi;
	size_t count;
	const struct entry *sig_lo, *sig_hi;
	size_t nsig;
};

static struct extremes extremes(const struct compare *k, size_t first, size_t end)
{
	struct extremes x = { 0 };

	for (const struct entry *e = &k->e[first]; e < &k->e[end]; e++) {
		if (!isfinite(e->ratio))
			continue;
		x.count++;
		if (!x.lo || e->ratio < x.lo->ratio)
			x.lo = e;
		if (!x.hi || e->ratio > x.hi->ratio)
			x.hi = e;
		if (significant(e) <= 0)
			continue;
		x.nsig++;
		if (!x.sig_lo || e->ratio < x.sig_lo->ratio)
			x.sig_lo = e;
		if (!x.sig_hi || e->ratio > x.sig_hi->ratio)
			x.sig_hi = e;
	}
	return x;
}

/* The comparison's warnings, each with a kind programs can test. */
enum { MAX_WARNINGS = 6 };
struct warning {
	const char *kind;
	char text[160];
};

static size_t warnings(const struct compare *k, struct warning *w)
{
	size_t n = 0;

	if (k->few) {
		w[n].kind = "few_repeats";
		snprintf(w[n++].text, sizeof(w[0].text),
			 "%zu configuration%s fewer than 3 repeats on a side: %s weak", k->few,
			 k->few == 1 ? " has" : "s have", k->few == 1 ? "its ratio is" : "their ratios are");
	}
	if (k->overlap) {
		w[n].kind = "no_difference";
		snprintf(w[n++].text, sizeof(w[0].text),
			 "%zu configuration%s a ratio range that includes 1.00: no difference measured there",
			 k->overlap, k->overlap == 1 ? " has" : "s have");
	}
	if (k->untested) {
		w[n].kind = "no_test";
		snprintf(w[n++].text, sizeof(w[0].text),
			 "%zu configuration%s one repeat on a side: no p-value, a rank test needs 2 or more on each",
			 k->untested, k->untested == 1 ? " has" : "s have");
	}
	if (k->weak) {
		w[n].kind = "weak_test";
		snprintf(w[n++].text, sizeof(w[0].text),
			 "%zu configuration%s too few repeats for p below %.2f (4+4 can reach it, 3+3 cannot): \"~\" there says little",
			 k->weak, k->weak == 1 ? " has" : "s have", ALPHA);
	}
	for (int s = 0; s < 2; s++)
		if (k->unverified[s]) {
			w[n].kind = "unverified";
			snprintf(w[n++].text, sizeof(w[0].text),
				 "%zu %s row(s) NOT VERIFIED: their rates are not to be trusted", k->unverified[s],
				 side_name[s]);
		}
	return n;
}

/* The value of a row of the tables: a configuration (struct entry; csv's
 * CTX is its group's extremes) or a warning. */
#define ROW(name, expr) COLUMN_GET(name, struct entry, expr)
COLUMN_GET(get_kind, struct warning, VAL_W(r->kind))
COLUMN_GET(get_text, struct warning, VAL_S(r->text))
ROW(get_group, VAL_I(r->group))
ROW(get_measured, VAL_W(both(r) ? "both" : r->c[BEFORE] ? "before" : "after"))
ROW(get_workload, VAL_S(entry_key(r)->workload))
ROW(get_algorithm, VAL_S(entry_key(r)->algorithm))
ROW(get_unit, VAL_S(entry_key(r)->unit))
ROW(get_size, VAL_N(entry_key(r)->size))
ROW(get_size_unit, VAL_S(entry_key(r)->size_unit))
ROW(get_policy, VAL_S(cell_of(r)->policy))
ROW(get_threads, VAL_I(cell_of(r)->threads))
ROW(get_ratio, VAL_N(r->ratio))
ROW(get_ratio_min, VAL_N(r->lo))
ROW(get_ratio_max, VAL_N(r->hi))
ROW(get_p, VAL_N(r->p))
ROW(get_significant, significant(r) < 0 ? VAL_NULL : VAL_B(significant(r)))
ROW(get_paired, VAL_N(r->paired))
ROW(get_paired_lo, VAL_N(r->paired_lo))
ROW(get_paired_hi, VAL_N(r->paired_hi))
ROW(get_smallest, VAL_B(r == ((const struct extremes *)ctx)->lo))
ROW(get_largest, VAL_B(r == ((const struct extremes *)ctx)->hi))
/* A side's names ("" where it did not measure) and figures (none). */
#define SIDE_GETTERS(side, S) \
	ROW(side##_host, VAL_S(r->s[S] ? r->s[S]->key->host : "")) \
	ROW(side##_backend, VAL_S(r->s[S] ? r->s[S]->key->backend : "")) \
	ROW(side##_impl, VAL_S(r->s[S] ? r->s[S]->key->impl : "")) \
	ROW(side##_n, r->c[S] ? VAL_I(r->c[S]->n) : VAL_NULL) \
	ROW(side##_median, VAL_N(r->c[S] ? r->c[S]->median : NAN)) \
	ROW(side##_min, VAL_N(r->c[S] ? r->c[S]->min : NAN)) \
	ROW(side##_max, VAL_N(r->c[S] ? r->c[S]->max : NAN)) \
	ROW(side##_lo, VAL_N(r->med_lo[S])) \
	ROW(side##_hi, VAL_N(r->med_hi[S]))
SIDE_GETTERS(before, BEFORE)
SIDE_GETTERS(after, AFTER)

static const char *size_cell(const void *row, const void *ctx, char *buf, size_t len)
{
	(void)ctx;
	return size_text(entry_key(row), buf, len);
}

static const char *range_cell(const void *row, const void *ctx, char *buf, size_t len)
{
	const struct entry *e = row;
	char lo[32], hi[32];

	(void)ctx;
	fixed2(e->lo, lo, sizeof(lo));
	fixed2(e->hi, hi, sizeof(hi));
	snprintf(buf, len, "%s..%s", lo, hi);
	return buf;
}

/* A side's median and its interval as benchstat shows it: "1.23 k ops/s
 * ±2%", the interval's farther end from the median. */
static const char *median_cell(const struct entry *e, int s, char *buf, size_t len)
{
	double m = e->c[s]->median, d = fmax(e->med_hi[s] - m, m - e->med_lo[s]);

	rate_text(m, entry_key(e)->unit, buf, len);
	if (m > 0)
		snprintf(buf + strlen(buf), len - strlen(buf), " ±%.0f%%", 100 * d / m);
	return buf;
}

static const char *before_cell(const void *row, const void *ctx, char *buf, size_t len)
{
	(void)ctx;
	return median_cell(row, BEFORE, buf, len);
}

static const char *after_cell(const void *row, const void *ctx, char *buf, size_t len)
{
	(void)ctx;
	return median_cell(row, AFTER, buf, len);
}

/* "+12.0%" where the change is significant, else "~". */
static const char *change_cell(const void *row, const void *ctx, char *buf, size_t len)
{
	const struct entry *e = row;

	(void)ctx;
	if (significant(e) <= 0)
		return "~";
	if (!isfinite(e->ratio))
		return "n/a";
	snprintf(buf, len, "%+.1f%%", 100 * (e->ratio - 1));
	return buf;
}

/* "p=0.008 n=5+5" ("p=n/a" where a side has one repeat). */
static const char *test_cell(const void *row, const void *ctx, char *buf, size_t len)
{
	const struct entry *e = row;
	int n = isnan(e->p) ? snprintf(buf, len, "p=n/a") : snprintf(buf, len, "p=%.3f", e->p);

	(void)ctx;
	snprintf(buf + n, len - (size_t)n, " n=%zu+%zu", e->c[BEFORE]->n, e->c[AFTER]->n);
	return buf;
}

#define CSV (IN(FMT_CSV) | IN(FMT_TSV))
/* A side's names and figures: "before_host"... in csv, "host"... in a
 * side's json object. */
#define SIDE_NAMES(side, prefix, in_) \
	{ prefix "host", .in = in_, .get = side##_host }, { prefix "backend", .in = in_, .get = side##_backend }, \
	{ prefix "impl", .in = in_, .get = side##_impl }
#define SIDE_FIGURES(side, prefix, in_) \
	{ prefix "n", .in = in_, .get = side##_n }, { prefix "median", .in = in_, .get = side##_median }, \
	{ prefix "min", .in = in_, .get = side##_min }, { prefix "max", .in = in_, .get = side##_max }, \
	{ prefix "lo", .in = in_, .get = side##_lo }, { prefix "hi", .in = in_, .get = side##_hi }

/* A configuration: text and markdown show those measured on both sides;
 * json writes the sides' objects before "ratio". */
static const struct column entry_cols[] = {
	{ "group", .in = CSV, .get = get_group },
	{ "measured", .get = get_measured },
	{ "workload", .in = CSV, .get = get_workload },
	{ "algorithm", .in = CSV, .get = get_algorithm },
	{ "unit", .in = CSV, .get = get_unit },
	/* -14: left-aligned in text, right in markdown. */
	{ "size", "size", -14, .get = get_size, .text = size_cell },
	{ "size_unit", .in = CSV, .get = get_size_unit },
	{ "policy", "policy", -16, .left = true, .get = get_policy },
	{ "threads", "threads", 7, .get = get_threads },
	{ NULL, "before", 16, .show = SHOW_RATE, .rate_more = 5, .get = before_median, .text = before_cell },
	{ NULL, "after", 16, .show = SHOW_RATE, .rate_more = 5, .get = after_median, .text = after_cell },
	SIDE_NAMES(before, "before_", CSV),
	SIDE_NAMES(after, "after_", CSV),
	SIDE_FIGURES(before, "before_", CSV),
	SIDE_FIGURES(after, "after_", CSV),
	{ "ratio", "ratio", 7, .show = SHOW_RATIO, .get = get_ratio },
	{ "ratio_min", .get = get_ratio_min },
	{ "ratio_max", .get = get_ratio_max },
	{ NULL, "range", 15, .text = range_cell },
	{ "ratio_paired", "paired", 7, .show = SHOW_RATIO, .get = get_paired },
	{ "ratio_paired_lo", .get = get_paired_lo },
	{ "ratio_paired_hi", .get = get_paired_hi },
	{ "p", .in = IN_DATA, .get = get_p },
	{ "significant", .in = IN_DATA, .get = get_significant },
	{ NULL, "change", 7, .text = change_cell },
	{ NULL, "test", .left = true, .text = test_cell },
	{ "smallest", .in = CSV, .get = get_smallest },
	{ "largest", .in = CSV, .get = get_largest },
};

/* Text or markdown prose: each "%s" of FMT a text of the files (markdown
 * escapes what would break a line or a table, text what would break a
 * line), the rest written as it is. */
static void say(FILE *out, bool md, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (fmt[0] != '%' || fmt[1] != 's') {
			fputc(*fmt, out);
			continue;
		}
		(md ? md_cell : esc_line)(out, va_arg(ap, const char *));
		fmt++;
	}
	va_end(ap);
}

static void where(FILE *out, const struct entry *e, bool md)
{
	char size[64];

	fprintf(out, "%.2fx at ", e->ratio);
	say(out, md, "%s (%s, ", size_text(entry_key(e), size, sizeof(size)), e->c[BEFORE]->policy);
	fprintf(out, "%u thread%s)", e->c[BEFORE]->threads, e->c[BEFORE]->threads == 1 ? "" : "s");
}

/* A group's heading, and what its sides ran where they differ in it. */
static void group_title(FILE *out, const struct compare *k, const struct entry *e, bool md)
{
	const struct obs *o = entry_key(e), *side[2] = { e->s[BEFORE]->key, e->s[AFTER]->key };
	const bool hosts = side[BEFORE]->host != side[AFTER]->host;

	say(out, md, md ? "### %s %s, %s" : "== %s %s, %s", o->workload, *o->algorithm ? o->algorithm : "-",
	    *o->unit ? o->unit : "rate");
	if (k->key_host)
		say(out, md, ", host %s", o->host);
	if (k->key_backend)
		say(out, md, ", %s", o->backend);
	if (k->key_impl && *o->impl)
		say(out, md, ", %s", o->impl);
	fputs(md ? "\n\n" : "\n", out);
	if (side[BEFORE]->backend == side[AFTER]->backend && side[BEFORE]->impl == side[AFTER]->impl && !hosts)
		return;
	for (int s = 0; s < 2; s++) {
		say(out, md, md ? "- %s: %s" : "   %s: %s", side_name[s], *side[s]->backend ? side[s]->backend : "-");
		if (*side[s]->impl)
			say(out, md, " (%s)", side[s]->impl);
		if (hosts)
			say(out, md, ", host %s", side[s]->host);
		fputc('\n', out);
	}
	if (md)
		fputc('\n', out);
}

static void summary_text(FILE *out, const struct compare *k, size_t first, size_t end, bool md)
{
	struct extremes x = extremes(k, first, end);

	fputs(md ? "- summary: " : "  summary: ", out);
	if (!x.lo) {
		fputs("no ratio (a median of 0 before)\n", out);
		return;
	}
	if (!x.nsig) {
		fprintf(out, "no significant change (%zu configuration%s)\n", x.count, x.count == 1 ? "" : "s");
		return;
	}
	fprintf(out, "%zu of %zu configuration%s changed significantly: ", x.nsig, x.count, x.count == 1 ? "" : "s");
	if (x.sig_lo != x.sig_hi)
		fputs("from ", out);
	where(out, x.sig_lo, md);
	if (x.sig_lo != x.sig_hi) {
		fputs(" to ", out);
		where(out, x.sig_hi, md);
	}
	fputc('\n', out);
}

/* A group in text or markdown: its heading, the ratios of the
 * configurations measured on both sides, the summary. */
static void group_text(FILE *out, const struct compare *k, size_t first, size_t end, bool md)
{
	struct table t = { out, md ? FMT_MARKDOWN : FMT_TEXT, false, entry_cols, NCOLS(entry_cols), NULL, NULL };
	size_t i = first;

	while (i < end && !both(&k->e[i]))
		i++;
	if (i == end)
		return;
	t.unit = entry_key(&k->e[i])->unit;
	group_title(out, k, &k->e[i], md);
	table_head(&t);
	for (; i < end; i++)
		if (both(&k->e[i]))
			table_row(&t, &k->e[i]);
	if (md)
		fputc('\n', out);
	summary_text(out, k, first, end, md);
	fputc('\n', out);
}

/* A configuration one side measured: its names and that side's figures. */
static void one_side_text(FILE *out, const struct compare *k, const struct entry *e, bool md)
{
	const struct obs *o = entry_key(e);
	int s = e->c[BEFORE] ? BEFORE : AFTER;
	const struct cell *c = e->c[s];
	char size[64], med[32];

	say(out, md, md ? "- %s only: %s %s" : "  %s only: %s %s", side_name[s], o->workload,
	    *o->algorithm ? o->algorithm : "-");
	if (k->key_host || k->key_backend || k->key_impl)
		say(out, md, " / %s", o->backend);
	if (k->key_host)
		say(out, md, ", host %s", o->host);
	say(out, md, ", %s, %s", size_text(o, size, sizeof(size)), c->policy);
	fprintf(out, ", %u thread%s: median %s", c->threads, c->threads == 1 ? "" : "s",
		rate_text(c->median, o->unit, med, sizeof(med)));
	if (output_exact())
		say(out, md, " %s", o->unit);
	fprintf(out, ", n %zu\n", c->n);
}

static void emit_text(FILE *out, const struct compare *k, bool md)
{
	struct warning w[MAX_WARNINGS];
	size_t i, n, end;
	bool header = false;

	say(out, md, md ? "## Before and after\n\n- before: %s\n- after: %s\n" : "== before: %s\n== after:  %s\n",
	    k->label[BEFORE], k->label[AFTER]);
	fprintf(out, "%s ratio = after / before, medians of the repeats; range = after min / before max .. "
		"after max / before min\n", md ? "-" : "  ");
	fprintf(out, "%s before, after: median ±95%% interval (order statistics); paired = median of after / before "
		"by repeat, where both sides ran the same repeats\n", md ? "-" : "  ");
	fprintf(out, "%s test: Mann-Whitney U of the rates, two-sided; change \"~\": not significant (p ≥ %.2f)\n",
		md ? "-" : "  ", ALPHA);
	if (rates_note())
		fprintf(out, "%s %s\n", md ? "-" : "  ", rates_note());
	fputc('\n', out);
	for (i = 0; i < k->ne; i = end) {
		end = group_end(k, i);
		group_text(out, k, i, end, md);
	}
	for (i = 0; i < k->ne; i++) {
		if (both(&k->e[i]))
			continue;
		if (!header)
			fputs(md ? "### Measured on one side only\n\n" : "== measured on one side only\n", out);
		header = true;
		one_side_text(out, k, &k->e[i], md);
	}
	if (header)
		fputc('\n', out);
	n = warnings(k, w);
	for (i = 0; i < n; i++)
		fprintf(out, "%swarning: %s\n", md ? "- " : "  ", w[i].text);
}

static void emit_csv(FILE *out, const struct compare *k, enum format fmt, bool raw)
{
	struct extremes x;
	struct table t = { out, fmt, raw, entry_cols, NCOLS(entry_cols), &x, NULL };
	size_t i, end;

	table_head(&t);
	for (i = 0; i < k->ne; i = end) {
		end = group_end(k, i);
		x = extremes(k, i, end);
		for (size_t j = i; j < end; j++)
			table_row(&t, &k->e[j]);
	}
}

/* json_nl(), two deep: a configuration's line under its group's.  (For
 * table.c: json_nl() with a depth.) */
static void json_nl2(struct json *j)
{
	if (j->more[j->depth])
		fputc(',', j->out);
	fputs("\n  ", j->out);
	j->more[j->depth] = false; /* the separator is written */
}

/* A configuration in json: entry_cols with the sides' objects before
 * "ratio". */
static void json_entry(struct json *j, const struct entry *e)
{
	static const struct column side_cols[2][9] = {
		{ SIDE_NAMES(before, "", 0), SIDE_FIGURES(before, "", 0) },
		{ SIDE_NAMES(after, "", 0), SIDE_FIGURES(after, "", 0) },
	};
	size_t r = 0;

	while (strcmp(entry_cols[r].key ? entry_cols[r].key : "", "ratio"))
		r++;
	json_nl2(j);
	json_open(j, '{');
	table_fields(&(struct table){ j->out, FMT_JSON, false, entry_cols, r, NULL, j }, e);
	for (int s = 0; s < 2; s++) {
		json_key(j, side_name[s]);
		if (e->c[s])
			table_row(&(struct table){ j->out, FMT_JSON, false, side_cols[s], 9, NULL, j }, e);
		else
			json_null(j);
	}
	table_fields(&(struct table){ j->out, FMT_JSON, false, entry_cols + r, NCOLS(entry_cols) - r, NULL, j }, e);
	json_close(j, '}');
}

/* A group in json: its names, its configurations, its extremes. */
static void json_group(struct json *j, const struct compare *k, size_t first, size_t end)
{
	static const struct column group_cols[] = {
		{ "workload", .get = get_workload }, { "algorithm", .get = get_algorithm },
		{ "unit", .get = get_unit }, { "size_unit", .get = get_size_unit },
	};
	static const struct column where_cols[] = {
		{ "ratio", .get = get_ratio }, { "size", .get = get_size },
		{ "policy", .get = get_policy }, { "threads", .get = get_threads },
	};
	struct table where = { j->out, FMT_JSON, false, where_cols, NCOLS(where_cols), NULL, j };
	struct extremes x = extremes(k, first, end);

	json_nl(j);
	json_open(j, '{');
	table_fields(&(struct table){ j->out, FMT_JSON, false, group_cols, NCOLS(group_cols), NULL, j }, &k->e[first]);
	json_key(j, "configurations");
	json_open(j, '[');
	for (size_t i = first; i < end; i++)
		json_entry(j, &k->e[i]);
	json_close(j, ']');
	json_key(j, "summary");
	if (x.lo) {
		json_open(j, '{');
		json_key(j, "configurations");
		json_int(j, (long long)x.count);
		json_key(j, "significant");
		json_int(j, (long long)x.nsig);
		json_key(j, "smallest");
		table_row(&where, x.lo);
		json_key(j, "largest");
		table_row(&where, x.hi);
		json_close(j, '}');
	} else {
		json_null(j);
	}
	json_close(j, '}');
}

static void emit_json(FILE *out, const struct compare *k, const char *by)
{
	static const struct column warning_cols[] = { { "kind", .get = get_kind }, { "text", .get = get_text } };
	struct table wt = { out, FMT_JSON, false, warning_cols, NCOLS(warning_cols), NULL, NULL };
	struct warning w[MAX_WARNINGS + 1];
	size_t i, n, end;
	struct json j;

	json_init(&j, out);
	wt.json = &j;
	json_open(&j, '{');
	for (int s = 0; s < 2; s++) {
		json_key(&j, side_name[s]);
		json_string(&j, k->label[s]);
	}
	json_key(&j, "by");
	json_string(&j, by);
	json_key(&j, "groups");
	json_open(&j, '[');
	for (i = 0; i < k->ne; i = end) {
		end = group_end(k, i);
		json_group(&j, k, i, end);
	}
	json_close_nl(&j, ']');
	json_key(&j, "warnings");
	json_open(&j, '[');
	n = warnings(k, w);
	for (i = 0; i < n; i++)
		table_row(&wt, &w[i]);
	/* Last: every name above has been written, so the count is whole. */
	if (json_replaced_bytes()) {
		w[n].kind = "encoding";
		snprintf(w[n].text, sizeof(w[n].text),
			 "%zu byte(s) of the input were not UTF-8 and were replaced by U+FFFD", json_replaced_bytes());
		table_row(&wt, &w[n]);
	}
	json_close(&j, ']');
	json_close(&j, '}');
	fputc('\n', out);
}

/* FILES into K->all; the notes on them into *NOTES, said once the
 * comparison stands (an error is then the only line).  An exit status. */
static int read_files(struct compare *k, char **files, int nfiles, char **notes, size_t *boundary)
{
	size_t len = 0;
	char err[1024];
	FILE *f = open_memstream(notes, &len);
	int ret = 0;

	if (!f)
		return 1;
	for (int i = 0; i < nfiles && !ret; i++) {
		if (dataset_read(&k->all, files[i], f, err, sizeof(err)) < 0) {
			msg_error(PROG, "%s", err);
			ret = 2;
		}
		if (i == 0)
			*boundary = k->all.nobs;
	}
	fclose(f);
	return ret;
}

/* Whether both sides have usable rows and share a configuration; if not,
 * why, said. */
static bool comparable(struct compare *k, const char *notes)
{
	const int d = k->ds[BEFORE].duplicates ? BEFORE : AFTER;

	/* Both sides' failed rows and rows read twice, said with the notes. */
	k->all.failed = k->ds[BEFORE].failed + k->ds[AFTER].failed;
	k->all.first_failed = k->ds[BEFORE].failed ? k->ds[BEFORE].first_failed : k->ds[AFTER].first_failed;
	k->all.duplicates = k->ds[BEFORE].duplicates + k->ds[AFTER].duplicates;
	k->all.first_duplicate = k->ds[d].first_duplicate;
	k->all.first_duplicated = k->ds[d].first_duplicated;
	for (int s = 0; s < 2; s++)
		if (!k->ds[s].nseries) {
			/* The notes say why its rows were not usable. */
			fputs(notes, stderr);
			dataset_note_skipped(&k->all, stderr, PROG);
			msg_error(PROG, "compare: %s '%s' has no usable rows", side_name[s], k->label[s]);
			return false;
		}
	for (size_t i = 0; i < k->ne; i++)
		if (both(&k->e[i]))
			return true;
	msg_error(PROG, "compare: '%s' and '%s' share no configuration (same workload, algorithm, unit, "
		  "size, policy and threads): nothing to compare", k->label[BEFORE], k->label[AFTER]);
	return false;
}

int compare_report(char **files, int nfiles, const char *by, enum format fmt, bool raw, FILE *out)
{
	struct compare k = { 0 };
	char *notes = NULL;
	size_t boundary = 0;
	int ret = 2;

	if (by && !by_column_named(by, strcspn(by, "="))) {
		say_unknown_column(by); /* before any file is read */
		goto out;
	}
	if (!by && nfiles != 2) {
		msg_error(PROG, "compare: %d file%s given, allowed exactly two (BEFORE AFTER); "
			  "--compare-by COL selects the sides from any files", nfiles, nfiles == 1 ? "" : "s");
		goto out;
	}
	ret = read_files(&k, files, nfiles, &notes, &boundary);
	if (!ret)
		ret = name_sides(&k, files, by);
	if (!ret && (split(&k, boundary) < 0 || match(&k) < 0)) {
		msg_error(PROG, "out of memory");
		ret = 1;
	}
	if (ret)
		goto out;
	ret = 2;
	if (!comparable(&k, notes))
		goto out;
	fputs(notes, stderr);
	dataset_note_skipped(&k.all, stderr, PROG);
	if (fmt == FMT_TEXT || fmt == FMT_MARKDOWN)
		emit_text(out, &k, fmt == FMT_MARKDOWN);
	else if (fmt == FMT_JSON)
		emit_json(out, &k, by);
	else
		emit_csv(out, &k, fmt, raw);
	dataset_note_damaged(&k.all, stderr, PROG);
	ret = 0;
out:
	free(notes);
	free(k.by_copy);
	free(k.label_buf[BEFORE]);
	free(k.label_buf[AFTER]);
	free(k.e);
	for (int s = 0; s < 2; s++) {
		k.ds[s].lost = (struct results_lost){ 0 };      /* ALL's */
		dataset_free(&k.ds[s]);
	}
	dataset_free(&k.all);
	return ret;
}
