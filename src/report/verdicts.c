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
	{ FLAG_UNVERIFIED, "unverified" },
};

unsigned cell_flags(const struct cell *c)
{
	return (c->busy ? FLAG_BUSY : 0) | (c->oversubscribed ? FLAG_OVERSUBSCRIBED : 0) |
	       (c->unverified ? FLAG_UNVERIFIED : 0);
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
};

const char *verdict_text(enum verdict v)
{
	return verdict_words[v];
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

/* One thread count's plans: group ids by the lowest policy of each plan,
 * pooled samples, the verdict.  TMP, LEADER, MEMBERS: room for its cells. */
static void thread_verdict(struct verdicts *v, struct tverdict *tv, size_t *tmp, size_t *leader,
			   struct sample *members, struct sample *pool, size_t *count)
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
	if (tv->ngroups >= 2) {
		tv->v = verdict_best(pool, tv->ngroups, &tv->best, &tv->worst);
		tv->ratio = pool[tv->best].median / pool[tv->worst].median;
	}
}

/* Each thread count's verdict into v->t, v->order sorted by threads, then
 * policy. */
static int thread_verdicts(struct verdicts *v)
{
	const struct series *s = v->s;
	size_t nc = s->ncells, i, j;
	/* Scratch for thread_verdict: tmp, leader and count; members and pool. */
	size_t *idx = malloc(3 * (nc + 2) * sizeof(*idx));
	struct sample *smp = malloc(2 * (nc + 1) * sizeof(*smp));
	int ret = -1;

	if (!idx || !smp)
		goto out;
	qsort_r(v->order, nc, sizeof(*v->order), by_threads_rank, v);
	for (i = 0; i < nc; i = j) {
		for (j = i; j < nc && s->cells[v->order[j]].threads == s->cells[v->order[i]].threads; j++)
			;
		v->t[v->nt] = (struct tverdict){ .threads = s->cells[v->order[i]].threads, .first = i,
						 .end = j };
		thread_verdict(v, &v->t[v->nt++], idx, idx + nc + 2, smp, smp + nc + 1, idx + 2 * (nc + 2));
	}
	ret = 0;
out:
	free(idx);
	free(smp);
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
 * ran on different PUs.  START[p]: where policy p's cells begin. */
static void sharing(struct verdicts *v, const size_t *start)
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
			struct sample a, b;

			/* The same PUs: nothing shared differently, nothing to say. */
			if (!one || !(one->median > 0) || (one->cpus && one->cpus == ck->cpus))
				continue;
			a = cell_sample(one);
			b = cell_sample(ck);
			v->share[v->nshare++] = (struct share){ one, ck, verdict_differ(&a, &b) };
		}
	}
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
	if (thread_verdicts(v) < 0 || same_plans(v, start) < 0)
		goto out;
	sharing(v, start);
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
