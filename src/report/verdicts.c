/* The verdicts of a series: plans per thread count, best plan, sharing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdicts.h"

static const struct {
	unsigned bit;
	const char *name;
} flag_names[] = {
	{ FLAG_BUSY, "busy" }, { FLAG_OVERSUBSCRIBED, "oversubscribed" },
	{ FLAG_UNVERIFIED, "unverified" }, { FLAG_SUPERLINEAR, "superlinear" },
};

unsigned cell_flags(const struct cell *c)
{
	return (c->busy ? FLAG_BUSY : 0) | (c->oversubscribed ? FLAG_OVERSUBSCRIBED : 0) |
	       (c->unverified ? FLAG_UNVERIFIED : 0);
}

unsigned cell_marks(const struct cell *c)
{
	return cell_flags(c) | (c->superlinear ? FLAG_SUPERLINEAR : 0);
}

void flags_text(unsigned flags, const char *sep, char *buf, size_t len)
{
	size_t used = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]) && used < len; i++)
		if (flags & flag_names[i].bit)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "",
						 flag_names[i].name);
}

static struct sample cell_sample(const struct cell *c)
{
	return (struct sample){ c->median, c->min, c->max, c->n };
}

static const char *const verdict_words[] = {
	[VERDICT_WINNER] = "winner",
	[VERDICT_FEW_REPEATS] = "fewer than 3 repeats",
	[VERDICT_OVERLAP] = "ranges overlap",
	[VERDICT_NOT_SIGNIFICANT] = "Mann-Whitney p >= 0.05",
};

const char *verdict_text(enum verdict v)
{
	return verdict_words[v];
}

void verdict_why(enum verdict v, const struct vtest *t, char *buf, size_t len)
{
	if (v != VERDICT_NOT_SIGNIFICANT)
		snprintf(buf, len, "%s", verdict_text(v));
	else if (t->settle)
		snprintf(buf, len, "Mann-Whitney p %.2f; about %u repeats a side would settle it", t->p,
			 t->settle);
	else
		snprintf(buf, len, "Mann-Whitney p %.2f", t->p);
}

void vtest_interval_text(const struct vtest *t, char *buf, size_t len)
{
	if (!isfinite(t->lo) || !isfinite(t->hi))
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%s %.2f..%.2f", t->paired ? "95% CI" : "ranges", t->lo, t->hi);
}

/* A's rows against B's (two points or plans): the test and the ratio A / B. */
static int rows_test(const struct obs *const *a, size_t na, const struct obs *const *b, size_t nb,
		     struct vtest *t)
{
	double *x = malloc((2 * na + nb + 1) * sizeof(*x)), *y, *r;
	size_t i, k, nr = 0;

	if (!x)
		return -1;
	y = x + na;
	r = y + nb;
	for (i = 0; i < na; i++)
		x[i] = a[i]->rate;
	for (k = 0; k < nb; k++)
		y[k] = b[k]->rate;
	/* Pairs: one row of B of A's file and repeat each (the same pass). */
	for (i = 0; i < na; i++)
		for (k = 0; k < nb; k++)
			if (a[i]->repeat >= 0 && a[i]->repeat == b[k]->repeat && b[k]->rate > 0 &&
			    !strcmp(a[i]->file, b[k]->file)) {
				r[nr++] = a[i]->rate / b[k]->rate;
				break;
			}
	t->p = stats_mann_whitney(x, na, y, nb, NULL, NULL);
	t->settle = t->p >= VERDICT_ALPHA && t->p < 0.2 ?
		    stats_mw_repeats(t->p, na < nb ? na : nb, VERDICT_ALPHA) : 0;
	t->paired = nr > 0;
	if (nr) {
		stats_median_ci(r, nr, 0.05, &t->lo, &t->hi);
		t->ratio = stats_median(r, nr);
	} else {
		t->ratio = stats_median(x, na) / stats_median(y, nb);
		t->lo = x[0] / y[nb - 1];
		t->hi = x[na - 1] / y[0];
	}
	free(x);
	return 0;
}

const char *flag_name(unsigned bit)
{
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (flag_names[i].bit == bit)
			return flag_names[i].name;
	return "";
}

void verdicts_free(struct verdicts *v)
{
	free(v->t);
	free(v->order);
	free(v->rank);
	free(v->group);
	free(v->tidx);
	free(v->same);
	free(v->share);
}

static int by_threads_rank(const void *x, const void *y, void *arg)
{
	const struct verdicts *v = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const int c[] = { NUM_CMP(v->s->cells[a].threads, v->s->cells[b].threads),
			  NUM_CMP(v->rank[a], v->rank[b]) };

	return cmp_first(c, 2);
}

/* By plan (interned: one pointer per plan), then policy. */
static int by_plan_rank(const void *x, const void *y, void *arg)
{
	const struct verdicts *v = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const int c[] = { NUM_CMP((uintptr_t)v->s->cells[a].cpus, (uintptr_t)v->s->cells[b].cpus),
			  NUM_CMP(v->rank[a], v->rank[b]) };

	return cmp_first(c, 2);
}

/* The rows of plan G at TV (its cells' repeats) into OUT: their count. */
static size_t plan_rows(const struct verdicts *v, const struct tverdict *tv, size_t g,
			const struct obs **out)
{
	size_t n = 0, i, k;

	for (i = tv->first; i < tv->end; i++) {
		const struct cell *c = &v->s->cells[v->order[i]];

		for (k = 0; v->group[v->order[i]] == g && k < c->n; k++)
			out[n++] = c->rows[k];
	}
	return n;
}

/* The best plan at TV against every other: a winner only where each
 * Mann-Whitney p is under VERDICT_ALPHA; tv->test the ratio to the worst
 * plan and the largest p.  RA, RB: room for the series' rows. */
static int plans_test(struct verdicts *v, struct tverdict *tv, const struct obs **ra,
		      const struct obs **rb)
{
	size_t na = plan_rows(v, tv, tv->best, ra), g;
	struct vtest t;
	double p = 0;
	unsigned settle = 0;

	for (g = 0; g < tv->ngroups; g++) {
		if (g == tv->best)
			continue;
		if (rows_test(ra, na, rb, plan_rows(v, tv, g, rb), &t) < 0)
			return -1;
		if (!(t.p <= p)) {
			p = t.p;
			settle = t.settle;
		}
		if (g == tv->worst)
			tv->test = t;
	}
	tv->test.p = p;
	tv->test.settle = settle;
	tv->ratio = tv->test.ratio;
	tv->v = p < VERDICT_ALPHA ? VERDICT_WINNER : VERDICT_NOT_SIGNIFICANT;
	return 0;
}

/* One thread count's plans: group ids by the lowest policy of each plan,
 * pooled samples, the verdict.  TMP, LEADER, MEMBERS: room for its cells;
 * RA, RB: for two plans' rows. */
static int thread_verdict(struct verdicts *v, struct tverdict *tv, size_t *tmp, size_t *leader,
			  struct sample *members, struct sample *pool, size_t *count,
			  const struct obs **ra, const struct obs **rb)
{
	const struct series *s = v->s;
	size_t k = tv->end - tv->first, i, j, g, *run = v->order + tv->first;

	memcpy(tmp, run, k * sizeof(*tmp));
	qsort_r(tmp, k, sizeof(*tmp), by_plan_rank, v);
	for (i = 0; i < k; i = j) {
		for (j = i + 1; j < k && s->cells[tmp[i]].cpus &&
		     s->cells[tmp[j]].cpus == s->cells[tmp[i]].cpus; j++)
			;
		for (size_t x = i; x < j; x++)
			leader[tmp[x]] = tmp[i];
	}
	/* Plans numbered in policy order; a leader comes before its members. */
	for (i = 0; i < k; i++) {
		const struct cell *c = &s->cells[run[i]];

		tv->flags |= cell_flags(c);
		v->tidx[run[i]] = (size_t)(tv - v->t);
		v->group[run[i]] = leader[run[i]] == run[i] ? tv->ngroups++ : v->group[leader[run[i]]];
	}
	/* Each plan's points together (counting sort by plan), then pooled. */
	memset(count, 0, (tv->ngroups + 1) * sizeof(*count));
	for (i = 0; i < k; i++)
		count[v->group[run[i]] + 1]++;
	for (g = 0; g < tv->ngroups; g++)
		count[g + 1] += count[g];
	for (i = 0; i < k; i++)
		members[count[v->group[run[i]]]++] = cell_sample(&s->cells[run[i]]);
	for (g = 0, i = 0; g < tv->ngroups; g++) {
		j = count[g];
		pool[g] = sample_pool(members + i, j - i);
		tv->disagree |= samples_disagree(members + i, j - i);
		i = j;
	}
	tv->test = (struct vtest){ NAN, NAN, NAN, NAN, false, 0 };
	if (tv->ngroups < 2)
		return 0;
	/* The ranges only say who has the highest median and who too few repeats. */
	tv->v = verdict_best(pool, tv->ngroups, &tv->best, &tv->worst);
	tv->ratio = pool[tv->best].median / pool[tv->worst].median;
	return tv->v == VERDICT_FEW_REPEATS ? 0 : plans_test(v, tv, ra, rb);
}

/* Each thread count's verdict into v->t, v->order sorted by threads, then
 * policy. */
static int thread_verdicts(struct verdicts *v)
{
	const struct series *s = v->s;
	size_t nc = s->ncells, nrows = 0, i, j;
	/* Scratch for thread_verdict: tmp, leader and count; members and pool;
	 * two plans' rows. */
	size_t *idx = malloc(3 * (nc + 2) * sizeof(*idx));
	struct sample *smp = malloc(2 * (nc + 1) * sizeof(*smp));
	const struct obs **rows;
	int ret = -1;

	for (i = 0; i < nc; i++)
		nrows += s->cells[i].n;
	rows = malloc(2 * (nrows + 1) * sizeof(*rows));
	if (!idx || !smp || !rows)
		goto out;
	qsort_r(v->order, nc, sizeof(*v->order), by_threads_rank, v);
	for (i = 0; i < nc; i = j) {
		for (j = i; j < nc && s->cells[v->order[j]].threads == s->cells[v->order[i]].threads; j++)
			;
		v->t[v->nt] = (struct tverdict){ .threads = s->cells[v->order[i]].threads, .first = i,
						 .end = j };
		if (thread_verdict(v, &v->t[v->nt++], idx, idx + nc + 2, smp, smp + nc + 1,
				   idx + 2 * (nc + 2), rows, rows + nrows + 1) < 0)
			goto out;
	}
	ret = 0;
out:
	free(idx);
	free(smp);
	free(rows);
	return ret;
}

/* Policies planning the same PUs at every thread count both ran (v->same):
 * the candidates for Q share its plan at its first thread count.  START[p]:
 * where policy p's cells begin. */
static int same_plans(struct verdicts *v, const size_t *start)
{
	const struct series *s = v->s;
	const char **pa = malloc(2 * (s->ncells + 1) * sizeof(*pa)), **pb = pa ? pa + s->ncells + 1 : NULL;
	size_t p, q, i, n, a, b;

	for (q = 0; pa && q < s->npolicies; q++) {
		const struct tverdict *tv;

		v->same[q] = q;
		if (start[q] == start[q + 1])
			continue;
		tv = &v->t[v->tidx[start[q]]];
		for (i = tv->first; i < tv->end && v->same[q] == q; i++) {
			p = v->rank[v->order[i]];
			if (p >= q || v->same[p] != p || v->group[v->order[i]] != v->group[start[q]])
				continue;
			/* Both policies' cells, threads ascending: merged. */
			for (a = start[p], b = start[q], n = 0; a < start[p + 1] && b < start[q + 1];) {
				if (s->cells[a].threads < s->cells[b].threads) {
					a++;
				} else if (s->cells[a].threads > s->cells[b].threads) {
					b++;
				} else {
					pa[n] = s->cells[a++].cpus;
					pb[n++] = s->cells[b++].cpus;
				}
			}
			if (plans_same(pa, pb, n))
				v->same[q] = p;
		}
	}
	free(pa);
	return pa ? 0 : -1;
}

/* The sharing penalty (v->share): each cK (K >= 2) against c1 where both
 * ran on different PUs, by the Mann-Whitney test of their repeats (at
 * least 3 a side).  START[p]: where policy p's cells begin.  0, or -1 out
 * of memory. */
static int sharing(struct verdicts *v, const size_t *start)
{
	const struct series *s = v->s;
	size_t p, i, c1 = SIZE_MAX;
	unsigned k;

	for (p = 0; p < s->npolicies; p++)
		if (!strcmp(s->policies[p], "c1"))
			c1 = p;
	for (p = 0; c1 != SIZE_MAX && p < s->npolicies; p++) {
		if (sscanf(s->policies[p], "c%u", &k) != 1 || k < 2)
			continue;
		for (i = start[p]; i < start[p + 1]; i++) {
			const struct cell *ck = &s->cells[i];
			const struct cell *one = series_run_cell(s, start[c1], start[c1 + 1], ck->threads);
			struct share *x = &v->share[v->nshare];

			/* The same PUs: nothing shared differently, nothing to say. */
			if (!one || !(one->median > 0) || (one->cpus && one->cpus == ck->cpus))
				continue;
			*x = (struct share){ one, ck, VERDICT_FEW_REPEATS,
					     { NAN, ck->median / one->median, NAN, NAN, false, 0 } };
			if (one->n >= VERDICT_MIN_REPEATS && ck->n >= VERDICT_MIN_REPEATS) {
				if (rows_test(ck->rows, ck->n, one->rows, one->n, &x->test) < 0)
					return -1;
				x->v = x->test.p < VERDICT_ALPHA ? VERDICT_WINNER : VERDICT_NOT_SIGNIFICANT;
			}
			v->nshare++;
		}
	}
	return 0;
}

int series_verdicts(const struct series *s, struct verdicts *v)
{
	size_t nc = s->ncells, np = s->npolicies, i, p;
	size_t *start = malloc((np + 1) * sizeof(*start));
	int ret = -1;

	memset(v, 0, sizeof(*v));
	v->s = s;
	v->t = calloc(nc + 1, sizeof(*v->t));
	v->order = malloc((nc + 1) * sizeof(*v->order));
	v->rank = malloc((nc + 1) * sizeof(*v->rank));
	v->group = malloc((nc + 1) * sizeof(*v->group));
	v->tidx = malloc((nc + 1) * sizeof(*v->tidx));
	v->same = malloc((np + 1) * sizeof(*v->same));
	v->share = malloc((nc + 1) * sizeof(*v->share));
	if (!start || !v->t || !v->order || !v->rank || !v->group || !v->tidx || !v->same || !v->share)
		goto out;
	/* Cells come by policy, in the order of s->policies: START[p] is
	 * where policy p's run begins. */
	for (i = 0, p = 0; i < nc; i++) {
		while (s->policies[p] != s->cells[i].policy)
			start[++p] = i;
		if (i == 0)
			start[0] = 0;
		v->rank[i] = p;
		v->order[i] = i;
	}
	for (p = nc ? p + 1 : 0; p <= np; p++)
		start[p] = nc;
	if (thread_verdicts(v) < 0 || same_plans(v, start) < 0 || sharing(v, start) < 0)
		goto out;
	ret = 0;
out:
	free(start);
	return ret;
}
const char *cell_verdict(const struct verdicts *v, size_t c)
{
	const struct tverdict *tv = &v->t[v->tidx[c]];

	if (tv->ngroups < 2)
		return "";
	if (tv->v != VERDICT_WINNER)
		return "no difference measured";
	return v->group[c] == tv->best ? "winner" : "beaten";
}
