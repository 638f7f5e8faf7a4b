/* Cluster measurements from the dataset's rows, their rates and cells. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "cluster.h"
#include "units.h"
#include "results.h"

double cluster_overlap(const double *start, const double *end, size_t n)
{
	double lo_start = INFINITY, hi_start = -INFINITY, lo_end = INFINITY, hi_end = -INFINITY;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!(end[i] >= start[i]))      /* NAN too */
			return NAN;
		lo_start = fmin(lo_start, start[i]);
		hi_start = fmax(hi_start, start[i]);
		lo_end = fmin(lo_end, end[i]);
		hi_end = fmax(hi_end, end[i]);
	}
	/* Windows of no length at one instant coincide. */
	if (hi_end == lo_start)
		return 1;
	return (lo_end - hi_start) / (hi_end - lo_start);
}

double cluster_work(const struct obs *o)
{
	const struct unit_props *u = unit_find(o->unit);

	if (!u)
		return NAN;
	return (u->work == RC_BYTES ? o->bytes : o->ops) / u->scale;
}

/* Where the key's columns sit in results_cluster_cols. */
static size_t ckey_index(enum results_col col)
{
	size_t k;

	for (k = 0; k < RESULTS_NCLUSTER_COLS; k++)
		if (results_cluster_cols[k] == col)
			break;
	return k;
}

/* The cluster series: the cluster key but job, policy, threads and repeat
 * (one series holds every job's measurements, so 1, 2 and 4 ranks meet). */
static bool series_col(size_t k)
{
	enum results_col c = results_cluster_cols[k];

	return c != RC_JOB && c != RC_POLICY && c != RC_THREADS && c != RC_REPEAT;
}

struct rowkey {
	uintptr_t k[RESULTS_NCLUSTER_COLS];
	long rank;
	size_t i;
};

static int by_rowkey(const void *x, const void *y)
{
	const struct rowkey *a = x, *b = y;
	const int c[] = { cmp_words(a->k, b->k, RESULTS_NCLUSTER_COLS), NUM_CMP(a->rank, b->rank),
			  NUM_CMP(a->i, b->i) };

	return cmp_first(c, 3);
}

/* A measurement's place among the cells: series words, policy, threads,
 * ranks, then its first row (file order among repeats). */
struct mkey {
	uintptr_t s[RESULTS_NCLUSTER_COLS];
	uintptr_t policy;
	unsigned threads;
	long ranks;
	size_t first, m;
};

static int by_mkey(const void *x, const void *y)
{
	const struct mkey *a = x, *b = y;
	const int c[] = { cmp_words(a->s, b->s, RESULTS_NCLUSTER_COLS), NUM_CMP(a->policy, b->policy),
			  NUM_CMP(a->threads, b->threads), NUM_CMP(a->ranks, b->ranks),
			  NUM_CMP(a->first, b->first) };

	return cmp_first(c, 5);
}

static bool same_cell_key(const struct mkey *a, const struct mkey *b)
{
	return !memcmp(a->s, b->s, sizeof(a->s)) && a->policy == b->policy &&
	       a->threads == b->threads && a->ranks == b->ranks;
}

/* The report's order of cells: series and policies as first seen in the
 * files, then threads and ranks ascending. */
struct corder {
	size_t series_first, policy_first;
	unsigned threads;
	long ranks;
	size_t cell;
};

static int by_corder(const void *x, const void *y)
{
	const struct corder *a = x, *b = y;
	const int c[] = { NUM_CMP(a->series_first, b->series_first),
			  NUM_CMP(a->policy_first, b->policy_first), NUM_CMP(a->threads, b->threads),
			  NUM_CMP(a->ranks, b->ranks) };

	return cmp_first(c, 4);
}

/* The first problem of a measurement's ranks, in words, into WHY ("" when
 * none); PRESENT: its distinct ranks 0..ranks-1. */
static void check_ranks(const struct dataset *ds, const struct cluster *cl, const struct cmeas *m,
			size_t *present, char *why, size_t len, const struct obs **at, const struct obs **also)
{
	size_t j;

	*present = 0;
	why[0] = '\0';
	*at = *also = NULL;
	for (j = 0; j < m->n; j++) {
		const struct obs *o = &ds->obs[cl->rows[m->first + j]];
		const struct obs *prev = j ? &ds->obs[cl->rows[m->first + j - 1]] : NULL;

		if (o->rank < 0 || o->ranks < 1) {
			if (!why[0])
				snprintf(why, len, "a row without %s", o->rank < 0 ? "a rank" : "its ranks");
		} else if (o->ranks != m->ranks) {
			if (!why[0])
				snprintf(why, len, "rows say ranks %ld and %ld", m->ranks, o->ranks);
		} else if (o->rank >= o->ranks) {
			if (!why[0])
				snprintf(why, len, "rank %ld is out of range, allowed 0..%ld", o->rank,
					 o->ranks - 1);
		} else if (prev && prev->rank == o->rank) {
			/* Rows come by rank: a rank twice is two neighbours. */
			if (!why[0]) {
				snprintf(why, len, "rank %ld twice", o->rank);
				*also = prev;
			}
		} else {
			++*present;
			continue;
		}
		if (!*at)
			*at = o;
	}
}

/* Whether a row of M has a window that ends before it starts (a clock
 * stepped back, a file edited by hand): the first is M's reason and named
 * on ERRF with its file and line.  NaN windows are not inverted. */
static bool inverted_window(const struct dataset *ds, const struct cluster *cl, struct cmeas *m,
			    FILE *errf)
{
	for (size_t j = 0; j < m->n; j++) {
		const struct obs *o = &ds->obs[cl->rows[m->first + j]];

		if (!(o->t_end < o->t_start))
			continue;
		/* The reason names the line first: a long file name is what gets cut. */
		snprintf(m->reason, sizeof(m->reason), "t_end before t_start at line %u of %s", o->line,
			 ESC(o->file));
		fprintf(errf, "threadreport: %s:%u: t_end before t_start (rank %ld): no cluster rate for its measurement\n",
			ESC(o->file), o->line, o->rank);
		return true;
	}
	return false;
}

/* M's rate, or why it has none where its ranks gave none yet: no windows,
 * no work, no wall time, then too little overlap, in that order. */
static void rate_or_reason(const struct dataset *ds, const struct cluster *cl, struct cmeas *m, FILE *errf)
{
	if (m->reason[0])
		return;
	if (isnan(m->overlap)) {
		if (!inverted_window(ds, cl, m, errf))
			snprintf(m->reason, sizeof(m->reason), "no measurement windows: rows from an older version");
	} else if (isnan(m->work))
		snprintf(m->reason, sizeof(m->reason), "no work to add up (no ops or bytes, or a unit of the program's own)");
	else if (!(m->wall > 0))
		snprintf(m->reason, sizeof(m->reason), "no wall time");
	else if (m->overlap < CLUSTER_MIN_OVERLAP)
		snprintf(m->reason, sizeof(m->reason), "ranks overlapped %.0f%%: run under threadrun-mpi",
			 floor(100 * fmax(m->overlap, 0)));
	else
		m->rate = m->work / m->wall;
}

/* The rate of M or why it has none: incomplete, a rank failed, then
 * rate_or_reason's. */
static void measure(const struct dataset *ds, struct cluster *cl, struct cmeas *m, double *start,
		    double *end, FILE *errf)
{
	const struct obs *first = &ds->obs[cl->rows[m->first]], *at, *also;
	bool no_wall = false;
	char why[96];
	size_t j;

	m->ranks = first->ranks;
	m->rate = NAN;
	m->work = 0;
	m->wall = 0;
	check_ranks(ds, cl, m, &m->present, why, sizeof(why), &at, &also);
	m->complete = !why[0] && m->ranks > 0 && m->present == (size_t)m->ranks;
	if (why[0]) {
		fprintf(errf, "threadreport: %s:%u: job '", ESC(at->file), at->line);
		esc_line(errf, at->job);
		fputs("', ", errf);
		esc_line(errf, at->algorithm);
		fputs(", ", errf);
		esc_line(errf, at->policy);
		fprintf(errf, " %u thread%s, repeat %d: %s", at->threads, at->threads == 1 ? "" : "s", at->repeat, why);
		if (also)
			fprintf(errf, " (also %s:%u)", ESC(also->file), also->line);
		fputs("; the cluster measurement is incomplete\n", errf);
		snprintf(m->reason, sizeof(m->reason), "incomplete: %s", why);
	} else if (!m->complete) {
		snprintf(m->reason, sizeof(m->reason), "%zu of %ld ranks", m->present, m->ranks);
	}
	for (j = 0; j < m->n; j++) {
		const struct obs *o = &ds->obs[cl->rows[m->first + j]];

		m->unsynced += o->sync == 0;
		start[j] = o->t_start;
		end[j] = o->t_end;
		if (!m->reason[0] && o->status > 0)
			snprintf(m->reason, sizeof(m->reason), "rank %ld failed (status %ld)", o->rank,
				 o->status);
		m->work += cluster_work(o);
		/* A rank without its wall time leaves the longest unknown. */
		m->wall = fmax(m->wall, o->wall_s);
		no_wall |= isnan(o->wall_s);
	}
	m->wall = no_wall ? NAN : m->wall;
	m->overlap = cluster_overlap(start, end, m->n);
	rate_or_reason(ds, cl, m, errf);
}

struct hostrate {
	const char *host;
	double rate;
};

static int by_host(const void *x, const void *y)
{
	const struct hostrate *a = x, *b = y;
	int c = strcmp(a->host, b->host);

	return c ? c : NUM_CMP(a->rate, b->rate);
}

/* A cell's figures from its measurements, and its per-host table (HR:
 * scratch for its rows; the hosts go to cl->hosts). */
static void fill_cell(struct cluster *cl, struct ccell *c, struct hostrate *hr, double *rates)
{
	const struct dataset *ds = cl->ds;
	size_t i, j, n = 0, nh = 0;

	c->overlap_min = NAN;
	for (i = c->mfirst; i < c->mfirst + c->mn; i++) {
		const struct cmeas *m = &cl->m[i];

		if (isnan(m->rate)) {
			c->na++;
			if (!c->reason)
				c->reason = m->reason;
		} else {
			rates[c->n++] = m->rate;
		}
		c->overlap_min = fmin(c->overlap_min, m->overlap);
		c->unsynced += m->unsynced;
		for (j = 0; j < m->n; j++) {
			const struct obs *o = &ds->obs[cl->rows[m->first + j]];

			/* A failed rank's rate is no measurement of its host. */
			if (!o->failed)
				hr[nh++] = (struct hostrate){ o->host, o->rate };
		}
	}
	c->median = median_sort(rates, c->n);
	c->min = c->n ? rates[0] : NAN;
	c->max = c->n ? rates[c->n - 1] : NAN;
	qsort(hr, nh, sizeof(*hr), by_host);
	c->hosts = &cl->hosts[cl->nhosts];
	for (i = 0; i < nh; i = j) {
		struct chost *h = &cl->hosts[cl->nhosts++];

		for (j = i, n = 0; j < nh && !strcmp(hr[j].host, hr[i].host); j++)
			rates[n++] = hr[j].rate;
		/* Sorted by rate within a host already. */
		*h = (struct chost){ hr[i].host, n, rates[0], 0, rates[n - 1] };
		h->median = median_sort(rates, n);
		c->nhosts++;
	}
	c->slowest = c->nhosts;
	for (i = 0; c->nhosts > 1 && i < c->nhosts; i++)
		if (c->slowest == c->nhosts || c->hosts[i].median < c->hosts[c->slowest].median)
			c->slowest = i;
}

/* Measurements from the sorted row keys: groups of equal cluster key. */
static int find_measurements(struct cluster *cl, struct rowkey *rk, FILE *errf)
{
	double *start = malloc((cl->nrows ? cl->nrows : 1) * sizeof(*start));
	double *end = malloc((cl->nrows ? cl->nrows : 1) * sizeof(*end));
	size_t i, j;
	int ret = -1;

	cl->m = calloc(cl->nrows ? cl->nrows : 1, sizeof(*cl->m));
	if (!cl->m || !start || !end)
		goto out;
	for (i = 0; i < cl->nrows; i = j) {
		for (j = i; j < cl->nrows && !memcmp(rk[j].k, rk[i].k, sizeof(rk[i].k)); j++)
			;
		cl->m[cl->nm].first = i;
		cl->m[cl->nm].n = j - i;
		measure(cl->ds, cl, &cl->m[cl->nm], start, end, errf);
		cl->nm++;
	}
	ret = 0;
out:
	free(start);
	free(end);
	return ret;
}

/* Each measurement's place among the cells into MK, and cl->m in that
 * order. */
static int sort_measurements(struct cluster *cl, struct mkey *mk)
{
	struct cmeas *sorted = malloc((cl->nm ? cl->nm : 1) * sizeof(*sorted));
	size_t i, j, k, pol = ckey_index(RC_POLICY);

	if (!sorted)
		return -1;
	for (i = 0; i < cl->nm; i++) {
		const struct obs *o = &cl->ds->obs[cl->rows[cl->m[i].first]];

		mk[i] = (struct mkey){ .policy = (uintptr_t)o->ckey[pol], .threads = o->threads,
				       .ranks = cl->m[i].ranks, .first = SIZE_MAX, .m = i };
		for (k = 0; k < RESULTS_NCLUSTER_COLS; k++)
			if (series_col(k))
				mk[i].s[k] = (uintptr_t)o->ckey[k];
		for (j = 0; j < cl->m[i].n; j++)
			if (cl->rows[cl->m[i].first + j] < mk[i].first)
				mk[i].first = cl->rows[cl->m[i].first + j];
	}
	qsort(mk, cl->nm, sizeof(*mk), by_mkey);
	for (i = 0; i < cl->nm; i++)
		sorted[i] = cl->m[mk[i].m];
	free(cl->m);
	cl->m = sorted;
	return 0;
}

/* Each cell's order key takes its series' and its policy's first row (a
 * series' cells are together, and a policy's within them: sorted by it). */
static void first_rows(const struct mkey *mk, const struct ccell *cells, struct corder *co, size_t n)
{
	size_t i, j, k, e, q, first, pfirst;

	for (i = 0; i < n; i = j) {
		const uintptr_t *series = mk[cells[i].mfirst].s;

		first = SIZE_MAX;
		for (j = i; j < n && !memcmp(mk[cells[j].mfirst].s, series, sizeof(mk[0].s)); j++)
			first = co[j].policy_first < first ? co[j].policy_first : first;
		for (k = i; k < j; k = e) {
			pfirst = SIZE_MAX;
			for (e = k; e < j && mk[cells[e].mfirst].policy == mk[cells[k].mfirst].policy; e++)
				pfirst = co[e].policy_first < pfirst ? co[e].policy_first : pfirst;
			for (q = k; q < e; q++) {
				co[q].policy_first = pfirst;
				co[q].series_first = first;
			}
		}
	}
}

/* The cells in the report's order (CO sorted) into cl->cells, and the
 * series they make. */
static int order_cells(struct cluster *cl, const struct ccell *cells, const struct corder *co, size_t n)
{
	size_t i;

	cl->cells = calloc(n ? n : 1, sizeof(*cl->cells));
	cl->series = calloc(n ? n : 1, sizeof(*cl->series));
	if (!cl->cells || !cl->series)
		return -1;
	for (i = 0; i < n; i++) {
		cl->cells[i] = cells[co[i].cell];
		if (!i || co[i].series_first != co[i - 1].series_first) {
			struct cseries *s = &cl->series[cl->nseries++];

			s->key = &cl->ds->obs[co[i].series_first];
			s->first = i;
		}
		cl->cells[i].series = cl->nseries - 1;
		cl->series[cl->nseries - 1].n++;
	}
	cl->ncells = n;
	return 0;
}

/* Cells (measurements of one series, policy, threads and ranks) in the
 * report's order, and the series they make. */
static int find_cells(struct cluster *cl)
{
	struct mkey *mk = malloc((cl->nm ? cl->nm : 1) * sizeof(*mk));
	struct corder *co = malloc((cl->nm ? cl->nm : 1) * sizeof(*co));
	struct ccell *cells = calloc(cl->nm ? cl->nm : 1, sizeof(*cells));
	size_t i, j, n = 0;
	int ret = -1;

	if (!mk || !co || !cells || sort_measurements(cl, mk) < 0)
		goto out;
	for (i = 0; i < cl->nm; i = j, n++) {
		for (j = i; j < cl->nm && same_cell_key(&mk[i], &mk[j]); j++)
			;
		cells[n] = (struct ccell){ .policy = cl->ds->obs[cl->rows[cl->m[i].first]].policy,
			.threads = mk[i].threads, .ranks = mk[i].ranks, .mfirst = i, .mn = j - i };
		/* Its first row, its policy's for now: sorted by it last, the
		 * group's first is its least. */
		co[n] = (struct corder){ SIZE_MAX, mk[i].first, mk[i].threads, mk[i].ranks, n };
	}
	first_rows(mk, cells, co, n);
	qsort(co, n, sizeof(*co), by_corder);
	ret = order_cells(cl, cells, co, n);
out:
	free(mk);
	free(co);
	free(cells);
	return ret;
}

/* Series S's totals over its cells (incomplete, apart, unsynced), its cell
 * of the per-host table, and each cell's speedup against 1 rank. */
static void summarise_series(struct cluster *cl, struct cseries *s)
{
	const struct ccell *one = NULL;
	size_t k, x;

	s->big = s->first;
	s->least_overlap = NAN;
	for (k = s->first; k < s->first + s->n; k++) {
		struct ccell *c = &cl->cells[k];

		if (c->ranks > cl->cells[s->big].ranks ||
		    (c->ranks == cl->cells[s->big].ranks && c->threads > cl->cells[s->big].threads))
			s->big = k;
		for (x = c->mfirst; x < c->mfirst + c->mn; x++) {
			s->incomplete += !cl->m[x].complete;
			if (cl->m[x].overlap < CLUSTER_MIN_OVERLAP) {
				s->apart++;
				s->least_overlap = fmin(s->least_overlap, cl->m[x].overlap);
			}
		}
		s->unsynced += c->unsynced;
		/* Cells by policy, threads, then ranks: a 1-rank cell comes
		 * first among its policy and thread count's. */
		if (k == s->first || c->policy != cl->cells[k - 1].policy || c->threads != cl->cells[k - 1].threads)
			one = NULL;
		if (c->ranks == 1 && c->n)
			one = c;
		if (one && c->n && one->median > 0) {
			c->speedup = c->median / one->median;
			c->efficiency = c->speedup / (double)c->ranks;
		} else {
			c->speedup = c->efficiency = NAN;
			s->no_one_rank = true;
		}
	}
}

int cluster_build(const struct dataset *ds, struct cluster *cl, FILE *errf)
{
	struct rowkey *rk = NULL;
	struct hostrate *hr = NULL;
	double *rates = NULL;
	size_t i, k, n = 0;
	int ret = -1;

	memset(cl, 0, sizeof(*cl));
	cl->ds = ds;
	for (i = 0; i < ds->nobs; i++)
		n += !ds->obs[i].dropped && *ds->obs[i].job;
	rk = malloc((n ? n : 1) * sizeof(*rk));
	cl->rows = malloc((n ? n : 1) * sizeof(*cl->rows));
	cl->hosts = malloc((n ? n : 1) * sizeof(*cl->hosts));
	hr = malloc((n ? n : 1) * sizeof(*hr));
	rates = malloc((n ? n : 1) * sizeof(*rates));
	if (!rk || !cl->rows || !cl->hosts || !hr || !rates)
		goto out;
	for (i = 0; i < ds->nobs; i++) {
		const struct obs *o = &ds->obs[i];

		if (o->dropped || !*o->job)
			continue;
		for (k = 0; k < RESULTS_NCLUSTER_COLS; k++)
			rk[cl->nrows].k[k] = (uintptr_t)o->ckey[k];
		rk[cl->nrows].rank = o->rank;
		rk[cl->nrows++].i = i;
	}
	qsort(rk, cl->nrows, sizeof(*rk), by_rowkey);
	for (i = 0; i < cl->nrows; i++)
		cl->rows[i] = rk[i].i;
	if (find_measurements(cl, rk, errf) < 0 || find_cells(cl) < 0)
		goto out;
	for (i = 0; i < cl->ncells; i++)
		fill_cell(cl, &cl->cells[i], hr, rates);
	for (i = 0; i < cl->nseries; i++) {
		summarise_series(cl, &cl->series[i]);
		cl->multi_config |= strcmp(cl->series[i].key->config, cl->series[0].key->config) != 0;
	}
	ret = 0;
out:
	free(rk);
	free(hr);
	free(rates);
	return ret;
}

void cluster_free(struct cluster *cl)
{
	free(cl->rows);
	free(cl->m);
	free(cl->cells);
	free(cl->series);
	free(cl->hosts);
	memset(cl, 0, sizeof(*cl));
}
