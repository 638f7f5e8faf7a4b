/*
 * stream: memory bandwidth on the worker API.  STREAM's copy, scale, add
 * and triad kernels (McCalpin), each worker on its own part of the arrays,
 * first touched by that worker on its own PU; bytes counted as STREAM
 * counts them, results verified as STREAM verifies them.
 */
#define _GNU_SOURCE
#include <hwloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

#define PROG "stream"
#define SCALAR 3.0
#define MAX_ELEMENTS (UINT64_C(1) << 40)
/* STREAM's default array size where the caches cannot be read. */
#define FALLBACK_ELEMENTS UINT64_C(10000000)
/* STREAM's tolerance for doubles: average relative error per array. */
#define EPSILON 1e-13

enum kernel { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_COUNT };

/* STREAM's table: the arrays each kernel reads or writes, 8 bytes per
 * element each. */
static const struct {
	const char *name;
	unsigned arrays;
} kernels[K_COUNT] = {
	[K_COPY] = { "copy", 2 }, [K_SCALE] = { "scale", 2 },
	[K_ADD] = { "add", 3 }, [K_TRIAD] = { "triad", 3 },
};
static const char kernel_choices[] = "copy scale add triad";

struct opts {
	uint64_t n;
	bool n_set, quiet, latency;
	unsigned ntimes;
	bool want[K_COUNT];
	const char *results;
};

static struct opts opts = { .ntimes = 10, .want = { true, true, true, true } };

static int parse_kernels(const char *text, void *o, char *err, size_t errlen);

#define O(field) offsetof(struct opts, field)
static const struct opt_spec options[] = {
	{ OPT_U64('n', "elements", "N", O(n), 1, MAX_ELEMENTS,
		  "elements per array, split among the workers (default: 4x the last-level caches)"),
	  .seen = OPT_SEEN(struct opts, n_set) },
	{ OPT_CALLBACK('k', "kernel", "K", parse_kernels, "copy, scale, add, triad, a comma list (default all)") },
	{ OPT_UNSIGNED('t', "ntimes", "T", O(ntimes), 2, 100000,
		       "iterations of every kernel; the first is not counted (default 10, at least 2)") },
	{ OPT_RESULTS(O(results), "append one row per kernel to FILE (default: threadrun's file)") },
	{ OPT_QUIET(O(quiet), "results only: the table, without the header line; warnings stay") },
	{ OPT_FLAG(0, "latency", O(latency),
		   "the percentiles of the counted iterations' times and bandwidths: p50, p90, p99, p99.9 and max, in the rows and the table") },
	{ OPT_PRINT_CONFIG(WORKLOAD_CONFIG) },
	{ OPT_VERSION(WORKLOAD_VERSION) },
	{ OPT_HELP },
};

static const char help_after[] =
	"Workers: THREADRUN_THREADS (set by threadrun), else OMP_NUM_THREADS, else 1.\n"
	"Each worker binds itself to its planned PU and first-touches its part of\n"
	"the three arrays there.  Every iteration runs the kernels in order, each\n"
	"from a common start; the rate is STREAM's best (the first iteration not\n"
	"counted), bytes as STREAM counts them (copy, scale: 16 per element; add,\n"
	"triad: 24).  Verified as STREAM verifies: average relative error below\n"
	"1e-13 in each array against the values computed in closed form.\n"
	"\n"
	"  threadrun -p scatter 2 stream\n"
	"  threadrun -p compact 4 stream -k triad -n 50000000\n"
	"\n"
	"Exit status: 0 verified; 1 not verified or a worker failed; 2 usage or a\n"
	"size that does not fit in memory.\n";

/* One worker's part of the three arrays. */
struct part {
	double *a, *b, *c;
	size_t len;
};

struct ctx {
	struct part *parts;
	uint64_t n;
	unsigned nworkers;
	enum kernel k;
};

static int parse_kernels(const char *text, void *o, char *err, size_t errlen)
{
	bool *want = ((struct opts *)o)->want;
	char **items = NULL;
	int n, i, k, ret = -1;

	n = list_split("kernel", text, kernel_choices, &items, err, errlen);
	if (n < 0)
		return -1;
	memset(want, 0, sizeof(bool) * K_COUNT);
	for (i = 0; i < n; i++) {
		for (k = 0; k < K_COUNT && strcmp(items[i], kernels[k].name); k++)
			;
		if (k == K_COUNT) {
			snprintf(err, errlen, "kernel '%s' not known, choices are: %s", items[i],
				 kernel_choices);
			goto out;
		}
		want[k] = true;
	}
	ret = 0;
out:
	list_free(items, n);
	return ret;
}

/* The sum of the last-level caches in bytes (the deepest cache level
 * hwloc finds), or 0 when none is known.  Read apart from placement's
 * topology, which leaves the caches out. */
static uint64_t llc_bytes(void)
{
	static const hwloc_obj_type_t levels[] = {
		HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
		HWLOC_OBJ_L1CACHE,
	};
	hwloc_topology_t h;
	hwloc_obj_t obj = NULL;
	uint64_t sum = 0;
	size_t i;

	if (hwloc_topology_init(&h) < 0)
		return 0;
	if (hwloc_topology_load(h) == 0)
		for (i = 0; i < sizeof(levels) / sizeof(levels[0]) && !sum; i++)
			while ((obj = hwloc_get_next_obj_by_type(h, levels[i], obj)))
				sum += obj->attr->cache.size;
	hwloc_topology_destroy(h);
	return sum;
}

/* Size the arrays: STREAM's rule (each at least 4x the caches) by
 * default; refuse what memory cannot hold, warn below the rule. */
static int size_arrays(struct opts *o, unsigned nworkers)
{
	uint64_t llc = llc_bytes(), rule = (4 * llc + sizeof(double) - 1) / sizeof(double);
	double need, have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);

	if (!o->n_set)
		o->n = llc ? rule : FALLBACK_ELEMENTS;
	if (o->n < nworkers) {
		msg_error(PROG, "elements: %llu is fewer than the %u worker%s, allowed %u..%llu",
			  (unsigned long long)o->n, nworkers, nworkers == 1 ? "" : "s", nworkers,
			  (unsigned long long)MAX_ELEMENTS);
		return -1;
	}
	need = 3.0 * (double)o->n * sizeof(double);
	if (have > 0 && need > 0.9 * have) {
		msg_error(PROG, "elements: %llu need %.1f GiB for the three arrays, this machine has %.1f GiB",
			  (unsigned long long)o->n, need / (1 << 30), have / (1 << 30));
		return -1;
	}
	if (llc && o->n < rule)
		fprintf(stderr, "%s: warning: elements: %llu (%.1f MiB per array) is below 4x the last-level caches (%.1f MiB): the caches, not memory, are measured; STREAM's rule needs %llu\n",
			PROG, (unsigned long long)o->n, (double)o->n * sizeof(double) / (1 << 20),
			(double)llc / (1 << 20), (unsigned long long)rule);
	return 0;
}

/* Before the first start, on the worker's own PU: its part, first touched
 * there (STREAM's initial values, a doubled as STREAM doubles it). */
static int stream_setup(struct worker *w, char *err, size_t errlen)
{
	struct ctx *x = w->arg;
	struct part *p = &x->parts[w->index];
	size_t j, len = (size_t)(x->n / x->nworkers + (w->index < x->n % x->nworkers));
	void *a = NULL, *b = NULL, *c = NULL;

	if (p->a)
		return 0;
	if (posix_memalign(&a, 64, len * sizeof(double)) ||
	    posix_memalign(&b, 64, len * sizeof(double)) ||
	    posix_memalign(&c, 64, len * sizeof(double))) {
		free(a);
		free(b);
		snprintf(err, errlen, "cannot allocate 3 x %.1f MiB", (double)len * 8 / (1 << 20));
		return -1;
	}
	p->a = a;
	p->b = b;
	p->c = c;
	p->len = len;
	for (j = 0; j < len; j++) {
		p->a[j] = 1.0;
		p->b[j] = 2.0;
		p->c[j] = 0.0;
	}
	for (j = 0; j < len; j++)
		p->a[j] = 2.0 * p->a[j];
	return 0;
}

/* The timed part: one pass of one kernel over the worker's part. */
static int stream_run(struct worker *w, char *err, size_t errlen)
{
	struct ctx *x = w->arg;
	struct part *p = &x->parts[w->index];
	double *restrict a = p->a, *restrict b = p->b, *restrict c = p->c;
	const double s = SCALAR;
	size_t j, len = p->len;

	(void)err;
	(void)errlen;
	switch (x->k) {
	case K_COPY:
		for (j = 0; j < len; j++)
			c[j] = a[j];
		break;
	case K_SCALE:
		for (j = 0; j < len; j++)
			b[j] = s * c[j];
		break;
	case K_ADD:
		for (j = 0; j < len; j++)
			c[j] = a[j] + b[j];
		break;
	case K_TRIAD:
		for (j = 0; j < len; j++)
			a[j] = b[j] + s * c[j];
		break;
	default:
		break;
	}
	worker_sample(w);
	return 0;
}

static const struct worker_ops stream_ops = {
	.name = PROG,
	.setup = stream_setup,
	.run = stream_run,
};

/* STREAM's check: the expected values follow in closed form from the
 * kernels run; each array's average relative error must stay below 1e-13. */
static bool verify(const struct opts *o, const struct ctx *x, char *why, size_t len)
{
	double aj = 2.0, bj = 2.0, cj = 0.0, err[3] = { 0 }, want[3];
	const char *names[3] = { "a", "b", "c" };
	unsigned t, i;
	size_t j;
	int k;

	for (t = 0; t < o->ntimes; t++)
		for (k = 0; k < K_COUNT; k++) {
			if (!o->want[k])
				continue;
			if (k == K_COPY)
				cj = aj;
			else if (k == K_SCALE)
				bj = SCALAR * cj;
			else if (k == K_ADD)
				cj = aj + bj;
			else
				aj = bj + SCALAR * cj;
		}
	want[0] = aj, want[1] = bj, want[2] = cj;
	for (i = 0; i < x->nworkers; i++)
		for (j = 0; j < x->parts[i].len; j++) {
			err[0] += fabs(x->parts[i].a[j] - aj);
			err[1] += fabs(x->parts[i].b[j] - bj);
			err[2] += fabs(x->parts[i].c[j] - cj);
		}
	for (i = 0; i < 3; i++) {
		double rel = err[i] / (double)o->n / (want[i] != 0 ? fabs(want[i]) : 1.0);

		if (!(rel <= EPSILON)) {
			snprintf(why, len, "array %s: average relative error %.3g, expected value %g, allowed %g",
				 names[i], rel, want[i], EPSILON);
			return false;
		}
	}
	return true;
}

/* Per kernel: STREAM's statistics over the iterations and the workers'
 * placement over all of them. */
struct stats {
	double *secs;
	/* Every iteration's, added up: times, the kernel's first start and last
	 * end, load, tracks; start_sync yes only when every iteration's was. */
	struct worker_result all;
};

static double bytes_per_pass(const struct opts *o, int k)
{
	return (double)kernels[k].arrays * sizeof(double) * (double)o->n;
}

static void stats_range(const struct opts *o, const struct stats *st, double *best, double *avg,
			double *max)
{
	unsigned t;

	*best = INFINITY;
	*avg = 0;
	*max = 0;
	/* The first iteration is not counted, as in STREAM. */
	for (t = 1; t < o->ntimes; t++) {
		*best = fmin(*best, st->secs[t]);
		*max = fmax(*max, st->secs[t]);
		*avg += st->secs[t] / (o->ntimes - 1);
	}
}

/* The counted iterations' times (the first not counted, as STREAM), into
 * H. */
static void iteration_times(const struct opts *o, const struct stats *st, struct histogram *h)
{
	unsigned t;

	histogram_init(h);
	for (t = 1; t < o->ntimes; t++)
		histogram_record(h, (uint64_t)llround(st->secs[t] * 1e9));
}

/* The measurement's columns of kernel K's row. */
static void set_columns(struct results_row *row, const struct opts *o, int k, double best,
			double avg, double max, const char *why)
{
	results_row_set(row, RC_ALGORITHM, "%s", kernels[k].name);
	results_row_set(row, RC_BACKEND, "c");
	results_row_set(row, RC_IMPL, "STREAM kernels, double");
	results_row_set(row, RC_SIZE, "%llu", (unsigned long long)o->n);
	results_row_set(row, RC_SIZE_UNIT, "elements");
	results_row_set(row, RC_OPS, "%llu", (unsigned long long)o->n);
	results_row_set(row, RC_BYTES, "%.0f", bytes_per_pass(o, k));
	results_row_set(row, RC_RATE, "%.6g", bytes_per_pass(o, k) / best);
	results_row_set(row, RC_UNIT, "%s", unit_name(UNIT_BYTES_S));
	results_row_set(row, RC_VERIFIED, "%s", why ? "no" : "yes");
	results_row_set(row, RC_CHECKS, "%llu", (unsigned long long)o->n * 3);
	if (!why)
		results_row_set(row, RC_NOTE, "best of %u iterations (the first not counted); avg %.6g bytes/s, min %.6g bytes/s",
				o->ntimes - 1, bytes_per_pass(o, k) / avg, bytes_per_pass(o, k) / max);
	else
		results_row_set(row, RC_NOTE, "%s", why);
}

/* Kernel K's row (WHY: NULL when verified, else why not). */
static int append_row(const struct opts *o, const struct run_env *env, int k,
		      const struct stats *st, const char *why)
{
	char versions[64];
	struct results_row row;
	struct worker_row wr;
	double best, avg, max;
	struct histogram *h = NULL;
	int ret = -1;

	/* The row is STREAM's best iteration: its elements, bytes and time
	 * (rate = bytes / wall_s, results/README.md), and the CPU time of
	 * all iterations scaled to it. */
	stats_range(o, st, &best, &avg, &max);
	wr = worker_row_of_result(PROG, env, &st->all, best);
	wr.versions = versions;
	wr.status = why ? 1 : 0;
	snprintf(versions, sizeof(versions), "gcc %s", __VERSION__);
	results_row_init(&row);
	set_columns(&row, o, k, best, avg, max, why);
	if (o->latency) {
		h = malloc(sizeof(*h));
		if (h)
			iteration_times(o, st, h);
		if (!h || worker_row_latency(&row, h, NULL, 0, 1) < 0) {
			msg_error(PROG, "out of memory for the latency columns");
			goto out;
		}
	}
	ret = workload_append_row(o->results, &row, &wr);
out:
	free(h);
	results_row_clear(&row);
	return ret;
}

/* Add iteration T's measurement R to ST. */
static void add_iteration(struct stats *st, unsigned t, const struct worker_result *r)
{
	struct worker_result *all = &st->all;
	unsigned i;

	st->secs[t] = r->wall_s;
	all->wall_s += r->wall_s;
	all->user_s += r->user_s;
	all->sys_s += r->sys_s;
	if (!t || all->start_sync > r->start_sync)
		all->start_sync = r->start_sync;
	if (!all->t_start_us)
		all->t_start_us = r->t_start_us;
	all->t_end_us = r->t_end_us;
	cpuload_span_merge(&all->load, &r->load);
	for (i = 0; r->tracks && i < all->nworkers; i++)
		cpu_track_merge(&all->tracks[i], &r->tracks[i]);
}

/* Every iteration runs the kernels asked for in STREAM's order, each from
 * a common start. */
static int measure(const struct opts *o, const struct run_env *env, struct ctx *x,
		   struct stats *st)
{
	struct worker_params p = { .ops = &stream_ops, .arg = x, .env = env,
				   .nworkers = x->nworkers };
	struct worker_result r;
	unsigned t;
	int k, ret = 0;

	for (t = 0; t < o->ntimes && !ret; t++)
		for (k = 0; k < K_COUNT && !ret; k++) {
			if (!o->want[k])
				continue;
			x->k = (enum kernel)k;
			p.label = kernels[k].name;
			if (worker_run(&p, &r) < 0) {
				msg_error(PROG, "failed: %s: %s", kernels[k].name, r.err);
				ret = 1;
			}
			add_iteration(&st[k], t, &r);
			worker_result_free(&r);
		}
	return ret;
}

/* Per kernel: the iteration time at p50, p90, p99, p99.9 and the max, and
 * the bandwidth each means (the p99 time is the bandwidth the slowest 1%
 * of the iterations stayed under). */
static void print_latency(const struct opts *o, const struct stats *st)
{
	static const double ps[] = { 50, 90, 99, 99.9, 100 };
	static const char *const names[] = { "p50", "p90", "p99", "p99.9", "max" };
	struct histogram *h = malloc(sizeof(*h));
	double v;
	size_t i;
	int k;

	if (!h) {
		msg_error(PROG, "out of memory for the latency table");
		return;
	}
	printf("\nIteration time (bandwidth) at percentiles of the %u counted iterations:\n", o->ntimes - 1);
	printf("%-8s", "Function");
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		printf(" %22s", names[i]);
	putchar('\n');
	for (k = 0; k < K_COUNT; k++) {
		if (!o->want[k])
			continue;
		iteration_times(o, &st[k], h);
		printf("%-8s", kernels[k].name);
		for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
			v = histogram_percentile(h, ps[i]) * 1e-9;
			printf(" %9.6f s (%6.0f MB/s)", v, v > 0 ? bytes_per_pass(o, k) / v / 1e6 : 0.0);
		}
		putchar('\n');
	}
	free(h);
}

static void print_table(const struct opts *o, const struct stats *st)
{
	double best, avg, max;
	int k;

	printf("%-8s %16s %11s %11s %11s\n", "Function", "Best Rate MB/s", "Avg time", "Min time",
	       "Max time");
	for (k = 0; k < K_COUNT; k++) {
		if (!o->want[k])
			continue;
		stats_range(o, &st[k], &best, &avg, &max);
		printf("%-8s %16.1f %11.6f %11.6f %11.6f\n", kernels[k].name,
		       bytes_per_pass(o, k) / best / 1e6, avg, best, max);
	}
	if (o->latency)
		print_latency(o, st);
}

/* Each kernel's statistics, for NWORKERS workers planned as ENV says. */
static int stats_alloc(struct stats *st, const struct opts *o, const struct run_env *env,
		       unsigned nworkers)
{
	unsigned i;
	int k;

	for (k = 0; k < K_COUNT; k++) {
		st[k].secs = calloc(o->ntimes, sizeof(double));
		st[k].all.nworkers = nworkers;
		st[k].all.tracks = calloc(nworkers, sizeof(*st[k].all.tracks));
		if (!st[k].secs || !st[k].all.tracks)
			return -1;
		for (i = 0; i < nworkers; i++)
			cpu_track_init(&st[k].all.tracks[i], run_env_planned(env, i));
	}
	return 0;
}

static void print_header(const struct opts *o, const struct run_env *env)
{
	unsigned nw = env->nthreads;

	printf("stream: %llu elements per array (%.1f MiB each, %.1f MiB in all), %u worker%s, policy %s, %u iteration%s\n",
	       (unsigned long long)o->n, (double)o->n * 8 / (1 << 20),
	       3.0 * (double)o->n * 8 / (1 << 20), nw, nw == 1 ? "" : "s", env->policy, o->ntimes,
	       o->ntimes == 1 ? "" : "s");
}

/* Verify, print STREAM's table and append a row per kernel: the exit status. */
static int report(const struct opts *o, const struct run_env *env, struct ctx *x,
		  const struct stats *st)
{
	char why[256] = "";
	bool verified;
	int k, ret;

	/* Test-only fault switch: a wrong element must fail the check. */
	if (getenv("STREAM_FAULT"))
		x->parts[0].a[0] += 1.0;
	verified = verify(o, x, why, sizeof(why));
	print_table(o, st);
	if (verified)
		printf("Solution Validates: avg error less than %g on all three arrays\n", EPSILON);
	else
		msg_error(PROG, "verification failed: %s", why);
	ret = verified ? 0 : 1;
	for (k = 0; k < K_COUNT && o->results; k++)
		if (o->want[k] && append_row(o, env, k, &st[k], verified ? NULL : why) < 0)
			ret = 1;
	return ret;
}

static int run(void *opts_, const struct run_env *env)
{
	struct opts *o = opts_;
	struct stats st[K_COUNT] = { 0 };
	struct ctx x = { .nworkers = env->nthreads };
	unsigned i;
	int k, ret = 2;

	if (size_arrays(o, env->nthreads) < 0)
		return 2;
	ret = 1;
	x.n = o->n;
	x.parts = calloc(x.nworkers, sizeof(*x.parts));
	if (!x.parts || stats_alloc(st, o, env, x.nworkers) < 0)
		goto out;
	if (!o->quiet)
		print_header(o, env);
	if (measure(o, env, &x, st) == 0)
		ret = report(o, env, &x, st);
out:
	for (i = 0; x.parts && i < x.nworkers; i++) {
		free(x.parts[i].a);
		free(x.parts[i].b);
		free(x.parts[i].c);
	}
	free(x.parts);
	for (k = 0; k < K_COUNT; k++) {
		free(st[k].secs);
		free(st[k].all.tracks);
	}
	return ret;
}

static const struct workload stream = {
	.name = PROG, WORKLOAD_OPTIONS(options), .opts = &opts, .usage = "[options]",
	.help_after = help_after, .run = run,
};

int main(int argc, char **argv)
{
	return workload_main(&stream, argc, argv);
}
