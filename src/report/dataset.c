/* Reading result files into observations, and grouping them into series. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "dataset.h"
#include "opt.h"
#include "results.h"
#include "stats.h"

struct reading {
	struct dataset *ds;
	const char *file;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;     /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* Every text of an observation is interned: equal texts share one copy, so
 * grouping compares pointers, and a million rows hold a few strings. */
static char *intern(struct dataset *ds, const char *s)
{
	char **grown, *copy;
	size_t i, cap;

	if (2 * (ds->npool + 1) > ds->pool_cap) {
		cap = ds->pool_cap ? 2 * ds->pool_cap : 1024;
		grown = calloc(cap, sizeof(*grown));
		if (!grown)
			return NULL;
		for (i = 0; i < ds->pool_cap; i++)
			if (ds->pool[i]) {
				size_t j = str_hash(ds->pool[i]) & (cap - 1);

				while (grown[j])
					j = (j + 1) & (cap - 1);
				grown[j] = ds->pool[i];
			}
		free(ds->pool);
		ds->pool = grown;
		ds->pool_cap = cap;
	}
	for (i = str_hash(s) & (ds->pool_cap - 1); ds->pool[i]; i = (i + 1) & (ds->pool_cap - 1))
		if (strcmp(ds->pool[i], s) == 0)
			return ds->pool[i];
	copy = strdup(s);
	if (copy) {
		ds->pool[i] = copy;
		ds->npool++;
	}
	return copy;
}

/* The columns of KEYS interned into OUT: false when memory runs out. */
static bool intern_cols(struct dataset *ds, const struct results_row *row, const enum results_col *cols,
			size_t n, char **out)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (!(out[k] = intern(ds, results_row_get(row, cols[k]))))
			return false;
	return true;
}

static int yes_no(const struct results_row *row, enum results_col c)
{
	const char *v = results_row_get(row, c);

	return !strcmp(v, "yes") ? 1 : !strcmp(v, "no") ? 0 : -1;
}

const char *const dataset_lat_name[DATASET_LAT_P] = { "p50", "p90", "p99", "p99.9", "max" };

/* What an observation takes from a row as it stands: texts (interned),
 * numbers (NAN: not said) and the derived figures of --counters (NAN: n/a). */
#define OBS(f) offsetof(struct obs, f)
static const struct obs_col {
	enum results_col col;
	size_t off;
} obs_texts[] = {
	{ RC_HOST, OBS(host) }, { RC_WORKLOAD, OBS(workload) }, { RC_ALGORITHM, OBS(algorithm) },
	{ RC_BACKEND, OBS(backend) }, { RC_IMPL, OBS(impl) }, { RC_NOTE, OBS(note) },
	{ RC_VERSIONS, OBS(versions) }, { RC_CPUS, OBS(cpus) }, { RC_UNIT, OBS(unit) },
	{ RC_SIZE_UNIT, OBS(size_unit) }, { RC_JOB, OBS(job) }, { RC_RUN, OBS(run) }, { RC_SEQ, OBS(seq) }, { RC_TIME, OBS(time) },
	{ RC_CONFIG, OBS(config) }, { RC_CPU_MODEL, OBS(cpu_model) }, { RC_TOPOLOGY, OBS(topology) },
	{ RC_POLICIES, OBS(policies) },
}, obs_numbers[] = {
	{ RC_SIZE, OBS(size) }, { RC_MIGRATIONS, OBS(migrations) }, { RC_OFF_PLAN, OBS(off_plan) },
	{ RC_STEAL_PCT, OBS(steal_pct) }, { RC_SYS_SHARE, OBS(sys_share) },
	{ RC_OTHERS_PCT, OBS(others_pct) }, { RC_LAT_P50_S, OBS(lat[0]) }, { RC_LAT_P90_S, OBS(lat[1]) },
	{ RC_LAT_P99_S, OBS(lat[2]) }, { RC_LAT_P999_S, OBS(lat[3]) }, { RC_LAT_MAX_S, OBS(lat[4]) },
	{ RC_LAT_BATCH, OBS(lat_batch) }, { RC_OPS, OBS(ops) }, { RC_BYTES, OBS(bytes) },
	{ RC_WALL_S, OBS(wall_s) }, { RC_T_START, OBS(t_start) }, { RC_T_END, OBS(t_end) },
}, obs_derived[] = {
	{ RC_CYCLES_PER_BYTE, OBS(cycles_per_byte) }, { RC_CYCLES_PER_OP, OBS(cycles_per_op) },
	{ RC_IPC, OBS(ipc) }, { RC_FLOPS_PER_CYCLE, OBS(flops_per_cycle) },
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define FIELD(type, base, off) (*(type *)((char *)(base) + (off)))

static bool figure_or_dash(const char *v)
{
	return !strcmp(v, "-") || num_is_decimal(v);
}

/*
 * ctr_workers ("task-clock/per-unit/IPC" per worker, comma-separated): how
 * far the highest worker's per-unit figure is above the lowest's, in %;
 * NAN when fewer than two workers have one.  An entry that is not three
 * fields, each a decimal or "-", with a decimal in the middle, counts as
 * none.
 */
static double worker_spread(const char *list)
{
	double lo = INFINITY, hi = -INFINITY;
	unsigned n = 0;
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		char entry[96], *a, *b;

		if (len < sizeof(entry)) {
			memcpy(entry, p, len);
			entry[len] = '\0';
			a = strchr(entry, '/');
			b = a ? strchr(a + 1, '/') : NULL;
			if (b && !strchr(b + 1, '/')) {
				*a = *b = '\0';
				if (num_is_decimal(a + 1) && figure_or_dash(entry) && figure_or_dash(b + 1)) {
					double v = strtod(a + 1, NULL);

					lo = fmin(lo, v);
					hi = fmax(hi, v);
					n++;
				}
			}
		}
		p += len + (p[len] == ',');
	}
	return n >= 2 && lo > 0 ? 100.0 * (hi - lo) / lo : NAN;
}

/* The texts of ROW into O, interned: its columns, its identity and its
 * cluster key; -1 when memory runs out. */
static int obs_words(struct dataset *ds, const struct results_row *row, struct obs *o)
{
	const char *policy = results_row_get(row, RC_POLICY);
	size_t k;

	for (k = 0; k < NELEM(obs_texts); k++)
		if (!(FIELD(char *, o, obs_texts[k].off) = intern(ds, results_row_get(row, obs_texts[k].col))))
			return -1;
	o->policy = intern(ds, *policy ? policy : "-");
	return o->policy && intern_cols(ds, row, results_series_cols, RESULTS_NSERIES_COLS, o->skey) &&
	       intern_cols(ds, row, results_point_cols, RESULTS_NPOINT_COLS, o->pkey) &&
	       intern_cols(ds, row, results_repeat_cols, RESULTS_NREPEAT_COLS, o->rkey) &&
	       intern_cols(ds, row, results_cluster_cols, RESULTS_NCLUSTER_COLS, o->ckey) ? 0 : -1;
}

/* The figures of ROW into O: counts, numbers, flags. */
static void obs_figures(const struct results_row *row, struct obs *o)
{
	const char *v;
	size_t k;
	long n;

	for (k = 0; k < NELEM(obs_numbers); k++)
		FIELD(double, o, obs_numbers[k].off) = results_row_num(row, obs_numbers[k].col);
	for (k = 0; k < NELEM(obs_derived); k++) {
		v = results_row_get(row, obs_derived[k].col);
		FIELD(double, o, obs_derived[k].off) = num_is_decimal(v) ? strtod(v, NULL) : NAN;
	}
	o->repeat = (int)results_row_count(row, RC_REPEAT, 1 << 30);
	n = results_row_count(row, RC_PUS, 1 << 20);
	o->pus = n < 0 ? 0 : (unsigned)n;
	n = results_row_count(row, RC_CORES, 1 << 20);
	o->cores = n < 0 ? 0 : (unsigned)n;
	o->verified = strcmp(results_row_get(row, RC_VERIFIED), "unchecked") ? yes_no(row, RC_VERIFIED) : 2;
	o->placed = yes_no(row, RC_PLACEMENT_OK);
	o->rank = results_row_count(row, RC_RANK, LONG_MAX);
	o->ranks = results_row_count(row, RC_RANKS, LONG_MAX);
	o->sync = yes_no(row, RC_START_SYNC);
	o->counted = *results_row_get(row, RC_COUNTERS) != '\0';
	o->worker_spread = worker_spread(results_row_get(row, RC_CTR_WORKERS));
}

static int add_obs(const struct results_row *row, unsigned line, void *arg)
{
	struct reading *rd = arg;
	struct dataset *ds = rd->ds;
	long n = results_row_count(row, RC_THREADS, RESULTS_MAX_THREADS);
	struct obs *o, *grown;

	if (ds->nobs == ds->cap) {
		grown = realloc(ds->obs, (ds->cap ? ds->cap * 2 : 256) * sizeof(*ds->obs));
		if (!grown)
			return 1;
		ds->obs = grown;
		ds->cap = ds->cap ? ds->cap * 2 : 256;
	}
	o = memset(&ds->obs[ds->nobs], 0, sizeof(*o));
	o->rate = results_row_num(row, RC_RATE);
	o->status = results_row_count(row, RC_STATUS, 1 << 20);
	/* A failed run (status not 0) is never a measurement: kept, to be
	 * counted and to fail its cluster measurement, but in no table; its
	 * rate may be empty (a --metric run without a figure).  The reader
	 * skipped a run that did not fail without its threads or rate. */
	o->failed = o->status > 0;
	if (n < 1) {
		fprintf(stderr, "threadreport: %s:%u: column 'threads' is empty in a failed run, row skipped\n",
			ESC(rd->file), line);
		ds->bad_lines++;
		return 0;
	}
	o->threads = (unsigned)n;
	o->file = rd->file;
	o->line = line;
	if (obs_words(ds, row, o) < 0)
		return 1;
	obs_figures(row, o);
	ds->nobs++;
	return 0;
}

int dataset_read(struct dataset *ds, const char *path, FILE *errf, char *err, size_t errlen)
{
	struct results_info info;
	struct reading rd = { .ds = ds, .file = path };
	size_t first = ds->nobs, i, k;
	char *t;

	if (results_read_lost(path, add_obs, &rd, &ds->lost, errf, &info, err, errlen) < 0)
		return -1;
	/* Tables from elsewhere (the published figures) name the variant of
	 * an implementation in "note": let it tell their series apart. */
	if (!info.has[RC_IMPL] && info.has[RC_NOTE])
		for (i = first; i < ds->nobs; i++) {
			t = ds->obs[i].impl;
			ds->obs[i].impl = ds->obs[i].note;
			ds->obs[i].note = t;
			for (k = 0; k < RESULTS_NSERIES_COLS; k++)
				if (results_series_cols[k] == RC_IMPL)
					ds->obs[i].skey[k] = ds->obs[i].impl;
			for (k = 0; k < RESULTS_NCLUSTER_COLS; k++)
				if (results_cluster_cols[k] == RC_IMPL)
					ds->obs[i].ckey[k] = ds->obs[i].impl;
		}
	ds->bad_lines += info.bad_lines;
	if (info.missing[0])
		fprintf(errf, "threadreport: note: %s has no %s column(s); read without them\n", ESC(path),
			info.missing);
	return 0;
}

static bool same(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* The same series: every series column of results.h equal (interned
 * texts: equal exactly when the pointers are). */
static bool same_series(const struct obs *a, const struct obs *b)
{
	return memcmp(a->skey, b->skey, sizeof(a->skey)) == 0;
}

/* Grouping sorts small keys (never pointers into ds->obs, whose random
 * access would dominate a large file); the row's index breaks ties, so
 * each group keeps file order and no result depends on the sort. */
/* drop_duplicates' key: the series, run, seq, time, t_start and rate,
 * then the point's and repeat's columns. */
#define DUP_KEY 6
#define NKEY (DUP_KEY + RESULTS_NPOINT_COLS + RESULTS_NREPEAT_COLS)
struct key {
	uintptr_t k[NKEY];
	size_t i;
};

static int by_key(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = cmp_words(a->k, b->k, NKEY);

	return c ? c : NUM_CMP(a->i, b->i);
}

static bool same_group(const struct key *a, const struct key *b)
{
	return memcmp(a->k, b->k, sizeof(a->k)) == 0;
}

static uint64_t series_hash(const struct obs *o)
{
	uint64_t h = 1469598103934665603u;
	size_t j;

	for (j = 0; j < RESULTS_NSERIES_COLS; j++)
		h = (h ^ (uintptr_t)o->skey[j]) * 1099511628211u;
	return h;
}

/* Number the series (hash of the interned key, compared in full): obs[i].sid. */
static int number_series(struct dataset *ds, size_t *nsid)
{
	size_t cap = 16, i, j, *slot;

	while (cap < 2 * ds->nobs)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	if (!slot)
		return -1;
	memset(slot, 0xff, cap * sizeof(*slot));
	*nsid = 0;
	for (i = 0; i < ds->nobs; i++) {
		for (j = series_hash(&ds->obs[i]) & (cap - 1); slot[j] != SIZE_MAX; j = (j + 1) & (cap - 1))
			if (same_series(&ds->obs[slot[j]], &ds->obs[i]))
				break;
		if (slot[j] == SIZE_MAX) {
			slot[j] = i;
			ds->obs[i].sid = (*nsid)++;
		} else {
			ds->obs[i].sid = ds->obs[slot[j]].sid;
		}
	}
	free(slot);
	return 0;
}

/* The end of the group of KS[I] among N sorted keys. */
static size_t group_end(const struct key *ks, size_t n, size_t i)
{
	size_t j;

	for (j = i; j < n && same_group(&ks[i], &ks[j]); j++)
		;
	return j;
}

/* threadrun's whole-run rows step aside where the program wrote rows of
 * its own in the same run (in files without a run column: the same
 * workload and host).  KS: room for every row. */
static void drop_run_rows(struct dataset *ds, struct key *ks)
{
	size_t i, j, k;
	bool own;

	for (i = 0; i < ds->nobs; i++) {
		const struct obs *o = &ds->obs[i];

		ks[i] = *o->run ? (struct key){ { 1, (uintptr_t)o->run }, i } :
				  (struct key){ { 0, (uintptr_t)o->workload, (uintptr_t)o->host }, i };
	}
	qsort(ks, ds->nobs, sizeof(*ks), by_key);
	for (i = 0; i < ds->nobs; i = j) {
		j = group_end(ks, ds->nobs, i);
		/* Rows of its own that could not be read count as its own. */
		own = results_lost_has(&ds->lost, ds->obs[ks[i].i].run);
		for (k = i; k < j; k++)
			own |= !same(ds->obs[ks[k].i].algorithm, RESULTS_RUN_ALGORITHM);
		for (k = i; own && k < j; k++)
			if (same(ds->obs[ks[k].i].algorithm, RESULTS_RUN_ALGORITHM))
				ds->obs[ks[k].i].dropped = true;
	}
}

/* A row of a repeat that failed, or of a run that lost a row to damage,
 * steps aside for a later row of the same repeat from another run (the
 * rerun --resume makes).  Each repeat's rows in file order.  KS: room for
 * every row. */
static void drop_reruns(struct dataset *ds, struct key *ks)
{
	size_t i, j, k, n = 0;

	for (i = 0; i < ds->nobs; i++) {
		const struct obs *o = &ds->obs[i];

		if (o->dropped)
			continue;
		ks[n] = (struct key){ { o->sid }, i };
		for (k = 0; k < RESULTS_NPOINT_COLS; k++)
			ks[n].k[1 + k] = (uintptr_t)o->pkey[k];
		for (k = 0; k < RESULTS_NREPEAT_COLS; k++)
			ks[n].k[1 + RESULTS_NPOINT_COLS + k] = (uintptr_t)o->rkey[k];
		n++;
	}
	qsort(ks, n, sizeof(*ks), by_key);
	for (i = 0; i < n; i = j) {
		const char *later = NULL;
		bool mixed = false;

		j = group_end(ks, n, i);
		for (k = j; k-- > i;) {
			struct obs *o = &ds->obs[ks[k].i];

			/* Later rows of several runs: one of them is another run.
			 * A run that lost a row to damage is rerun (--resume)
			 * whole: its other rows give way too, as a failed run's. */
			if (later && results_rerun_replaces(o->status <= 0 && results_lost_has(&ds->lost, o->run)
								    ? 1 : o->status,
							    o->run, mixed ? "" : later))
				o->dropped = true;
			if (!later)
				later = o->run;
			else if (later != o->run || !*later)
				mixed = true;
		}
	}
}

static uintptr_t bits(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	return (uintptr_t)b;
}

/* A row read twice (a file named twice, or rows copied into another) is
 * one measurement: counted once, and said.  The same row is the same run
 * and seq (seq counts one process's rows: a run of several processes, or
 * a run id given again, repeats it), written at the same time with the
 * same rate, of the same series, point and repeat.  Rows without a run or
 * seq (published tables) are never the same row.  KS: room for every row. */
static void drop_duplicates(struct dataset *ds, struct key *ks)
{
	size_t i, j, k, n = 0;

	for (i = 0; i < ds->nobs; i++) {
		const struct obs *o = &ds->obs[i];

		if (o->dropped || !*o->run || !*o->seq)
			continue;
		ks[n] = (struct key){ { o->sid, (uintptr_t)o->run, (uintptr_t)o->seq,
					(uintptr_t)o->time, bits(o->t_start), bits(o->rate) }, i };
		for (k = 0; k < RESULTS_NPOINT_COLS; k++)
			ks[n].k[DUP_KEY + k] = (uintptr_t)o->pkey[k];
		for (k = 0; k < RESULTS_NREPEAT_COLS; k++)
			ks[n].k[DUP_KEY + RESULTS_NPOINT_COLS + k] = (uintptr_t)o->rkey[k];
		n++;
	}
	qsort(ks, n, sizeof(*ks), by_key);
	for (i = 0; i < n; i = j) {
		j = group_end(ks, n, i);
		for (k = i + 1; k < j; k++) {
			ds->obs[ks[k].i].dropped = true;
			if (!ds->duplicates++ || ks[k].i < (size_t)(ds->first_duplicate - ds->obs)) {
				ds->first_duplicate = &ds->obs[ks[k].i];
				ds->first_duplicated = &ds->obs[ks[i].i];
			}
		}
	}
}

/* The identity of results.h, on observations: run rows and failed repeats
 * step aside (drop_run_rows, drop_reruns); every other row stays, so
 * repeats from several sweeps, single runs or processes all count.
 * Sorted groups, not pairs: n log n for any file. */
static int drop_superseded(struct dataset *ds)
{
	struct key *ks = malloc((ds->nobs ? ds->nobs : 1) * sizeof(*ks));

	if (!ks)
		return -1;
	drop_duplicates(ds, ks);
	drop_run_rows(ds, ks);
	drop_reruns(ds, ks);
	free(ks);
	return 0;
}

/*
 * threadrun's run row carries the counts of the whole run; where it stands
 * aside for the program's own rows of the same run, those rows take its
 * derived figures (which exist per byte, operation or flop only where the
 * run made one measurement).
 */
static void counted_runs(struct dataset *ds)
{
	size_t i, j;

	for (i = 0; i < ds->nobs; i++) {
		const struct obs *r = &ds->obs[i];

		if (!r->counted || !r->dropped || !*r->run || !same(r->algorithm, RESULTS_RUN_ALGORITHM))
			continue;
		for (j = 0; j < ds->nobs; j++) {
			struct obs *o = &ds->obs[j];

			/* A row counted over its own measurement keeps its figures. */
			if (o->dropped || o->counted || o->run != r->run ||
			    same(o->algorithm, RESULTS_RUN_ALGORITHM))
				continue;
			o->counted = true;
			o->cycles_per_byte = r->cycles_per_byte;
			o->cycles_per_op = r->cycles_per_op;
			o->ipc = r->ipc;
			o->flops_per_cycle = r->flops_per_cycle;
		}
	}
}

/* The key of the monitor's figures for a cell: threadrun's whole-run rows
 * of one workload (and host), policy and thread count. */
static struct key monitor_key(const struct dataset *ds, const struct obs *o, const char *policy,
			      unsigned threads, size_t i)
{
	return (struct key){ { (uintptr_t)o->workload, ds->multi_host ? (uintptr_t)o->host : 0,
			       (uintptr_t)policy, threads }, i };
}

/* The monitor's figures for a cell come from threadrun's whole-run rows of
 * the same workload, policy and thread count (kept even where the run's
 * own rows stand in for its rate).  MON: those rows' keys, sorted. */
static int monitor_figures(const struct dataset *ds, const struct key *mon, size_t nmon,
			   struct series *s, struct cell *c)
{
	struct key want = monitor_key(ds, s->key, c->policy, c->threads, 0);
	size_t lo = 0, hi = nmon, i, n = 0;
	double *share;

	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (by_key(&mon[i], &want) < 0)
			lo = i + 1;
		else
			hi = i;
	}
	for (hi = lo; hi < nmon && same_group(&mon[hi], &want); hi++)
		;
	share = malloc((hi - lo ? hi - lo : 1) * sizeof(*share));
	if (!share)
		return -1;
	c->migrations = c->off_plan = c->steal_pct = 0;
	for (i = lo; i < hi; i++) {
		const struct obs *o = &ds->obs[mon[i].i];

		c->migrations += isnan(o->migrations) ? 0 : o->migrations;
		c->off_plan += o->off_plan;
		c->steal_pct = fmax(c->steal_pct, isnan(o->steal_pct) ? 0 : o->steal_pct);
		share[n++] = isnan(o->sys_share) ? 0 : o->sys_share;
	}
	c->monitored = n;
	c->sys_share = stats_median(share, n);
	s->monitored |= n > 0;
	free(share);
	return 0;
}

/* A cell's medians of its rows' figures (over the rows that have one; NAN
 * when none does): where each is in struct obs and in struct cell. */
#define CELL(f) offsetof(struct cell, f)
static const struct {
	size_t obs, cell;
} cell_medians[] = {
	{ OBS(cycles_per_byte), CELL(cycles_per_byte) }, { OBS(cycles_per_op), CELL(cycles_per_op) },
	{ OBS(ipc), CELL(ipc) }, { OBS(flops_per_cycle), CELL(flops_per_cycle) },
	{ OBS(worker_spread), CELL(worker_spread) }, { OBS(lat[0]), CELL(lat[0]) },
	{ OBS(lat[1]), CELL(lat[1]) }, { OBS(lat[2]), CELL(lat[2]) }, { OBS(lat[3]), CELL(lat[3]) },
	{ OBS(lat[4]), CELL(lat[4]) },
};

/* POLICY's place in a sweep's -p list LIST (threadrun's policies column:
 * names joined by commas, a list: policy last), or SIZE_MAX. */
static size_t policy_rank(const char *list, const char *policy)
{
	size_t len = strlen(policy), rank = 0;
	const char *p;

	for (p = list; *p; p++) {
		if ((p == list || p[-1] == ',') && !strncmp(p, policy, len) && (!p[len] || p[len] == ','))
			return rank;
		rank += *p == ',';
	}
	return SIZE_MAX;
}

/* S's policies in the sweep's -p order where its rows' config recorded
 * it (so a shuffled sweep reports alike whatever its seed), else in the
 * order of their first rows; KS sorted by policy (its rank there) and
 * threads: one cell a group.  KS: policy, row. */
static int sort_by_policy_threads(const struct dataset *ds, struct series *s, struct key *ks, size_t nm)
{
	struct key *firsts = malloc((nm ? nm : 1) * sizeof(*firsts));
	const char *list = "";
	size_t i, j, k, nfirst = 0, rank;

	if (!firsts)
		return -1;
	for (i = 0; i < ds->nobs && !*list; i++)
		if (ds->obs[i].config == s->key->config)
			list = ds->obs[i].policies;
	qsort(ks, nm, sizeof(*ks), by_key);
	for (i = 0; i < nm; i = j) {
		j = group_end(ks, nm, i);
		rank = policy_rank(list, ds->obs[ks[i].i].policy);
		firsts[nfirst++] = (struct key){ { rank < SIZE_MAX ? rank : SIZE_MAX / 2 + ks[i].i, i, j }, 0 };
	}
	qsort(firsts, nfirst, sizeof(*firsts), by_key);
	s->policies = malloc((nfirst ? nfirst : 1) * sizeof(*s->policies));
	for (k = 0; s->policies && k < nfirst; k++) {
		s->policies[s->npolicies++] = ds->obs[ks[firsts[k].k[1]].i].policy;
		for (i = firsts[k].k[1]; i < firsts[k].k[2]; i++)
			ks[i].k[0] = k;
	}
	for (i = 0; i < nm; i++)
		ks[i].k[1] = ds->obs[ks[i].i].threads;
	qsort(ks, nm, sizeof(*ks), by_key);
	free(firsts);
	return s->policies ? 0 : -1;
}

/* Cell C of S from its rows KS[LO, HI): the rates' median and range, the
 * plan they share, how busy, verified and counted, the figures' medians.
 * BUF: room for its rows. */
static void cell_from_rows(const struct dataset *ds, const struct key *ks, size_t lo, size_t hi,
			   double *buf, struct series *s, struct cell *c)
{
	size_t i, k;

	*c = (struct cell){ .policy = s->policies[ks[lo].k[0]], .threads = (unsigned)ks[lo].k[1],
			    .n = hi - lo, .cpus = ds->obs[ks[lo].i].cpus, .load_steal = NAN,
			    .load_others = NAN, .lat_batch = NAN };
	for (i = lo; i < hi; i++) {
		const struct obs *o = &ds->obs[ks[i].i];

		buf[i - lo] = o->rate;
		c->counted += o->counted;
		c->unverified |= o->verified == 0 || o->verified == 2;
		/* Interned: one pointer per plan. */
		if (o->cpus != c->cpus)
			c->cpus = NULL;
		/* fmax ignores a NAN: a row that did not say costs nothing. */
		c->load_steal = fmax(c->load_steal, o->steal_pct);
		c->load_others = fmax(c->load_others, o->others_pct);
		/* A row carries every latency figure or none. */
		c->lat_rows += !isnan(o->lat[0]);
		c->lat_batch = isnan(o->lat[0]) ? c->lat_batch : fmax(c->lat_batch, o->lat_batch);
	}
	c->median = stats_median(buf, c->n);
	c->min = buf[0];
	c->max = buf[c->n - 1];
	c->ci_coverage = stats_median_ci(buf, c->n, 0.05, &c->median_lo, &c->median_hi);
	if (c->cpus && !*c->cpus)
		c->cpus = NULL;
	c->busy = c->load_steal > DATASET_BUSY_PCT || c->load_others > DATASET_BUSY_PCT;
	c->oversubscribed = s->pus && c->threads > s->pus;
	for (k = 0; k < NELEM(cell_medians); k++) {
		size_t n = 0;

		for (i = lo; i < hi; i++)
			if (!isnan(FIELD(double, &ds->obs[ks[i].i], cell_medians[k].obs)))
				buf[n++] = FIELD(double, &ds->obs[ks[i].i], cell_medians[k].obs);
		FIELD(double, c, cell_medians[k].cell) = stats_median(buf, n);
	}
	s->busy += c->busy;
	s->counted |= c->counted > 0;
	s->spread |= !isnan(c->worker_spread);
	s->latency |= c->lat_rows > 0;
}

/* C's speedup and efficiency from its rows KS[LO, HI) and its policy's
 * 1-thread rows KS[BLO, BHI) (C->speedup_of_medians set): paired repeat by
 * repeat (a repeat of the same file on both sides), else the ratio of
 * medians.  BUF: room for HI - LO ratios. */
static void cell_speedup(const struct dataset *ds, const struct key *ks, size_t lo, size_t hi,
			 size_t blo, size_t bhi, double *buf, struct cell *c)
{
	size_t i, b;

	c->pairs = 0;
	for (i = lo; i < hi && !isnan(c->speedup_of_medians); i++) {
		const struct obs *o = &ds->obs[ks[i].i];

		for (b = blo; b < bhi; b++) {
			const struct obs *p = &ds->obs[ks[b].i];

			if (o->repeat >= 0 && p->repeat == o->repeat && same(p->file, o->file) && p->rate > 0) {
				buf[c->pairs++] = o->rate / p->rate;
				break;
			}
		}
	}
	c->speedup = c->pairs ? stats_median(buf, c->pairs) : c->speedup_of_medians;
	c->speedup_lo = c->speedup_hi = NAN;
	if (c->pairs)
		stats_median_ci(buf, c->pairs, 0.05, &c->speedup_lo, &c->speedup_hi);
	c->efficiency = c->speedup / c->threads;
}

/* The median of the normalised rates Z[0..N) of the rows of repeat R. */
static double repeat_median(const double *z, const int *rep, size_t n, int r, double *buf)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (rep[i] == r)
			buf[m++] = z[i];
	return stats_median(buf, m);
}

/* S's drift (struct series) from its rows KS[0, NM), grouped as its cells
 * are: Kendall's S of rate against t_start within each point, summed over
 * the points (a trend in time, whatever the points' levels); its size from
 * the rates over their point's median, last repeat against first.  -1 when
 * memory runs out. */
static int series_drift(const struct dataset *ds, struct series *s, const struct key *ks, size_t nm)
{
	double *t = malloc((nm ? nm : 1) * 4 * sizeof(*t)), *z = t + nm, *r = z + nm, *buf = r + nm;
	int *rep = malloc((nm ? nm : 1) * sizeof(*rep)), rmin = INT_MAX, rmax = -1;
	double t0 = INFINITY, t1 = -INFINITY, sum = 0, var = 0, pairs = 0, v;
	size_t c, i = 0, m = 0, first;

	s->drift = s->drift_tau = s->drift_p = s->drift_span_s = NAN;
	if (!t || !rep)
		goto out;
	for (c = 0; c < s->ncells; c++) {
		first = m;
		for (size_t end = i + s->cells[c].n; i < end; i++) {
			const struct obs *o = &ds->obs[ks[i].i];

			if (!isfinite(o->t_start) || !(s->cells[c].median > 0))
				continue;
			t[m] = o->t_start;
			r[m] = o->rate;
			z[m] = o->rate / s->cells[c].median;
			rep[m++] = o->repeat;
			t0 = fmin(t0, o->t_start);
			t1 = fmax(t1, o->t_start);
			rmin = o->repeat >= 0 && o->repeat < rmin ? o->repeat : rmin;
			rmax = o->repeat > rmax ? o->repeat : rmax;
		}
		sum += stats_kendall_s(t + first, r + first, m - first, &v);
		var += v;
		pairs += (double)(m - first) * ((double)(m - first) - 1) / 2;
	}
	if (var > 0) {
		s->drift_tau = sum / pairs;
		s->drift_p = erfc(fabs(sum) / sqrt(var) / sqrt(2));
	}
	s->drift_span_s = m ? (t1 - t0) / 1e6 : NAN;   /* t_start: microseconds */
	if (rmax > rmin)
		s->drift = repeat_median(z, rep, m, rmax, buf) / repeat_median(z, rep, m, rmin, buf) - 1;
	s->drifted = s->drift_p < 0.05 && fabs(s->drift) > DATASET_DRIFT_FLOOR;
out:
	free(t);
	free(rep);
	return t && rep ? 0 : -1;
}

/* The cells of one series from its rows M (indices, file order): every
 * policy x thread count it has, policies in -p order (else first-seen), threads
 * ascending. */
static int build_cells(struct dataset *ds, struct series *s, const size_t *m, size_t nm,
		       const struct key *mon, size_t nmon)
{
	double *buf = malloc((nm ? nm : 1) * sizeof(*buf));
	struct key *ks = malloc((nm ? nm : 1) * sizeof(*ks));
	const struct cell *base = NULL;
	size_t i, j, blo = 0, bhi = 0;
	int ret = -1;

	if (!buf || !ks)
		goto out;
	for (i = 0; i < nm; i++) {
		const struct obs *o = &ds->obs[m[i]];

		s->pus = o->pus > s->pus ? o->pus : s->pus;
		s->cores = o->cores > s->cores ? o->cores : s->cores;
		s->unverified += o->verified == 0;
		s->unchecked += o->verified == 2;
		s->misplaced += o->placed == 0;
		ks[i] = (struct key){ { (uintptr_t)o->policy }, m[i] };
	}
	s->cells = calloc(nm ? nm : 1, sizeof(*s->cells));
	s->rows = malloc((nm ? nm : 1) * sizeof(*s->rows));
	if (!s->cells || !s->rows || sort_by_policy_threads(ds, s, ks, nm) < 0)
		goto out;
	for (i = 0; i < nm; i++)
		s->rows[i] = &ds->obs[ks[i].i];
	for (i = 0; i < nm; i = j, s->ncells++) {
		struct cell *c = &s->cells[s->ncells];

		j = group_end(ks, nm, i);
		cell_from_rows(ds, ks, i, j, buf, s, c);
		c->rows = s->rows + i;
		if (monitor_figures(ds, mon, nmon, s, c) < 0)
			goto out;
		if (i == 0 || ks[i - 1].k[0] != ks[i].k[0]) {
			base = c;
			blo = i;
			bhi = j;
		}
		/* Speedup against a measured 1 thread of the same policy, or
		 * none: never against another count as if it scaled linearly. */
		c->speedup_of_medians = base->threads == 1 && base->median > 0 ? c->median / base->median : NAN;
		cell_speedup(ds, ks, i, j, blo, bhi, buf, c);
		c->superlinear = c->threads > 1 &&
				 c->speedup > DATASET_SUPERLINEAR * (c->oversubscribed ? s->pus : c->threads);
		s->no_one_thread |= isnan(c->speedup);
		s->unpaired |= !isnan(c->speedup) && !c->pairs;
	}
	if (series_drift(ds, s, ks, nm) < 0)
		goto out;
	for (i = s->ncells; i-- > 0;)
		s->cells[i].policy_end = i + 1 < s->ncells && s->cells[i + 1].policy == s->cells[i].policy ?
					 s->cells[i + 1].policy_end : i + 1;
	ret = 0;
out:
	free(buf);
	free(ks);
	return ret;
}

/* One pass over the rows: rows of failed runs counted (the first kept),
 * threadrun's monitored run rows keyed into MON (*NMON), the series in
 * the order their first kept row comes (ORDER: series of each sid) and
 * their row counts into START[series + 2]. */
static void survey_rows(struct dataset *ds, size_t *order, size_t *start, struct key *mon, size_t *nmon)
{
	size_t i;

	for (i = 0; i < ds->nobs; i++) {
		const struct obs *o = &ds->obs[i];

		if (!o->dropped && o->failed && !ds->failed++)
			ds->first_failed = o;
		if (o->failed)
			continue;
		if (!isnan(o->off_plan) && same(o->algorithm, RESULTS_RUN_ALGORITHM))
			mon[(*nmon)++] = monitor_key(ds, o, o->policy, o->threads, i);
		if (o->dropped)
			continue;
		if (order[o->sid] == SIZE_MAX) {
			order[o->sid] = ds->nseries;
			ds->series[ds->nseries++].key = o;
		}
		start[order[o->sid] + 2]++;
	}
}

int dataset_build(struct dataset *ds)
{
	size_t *order = NULL, *start = NULL, *m = NULL, i, nsid = 0, nmon = 0, sid;
	struct key *mon = NULL;
	int ret = -1;

	for (i = 1; i < ds->nobs; i++) {
		ds->multi_host |= !same(ds->obs[i].host, ds->obs[0].host);
		ds->multi_config |= !same(ds->obs[i].config, ds->obs[0].config);
		ds->multi_job |= !same(ds->obs[i].job, ds->obs[0].job);
	}
	if (number_series(ds, &nsid) < 0 || drop_superseded(ds) < 0)
		return -1;
	counted_runs(ds);
	order = malloc((nsid + 1) * sizeof(*order));
	start = calloc(nsid + 2, sizeof(*start));
	m = malloc((ds->nobs ? ds->nobs : 1) * sizeof(*m));
	mon = malloc((ds->nobs ? ds->nobs : 1) * sizeof(*mon));
	ds->series = calloc(nsid ? nsid : 1, sizeof(*ds->series));
	if (!order || !start || !m || !mon || !ds->series)
		goto out;
	/* Series in the order their first kept row comes in the files; the
	 * rows of each, in file order, by counting sort. */
	memset(order, 0xff, (nsid + 1) * sizeof(*order));
	survey_rows(ds, order, start, mon, &nmon);
	qsort(mon, nmon, sizeof(*mon), by_key);
	for (sid = 0; sid < ds->nseries; sid++)
		start[sid + 2] += start[sid + 1];
	for (i = 0; i < ds->nobs; i++)
		if (!ds->obs[i].dropped && !ds->obs[i].failed)
			m[start[order[ds->obs[i].sid] + 1]++] = i;
	for (sid = 0; sid < ds->nseries; sid++)
		if (build_cells(ds, &ds->series[sid], m + start[sid], start[sid + 1] - start[sid], mon,
				nmon) < 0)
			goto out;
	ret = 0;
out:
	free(order);
	free(start);
	free(m);
	free(mon);
	return ret;
}

void dataset_failed_text(const struct dataset *ds, char *buf, size_t len)
{
	const struct obs *o = ds->first_failed;

	if (ds->failed == 1)
		snprintf(buf, len, "1 row of a failed run (status not 0) skipped, not a measurement: %s:%u (status %ld)",
			 ESC(o->file), o->line, o->status);
	else if (ds->failed)
		snprintf(buf, len, "%u rows of failed runs (status not 0) skipped, not measurements; the first: %s:%u (status %ld)",
			 ds->failed, ESC(o->file), o->line, o->status);
	else if (len)
		buf[0] = '\0';
}

void dataset_note_skipped(const struct dataset *ds, FILE *errf, const char *prog)
{
	const struct obs *d = ds->first_duplicate, *o = ds->first_duplicated;
	char line[PATH_MAX + 192];

	dataset_failed_text(ds, line, sizeof(line));
	if (line[0])
		fprintf(errf, "%s: %s\n", prog, line);
	if (!ds->duplicates)
		return;
	if (d->line == o->line && !strcmp(d->file, o->file))
		fprintf(errf, "%s: %u row%s read twice (the same run, seq, time, t_start and rate), counted once: %s named twice\n",
			prog, ds->duplicates, ds->duplicates == 1 ? "" : "s", ESC(d->file));
	else
		fprintf(errf, "%s: %u row%s read twice (the same run, seq, time, t_start and rate), counted once; %s%s:%u repeats %s:%u\n",
			prog, ds->duplicates, ds->duplicates == 1 ? "" : "s",
			ds->duplicates == 1 ? "" : "the first: ", ESC(d->file), d->line, ESC(o->file),
			o->line);
}

void dataset_note_damaged(const struct dataset *ds, FILE *errf, const char *prog)
{
	if (ds->bad_lines)
		fprintf(errf, "%s: %u damaged row%s skipped, named above\n", prog, ds->bad_lines,
			ds->bad_lines == 1 ? "" : "s");
}

void dataset_free(struct dataset *ds)
{
	size_t i;

	for (i = 0; i < ds->pool_cap; i++)
		free(ds->pool[i]);
	free(ds->pool);
	for (i = 0; i < ds->nseries; i++) {
		free(ds->series[i].cells);
		free(ds->series[i].policies);
		free(ds->series[i].rows);
	}
	free(ds->obs);
	results_lost_free(&ds->lost);
	free(ds->series);
	memset(ds, 0, sizeof(*ds));
}

const struct cell *series_run_cell(const struct series *s, size_t lo, size_t hi, unsigned threads)
{
	size_t end = hi, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->cells[mid].threads < threads)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && s->cells[lo].threads == threads ? &s->cells[lo] : NULL;
}

const struct cell *series_cell(const struct series *s, const char *policy, unsigned threads)
{
	size_t lo = 0;

	/* A policy's cells are together, threads ascending (build_cells). */
	while (lo < s->ncells && !same(s->cells[lo].policy, policy))
		lo = s->cells[lo].policy_end;
	return lo < s->ncells ? series_run_cell(s, lo, s->cells[lo].policy_end, threads) : NULL;
}

void series_usl(const struct series *s, const char *policy, struct usl_fit *fit)
{
	const struct cell *c = series_cell(s, policy, 1);
	size_t i, m = 0, end = c ? c->policy_end : 0;
	double *n = malloc((end ? end : 1) * sizeof(*n)), *cap = malloc((end ? end : 1) * sizeof(*cap));

	/* Every point of the policy (its cells run from its 1-thread cell, the
	 * first, to policy_end).  Past the PUs, threads share them by time
	 * slicing: that is not the contention the law describes, so those
	 * points stay out of the fit. */
	for (i = c ? (size_t)(c - s->cells) : 0; n && cap && i < end; i++)
		if (!isnan(s->cells[i].speedup) && !s->cells[i].oversubscribed) {
			n[m] = s->cells[i].threads;
			cap[m++] = s->cells[i].speedup;
		}
	usl_fit(n, cap, m, fit);
	free(n);
	free(cap);
}
