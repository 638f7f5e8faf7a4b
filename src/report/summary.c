/* threadreport --summary: per workload a table and the findings. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "summary.h"
#include "verdicts.h"

/* Thread counts a table shows (more are left out, and said); findings a
 * workload keeps (the most general first). */
enum { MAX_TC = 16, MAX_FINDINGS = 6, LABEL_LEN = 160, FIND_LEN = 512, PLAN_LEN = 96 };

struct finding {
	const char *kind;       /* for programs: linear, low_efficiency, placement, ... */
	unsigned threads;       /* 0: none in particular */
	char text[FIND_LEN];
};

/* What one series shows at one thread count, before series that show the
 * same are joined into one finding. */
enum fact_kind { F_LINEAR, F_LOW, F_PLACE, F_SAME, F_SHARE, F_NOSHARE, F_KINDS };

struct fact {
	enum fact_kind kind;
	unsigned t;
	char a[PLAN_LEN], b[PLAN_LEN]; /* the plans (policies) it names */
	double x;                      /* the ratio (placement, sharing) */
	struct sample sa, sb;          /* the evidence: efficiency (sa), or each side's rates */
	unsigned flags;
	size_t k;                      /* its series in the workload */
	enum verdict why;              /* F_SAME, F_NOSHARE: why no difference */
	struct vtest test;             /* placement, sharing: the verdict's test */
};

/* One workload: its series, their verdicts, the plans and thread counts of
 * its table, its findings. */
struct wsum {
	const struct dataset *ds;
	const char *workload;
	size_t *idx, n;         /* its series in ds */
	struct verdicts *v;     /* [n] */
	size_t **plan;          /* [k][policy]: its plan's index in plans */
	char **plans;           /* each plan: its policies joined by " = " */
	size_t nplans;
	unsigned threads[MAX_TC];
	size_t nt, more_threads;
	char head[MAX_TC][24];
	unsigned flags;         /* of every cell */
	bool vary_backend, vary_size, vary_host;
	bool numbered;          /* labels alike still: "#" and the series number */
	struct finding find[MAX_FINDINGS];
	size_t nfind, more_find;
};

static const struct series *wseries(const struct wsum *w, size_t k)
{
	return &w->ds->series[w->idx[k]];
}

void json_flags(struct json *j, unsigned flags)
{
	json_open(j, '[');
	for (unsigned i = 1; i <= FLAG_LAST; i <<= 1)
		if (flags & i)
			json_string(j, flag_name(i));
	json_close(j, '[');
}

/* The cell of plan J of series K at THREADS: its first policy's there,
 * *FLAGS those of all its policies' cells (NULL: none ran). */
static const struct cell *plan_cell(const struct wsum *w, size_t k, size_t j, unsigned t, unsigned *flags)
{
	const struct series *s = wseries(w, k);
	const struct cell *first = NULL, *c;

	*flags = 0;
	for (size_t p = 0; p < s->npolicies; p++) {
		if (w->plan[k][p] != j || !(c = series_cell(s, s->policies[p], t)))
			continue;
		first = first ? first : c;
		*flags |= cell_marks(c);
	}
	return first;
}

/* A series' name in its workload: what tells it from the others. */
static const char *series_label(const struct wsum *w, size_t k, char *buf, size_t len)
{
	const struct obs *o = wseries(w, k)->key;
	char size[64];

	char num[32] = "";

	if (w->numbered)
		snprintf(num, sizeof(num), " #%zu", w->idx[k]);
	snprintf(buf, len, "%s%s%s%s%s%s%s%s", *o->algorithm ? o->algorithm : "-",
		 w->vary_backend && *o->backend ? " / " : "", w->vary_backend ? o->backend : "",
		 w->vary_size ? " " : "", w->vary_size ? size_text(o, size, sizeof(size)) : "",
		 w->vary_host ? " @" : "", w->vary_host ? (*o->host ? o->host : "-") : "", num);
	return buf;
}

/* "bous": a letter per flag (busy, oversubscribed, unverified, superlinear). */
static const char *marks(unsigned flags, char *buf)
{
	size_t n = 0;

	for (unsigned i = 1; i <= FLAG_LAST; i <<= 1)
		if (flags & i)
			buf[n++] = flag_name(i)[0];
	buf[n] = '\0';
	return buf;
}

/* Thread count I of row K: "speedup/efficiency%" per plan. */
static const char *tc_text(const struct wsum *w, size_t k, size_t i, char *buf, size_t len)
{
	size_t used = 0;
	char one[32], m[8];

	buf[0] = '\0';
	for (size_t j = 0; j < w->nplans && used < len; j++) {
		unsigned f;
		const struct cell *c = plan_cell(w, k, j, w->threads[i], &f);

		if (!c)
			snprintf(one, sizeof(one), "-");
		else if (!isfinite(c->speedup))
			snprintf(one, sizeof(one), "n/a%s", marks(f, m));
		else
			snprintf(one, sizeof(one), "%.2f/%.0f%s", c->speedup, 100 * c->efficiency, marks(f, m));
		used += (size_t)snprintf(buf + used, len - used, "%s%8s", j ? " " : "", one);
	}
	return buf;
}

/* A row of the table: series K of the workload (its CTX). */
struct srow {
	size_t k;
};

static const char *label_text(const void *row, const void *ctx, char *buf, size_t len)
{
	return series_label(ctx, ((const struct srow *)row)->k, buf, len);
}

/* The renderer asks a column for its text without saying which column:
 * one function per thread count's column. */
#define TC(i) \
	static const char *tc##i(const void *row, const void *ctx, char *buf, size_t len) \
	{ \
		return tc_text(ctx, ((const struct srow *)row)->k, i, buf, len); \
	}
TC(0) TC(1) TC(2) TC(3) TC(4) TC(5) TC(6) TC(7)
TC(8) TC(9) TC(10) TC(11) TC(12) TC(13) TC(14) TC(15)
static const char *(*const tc_fn[MAX_TC])(const void *, const void *, char *, size_t) = {
	tc0, tc1, tc2, tc3, tc4, tc5, tc6, tc7, tc8, tc9, tc10, tc11, tc12, tc13, tc14, tc15,
};

/* A cell of the table in csv, tsv and json: one plan of one series at one
 * thread count. */
struct lrow {
	const struct wsum *w;
	size_t k, plan;
	const struct cell *c;
	unsigned flags;
	char words[64];
};

#define LROW(name, expr) COLUMN_GET(name, struct lrow, expr)
#define KEY(r) (wseries((r)->w, (r)->k)->key)
LROW(get_series, VAL_I(r->w->idx[r->k]))
LROW(get_host, VAL_S(KEY(r)->host))
LROW(get_workload, VAL_S(KEY(r)->workload))
LROW(get_algorithm, VAL_S(KEY(r)->algorithm))
LROW(get_backend, VAL_S(KEY(r)->backend))
LROW(get_impl, VAL_S(KEY(r)->impl))
LROW(get_size, VAL_N(KEY(r)->size))
LROW(get_size_unit, VAL_S(KEY(r)->size_unit))
LROW(get_unit, VAL_S(KEY(r)->unit))
LROW(get_threads, VAL_I(r->c->threads))
LROW(get_plan, VAL_S(r->w->plans[r->plan]))
LROW(get_policy, VAL_S(r->c->policy))
LROW(get_n, VAL_I(r->c->n))
LROW(get_speedup, VAL_N(r->c->speedup))
LROW(get_speedup_lo, VAL_N(r->c->speedup_lo))
LROW(get_speedup_hi, VAL_N(r->c->speedup_hi))
LROW(get_efficiency, VAL_N(r->c->efficiency))
LROW(get_pairs, VAL_I(r->c->pairs))
LROW(get_flags, VAL_W(r->words))

static void put_flags(struct json *j, const void *row, const void *ctx)
{
	(void)ctx;
	json_flags(j, ((const struct lrow *)row)->flags);
}

static const struct column cell_cols[] = {
	{ "series", .get = get_series }, { "host", .get = get_host },
	{ "workload", .in = IN(FMT_CSV) | IN(FMT_TSV), .get = get_workload },
	{ "algorithm", .get = get_algorithm }, { "backend", .get = get_backend }, { "impl", .get = get_impl },
	{ "size", .get = get_size }, { "size_unit", .get = get_size_unit }, { "unit", .get = get_unit },
	{ "threads", .get = get_threads }, { "plan", .get = get_plan }, { "policy", .get = get_policy },
	{ "n", .get = get_n }, { "speedup", .digits = 6, .get = get_speedup },
	{ "speedup_lo", .digits = 6, .get = get_speedup_lo }, { "speedup_hi", .digits = 6, .get = get_speedup_hi },
	{ "efficiency", .digits = 6, .get = get_efficiency }, { "speedup_pairs", .get = get_pairs },
	{ "flags", .get = get_flags, .put = put_flags },
};

/* Every cell of the workload's table as a row of T. */
static void cell_rows(const struct table *t, const struct wsum *w)
{
	struct lrow r = { w };

	for (r.k = 0; r.k < w->n; r.k++)
		for (size_t i = 0; i < w->nt; i++)
			for (r.plan = 0; r.plan < w->nplans; r.plan++)
				if ((r.c = plan_cell(w, r.k, r.plan, w->threads[i], &r.flags))) {
					flags_text(r.flags, " ", r.words, sizeof(r.words));
					table_row(t, &r);
				}
}

COLUMN_GET(get_kind, struct finding, VAL_W(r->kind))
COLUMN_GET(get_find_threads, struct finding, r->threads ? VAL_I(r->threads) : VAL_NULL)
COLUMN_GET(get_text, struct finding, VAL_S(r->text))

static const struct column find_cols[] = {
	{ "kind", .in = IN(FMT_JSON), .get = get_kind },
	{ "threads", .in = IN(FMT_JSON), .get = get_find_threads },
	{ "text", "finding", .left = true, .lead = "  ", .get = get_text },
};

/* The policies of plan G at thread count TV, joined by " = ". */
static const char *group_label(const struct verdicts *v, const struct tverdict *tv, size_t g, char *buf,
			       size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = tv->first; i < tv->end && used < len; i++)
		if (v->group[v->order[i]] == g)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " = " : "",
						 v->s->cells[v->order[i]].policy);
	return buf;
}

/* Plan G's points at TV pooled (as the verdict pools them). */
static struct sample group_sample(const struct verdicts *v, const struct tverdict *tv, size_t g,
				  struct sample *tmp)
{
	size_t n = 0;

	for (size_t i = tv->first; i < tv->end; i++)
		if (v->group[v->order[i]] == g) {
			const struct cell *c = &v->s->cells[v->order[i]];

			tmp[n++] = (struct sample){ c->median, c->min, c->max, c->n };
		}
	return sample_pool(tmp, n);
}

/* The efficiency of C as a sample: its paired interval over the threads. */
static struct sample eff_sample(const struct cell *c)
{
	return (struct sample){ c->efficiency, c->speedup_lo / c->threads, c->speedup_hi / c->threads, c->pairs };
}

/* Whether the efficiency of C is clear of X: its whole interval at or
 * above X (ABOVE), or below it, over enough paired repeats. */
static bool eff_clear(const struct cell *c, double x, bool above)
{
	struct sample e;

	if (!c || c->pairs < VERDICT_MIN_REPEATS)
		return false;
	e = eff_sample(c);
	return above ? e.min >= x : e.max < x;
}

/* Samples joined: the widest range, the fewest repeats. */
static void widen(struct sample *a, const struct sample *b)
{
	a->min = fmin(a->min, b->min);
	a->max = fmax(a->max, b->max);
	a->n = a->n < b->n ? a->n : b->n;
}

/* Series K's linear scaling: the plan that stays efficient the longest,
 * as one fact (none when no plan is clear of SUMMARY_LINEAR past 1). */
static size_t linear_fact(const struct wsum *w, size_t k, struct fact *f)
{
	unsigned best = 1, fl;
	size_t j, i;

	for (j = 0; j < w->nplans; j++) {
		struct fact e = { F_LINEAR, 1, .k = k, .sa = { .min = INFINITY, .max = -INFINITY, .n = SIZE_MAX } };

		for (i = 0; i < w->nt; i++) {
			const struct cell *c = plan_cell(w, k, j, w->threads[i], &fl);

			if (!c || w->threads[i] == 1)
				continue;
			if (!eff_clear(c, SUMMARY_LINEAR, true))
				break;
			e.t = w->threads[i];
			e.flags |= fl;
			widen(&e.sa, &(struct sample){ .min = eff_sample(c).min, .max = eff_sample(c).max, .n = c->pairs });
		}
		if (e.t > best) {
			best = e.t;
			snprintf(e.a, sizeof(e.a), "%s", w->plans[j]);
			*f = e;
		}
	}
	return best > 1;
}

/* Series K's first thread count where every plan's efficiency is clear
 * below SUMMARY_LOW, as one fact. */
static size_t low_fact(const struct wsum *w, size_t k, struct fact *f)
{
	unsigned fl;

	for (size_t i = 0; i < w->nt; i++) {
		struct fact e = { F_LOW, w->threads[i], .k = k, .sa = { .min = INFINITY, .max = -INFINITY, .n = SIZE_MAX } };
		size_t ran = 0, low = 0;

		for (size_t j = 0; j < w->nplans; j++) {
			const struct cell *c = plan_cell(w, k, j, w->threads[i], &fl);

			if (!c)
				continue;
			ran++;
			low += eff_clear(c, SUMMARY_LOW, false);
			e.flags |= fl;
			widen(&e.sa, &(struct sample){ .min = eff_sample(c).min, .max = eff_sample(c).max, .n = c->pairs });
		}
		if (ran && low == ran) {
			*f = e;
			return 1;
		}
	}
	return 0;
}

/* Series K's placement verdicts (verdicts.c) as facts: a winner, or why
 * none, at each thread count with two plans or more. */
static size_t place_facts(const struct wsum *w, size_t k, struct fact *f, struct sample *tmp)
{
	const struct verdicts *v = &w->v[k];
	size_t n = 0;

	for (size_t i = 0; i < v->nt; i++) {
		const struct tverdict *tv = &v->t[i];
		struct fact *e = &f[n];

		if (tv->ngroups < 2)
			continue;
		*e = (struct fact){ tv->v == VERDICT_WINNER ? F_PLACE : F_SAME, tv->threads, .k = k,
				    .flags = tv->flags, .why = tv->v, .test = tv->test };
		if (e->kind == F_PLACE) {
			group_label(v, tv, tv->best, e->a, sizeof(e->a));
			group_label(v, tv, tv->worst, e->b, sizeof(e->b));
			e->sa = group_sample(v, tv, tv->best, tmp);
			e->sb = group_sample(v, tv, tv->worst, tmp);
			e->x = tv->ratio;
		}
		n++;
	}
	return n;
}

/* Series K's sharing penalties (verdicts.c: cK against c1) as facts. */
static size_t share_facts(const struct wsum *w, size_t k, struct fact *f)
{
	const struct verdicts *v = &w->v[k];

	for (size_t i = 0; i < v->nshare; i++) {
		const struct share *x = &v->share[i];

		f[i] = (struct fact){ x->v == VERDICT_WINNER ? F_SHARE : F_NOSHARE, x->ck->threads, .k = k,
				      .x = x->ck->median / x->c1->median, .why = x->v, .test = x->test,
				      .flags = cell_flags(x->c1) | cell_flags(x->ck),
				      .sa = { x->ck->median, x->ck->min, x->ck->max, x->ck->n },
				      .sb = { x->c1->median, x->c1->min, x->c1->max, x->c1->n } };
		snprintf(f[i].a, sizeof(f[i].a), "%s", x->ck->policy);
		snprintf(f[i].b, sizeof(f[i].b), "c1");
	}
	return v->nshare;
}

/* The series of the facts G[0..M): "all N series", their names, or where
 * only COUNT is asked and they are many, or they do not fit, "N of M series". */
static const char *series_list(const struct wsum *w, struct fact *const *g, size_t m, bool count, char *buf,
			       size_t len)
{
	size_t used = 0, names = 0, i, x;
	char label[LABEL_LEN];

	buf[0] = '\0';
	for (i = 0; i < m && used < len; i++) {
		for (x = 0; x < i && g[x]->k != g[i]->k; x++)
			;
		if (x < i)
			continue;
		names++;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 series_label(w, g[i]->k, label, sizeof(label)));
	}
	if (names == w->n && names > 1)
		snprintf(buf, len, "all %zu series", names);
	else if ((count && names > 3) || used >= len)
		snprintf(buf, len, "%zu of %zu series", names, w->n);
	return buf;
}

/* A finding's room, or NULL past MAX_FINDINGS (counted). */
static char *finding(struct wsum *w, const char *kind, unsigned threads)
{
	if (w->nfind == MAX_FINDINGS) {
		w->more_find++;
		return NULL;
	}
	w->find[w->nfind] = (struct finding){ kind, threads, "" };
	return w->find[w->nfind++].text;
}

/* " [on flagged points: busy]" where FLAGS has any, else "". */
static const char *flagged(unsigned flags, char *buf, size_t len)
{
	char words[64];

	buf[0] = '\0';
	if (flags) {
		flags_text(flags, ", ", words, sizeof(words));
		snprintf(buf, len, " [on flagged points: %s]", words);
	}
	return buf;
}

static int by_threads(const void *a, const void *b)
{
	return NUM_CMP(*(const unsigned *)a, *(const unsigned *)b);
}

/* The evidence of the M placement or sharing facts G: the test's p and
 * the ratio's interval, and each side's range of rates (with the unit);
 * of many, the largest p. */
static const char *evidence(const struct wsum *w, struct fact *const *g, size_t m, char *buf, size_t len)
{
	const char *unit = wseries(w, g[0]->k)->key->unit;
	char a[64], b[64], ci[48];
	double p = 0;

	for (size_t i = 0; i < m; i++)
		p = fmax(p, g[i]->test.p);
	if (m > 1) {
		snprintf(buf, len, "Mann-Whitney p %s %.3f in each of %zu", p < 0.001 ? "<" : "<=", fmax(p, 0.001), m);
		return buf;
	}
	vtest_interval_text(&g[0]->test, ci, sizeof(ci));
	snprintf(buf, len, "Mann-Whitney p %s %.3f%s%s; %s vs %s%s%s", p < 0.001 ? "<" : "=", fmax(p, 0.001),
		 ci[0] ? ", " : "", ci,
		 rate_range_text(g[0]->sa.min, g[0]->sa.max, unit, a, sizeof(a)),
		 rate_range_text(g[0]->sb.min, g[0]->sb.max, unit, b, sizeof(b)),
		 output_exact() ? " " : "", output_exact() ? unit : "");
	return buf;
}

/* "1.90x" or "1.20x..1.90x": LO and HI in FORMAT, then UNIT; one figure
 * where they print the same. */
static const char *figure(double lo, double hi, const char *format, const char *unit, char *buf, size_t len)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), format, lo);
	snprintf(b, sizeof(b), format, hi);
	snprintf(buf, len, strcmp(a, b) ? "%s..%s%s" : "%s%.0s%s", a, b, unit);
	return buf;
}

/* The thread counts of the facts G[0..M): "2 threads", "2 and 4 threads";
 * *ONE the count where there is one, else 0. */
static const char *thread_list(struct fact *const *g, size_t m, unsigned *one, char *buf, size_t len)
{
	unsigned t[MAX_TC];
	size_t n = 0, i, x, used = 0;

	for (i = 0; i < m && n < MAX_TC; i++) {
		for (x = 0; x < n && t[x] != g[i]->t; x++)
			;
		if (x == n)
			t[n++] = g[i]->t;
	}
	qsort(t, n, sizeof(*t), by_threads);
	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i == 0 ? "" : i + 1 == n ? " and " : ", ", t[i]);
	if (used < len)
		snprintf(buf + used, len - used, " thread%s", n == 1 && t[0] == 1 ? "" : "s");
	*one = n == 1 ? t[0] : 0;
	return buf;
}

/* How many of the M facts G were compared, and why no difference was
 * measured (the reasons that occur). */
static const char *reasons(struct fact *const *g, size_t m, char *buf, size_t len)
{
	size_t n[VERDICT_NOT_SIGNIFICANT + 1] = { 0 };
	int used = snprintf(buf, len, "%zu compared", m);
	unsigned settle = 0;

	for (size_t i = 0; i < m; i++) {
		n[g[i]->why]++;
		if (g[i]->why == VERDICT_NOT_SIGNIFICANT && g[i]->test.settle > settle)
			settle = g[i]->test.settle;
	}
	for (int v = VERDICT_FEW_REPEATS; v <= VERDICT_NOT_SIGNIFICANT; v++)
		if (n[v] && used < (int)len)
			used += snprintf(buf + used, len - (size_t)used, "; %s in %zu", verdict_text(v), n[v]);
	if (settle && used < (int)len)
		snprintf(buf + used, len - (size_t)used, "; about %u repeats a side would settle %s", settle,
			 m > 1 ? "them" : "it");
	return buf;
}

/* The facts G[0..M) (one kind, plans and, but for placement and sharing,
 * thread count) as one finding.
 * PLACED: some plan won somewhere in the workload. */
static void say(struct wsum *w, struct fact *const *g, size_t m, bool placed)
{
	static const char *const kind[F_KINDS] = { "linear", "low_efficiency", "placement", "no_placement_difference",
						   "sharing", "no_sharing_difference" };
	struct fact e = *g[0];
	double xlo = e.x, xhi = e.x;
	char names[LABEL_LEN * 2], fl[96], ev[160], fig[48], at[96], eff[48], *t;
	unsigned one;

	for (size_t i = 1; i < m; i++) {
		widen(&e.sa, &g[i]->sa);
		widen(&e.sb, &g[i]->sb);
		e.flags |= g[i]->flags;
		xlo = fmin(xlo, g[i]->x);
		xhi = fmax(xhi, g[i]->x);
	}
	thread_list(g, m, &one, at, sizeof(at));
	if (!(t = finding(w, kind[e.kind], e.kind == F_SAME || e.kind == F_NOSHARE ? 0 : one)))
		return;
	series_list(w, g, m, e.kind == F_SAME || e.kind == F_NOSHARE, names, sizeof(names));
	figure(e.sa.min, e.sa.max, "%.2f", "", eff, sizeof(eff));
	flagged(e.flags, fl, sizeof(fl));
	switch (e.kind) {
	case F_LINEAR:
		snprintf(t, FIND_LEN, "scales linearly to %s (%s): %s (efficiency %s, n %zu)%s", at, e.a, names, eff,
			 e.sa.n, fl);
		break;
	case F_LOW:
		snprintf(t, FIND_LEN, "efficiency falls below %.1f from %s: %s (every plan %s, n %zu)%s", SUMMARY_LOW,
			 at, names, eff, e.sa.n, fl);
		break;
	case F_PLACE:
		snprintf(t, FIND_LEN, "placement mattered at %s: %s over %s by %s (%s, n %zu/%zu): %s%s", at, e.a, e.b,
			 figure(xlo, xhi, "%.2f", "x", fig, sizeof(fig)), evidence(w, g, m, ev, sizeof(ev)), e.sa.n,
			 e.sb.n, names, fl);
		break;
	case F_SAME:
		snprintf(t, FIND_LEN, "placement made no measured difference%s (%s): %s%s", placed ? " elsewhere" : "",
			 reasons(g, m, ev, sizeof(ev)), names, fl);
		break;
	case F_SHARE:
		snprintf(t, FIND_LEN, "sharing a core's strands %s %s (%s over c1 at %s, %s, n %zu/%zu): %s%s",
			 xhi < 1 ? "costs" : "gains",
			 figure(100 * fmin(fabs(1 - xlo), fabs(1 - xhi)), 100 * fmax(fabs(1 - xlo), fabs(1 - xhi)), "%.0f",
				"%", fig, sizeof(fig)),
			 e.a, at, evidence(w, g, m, ev, sizeof(ev)), e.sa.n, e.sb.n, names, fl);
		break;
	default:
		snprintf(t, FIND_LEN, "sharing a core's strands: no difference measured (cK against c1, %s): %s%s",
			 reasons(g, m, ev, sizeof(ev)), names, fl);
		break;
	}
}

/* Whether facts A and B join in one finding: the same kind, and the same
 * thread count and plans where the finding names them. */
static bool same_finding(const struct fact *a, const struct fact *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == F_SAME || a->kind == F_NOSHARE)
		return true;
	/* A placement or sharing finding lists its thread counts. */
	return (a->t == b->t || a->kind == F_PLACE || a->kind == F_SHARE) && !strcmp(a->a, b->a) &&
	       !strcmp(a->b, b->b);
}

/* The N facts as findings, kind by kind, those that join as one. */
static int group_facts(struct wsum *w, struct fact *f, size_t n)
{
	struct fact **g = malloc((n ? n : 1) * sizeof(*g));
	bool *used = calloc(n ? n : 1, sizeof(*used)), placed = false;
	size_t i, x, m;
	int ret = -1;

	if (!g || !used)
		goto out;
	for (i = 0; i < n; i++)
		placed |= f[i].kind == F_PLACE;
	for (int kind = 0; kind < F_KINDS; kind++)
		for (i = 0; i < n; i++) {
			if (used[i] || (int)f[i].kind != kind)
				continue;
			for (x = i, m = 0; x < n; x++)
				if (!used[x] && same_finding(&f[i], &f[x])) {
					used[x] = true;
					g[m++] = &f[x];
				}
			say(w, g, m, placed);
		}
	ret = 0;
out:
	free(g);
	free(used);
	return ret;
}

/* The backend cutoffs of the workload (the cutoffs view's computation):
 * one finding per algorithm and backend pair, over its policies and
 * thread counts. */
static void cutoff_findings(struct wsum *w, const struct backend_cutoffs *bc)
{
	const struct cutoff *cut = bc->cut;
	const struct cutoff_ref *ref = bc->ref;
	const size_t ncut = bc->n;
	size_t i, j, x, found;
	char fig[64], alg[LABEL_LEN], *t;

	for (i = 0; i < ncut; i = j) {
		const struct obs *ka = ref[cut[i].tag_a].s->key, *kb = ref[cut[i].tag_b].s->key;
		const struct cutoff *first = NULL;
		double lo = INFINITY, hi = -INFINITY;

		for (j = i; j < ncut && cut[j].family == cut[i].family && cut[j].backend_a == cut[i].backend_a &&
		     cut[j].backend_b == cut[i].backend_b; j++)
			;
		if (ka->workload != w->workload)
			continue;
		for (x = i, found = 0; x < j; x++)
			if (cut[x].found) {
				first = first ? first : &cut[x];
				lo = fmin(lo, cut[x].cut);
				hi = fmax(hi, cut[x].cut);
				found++;
			}
		if (!(t = finding(w, "cutoff", 0)))
			continue;
		snprintf(alg, sizeof(alg), "%s%s%s", ka->algorithm, w->vary_host ? " @" : "",
			 w->vary_host ? (*ka->host ? ka->host : "-") : "");
		if (first)
			snprintf(t, FIND_LEN, "backend cutoff, %s: %s overtakes %s above ~%s %s (sizes %.0f..%.0f; %zu of %zu policy and thread count points cross)",
				 alg, first->a_wins_above ? ka->backend : kb->backend,
				 first->a_wins_above ? kb->backend : ka->backend, figure(lo, hi, "%.0f", "", fig, sizeof(fig)),
				 ka->size_unit, cut[i].min_size, cut[i].max_size, found, j - i);
		else
			snprintf(t, FIND_LEN, "backend cutoff, %s: %s is faster at every size measured (%zu sizes, %.0f..%.0f %s, %zu policy and thread count points)",
				 alg, cut[i].ratio_min > 1 ? ka->backend : kb->backend, cut[i].sizes,
				 cut[i].min_size, cut[i].max_size, ka->size_unit, j - i);
	}
}

/* The workload's findings: its series' facts joined, then its cutoffs. */
static int findings(struct wsum *w, const struct backend_cutoffs *bc)
{
	size_t cap = 0, most = 1, n = 0, k;
	struct fact *f = NULL;
	struct sample *tmp = NULL;
	int ret = -1;

	for (k = 0; k < w->n; k++) {
		cap += 2 + w->v[k].nt + w->v[k].nshare;
		most = wseries(w, k)->ncells > most ? wseries(w, k)->ncells : most;
	}
	f = malloc(cap * sizeof(*f));
	tmp = malloc(most * sizeof(*tmp));
	if (!f || !tmp)
		goto out;
	for (k = 0; k < w->n; k++) {
		n += linear_fact(w, k, &f[n]);
		n += low_fact(w, k, &f[n]);
		n += place_facts(w, k, &f[n], tmp);
		n += share_facts(w, k, &f[n]);
	}
	if (group_facts(w, f, n) < 0)
		goto out;
	cutoff_findings(w, bc);
	if (w->more_find) {
		w->nfind--;
		w->more_find++;
		snprintf(finding(w, "more", 0), FIND_LEN, "%zu more findings: the full report has them", w->more_find);
	}
	ret = 0;
out:
	free(f);
	free(tmp);
	return ret;
}

static void wsum_close(struct wsum *w)
{
	for (size_t k = 0; k < w->n; k++) {
		verdicts_free(&w->v[k]);
		free(w->plan[k]);
	}
	for (size_t j = 0; j < w->nplans; j++)
		free(w->plans[j]);
	free(w->idx);
	free(w->v);
	free(w->plan);
	free(w->plans);
}

/* Whether policies A and B (interned names) are one plan in every series
 * of the workload that ran both (verdicts.c's same plan), and one ran both. */
static bool one_plan(const struct wsum *w, const char *a, const char *b)
{
	size_t k, p, q, both = 0;

	for (k = 0; k < w->n; k++) {
		const struct series *s = wseries(w, k);

		for (p = 0; p < s->npolicies && s->policies[p] != a; p++)
			;
		for (q = 0; q < s->npolicies && s->policies[q] != b; q++)
			;
		if (p == s->npolicies || q == s->npolicies)
			continue;
		if (w->v[k].same[p] != w->v[k].same[q])
			return false;
		both++;
	}
	return both > 0;
}

/* The workload's plans: its policies (first seen first), those that are
 * one plan wherever both ran joined, named "a = b"; each series' policies
 * mapped to them (w->plan).  NAMES: room for every policy. */
static int workload_plans(struct wsum *w, const char **names)
{
	size_t k, p, a, b, n = 0, used, *lead = NULL, *plan;
	char name[LABEL_LEN];
	int ret = -1;

	for (k = 0; k < w->n; k++)
		for (p = 0; p < wseries(w, k)->npolicies; p++) {
			for (a = 0; a < n && names[a] != wseries(w, k)->policies[p]; a++)
				;
			if (a == n)
				names[n++] = wseries(w, k)->policies[p];
		}
	if (!(lead = malloc(2 * (n ? n : 1) * sizeof(*lead))))
		goto out;
	plan = lead + n;
	/* Each policy joins the first plan before it that it is one with. */
	for (b = 0; b < n; b++) {
		for (a = 0; a < b && !(lead[a] == a && one_plan(w, names[a], names[b])); a++)
			;
		lead[b] = a;
	}
	for (b = 0; b < n; b++) {
		if (lead[b] != b)
			continue;
		for (p = b, used = 0; p < n && used < sizeof(name); p++)
			if (lead[p] == b)
				used += (size_t)snprintf(name + used, sizeof(name) - used, "%s%s", used ? " = " : "", names[p]);
		plan[b] = w->nplans;
		if (!(w->plans[w->nplans++] = strdup(name)))
			goto out;
	}
	for (k = 0; k < w->n; k++)
		for (p = 0; p < wseries(w, k)->npolicies; p++) {
			for (a = 0; names[a] != wseries(w, k)->policies[p]; a++)
				;
			w->plan[k][p] = plan[lead[a]];
		}
	ret = 0;
out:
	free(lead);
	return ret;
}

/* What a label needs beyond the algorithm: what tells apart two series of
 * one algorithm (interned texts, compared as pointers). */
static void vary(struct wsum *w)
{
	for (size_t k = 0; k < w->n; k++)
		for (size_t x = 0; x < k; x++) {
			const struct obs *a = wseries(w, k)->key, *b = wseries(w, x)->key;

			if (a->algorithm != b->algorithm)
				continue;
			w->vary_backend |= a->backend != b->backend;
			w->vary_size |= (a->size != b->size && !(isnan(a->size) && isnan(b->size))) ||
					a->size_unit != b->size_unit;
			w->vary_host |= a->host != b->host;
		}
}

/* Whether two series of the workload have one label. */
static bool labels_alike(const struct wsum *w)
{
	char a[LABEL_LEN], b[LABEL_LEN];

	for (size_t k = 0; k < w->n; k++)
		for (size_t x = 0; x < k; x++)
			if (!strcmp(series_label(w, k, a, sizeof(a)), series_label(w, x, b, sizeof(b))))
				return true;
	return false;
}

/* The workload's thread counts ascending (MAX_TC of them shown), what
 * tells its series apart, and the flags of its cells. */
static int series_threads(struct wsum *w)
{
	size_t k, c, n = 0, m = 0;
	unsigned *all;

	for (k = 0; k < w->n; k++)
		n += wseries(w, k)->ncells;
	if (!(all = malloc((n ? n : 1) * sizeof(*all))))
		return -1;
	for (k = 0, n = 0; k < w->n; k++) {
		const struct series *s = wseries(w, k);

		for (c = 0; c < s->ncells; c++) {
			all[n++] = s->cells[c].threads;
			w->flags |= cell_marks(&s->cells[c]);
		}
	}
	vary(w);
	qsort(all, n, sizeof(*all), by_threads);
	for (c = 0; c < n; c++)
		if (!c || all[c] != all[c - 1]) {
			if (m < MAX_TC)
				w->threads[m] = all[c];
			m++;
		}
	w->numbered = labels_alike(w);
	w->nt = m < MAX_TC ? m : MAX_TC;
	w->more_threads = m - w->nt;
	for (c = 0; c < w->nt; c++)
		snprintf(w->head[c], sizeof(w->head[c]), "%u thread%s", w->threads[c], w->threads[c] == 1 ? "" : "s");
	free(all);
	return 0;
}

/* The workload of DS's series I0 (its first) into W (wsum_close frees,
 * also after -1: out of memory). */
static int wsum_open(struct wsum *w, const struct dataset *ds, size_t i0)
{
	size_t i, k, np = 0;

	*w = (struct wsum){ .ds = ds, .workload = ds->series[i0].key->workload };
	w->idx = malloc((ds->nseries - i0) * sizeof(*w->idx));
	if (!w->idx)
		return -1;
	for (i = i0; i < ds->nseries; i++)
		if (ds->series[i].key->workload == w->workload) {
			w->idx[w->n++] = i;
			np += ds->series[i].npolicies;
		}
	w->v = calloc(w->n, sizeof(*w->v));
	w->plan = calloc(w->n, sizeof(*w->plan));
	w->plans = calloc(2 * np + 1, sizeof(*w->plans));
	if (!w->v || !w->plan || !w->plans)
		return -1;
	for (k = 0; k < w->n; k++)
		if (series_verdicts(wseries(w, k), &w->v[k]) < 0 ||
		    !(w->plan[k] = malloc(wseries(w, k)->npolicies * sizeof(**w->plan))))
			return -1;
	/* Past its plans' room, w->plans has room for every policy's name. */
	if (workload_plans(w, (const char **)w->plans + np) < 0)
		return -1;
	return series_threads(w);
}

/* How to read the table: a cell's figures, the plans, the marks used. */
static const char *legend(const struct wsum *w, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "speedup/efficiency%% per plan:");
	char m[8];

	for (size_t j = 0; j < w->nplans && used < len; j++)
		used += (size_t)snprintf(buf + used, len - used, "%s %s", j ? ";" : "", w->plans[j]);
	for (unsigned f = 1; f <= FLAG_LAST && used < len; f <<= 1)
		if (w->flags & f)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %s", f == (w->flags & -w->flags) ? "; marks: " : ", ",
						 marks(f, m), flag_name(f));
	if (w->more_threads && used < len)
		snprintf(buf + used, len - used, "; %zu more thread counts in the full report", w->more_threads);
	return buf;
}

/* The workload for people (text, markdown, html): its heading, its
 * table, its findings. */
static void human_workload(FILE *out, struct wsum *w, enum format fmt)
{
	const bool md = fmt == FMT_MARKDOWN, html = fmt == FMT_HTML;
	struct column cols[1 + MAX_TC];
	struct table t = { out, fmt, false, cols, 1 + w->nt, w, NULL };
	struct table ft = { out, t.fmt, false, find_cols, NCOLS(find_cols), w, NULL };
	size_t k, i, width = 0;
	char buf[1024];

	for (k = 0; k < w->n; k++)
		width = fmax(width, strlen(series_label(w, k, buf, sizeof(buf))));
	cols[0] = (struct column){ NULL, "series", (int)width, .left = true, .text = label_text };
	for (i = 0; i < w->nt; i++)
		cols[1 + i] = (struct column){ NULL, w->head[i], (int)fmax(strlen(w->head[i]), 9 * w->nplans - 1),
					       .lead = "  ", .text = tc_fn[i] };
	legend(w, buf, sizeof(buf));
	if (html) {
		fputs("<h3>", out);
		esc_html(out, w->workload);
		fputs("</h3>\n<p>Each cell: ", out);
		esc_html(out, buf);
		fputs("</p>\n", out);
	} else if (md) {
		fprintf(out, "### Summary: %s\n\nEach cell: %s\n\n", ESC_MD(w->workload, true),
			esc_md_text(buf, (char[2048]){ "" }, 2048));
	} else {
		fprintf(out, "== summary: %s (each cell: %s)\n", ESC(w->workload), esc_text(buf, (char[2048]){ "" }, 2048));
	}
	table_head(&t);
	for (k = 0; k < w->n; k++)
		table_row(&t, &(struct srow){ k });
	table_end(&t);
	if ((md || html) && w->nfind) {
		fputc('\n', out);
		table_head(&ft);
	}
	for (i = 0; i < w->nfind; i++)
		table_row(&ft, &w->find[i]);
	if (w->nfind)
		table_end(&ft);
	fputc('\n', out);
}

/* The workload in json: its plans, thread counts, cells and findings. */
static void json_workload(struct json *j, struct wsum *w)
{
	struct table t = { j->out, FMT_JSON, false, cell_cols, NCOLS(cell_cols), w, j };
	struct table ft = { j->out, FMT_JSON, false, find_cols, NCOLS(find_cols), w, j };
	size_t i;

	json_nl(j);
	json_open(j, '{');
	json_field(j, "workload", VAL_S(w->workload));
	json_open_key(j, "plans", '[');
	for (i = 0; i < w->nplans; i++)
		json_string(j, w->plans[i]);
	json_close(j, '[');
	json_open_key(j, "threads", '[');
	for (i = 0; i < w->nt; i++)
		json_int(j, w->threads[i]);
	json_close(j, '[');
	json_open_key(j, "cells", '[');
	cell_rows(&t, w);
	json_close(j, '[');
	json_open_key(j, "findings", '[');
	for (i = 0; i < w->nfind; i++)
		table_row(&ft, &w->find[i]);
	json_close(j, '[');
	json_close(j, '{');
}

int summary_emit(FILE *out, const struct dataset *ds, enum format fmt, bool raw, struct json *j)
{
	struct table t = { out, fmt, raw, cell_cols, NCOLS(cell_cols), NULL, j };
	struct backend_cutoffs bc;
	size_t i, x;
	struct wsum w;
	int ret = -1;

	if (backend_cutoffs_find(ds, &bc) < 0)
		goto out;
	if (fmt == FMT_CSV || fmt == FMT_TSV)
		table_head(&t);
	for (i = 0; i < ds->nseries; i++) {
		/* A workload's table where its first series is. */
		for (x = 0; x < i && ds->series[x].key->workload != ds->series[i].key->workload; x++)
			;
		if (x < i)
			continue;
		if (wsum_open(&w, ds, i) < 0 || findings(&w, &bc) < 0) {
			wsum_close(&w);
			goto out;
		}
		t.ctx = &w;
		if (fmt == FMT_JSON)
			json_workload(j, &w);
		else if (fmt == FMT_TEXT || fmt == FMT_MARKDOWN || fmt == FMT_HTML)
			human_workload(out, &w, fmt);
		else
			cell_rows(&t, &w);
		wsum_close(&w);
	}
	ret = 0;
out:
	backend_cutoffs_free(&bc);
	return ret;
}

/* A key for numbering things in first-seen order (number_groups). */
enum { IDKEY_WORDS = 5 };
struct idkey {
	uintptr_t k[IDKEY_WORDS];
	size_t i;
};

static int by_idkey(const void *x, const void *y)
{
	const struct idkey *a = x, *b = y;

	for (int j = 0; j < IDKEY_WORDS; j++)
		if (a->k[j] != b->k[j])
			return a->k[j] < b->k[j] ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* ID[k[x].i] = the number of k[x]'s group (equal keys), groups numbered in
 * the order of their first index.  K is sorted in the process. */
static int number_groups(struct idkey *k, size_t n, size_t *id)
{
	struct idkey *first = malloc((n ? n : 1) * sizeof(*first));
	size_t i, j, g = 0, x;

	if (!first)
		return -1;
	qsort(k, n, sizeof(*k), by_idkey);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && !memcmp(k[j].k, k[i].k, sizeof(k[i].k)); j++)
			;
		first[g++] = (struct idkey){ { k[i].i, i, j }, 0 };
	}
	qsort(first, g, sizeof(*first), by_idkey);
	for (x = 0; x < g; x++)
		for (i = first[x].k[1]; i < first[x].k[2]; i++)
			id[k[i].i] = x;
	free(first);
	return 0;
}

static int by_backend(const void *x, const void *y, void *arg)
{
	const struct cutoff_ref *ref = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return strcmp(ref[a].s->key->backend, ref[b].s->key->backend);
}

/* Every cell of DS as a point for cutoffs_compute; tag x is (*REF)[x].
 * Interned texts are compared as pointers. */
static int cutoff_points(const struct dataset *ds, struct cutoff_point **pts, size_t *npts,
			 struct cutoff_ref **ref)
{
	size_t n = 0, i, c, x, rank, *fam = NULL, *cfg = NULL, *order = NULL;
	struct idkey *k = NULL;
	int ret = -1;

	for (i = 0; i < ds->nseries; i++)
		n += ds->series[i].ncells;
	*npts = n;
	*pts = malloc((n ? n : 1) * sizeof(**pts));
	*ref = malloc((n ? n : 1) * sizeof(**ref));
	k = malloc((n ? n : 1) * sizeof(*k));
	fam = malloc((n ? n : 1) * 3 * sizeof(*fam));
	if (!*pts || !*ref || !k || !fam)
		goto out;
	cfg = fam + n;
	order = cfg + n;
	for (i = 0, x = 0; i < ds->nseries; i++)
		for (c = 0; c < ds->series[i].ncells; c++, x++)
			(*ref)[x] = (struct cutoff_ref){ &ds->series[i], &ds->series[i].cells[c] };
	for (x = 0; x < n; x++) {
		const struct obs *o = (*ref)[x].s->key;

		k[x] = (struct idkey){ { (uintptr_t)o->workload, (uintptr_t)o->algorithm,
					 (uintptr_t)o->host, (uintptr_t)o->unit,
					 (uintptr_t)o->size_unit }, x };
	}
	if (number_groups(k, n, fam) < 0)
		goto out;
	for (x = 0; x < n; x++)
		k[x] = (struct idkey){ { (uintptr_t)(*ref)[x].c->policy, (*ref)[x].c->threads }, x };
	if (number_groups(k, n, cfg) < 0)
		goto out;
	/* Backends ranked by name, so that a pair is named a before b. */
	for (x = 0; x < n; x++)
		order[x] = x;
	qsort_r(order, n, sizeof(*order), by_backend, *ref);
	for (x = 0, rank = 0; x < n; x++) {
		const struct obs *o = (*ref)[order[x]].s->key;

		rank += x > 0 && strcmp(o->backend, (*ref)[order[x - 1]].s->key->backend);
		(*pts)[order[x]] = (struct cutoff_point){ .family = fam[order[x]],
			.config = cfg[order[x]], .backend = rank, .tag = order[x], .size = o->size,
			.rate = (*ref)[order[x]].c->median };
	}
	ret = 0;
out:
	free(k);
	free(fam);
	return ret;
}

int backend_cutoffs_find(const struct dataset *ds, struct backend_cutoffs *bc)
{
	struct cutoff_point *pts = NULL;
	size_t npts;
	int ret;

	*bc = (struct backend_cutoffs){ 0 };
	ret = cutoff_points(ds, &pts, &npts, &bc->ref) < 0 ||
			      cutoffs_compute(pts, npts, &bc->cut, &bc->n) < 0 ? -1 : 0;
	free(pts);
	return ret;
}

void backend_cutoffs_free(struct backend_cutoffs *bc)
{
	free(bc->cut);
	free(bc->ref);
	*bc = (struct backend_cutoffs){ 0 };
}
