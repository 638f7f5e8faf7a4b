/* Sweeps: every (thread count, policy, repeat) in a repeat's order, warm-up,
 * progress, resume, SIGINT. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "escape.h"
#include "datafile.h"
#include "execute.h"
#include "gate.h"
#include "opt.h"
#include "outfile.h"
#include "results.h"
#include "stats.h"
#include "sweep.h"
#include "timing.h"

#define PROG "threadrun"
#define MAX_COUNTS 4096

#define COUNTS_FORMS "1,2,4,8 or 1-8 or 1-64x2 (doubling), counts 1..4096 ascending"
#define COUNTS_ACCEPTED "accepted: " COUNTS_FORMS

/* One number of a sweep part, with the message naming it when it is bad. */
static int count_number(const char *part, const char **p, const char *what, uint64_t min,
			uint64_t max, unsigned *out, char *err, size_t errlen)
{
	const char *start = *p;
	uint64_t v;
	int rc = num_scan_u64(p, UINT64_MAX, &v);

	if (rc == -1) {
		snprintf(err, errlen, "sweep: '%s' is not a thread count list, %s", part,
			 COUNTS_ACCEPTED);
		return -1;
	}
	if (rc == -2 || v < min || v > max) {
		snprintf(err, errlen, "sweep: %s %.*s in '%s' is out of range, allowed %llu..%llu",
			 what, (int)(*p - start), start, part, (unsigned long long)min,
			 (unsigned long long)max);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* One part: "A", "A-B" or "A-BxF", numbers written the one way (opt.h). */
static int count_part(const char *part, unsigned *vals, int n, char *err, size_t errlen)
{
	const char *p = part;
	unsigned a, b, f = 0;

	if (count_number(part, &p, "thread count", 1, PL_MAX_WORKERS, &a, err, errlen) < 0)
		return -1;
	b = a;
	if (*p == '-') {
		p++;
		if (count_number(part, &p, "thread count", 1, PL_MAX_WORKERS, &b, err, errlen) < 0)
			return -1;
		if (*p == 'x') {
			p++;
			if (count_number(part, &p, "factor", 2, PL_MAX_WORKERS, &f, err, errlen) < 0)
				return -1;
		}
		if (b < a) {
			snprintf(err, errlen, "sweep: range '%s' descends, thread counts must ascend",
				 part);
			return -1;
		}
	}
	if (*p) {
		snprintf(err, errlen, "sweep: '%s' is not a thread count list, %s", part,
			 COUNTS_ACCEPTED);
		return -1;
	}
	/* a, b and f are at most 4096: v * f cannot overflow. */
	for (unsigned v = a; v <= b; v = f ? v * f : v + 1) {
		if (n > 0 && v <= vals[n - 1]) {
			snprintf(err, errlen, "sweep: %u after %u: thread counts must ascend", v, vals[n - 1]);
			return -1;
		}
		vals[n++] = v;
	}
	return n;
}

int sweep_parse_counts(const char *text, unsigned **out, char *err, size_t errlen)
{
	/* Ascending counts 1..4096: never more than 4096 of them. */
	unsigned *vals = calloc(MAX_COUNTS, sizeof(*vals));
	char **parts = NULL;
	int n = 0, nparts, i;

	*out = NULL;
	nparts = list_split("sweep", text, COUNTS_FORMS, &parts, err, errlen);
	if (!vals || nparts < 0)
		goto fail;
	for (i = 0; i < nparts; i++) {
		n = count_part(parts[i], vals, n, err, errlen);
		if (n < 0)
			goto fail;
	}
	list_free(parts, nparts);
	*out = vals;
	return n;
fail:
	list_free(parts, nparts);
	free(vals);
	return -1;
}

int sweep_parse_policies(const char *text, struct pl_policy **out, char *err, size_t errlen)
{
	struct pl_policy *pols = calloc(64, sizeof(*pols));
	char *copy = strdup(text), *p, *comma;
	int n = 0;

	*out = NULL;
	if (!pols || !copy)
		goto fail;
	for (p = copy;; p = comma + 1) {
		comma = pl_policy_takes_list(p) ? NULL : strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (n == 64) {
			snprintf(err, errlen, "policies: more than 64 in '%.40s'", text);
			goto fail;
		}
		if (!*p) {
			snprintf(err, errlen, "policies: '%s' has an empty element, give a comma list without empty items",
				 text);
			goto fail;
		}
		if (pl_policy_parse(p, &pols[n], err, errlen) < 0)
			goto fail;
		n++;
		if (!comma)
			break;
	}
	free(copy);
	*out = pols;
	return n;
fail:
	while (n > 0)
		pl_policy_clear(&pols[--n]);
	free(pols);
	free(copy);
	return -1;
}

/* The repeats of this sweep's config that already ran to success, from
 * the file: threadrun's run rows that are the same repeat (results.h) as
 * the one the sweep would make, but for the job: a rerun is a new job, and
 * a rank looks for its own rows (rank is a repeat column). */
struct done {
	struct results_row want;        /* what this sweep writes, but for policy, threads, repeat, job */
	struct results_row *runs;
	size_t n, cap;
	char seed[24];          /* the order's seed of the last such row, "" none */
	/* The runs of rows that lost their measurement (results_read_lost):
	 * their repeats are not done (forget_lost). */
	struct results_lost lost;
};

/* Copy ROW's N columns COLS into TO: 0, or -1 out of memory. */
static int copy_cols(struct results_row *to, const struct results_row *row,
		     const enum results_col *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (results_row_set(to, cols[i], "%s", results_row_get(row, cols[i])) < 0)
			return -1;
	return 0;
}

/* A and B compared on the N columns COLS, the job aside (strcmp's sign). */
static int cmp_but_job(const struct results_row *a, const struct results_row *b,
		       const enum results_col *cols, size_t n)
{
	size_t i;
	int c;

	for (i = 0; i < n; i++)
		if (cols[i] != RC_JOB &&
		    (c = strcmp(results_row_get(a, cols[i]), results_row_get(b, cols[i]))))
			return c;
	return 0;
}

static int collect_done(const struct results_row *row, unsigned line, void *arg)
{
	struct done *d = arg;
	struct results_row *keep;
	void *grown;

	(void)line;
	/* Algorithm and backend are series columns: run rows only. */
	if (cmp_but_job(row, &d->want, results_series_cols, RESULTS_NSERIES_COLS) ||
	    strcmp(results_row_get(row, RC_STATUS), "0"))
		return 0;
	if (*results_row_get(row, RC_SEED))
		snprintf(d->seed, sizeof(d->seed), "%s", results_row_get(row, RC_SEED));
	if (d->n == d->cap) {
		grown = realloc(d->runs, (d->cap ? d->cap * 2 : 64) * sizeof(*d->runs));
		if (!grown)
			return 1;
		d->runs = grown;
		d->cap = d->cap ? d->cap * 2 : 64;
	}
	/* The identity columns only: a file may hold millions of rows. */
	keep = &d->runs[d->n++];
	results_row_init(keep);
	return copy_cols(keep, row, results_series_cols, RESULTS_NSERIES_COLS) < 0 ||
	       copy_cols(keep, row, results_point_cols, RESULTS_NPOINT_COLS) < 0 ||
	       copy_cols(keep, row, results_repeat_cols, RESULTS_NREPEAT_COLS) < 0 ||
	       results_row_set(keep, RC_RUN, "%s", results_row_get(row, RC_RUN)) < 0;
}

/* Run rows A and B in the order of their point and repeat (the series is
 * this sweep's: collect_done), for qsort and bsearch. */
static int cmp_combination(const void *a, const void *b)
{
	int c = cmp_but_job(a, b, results_point_cols, RESULTS_NPOINT_COLS);

	return c ? c : cmp_but_job(a, b, results_repeat_cols, RESULTS_NREPEAT_COLS);
}

/* A run whose own rows were not all readable is not done, though its run
 * row is: it is made again.  Returns how many combinations that undoes
 * (each once; none where a rerun of it is in the file already).  Leaves
 * the runs done sorted for is_done. */
static size_t forget_lost(struct done *d)
{
	size_t i = 0, kept, undone = 0;
	struct results_row t, *r = d->runs;

	/* The lost runs' rows to the end: [kept, n). */
	for (kept = d->n; i < kept;) {
		if (results_lost_has(&d->lost, results_row_get(&r[i], RC_RUN))) {
			t = r[i];
			r[i] = r[--kept];
			r[kept] = t;
		} else {
			i++;
		}
	}
	if (d->n) {
		qsort(r, kept, sizeof(*r), cmp_combination);
		qsort(r + kept, d->n - kept, sizeof(*r), cmp_combination);
	}
	for (i = kept; i < d->n; i++)
		undone += (i == kept || cmp_combination(&r[i - 1], &r[i])) &&
			  !bsearch(&r[i], r, kept, sizeof(*r), cmp_combination);
	for (i = kept; i < d->n; i++)
		results_row_clear(&r[i]);
	d->n = kept;
	results_lost_free(&d->lost);
	return undone;
}

static bool is_done(struct done *d, unsigned threads, const char *policy, unsigned repeat)
{
	results_row_set(&d->want, RC_THREADS, "%u", threads);
	results_row_set(&d->want, RC_POLICY, "%s", policy);
	results_row_set(&d->want, RC_REPEAT, "%u", repeat);
	/* The series is the same already (collect_done); the runs are sorted
	 * (forget_lost). */
	return d->n && bsearch(&d->want, d->runs, d->n, sizeof(*d->runs), cmp_combination);
}

/* Whether --resume skips combination INDEX: when this file has it, or,
 * under threadrun-mpi, only when every rank's has it (a rank that lacks
 * it makes it again on every rank, started together). */
static bool skip_done(struct done *d, const struct sweep_opts *o, const char *base,
		      const char *config, unsigned index, unsigned threads, const char *policy,
		      unsigned repeat)
{
	bool done = is_done(d, threads, policy, repeat);
	char *key;
	int skip;

	if (!o->resume || !gate_open())
		return done;
	if (asprintf(&key, "%s|%s|%u|%s|%u", base, config, threads, policy, repeat) < 0)
		return done;
	skip = gate_resume(index, done, key, launch_interrupted);
	free(key);
	return skip == 1;
}

static void clock_text(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%02ld:%02ld", t / 60, t % 60);
}

struct progress {
	bool tty, quiet;
	unsigned total, index, ran;
	double start, busy;     /* seconds spent in runs done in this session */
};

static void show_progress(struct progress *pg, unsigned threads, const char *policy,
			  unsigned repeat, const char *program)
{
	char el[32], eta[32] = "?";
	unsigned left = pg->total - pg->index + 1;

	if (pg->quiet)
		return;
	clock_text(now_s() - pg->start, el, sizeof(el));
	if (pg->ran)
		clock_text(pg->busy / pg->ran * left, eta, sizeof(eta));
	fprintf(stderr, "%s%s: sweep [%u/%u] %u thread%s, %s, repeat %u: %s; %s elapsed, ETA %s%s",
		pg->tty ? "\r\033[K" : "", PROG, pg->index, pg->total, threads, threads == 1 ? "" : "s",
		policy, repeat,
		ESC(program), el, eta, pg->tty ? "" : "\n");
	fflush(stderr);
}

/* Check every plan before anything runs: a bad combination is a usage error. */
static int check_plans(pl_topology_t topo, const struct sweep_opts *o)
{
	struct pl_plan *plan;
	int i, j;

	for (i = 0; i < o->npolicies; i++)
		for (j = 0; j < o->ncounts; j++) {
			if (pl_plan_compute(topo, &o->policies[i], o->counts[j],
					    o->strict ? PL_PLAN_STRICT : 0, &plan) < 0) {
				msg_error(PROG, "%s", pl_topology_get_error(topo));
				return -1;
			}
			pl_plan_destroy(plan);
		}
	return 0;
}

/* FILE.log (FILE.rankN.log when ranks share FILE): the programs' output. */
static int open_beside(const char *results, const char *tag, const char *suffix, char **path)
{
	char err[PATH_MAX + 256];
	int fd;

	if (asprintf(path, "%s%s%s", results, tag ? tag : "", suffix) < 0) {
		*path = NULL;
		msg_error(PROG, "out of memory");
		return -1;
	}
	fd = datafile_open(suffix + 1, *path, O_RDWR | O_CREAT | O_APPEND, err, sizeof(err));
	if (fd < 0)
		msg_error(PROG, "sweep: %s", err);
	return fd;
}

/* A signal ended the sweep WHEN ("before", "during", "after") run
 * pg->index: say what is kept and how to go on; 128+N. */
static int stop_interrupted(const struct progress *pg, const char *when, const char *results)
{
	int sig = launch_interrupted();

	fprintf(stderr, "%s%s: sweep interrupted (%s) %s run %u of %u; every finished row is in %s.\n"
		"%s: resume with the same command and --resume\n",
		pg->tty ? "\n" : "", PROG, strsignal(sig), when, pg->index, pg->total, ESC(results), PROG);
	return 128 + sig;
}

/* A sweep under way: what its steps share and its end releases. */
struct sweep {
	const struct sweep_opts *o;
	pl_topology_t topo;
	struct execute ex;
	struct progress pg;
	struct done done;
	char **names;           /* the policies' names, of any length (a list: of hundreds of CPUs) */
	const char *base;       /* the program's name */
	char *log;              /* FILE.log */
	int lockfd;
	unsigned failed, skipped;
	bool warm;              /* --warmup's runs are done */
	char seed[24];          /* the order's seed, as the rows record it */
	char *policies;         /* the -p list, as the rows record it */
	unsigned *order;        /* one repeat's combinations: policy * ncounts + count */
	/* --repeat auto: every rate measured, each point's stop column ("":
	 * it goes on), and the point and repeat under way. */
	struct sample *smp;
	size_t nsmp, capsmp;
	char (*stop)[32];
	int *stop_rep;          /* the repeat the stop column was read from (--resume) */
	unsigned cur, currep;
};

/* One rate of a point's repeat; KEY tells a run's several figures apart
 * (algorithm and unit); RUN is kept while --resume joins rows to runs. */
struct sample {
	unsigned point, rep;
	char *key, *run;
	double rate;
};

static int add_sample(struct sweep *sw, unsigned point, unsigned rep, const char *key,
		      const char *run, double rate)
{
	struct sample *s;
	void *grown;

	if (sw->nsmp == sw->capsmp) {
		sw->capsmp = sw->capsmp ? sw->capsmp * 2 : 64;
		grown = realloc(sw->smp, sw->capsmp * sizeof(*sw->smp));
		if (!grown)
			return -1;
		sw->smp = grown;
	}
	s = &sw->smp[sw->nsmp];
	*s = (struct sample){ point, rep, strdup(key), run ? strdup(run) : NULL, rate };
	if (!s->key || (run && !s->run)) {
		free(s->key);
		free(s->run);
		return -1;
	}
	sw->nsmp++;
	return 0;
}

/* POINT's rate of repeat REP for KEY; NAN when it has none. */
static double sample_at(const struct sweep *sw, unsigned point, unsigned rep, const char *key)
{
	size_t i;

	for (i = 0; i < sw->nsmp; i++)
		if (sw->smp[i].point == point && sw->smp[i].rep == rep && !strcmp(sw->smp[i].key, key))
			return sw->smp[i].rate;
	return NAN;
}

/* The 95% interval of the median of X[0..N) as a share of the median:
 * the larger of its two sides; INFINITY under 3 values. */
static double rel_halfwidth(double *x, size_t n)
{
	double lo, hi, m;

	if (n < 3)
		return INFINITY;
	stats_median_ci(x, n, 0.05, &lo, &hi);
	m = stats_median(x, n);
	return m > 0 ? fmax(hi / m - 1, 1 - lo / m) : INFINITY;
}

/* How precisely POINT is known: for each of its figures the better of
 * its median's interval and its paired ratio's to the policy's 1-thread
 * point (same repeat, so same pass), the worst over its figures;
 * INFINITY while a figure has fewer than 3 repeats. */
static double point_precision(const struct sweep *sw, unsigned point)
{
	unsigned nc = (unsigned)sw->o->ncounts, base = point - point % nc, rep;
	bool paired = point % nc && sw->o->counts[0] == 1;
	double *x = calloc(2 * (size_t)sw->o->repeat + 2, sizeof(*x)), *r, worst = 0, v, b;
	size_t i, k, nx, nr;
	bool any = false;

	if (!x)
		return INFINITY;
	r = x + sw->o->repeat + 1;
	for (i = 0; i < sw->nsmp; i++) {
		const char *key = sw->smp[i].key;

		for (k = 0; k < i && !(sw->smp[k].point == point && !strcmp(sw->smp[k].key, key)); k++)
			;
		if (sw->smp[i].point != point || k < i)
			continue;       /* another point's, or this figure's again */
		for (rep = 0, nx = nr = 0; rep < sw->o->repeat; rep++) {
			v = sample_at(sw, point, rep, key);
			if (isnan(v))
				continue;
			x[nx++] = v;
			b = paired ? sample_at(sw, base, rep, key) : NAN;
			if (b > 0)
				r[nr++] = v / b;
		}
		v = paired ? fmin(rel_halfwidth(x, nx), rel_halfwidth(r, nr)) : rel_halfwidth(x, nx);
		worst = fmax(worst, v);
		any = true;
	}
	free(x);
	return any ? worst : INFINITY;
}

/* splitmix64 (Steele, Lea and Flood): one generator on every machine, so
 * a seed gives the same order anywhere. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Repeat REP's order of the N combinations: fixed (policy by policy,
 * counts ascending), or shuffled by Fisher-Yates from SEED + REP (the
 * modulo's bias, below N / 2^64, is nothing). */
static void order_repeat(unsigned *order, unsigned n, bool shuffle, uint64_t seed, unsigned rep)
{
	uint64_t state = seed + rep;
	unsigned i, k, t;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; shuffle && i > 1; i--) {
		k = (unsigned)(splitmix64(&state) % i);
		t = order[i - 1];
		order[i - 1] = order[k];
		order[k] = t;
	}
}

/* The order's seed: --seed, else the one the resumed file's rows record
 * (the same order again), else the job's under a launcher (every rank
 * runs the same order), else a new one. */
static uint64_t choose_seed(const struct sweep *sw)
{
	const char *p = sw->ex.id.job;
	uint64_t seed = 0xcbf29ce484222325ULL;
	char *end;

	if (sw->o->seed_given)
		return sw->o->seed;
	if (sw->done.seed[0]) {
		errno = 0;
		seed = strtoull(sw->done.seed, &end, 10);
		if (!*end && !errno)
			return seed;
	}
	if (sw->o->rank >= 0 && p) {
		for (seed = 0xcbf29ce484222325ULL; *p; p++)     /* FNV-1a */
			seed = (seed ^ (unsigned char)*p) * 0x100000001b3ULL;
		return seed;
	}
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
		seed ^= (uint64_t)(now_s() * 1e6) ^ (uint64_t)getpid();
	return seed;
}

/* POINT's stop column after its run of repeat REP: the precision reached,
 * the most repeats made, "kept for pairing" (a 1-thread point settled
 * before, run again for a point of its policy still going), or "" (it
 * goes on: under 3 repeats, or the interval still too wide). */
static const char *stop_text(struct sweep *sw, unsigned point, unsigned rep)
{
	double h = point_precision(sw, point) * 100;
	char *t = sw->stop[point];
	bool kept = t[0] != '\0';

	if (h <= sw->o->precision)
		snprintf(t, sizeof(sw->stop[0]), "precision %.1f%%", h);
	else if (rep + 1 >= sw->o->repeat)
		snprintf(t, sizeof(sw->stop[0]), "max %u", sw->o->repeat);
	else
		snprintf(t, sizeof(sw->stop[0]), "%s", kept ? "kept for pairing" : "");
	return t;
}

/* The rates of one run, read back from the file: its rows but
 * threadrun's run row, each figure told apart by algorithm and unit. */
struct run_rates {
	struct sweep *sw;
	const char *run;        /* NULL: every run of this config (--resume) */
	unsigned found;
	int failed;
};

static int run_rate_cb(const struct results_row *row, unsigned line, void *arg)
{
	struct run_rates *a = arg;
	double rate = results_row_num(row, RC_RATE);
	char *key;

	(void)line;
	if ((a->run ? strcmp(results_row_get(row, RC_RUN), a->run)
		    : strcmp(results_row_get(row, RC_CONFIG), a->sw->ex.config)) ||
	    strcmp(results_row_get(row, RC_STATUS), "0") || !(rate > 0) ||
	    !strcmp(results_row_get(row, RC_ALGORITHM), RESULTS_RUN_ALGORITHM))
		return 0;
	if (asprintf(&key, "%s|%s", results_row_get(row, RC_ALGORITHM),
		     results_row_get(row, RC_UNIT)) < 0)
		return a->failed = 1;
	/* A resumed run's point is known once its run row, written after, is read. */
	if (add_sample(a->sw, a->run ? a->sw->cur : UINT_MAX, a->sw->currep, key,
		       results_row_get(row, RC_RUN), rate) < 0)
		a->failed = 1;
	free(key);
	a->found++;
	return a->failed;
}

/* Read FILE's rows for RR: 0, or -1 when it cannot be read or memory ran out. */
static int read_rates(struct sweep *sw, results_cb cb, struct run_rates *rr)
{
	struct results_info info;
	char err[256];
	FILE *sink = fopen("/dev/null", "we");
	int ret;

	/* Damage in the file was reported where it was written or read before. */
	ret = sink ? results_read(sw->ex.results, cb, rr, sink, &info, err, sizeof(err)) : -1;
	if (sink)
		fclose(sink);
	return ret < 0 || rr->failed ? -1 : 0;
}

/* execute's stop hook: "fixed" for --repeat N; with --repeat auto, the
 * run's rates taken in (a program without rows of its own: runs per
 * second) and the point's stop column. */
static const char *sweep_stop(void *arg, const char *run, double wall_s)
{
	struct sweep *sw = arg;
	struct run_rates rr = { .sw = sw, .run = run };

	if (!sw->o->adaptive)
		return "fixed";
	if (read_rates(sw, run_rate_cb, &rr) < 0 ||
	    (!rr.found && wall_s > 0 && add_sample(sw, sw->cur, sw->currep, RESULTS_RUN_ALGORITHM,
						   NULL, 1 / wall_s) < 0))
		return "";      /* no figure: the point goes on */
	return stop_text(sw, sw->cur, sw->currep);
}

/* --resume under --repeat auto: a run row of this sweep's series gives
 * its run's rates their point, and its stop column the point's state. */
static int resume_rate_cb(const struct results_row *row, unsigned line, void *arg)
{
	struct run_rates *a = arg;
	struct sweep *sw = a->sw;
	unsigned nc = (unsigned)sw->o->ncounts, p, own = 0;
	long rep = results_row_count(row, RC_REPEAT, (long)sw->o->repeat - 1);
	size_t i;

	if (strcmp(results_row_get(row, RC_ALGORITHM), RESULTS_RUN_ALGORITHM))
		return run_rate_cb(row, line, arg);
	if (cmp_but_job(row, &sw->done.want, results_series_cols, RESULTS_NSERIES_COLS) ||
	    strcmp(results_row_get(row, RC_STATUS), "0") || rep < 0)
		return 0;
	for (p = 0; p < nc * (unsigned)sw->o->npolicies; p++)
		if (!strcmp(results_row_get(row, RC_POLICY), sw->names[p / nc]) &&
		    results_row_count(row, RC_THREADS, PL_MAX_WORKERS) == sw->o->counts[p % nc])
			break;
	if (p == nc * (unsigned)sw->o->npolicies)
		return 0;
	for (i = 0; i < sw->nsmp; i++)
		if (sw->smp[i].run && !strcmp(sw->smp[i].run, results_row_get(row, RC_RUN))) {
			sw->smp[i].point = p;
			sw->smp[i].rep = (unsigned)rep;
			own++;
		}
	if (!own && results_row_num(row, RC_RATE) > 0)
		a->failed = add_sample(sw, p, (unsigned)rep, RESULTS_RUN_ALGORITHM, NULL,
				       results_row_num(row, RC_RATE)) < 0;
	if (rep >= sw->stop_rep[p]) {
		sw->stop_rep[p] = (int)rep;
		snprintf(sw->stop[p], sizeof(sw->stop[0]), "%s", results_row_get(row, RC_STOP));
	}
	return a->failed;
}

/* Whether repeat's pass runs POINT: always without --repeat auto; with
 * it, while it goes on, and a 1-thread point while a point of its
 * policy goes on (its ratios pair within a pass). */
static bool in_pass(const struct sweep *sw, unsigned point)
{
	unsigned nc = (unsigned)sw->o->ncounts, j;

	if (!sw->o->adaptive || !sw->stop[point][0])
		return true;
	if (point % nc || sw->o->counts[0] != 1)
		return false;
	for (j = 1; j < nc; j++)
		if (!sw->stop[point + j][0])
			return true;
	return false;
}

/* --repeat auto's state, from the file under --resume; the -p list the
 * rows record; the stop hook.  0, or the exit status, said. */
static int prepare_stops(struct sweep *sw)
{
	const struct sweep_opts *o = sw->o;
	size_t n = (size_t)o->npolicies * (size_t)o->ncounts, len = 0;
	struct run_rates rr = { .sw = sw };
	int i;

	if (o->adaptive && o->rank >= 0) {
		msg_error(PROG, "--repeat auto: not under a cluster launcher (each rank would stop at its own repeat); give --repeat N");
		return 2;
	}
	for (i = 0; i < o->npolicies; i++)
		len += strlen(sw->names[i]) + 1;
	sw->policies = calloc(len + 1, 1);
	sw->stop = calloc(n, sizeof(*sw->stop));
	sw->stop_rep = calloc(n, sizeof(*sw->stop_rep));
	if (!sw->policies || !sw->stop || !sw->stop_rep)
		goto oom;
	for (i = 0; i < o->npolicies; i++)
		strcat(strcat(sw->policies, i ? "," : ""), sw->names[i]);
	sw->ex.policies = sw->policies;
	sw->ex.stop = sweep_stop;
	sw->ex.stop_arg = sw;
	for (i = 0; i < (int)n; i++)
		sw->stop_rep[i] = -1;
	/* Rows of an interrupted sweep count; damage was reported already. */
	if (o->adaptive && o->resume && access(sw->ex.results, F_OK) == 0)
		read_rates(sw, resume_rate_cb, &rr);
	if (!rr.failed)
		return 0;
oom:
	msg_error(PROG, "sweep: out of memory");
	return 2;
}

/* --resume: what the file holds done (a run that lost a row, not), said
 * where that is not all of it.  0, or -1 (said). */
static int read_done(struct sweep *sw)
{
	struct results_info info;
	char err[PATH_MAX + 256];
	size_t lost;

	if (results_read_lost(sw->ex.results, collect_done, &sw->done, &sw->done.lost, stderr, &info,
			      err, sizeof(err)) < 0) {
		msg_error(PROG, "sweep: --resume: %s", err);
		return -1;
	}
	lost = forget_lost(&sw->done);
	if (lost)
		msg_error(PROG, "sweep: --resume: %zu finished run%s lost a row skipped above: made again",
			  lost, lost == 1 ? "" : "s");
	return 0;
}

/* The policies' names, the program set up, the file held and read for
 * --resume, the log opened: 0, or the exit status. */
static int sweep_prepare(struct sweep *sw)
{
	const struct sweep_opts *o = sw->o;
	char err[PATH_MAX + 256];
	int i, st;

	if (check_plans(sw->topo, o) < 0)
		return 2;
	sw->names = calloc(o->npolicies > 0 ? (size_t)o->npolicies : 1, sizeof(*sw->names));
	sw->order = calloc((size_t)o->npolicies * (size_t)o->ncounts + 1, sizeof(*sw->order));
	for (i = 0; sw->names && i < o->npolicies; i++)
		if (!(sw->names[i] = pl_policy_strdup(&o->policies[i])))
			break;
	if (!sw->names || !sw->order || i < o->npolicies) {
		msg_error(PROG, "sweep: out of memory");
		return 2;
	}
	st = execute_prepare(&sw->ex, o->argv, o->results, err, sizeof(err));
	if (st) {
		msg_error(PROG, "%s", err);
		return st;
	}
	/* The series columns of this sweep's run rows, as execute_run writes them. */
	if (results_row_provenance(&sw->done.want, NULL) < 0) {
		msg_error(PROG, "sweep: out of memory");
		return 2;
	}
	execute_run_identity(&sw->ex, &sw->done.want);
	if (o->rank >= 0)
		results_row_set(&sw->done.want, RC_RANK, "%ld", o->rank);
	/* The whole sweep under the file's measuring lock: no other sweep or
	 * run of this rank adds rows to it meanwhile, so the file read once
	 * under the lock is what --resume skips, to the end. */
	st = outfile_hold(sw->ex.results, o->rank, false, o->wait, o->quiet, &sw->lockfd, err,
			  sizeof(err));
	if (st) {
		msg_error(PROG, "sweep: %s", err);
		return st;
	}
	if (o->resume && access(sw->ex.results, F_OK) == 0 && read_done(sw) < 0)
		return 2;
	sw->ex.output_fd = open_beside(sw->ex.results, o->tag, ".log", &sw->log);
	if (sw->ex.output_fd < 0)
		return 2;
	snprintf(sw->seed, sizeof(sw->seed), "%llu", (unsigned long long)choose_seed(sw));
	sw->ex.seed = sw->seed;
	dprintf(sw->ex.output_fd, "=== threadrun sweep: order %s, seed %s\n",
		o->shuffle ? "shuffle" : "fixed", sw->seed);
	return prepare_stops(sw);
}

/* Run one combination and say when it failed: -1 to go on, else the
 * sweep's exit status. */
static int sweep_run_one(struct sweep *sw, const struct pl_plan *plan, unsigned threads,
			 const char *name, unsigned rep)
{
	struct progress *pg = &sw->pg;
	struct launch_result r;
	char err[PATH_MAX + 256], num[16];
	double t0;
	int st;

	show_progress(pg, threads, name, rep, sw->base);
	dprintf(sw->ex.output_fd, "=== threadrun sweep [%u/%u] %u threads, %s, repeat %u\n",
		pg->index, pg->total, threads, name, rep);
	/* The program's measurements are numbered within it (gate.h): ranks
	 * compare combination and number. */
	snprintf(num, sizeof(num), "%u", pg->index);
	setenv(ENV_SWEEP_INDEX, num, 1);
	t0 = now_s();
	st = execute_run(&sw->ex, plan, name, sw->o->argv, rep, &r, err, sizeof(err));
	pg->busy += now_s() - t0;
	pg->ran++;
	if (launch_interrupted()) {
		if (st < 0)
			fprintf(stderr, "%s%s: sweep: run %u of %u not recorded: %s\n",
				pg->tty ? "\n" : "", PROG, pg->index, pg->total, err);
		return stop_interrupted(pg, "during", sw->ex.results);
	}
	if (st < 0 || r.status) {
		sw->failed++;
		fprintf(stderr, "%s%s: sweep: run %u of %u (%u thread%s, %s, repeat %u) failed: %s; output in %s\n",
			pg->tty ? "\n" : "", PROG, pg->index, pg->total, threads, threads == 1 ? "" : "s",
			name, rep, st < 0 ? err : r.signal ? strsignal(r.signal) : "nonzero exit",
			ESC(sw->log));
		/* A program that cannot run ends the sweep. */
		if (st < 0 && r.status >= 126)
			return 0;
	}
	return -1;
}

/* --warmup: K runs of the first combination the sweep records, before
 * it, that write no row and count in no progress: -1 to go on, else the
 * sweep's exit status. */
static int sweep_warm_up(struct sweep *sw, const struct pl_plan *plan, unsigned threads,
			 const char *name, unsigned rep)
{
	struct launch_result r;
	char err[PATH_MAX + 256], sink[] = "/tmp/threadrun-warmup-XXXXXX";
	int fd = mkostemp(sink, O_CLOEXEC);
	unsigned k;

	sw->warm = true;
	/* The program's own rows, if it writes any, go to a file deleted after. */
	sw->ex.unrecorded = fd >= 0 ? sink : "/dev/null";
	for (k = 1; k <= sw->o->warmup && !launch_interrupted(); k++) {
		if (!sw->o->quiet)
			fprintf(stderr, "%s%s: sweep warm-up %u/%u: %u thread%s, %s, not recorded%s",
				sw->pg.tty ? "\r\033[K" : "", PROG, k, sw->o->warmup, threads,
				threads == 1 ? "" : "s", name, sw->pg.tty ? "" : "\n");
		dprintf(sw->ex.output_fd, "=== threadrun sweep warm-up %u/%u, %u threads, %s (not recorded)\n",
			k, sw->o->warmup, threads, name);
		if ((execute_run(&sw->ex, plan, name, sw->o->argv, rep, &r, err, sizeof(err)) < 0 ||
		     r.status) && !launch_interrupted())
			fprintf(stderr, "%s%s: sweep: warm-up %u failed (exit %d); output in %s\n",
				sw->pg.tty ? "\n" : "", PROG, k, r.status, ESC(sw->log));
	}
	sw->ex.unrecorded = NULL;
	if (fd >= 0) {
		close(fd);
		unlink(sink);
	}
	return launch_interrupted() ? stop_interrupted(&sw->pg, "before", sw->ex.results) : -1;
}

/* Combination INDEX (counts[J], policy I, repeat REP): skipped when
 * --resume finds it, else planned and run.  -1 to go on, else the sweep's
 * exit status. */
static int sweep_step(struct sweep *sw, int i, int j, unsigned rep)
{
	const struct sweep_opts *o = sw->o;
	struct pl_plan *plan;
	int ret;

	sw->pg.index++;
	if (launch_interrupted())
		return stop_interrupted(&sw->pg, "before", sw->ex.results);
	if (skip_done(&sw->done, o, sw->base, sw->ex.config, sw->pg.index, o->counts[j],
		      sw->names[i], rep)) {
		sw->skipped++;
		return -1;
	}
	/* A signal may have ended the wait for the ranks' answer. */
	if (launch_interrupted())
		return stop_interrupted(&sw->pg, "before", sw->ex.results);
	if (pl_plan_compute(sw->topo, &o->policies[i], o->counts[j], o->strict ? PL_PLAN_STRICT : 0,
			    &plan) < 0) {
		msg_error(PROG, "%s", pl_topology_get_error(sw->topo));
		return 2;
	}
	ret = sw->warm ? -1 : sweep_warm_up(sw, plan, o->counts[j], sw->names[i], rep);
	if (ret < 0)
		ret = sweep_run_one(sw, plan, o->counts[j], sw->names[i], rep);
	pl_plan_destroy(plan);
	return ret;
}

/* How many points repeat REP's pass runs; with --repeat auto, the
 * progress line's total becomes the most runs the sweep can still make. */
static unsigned pass_size(struct sweep *sw, unsigned rep)
{
	unsigned n = (unsigned)(sw->o->npolicies * sw->o->ncounts), p, size = 0;

	for (p = 0; p < n; p++)
		size += in_pass(sw, p);
	if (sw->o->adaptive)
		sw->pg.total = sw->pg.index + size * (sw->o->repeat - rep);
	return size;
}

/* The sweep's last line: 0 every run succeeded, 1 one failed. */
static int sweep_summary(const struct sweep *sw)
{
	const struct progress *pg = &sw->pg;
	unsigned runs = pg->total - sw->skipped;
	char el[32];

	if (launch_interrupted())
		return stop_interrupted(pg, "after", sw->ex.results);
	if (!sw->o->quiet) {
		clock_text(now_s() - pg->start, el, sizeof(el));
		fprintf(stderr, "%s%s: sweep done: %u run%s, %u failed, %u skipped (already in %s); %s; rows in %s, output in %s\n",
			pg->tty ? "\n" : "", PROG, runs, runs == 1 ? "" : "s", sw->failed, sw->skipped,
			ESC(sw->ex.results), el, ESC(sw->ex.results), ESC(sw->log));
	}
	return sw->failed ? 1 : 0;
}

static void sweep_finish(struct sweep *sw)
{
	int i;

	execute_finish(&sw->ex);
	if (sw->ex.output_fd >= 0)
		close(sw->ex.output_fd);
	if (sw->lockfd >= 0)
		close(sw->lockfd);
	free(sw->log);
	while (sw->done.n > 0)
		results_row_clear(&sw->done.runs[--sw->done.n]);
	free(sw->done.runs);
	results_lost_free(&sw->done.lost);
	results_row_clear(&sw->done.want);
	for (i = 0; sw->names && i < sw->o->npolicies; i++)
		free(sw->names[i]);
	free(sw->names);
	free(sw->order);
	free(sw->policies);
	while (sw->nsmp > 0) {
		free(sw->smp[--sw->nsmp].key);
		free(sw->smp[sw->nsmp].run);
	}
	free(sw->smp);
	free(sw->stop);
	free(sw->stop_rep);
}

int sweep_run(pl_topology_t topo, const struct sweep_opts *o)
{
	struct sweep sw = {
		.o = o, .topo = topo, .lockfd = -1,
		.base = strrchr(o->argv[0], '/') ? strrchr(o->argv[0], '/') + 1 : o->argv[0],
		.ex = { .topo = topo, .always_row = true, .output_fd = -1, .series = -1,
			.monitor = o->monitor, .counters = o->counters, .quiet = true,
			.omp_note = !o->quiet, .metrics = o->metrics, .tag = o->tag,
			.pthreads = o->pthreads, .skip = o->skip, .asked_config = o->config },
		.pg = { .tty = isatty(2), .quiet = o->quiet, .start = now_s(),
			.total = (unsigned)(o->ncounts * o->npolicies) * o->repeat },
	};
	unsigned rep, k, n = (unsigned)(o->ncounts * o->npolicies), nc = (unsigned)o->ncounts;
	int ret;

	results_row_init(&sw.done.want);
	ret = sweep_prepare(&sw);
	if (ret)
		goto out;
	launch_signals_defer(true);
	ret = -1;
	for (rep = 0; ret < 0 && rep < o->repeat && pass_size(&sw, rep); rep++) {
		order_repeat(sw.order, n, o->shuffle, strtoull(sw.seed, NULL, 10), rep);
		for (k = 0; ret < 0 && k < n; k++) {
			if (!in_pass(&sw, sw.order[k]))
				continue;
			sw.cur = sw.order[k];
			sw.currep = rep;
			ret = sweep_step(&sw, (int)(sw.order[k] / nc), (int)(sw.order[k] % nc), rep);
		}
	}
	if (ret < 0)
		ret = sweep_summary(&sw);
	launch_signals_defer(false);
out:
	sweep_finish(&sw);
	return ret;
}
