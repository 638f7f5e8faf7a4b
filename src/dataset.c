/* Reading result files into observations, and grouping them into series. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "execute.h"
#include "results.h"

struct reading {
	struct dataset *ds;
	const char *file;
};

static char *dup_col(const struct results_row *row, enum results_col c)
{
	return strdup(results_row_get(row, c));
}

static int yes_no(const struct results_row *row, enum results_col c)
{
	const char *v = results_row_get(row, c);

	return !strcmp(v, "yes") ? 1 : !strcmp(v, "no") ? 0 : -1;
}

static int add_obs(const struct results_row *row, unsigned line, void *arg)
{
	struct reading *rd = arg;
	struct dataset *ds = rd->ds;
	struct obs *o, *grown;
	long n;

	if (ds->nobs == ds->cap) {
		ds->cap = ds->cap ? ds->cap * 2 : 256;
		grown = realloc(ds->obs, ds->cap * sizeof(*ds->obs));
		if (!grown)
			return 1;
		ds->obs = grown;
	}
	o = &ds->obs[ds->nobs];
	memset(o, 0, sizeof(*o));
	n = results_row_count(row, RC_THREADS, 1 << 20);
	o->rate = results_row_num(row, RC_RATE);
	if (n < 1 || isnan(o->rate)) {
		fprintf(stderr, "threadreport: %s:%u: column '%s': '%s' is not usable, allowed %s; row skipped\n",
			rd->file, line, n < 1 ? "threads" : "rate",
			results_row_get(row, n < 1 ? RC_THREADS : RC_RATE),
			n < 1 ? "1..1048576" : "a decimal number");
		ds->bad_lines++;
		return 0;
	}
	o->threads = (unsigned)n;
	o->host = dup_col(row, RC_HOST);
	o->workload = dup_col(row, RC_WORKLOAD);
	o->algorithm = dup_col(row, RC_ALGORITHM);
	o->backend = dup_col(row, RC_BACKEND);
	o->impl = dup_col(row, RC_IMPL);
	o->note = dup_col(row, RC_NOTE);
	o->unit = dup_col(row, RC_UNIT);
	o->policy = strdup(*results_row_get(row, RC_POLICY) ? results_row_get(row, RC_POLICY) : "-");
	o->size_unit = dup_col(row, RC_SIZE_UNIT);
	o->size = results_row_num(row, RC_SIZE);
	o->repeat = (int)results_row_count(row, RC_REPEAT, 1 << 30);
	n = results_row_count(row, RC_PUS, 1 << 20);
	o->pus = n < 0 ? 0 : (unsigned)n;
	n = results_row_count(row, RC_CORES, 1 << 20);
	o->cores = n < 0 ? 0 : (unsigned)n;
	o->migrations = results_row_num(row, RC_MIGRATIONS);
	o->off_plan = results_row_num(row, RC_OFF_PLAN);
	o->steal_pct = results_row_num(row, RC_STEAL_PCT);
	o->sys_share = results_row_num(row, RC_SYS_SHARE);
	o->verified = yes_no(row, RC_VERIFIED);
	o->placed = yes_no(row, RC_PLACEMENT_OK);
	o->file = rd->file;
	o->line = line;
	if (!o->host || !o->workload || !o->algorithm || !o->backend || !o->impl || !o->unit ||
	    !o->policy || !o->size_unit || !o->note)
		return 1;
	ds->nobs++;
	return 0;
}

int dataset_read(struct dataset *ds, const char *path, FILE *errf, char *err, size_t errlen)
{
	struct results_info info;
	struct reading rd = { .ds = ds, .file = path };
	size_t first = ds->nobs, i;
	char *t;

	if (results_read(path, add_obs, &rd, errf, &info, err, errlen) < 0)
		return -1;
	/* Tables from elsewhere (the published figures) name the variant of
	 * an implementation in "note": let it tell their series apart. */
	if (!info.has[RC_IMPL] && info.has[RC_NOTE])
		for (i = first; i < ds->nobs; i++) {
			t = ds->obs[i].impl;
			ds->obs[i].impl = ds->obs[i].note;
			ds->obs[i].note = t;
		}
	ds->bad_lines += info.bad_lines;
	if (info.missing[0])
		fprintf(errf, "threadreport: note: %s has no %s column(s); read without them\n", path,
			info.missing);
	return 0;
}

static bool same(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* Same series: everything but policy, threads and repeat. */
static bool same_series(const struct dataset *ds, const struct obs *a, const struct obs *b)
{
	return (!ds->multi_host || same(a->host, b->host)) && same(a->workload, b->workload) &&
	       same(a->algorithm, b->algorithm) && same(a->backend, b->backend) &&
	       same(a->impl, b->impl) && same(a->unit, b->unit) && same(a->size_unit, b->size_unit) &&
	       ((isnan(a->size) && isnan(b->size)) || a->size == b->size);
}

/* A later row of the same repeat replaces an earlier one (a rerun after
 * --resume); threadrun's whole-run rows step aside where the program wrote
 * rows of its own. */
static void drop_superseded(struct dataset *ds)
{
	size_t i, j;

	for (i = 0; i < ds->nobs; i++) {
		struct obs *o = &ds->obs[i];

		if (same(o->algorithm, EXECUTE_RUN_ALGORITHM))
			for (j = 0; j < ds->nobs && !o->dropped; j++)
				if (!same(ds->obs[j].algorithm, EXECUTE_RUN_ALGORITHM) &&
				    same(ds->obs[j].workload, o->workload) && same(ds->obs[j].host, o->host))
					o->dropped = true;
		if (o->repeat < 0 || o->dropped)
			continue;
		for (j = i + 1; j < ds->nobs; j++)
			if (ds->obs[j].repeat == o->repeat && ds->obs[j].threads == o->threads &&
			    same(ds->obs[j].policy, o->policy) && same_series(ds, o, &ds->obs[j])) {
				o->dropped = true;
				break;
			}
	}
}

static int add_policy(struct series *s, const char *policy)
{
	const char **grown;
	size_t i;

	for (i = 0; i < s->npolicies; i++)
		if (same(s->policies[i], policy))
			return 0;
	grown = realloc(s->policies, (s->npolicies + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	s->policies = grown;
	s->policies[s->npolicies++] = policy;
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The monitor's figures for a cell come from threadrun's whole-run rows of
 * the same workload, policy and thread count (kept even where the run's
 * own rows stand in for its rate).  SCRATCH holds ds->nobs doubles. */
static void monitor_figures(const struct dataset *ds, struct series *s, struct cell *c,
			    double *scratch)
{
	size_t i, n = 0;

	c->migrations = c->off_plan = c->steal_pct = 0;
	for (i = 0; i < ds->nobs; i++) {
		const struct obs *o = &ds->obs[i];

		if (isnan(o->off_plan) || !same(o->algorithm, EXECUTE_RUN_ALGORITHM) ||
		    !same(o->workload, s->key->workload) || o->threads != c->threads ||
		    !same(o->policy, c->policy) || (ds->multi_host && !same(o->host, s->key->host)))
			continue;
		c->migrations += isnan(o->migrations) ? 0 : o->migrations;
		c->off_plan += o->off_plan;
		c->steal_pct = fmax(c->steal_pct, isnan(o->steal_pct) ? 0 : o->steal_pct);
		scratch[n++] = isnan(o->sys_share) ? 0 : o->sys_share;
	}
	c->monitored = n;
	c->sys_share = stats_median(scratch, n);
	s->monitored |= n > 0;
}

/* The cells of one series: every policy x thread count it has. */
static int build_cells(struct dataset *ds, struct series *s)
{
	unsigned *threads = calloc(ds->nobs, sizeof(*threads));
	double *rates = calloc(ds->nobs, sizeof(*rates));
	size_t nthreads = 0, i, p, t, n;
	int ret = -1;

	if (!threads || !rates)
		goto out;
	for (i = 0; i < ds->nobs; i++) {
		const struct obs *o = &ds->obs[i];

		if (o->dropped || !same_series(ds, s->key, o))
			continue;
		if (add_policy(s, o->policy) < 0)
			goto out;
		for (t = 0; t < nthreads && threads[t] != o->threads; t++)
			;
		if (t == nthreads)
			threads[nthreads++] = o->threads;
		if (o->pus > s->pus)
			s->pus = o->pus;
		if (o->cores > s->cores)
			s->cores = o->cores;
		s->unverified += o->verified == 0;
		s->misplaced += o->placed == 0;
	}
	qsort(threads, nthreads, sizeof(*threads), cmp_unsigned);
	s->cells = calloc(s->npolicies * nthreads, sizeof(*s->cells));
	if (!s->cells)
		goto out;
	for (p = 0; p < s->npolicies; p++) {
		const struct cell *base = NULL;

		for (t = 0; t < nthreads; t++) {
			struct cell *c = &s->cells[s->ncells];

			for (n = 0, i = 0; i < ds->nobs; i++) {
				const struct obs *o = &ds->obs[i];

				if (!o->dropped && o->threads == threads[t] && same(o->policy, s->policies[p]) &&
				    same_series(ds, s->key, o))
					rates[n++] = o->rate;
			}
			if (!n)
				continue;
			c->policy = s->policies[p];
			c->threads = threads[t];
			c->n = n;
			c->median = stats_median(rates, n);
			c->min = rates[0];
			c->max = rates[n - 1];
			c->oversubscribed = s->pus && c->threads > s->pus;
			monitor_figures(ds, s, c, rates);
			if (!base)
				base = c;
			/* Speedup against 1 thread of the same policy, or against the
			 * smallest count measured, scaled as if it were linear there. */
			c->speedup = base->median > 0 ? base->threads * c->median / base->median : NAN;
			c->efficiency = c->speedup / c->threads;
			if (base->threads != 1)
				s->speedup_from_smallest = true;
			s->ncells++;
		}
	}
	ret = 0;
out:
	free(threads);
	free(rates);
	return ret;
}

int dataset_build(struct dataset *ds)
{
	size_t i, j;

	for (i = 1; i < ds->nobs; i++)
		if (!same(ds->obs[i].host, ds->obs[0].host))
			ds->multi_host = true;
	drop_superseded(ds);
	for (i = 0; i < ds->nobs; i++) {
		const struct obs *o = &ds->obs[i];
		struct series *grown;

		if (o->dropped)
			continue;
		for (j = 0; j < ds->nseries && !same_series(ds, ds->series[j].key, o); j++)
			;
		if (j < ds->nseries)
			continue;
		grown = realloc(ds->series, (ds->nseries + 1) * sizeof(*grown));
		if (!grown)
			return -1;
		ds->series = grown;
		memset(&ds->series[ds->nseries], 0, sizeof(*grown));
		ds->series[ds->nseries].key = o;
		if (build_cells(ds, &ds->series[ds->nseries++]) < 0)
			return -1;
	}
	return 0;
}

void dataset_free(struct dataset *ds)
{
	size_t i;

	for (i = 0; i < ds->nobs; i++) {
		struct obs *o = &ds->obs[i];

		free(o->host);
		free(o->workload);
		free(o->algorithm);
		free(o->backend);
		free(o->impl);
		free(o->note);
		free(o->unit);
		free(o->policy);
		free(o->size_unit);
	}
	for (i = 0; i < ds->nseries; i++) {
		free(ds->series[i].cells);
		free(ds->series[i].policies);
	}
	free(ds->obs);
	free(ds->series);
	memset(ds, 0, sizeof(*ds));
}

const struct cell *series_cell(const struct series *s, const char *policy, unsigned threads)
{
	size_t i;

	for (i = 0; i < s->ncells; i++)
		if (s->cells[i].threads == threads && same(s->cells[i].policy, policy))
			return &s->cells[i];
	return NULL;
}

void series_usl(const struct series *s, const char *policy, struct usl_fit *fit)
{
	double n[256], c[256];
	size_t i, m = 0;

	/* Past the PUs, threads share them by time slicing: that is not the
	 * contention the law describes, so those points stay out of the fit. */
	for (i = 0; i < s->ncells && m < 256; i++)
		if (same(s->cells[i].policy, policy) && !isnan(s->cells[i].speedup) &&
		    !s->cells[i].oversubscribed) {
			n[m] = s->cells[i].threads;
			c[m++] = s->cells[i].speedup;
		}
	usl_fit(n, c, m, fit);
}
