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

#include "datafile.h"
#include "exitguard.h"
#include "opt.h"
#include "results.h"
#include "runenv.h"
#include "version.h"
#include "worker.h"

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

enum { ACT_CONFIG = 256, ACT_LATENCY };

static const struct opt_spec options[] = {
	{ 'n', 'n', "elements", "N", "elements per array, split among the workers (default: 4x the last-level caches)",
	  .type = OPT_TYPE_STRING },
	{ 'k', 'k', "kernel", "K", "copy, scale, add, triad, a comma list (default all)", .type = OPT_TYPE_STRING },
	{ 't', 't', "ntimes", "T", "iterations of every kernel; the first is not counted (default 10, at least 2)",
	  .type = OPT_TYPE_STRING },
	{ 'o', 'o', "results", "FILE", "append one row per kernel to FILE (default: threadrun's file)",
	  .type = OPT_TYPE_STRING, .output_only = true },
	{ 'q', 'q', "quiet", NULL, "results only: the table, without the header line; warnings stay", .type = OPT_TYPE_FLAG, .output_only = true },
	{ ACT_LATENCY, 0, "latency", NULL, "the percentiles of the counted iterations' times and bandwidths: p50, p90, p99, p99.9 and max, in the rows and the table",
	  .type = OPT_TYPE_FLAG },
	{ OPT_PRINT_CONFIG(ACT_CONFIG) },
	{ OPT_VERSION('V') },
	{ 'h', 'h', "help", NULL, "show this help" },
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

struct opts {
	uint64_t n;
	bool n_set, quiet, latency;
	unsigned ntimes;
	bool want[K_COUNT];
	const char *results;
	char *config;           /* canonical, for the rows (opt_config) */
};

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

static int parse_kernels(const char *text, bool *want, char *err, size_t errlen)
{
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

static int parse_args(int argc, char **argv, struct opts *o)
{
	struct opt_parser p;
	const char *arg;
	char err[512];
	int c, k, ret = 2;

	memset(o, 0, sizeof(*o));
	o->ntimes = 10;
	for (k = 0; k < K_COUNT; k++)
		o->want[k] = true;
	if (opt_init(&p, PROG, options, sizeof(options) / sizeof(options[0]), 0) < 0)
		return 1;
	while ((c = opt_next(&p, argc, argv, &arg)) != OPT_END) {
		switch (c) {
		case 'n':
			if (num_parse_u64("elements", arg, 1, MAX_ELEMENTS, &o->n, err, sizeof(err)) < 0)
				goto bad;
			o->n_set = true;
			break;
		case 'k':
			if (parse_kernels(arg, o->want, err, sizeof(err)) < 0)
				goto bad;
			break;
		case 't':
			if (num_parse_unsigned("ntimes", arg, 2, 100000, &o->ntimes, err, sizeof(err)) < 0)
				goto bad;
			break;
		case 'o': o->results = arg; break;
		case 'q': o->quiet = true; break;
		case ACT_LATENCY: o->latency = true; break;
		case 'h':
			opt_help(&p, stdout, "[options]", help_after);
			ret = -1;
			goto out;
		case 'V':
			version_print(stdout, PROG);
			ret = -1;
			goto out;
		case ACT_CONFIG:
			if (opt_print_config(&p, argc, argv, "results") == 0)
				ret = -1;
			goto out;
		default:
			goto out;
		}
	}
	if (optind < argc) {
		snprintf(err, sizeof(err), "unexpected argument '%s', see '%s --help'", argv[optind], PROG);
		goto bad;
	}
	o->config = opt_config(&p, argc, argv);
	if (!o->config) {
		snprintf(err, sizeof(err), "out of memory");
		goto bad;
	}
	ret = 0;
	goto out;
bad:
	msg_error(PROG, "%s", err);
out:
	opt_fini(&p);
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
	double wall_s, user_s, sys_s;
	long long t_start_us, t_end_us;  /* the kernel's first start, last end */
	struct cpuload_span load;
	struct cpu_track *tracks;
	enum start_sync start_sync;     /* yes only when every iteration's was */
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

static int append_row(const struct opts *o, const struct run_env *env, unsigned nworkers, int k,
		      const struct stats *st, bool verified, const char *why)
{
	char err[512], versions[64];
	struct worker_row wr = {
		.workload = PROG, .versions = versions, .env = env, .nworkers = nworkers,
		.tracks = st->tracks, .load = &st->load, .status = verified ? 0 : 1,
		.start_sync = st->start_sync, .t_start_us = st->t_start_us, .t_end_us = st->t_end_us,
	};
	struct results_row row;
	double best, avg, max, share;
	int ret;

	/* The row is STREAM's best iteration: its elements, bytes and time
	 * (rate = bytes / wall_s, results/README.md), and the CPU time of
	 * all iterations scaled to it. */
	stats_range(o, st, &best, &avg, &max);
	share = st->wall_s > 0 ? best / st->wall_s : 1;
	wr.wall_s = best;
	wr.user_s = st->user_s * share;
	wr.sys_s = st->sys_s * share;
	snprintf(versions, sizeof(versions), "gcc %s", __VERSION__);
	results_row_init(&row);
	results_row_set(&row, RC_ALGORITHM, "%s", kernels[k].name);
	results_row_set(&row, RC_BACKEND, "c");
	results_row_set(&row, RC_IMPL, "STREAM kernels, double");
	results_row_set(&row, RC_SIZE, "%llu", (unsigned long long)o->n);
	results_row_set(&row, RC_SIZE_UNIT, "elements");
	results_row_set(&row, RC_OPS, "%llu", (unsigned long long)o->n);
	results_row_set(&row, RC_BYTES, "%.0f", bytes_per_pass(o, k));
	results_row_set(&row, RC_RATE, "%.6g", bytes_per_pass(o, k) / best);
	results_row_set(&row, RC_UNIT, "bytes/s");
	results_row_set(&row, RC_VERIFIED, "%s", verified ? "yes" : "no");
	results_row_set(&row, RC_CHECKS, "%llu", (unsigned long long)o->n * 3);
	if (verified)
		results_row_set(&row, RC_NOTE, "best of %u iterations (the first not counted); avg %.6g bytes/s, min %.6g bytes/s",
				o->ntimes - 1, bytes_per_pass(o, k) / avg, bytes_per_pass(o, k) / max);
	else
		results_row_set(&row, RC_NOTE, "%s", why);
	if (o->latency) {
		struct histogram *h = malloc(sizeof(*h));

		if (h)
			iteration_times(o, st, h);
		if (!h || worker_row_latency(&row, h, NULL, 0, 1) < 0) {
			free(h);
			msg_error(PROG, "out of memory for the latency columns");
			results_row_clear(&row);
			return -1;
		}
		free(h);
	}
	ret = worker_row_append(o->results, &row, &wr, err, sizeof(err));
	if (ret < 0)
		msg_error(PROG, "%s", err);
	results_row_clear(&row);
	return ret;
}

/* Every iteration runs the kernels asked for in STREAM's order, each from
 * a common start. */
static int measure(const struct opts *o, const struct run_env *env, struct ctx *x,
		   struct stats *st)
{
	struct worker_params p = { .ops = &stream_ops, .arg = x, .env = env,
				   .nworkers = x->nworkers };
	struct worker_result r;
	unsigned t, i;
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
			st[k].secs[t] = r.wall_s;
			st[k].wall_s += r.wall_s;
			st[k].user_s += r.user_s;
			st[k].sys_s += r.sys_s;
			if (!t || st[k].start_sync > r.start_sync)
				st[k].start_sync = r.start_sync;
			if (!st[k].t_start_us)
				st[k].t_start_us = r.t_start_us;
			st[k].t_end_us = r.t_end_us;
			cpuload_span_merge(&st[k].load, &r.load);
			for (i = 0; r.tracks && i < x->nworkers; i++)
				cpu_track_merge(&st[k].tracks[i], &r.tracks[i]);
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

int main(int argc, char **argv)
{
	struct run_env env = { 0 };
	struct stats st[K_COUNT] = { 0 };
	struct ctx x = { 0 };
	struct opts o;
	bool verified = false;
	char err[512], why[256] = "";
	unsigned i;
	int k, ret;

	datafile_stdio_init(PROG);
	exit_guard_arm(PROG);
	ret = parse_args(argc, argv, &o);
	if (ret) {
		free(o.config);
		return exit_guard_done(ret < 0 ? 0 : ret);
	}
	ret = 2;
	if (run_env_load(&env, 1, err, sizeof(err)) < 0) {
		msg_error(PROG, "%s", err);
		goto out;
	}
	run_env_set_config(&env, o.config);
	o.config = NULL;
	if (!o.results)
		o.results = env.results;
	if (o.results && results_check(o.results, err, sizeof(err)) < 0) {
		msg_error(PROG, "%s", err);
		goto out;
	}
	if (size_arrays(&o, env.nthreads) < 0)
		goto out;
	ret = 1;
	x.n = o.n;
	x.nworkers = env.nthreads;
	x.parts = calloc(x.nworkers, sizeof(*x.parts));
	if (!x.parts)
		goto out;
	for (k = 0; k < K_COUNT; k++) {
		st[k].secs = calloc(o.ntimes, sizeof(double));
		st[k].tracks = calloc(x.nworkers, sizeof(*st[k].tracks));
		if (!st[k].secs || !st[k].tracks)
			goto out;
		for (i = 0; i < x.nworkers; i++)
			cpu_track_init(&st[k].tracks[i], run_env_planned(&env, i));
	}
	if (!o.quiet)
		printf("stream: %llu elements per array (%.1f MiB each, %.1f MiB in all), %u worker%s, policy %s, %u iteration%s\n",
		       (unsigned long long)o.n, (double)o.n * 8 / (1 << 20),
		       3.0 * (double)o.n * 8 / (1 << 20), x.nworkers, x.nworkers == 1 ? "" : "s",
		       env.policy, o.ntimes, o.ntimes == 1 ? "" : "s");
	if (measure(&o, &env, &x, st))
		goto out;
	/* Test-only fault switch: a wrong element must fail the check. */
	if (getenv("STREAM_FAULT"))
		x.parts[0].a[0] += 1.0;
	verified = verify(&o, &x, why, sizeof(why));
	print_table(&o, st);
	if (verified)
		printf("Solution Validates: avg error less than %g on all three arrays\n", EPSILON);
	else
		msg_error(PROG, "verification failed: %s", why);
	ret = verified ? 0 : 1;
	for (k = 0; k < K_COUNT && o.results; k++)
		if (o.want[k] && append_row(&o, &env, x.nworkers, k, &st[k], verified, why) < 0)
			ret = 1;
out:
	for (i = 0; x.parts && i < x.nworkers; i++) {
		free(x.parts[i].a);
		free(x.parts[i].b);
		free(x.parts[i].c);
	}
	free(x.parts);
	for (k = 0; k < K_COUNT; k++) {
		free(st[k].secs);
		free(st[k].tracks);
	}
	run_env_free(&env);
	free(o.config);
	return exit_guard_done(ret);
}
