/*
 * hello: the example workload of docs/workers.md.  Each worker adds up
 * the numbers 0 .. N-1 on its own PU; the sum is checked against its
 * closed form, N (N - 1) / 2.  One row: operations (numbers added), ops/s.
 */
#include <stdlib.h>

#include "workload.h"

#define PROG "hello"

struct opts {
	uint64_t n;
	const char *results;
	bool quiet;
};

static struct opts opts = { .n = 100000000 };

#define O(field) offsetof(struct opts, field)
static const struct opt_spec options[] = {
	{ OPT_U64('n', "numbers", "N", O(n), 1, UINT32_MAX, "numbers each worker adds up (default 100000000)") },
	{ OPT_RESULTS(O(results), "append the row to FILE (default: threadrun's file)") },
	{ OPT_QUIET(O(quiet), "results only: no summary line; warnings stay") },
	{ OPT_PRINT_CONFIG(WORKLOAD_CONFIG) },
	{ OPT_VERSION(WORKLOAD_VERSION) },
	{ OPT_HELP },
};

/* The measurement, timed: one worker's sum, into its slot of ARG. */
static int hello_run(struct worker *w, char *err, size_t errlen)
{
	uint64_t i, sum = 0;

	(void)err;
	(void)errlen;
	for (i = 0; i < opts.n; i++) {
		sum += i;
		/* Added up here, not replaced by the closed form it is checked with. */
		__asm__ volatile("" : "+r"(sum));
	}
	((uint64_t *)w->arg)[w->index] = sum;
	worker_sample(w);
	return 0;
}

static const struct worker_ops hello_ops = { .name = PROG, .run = hello_run };

/* The row: what was measured; the worker API fills the rest. */
static int append_row(const struct opts *o, const struct run_env *env,
		      const struct worker_result *r, unsigned good)
{
	struct worker_row wr = worker_row_of_result(PROG, env, r, r->wall_s);
	struct results_row row;

	wr.status = good == r->nworkers ? 0 : 1;
	results_row_init(&row);
	results_row_set(&row, RC_ALGORITHM, "sum");
	results_row_set(&row, RC_SIZE, "%llu", (unsigned long long)o->n);
	results_row_set(&row, RC_SIZE_UNIT, "numbers");
	results_row_set(&row, RC_OPS, "%llu", (unsigned long long)o->n * r->nworkers);
	results_row_set(&row, RC_UNIT, "%s", unit_name(UNIT_OPS_S));
	results_row_set(&row, RC_VERIFIED, "%s", wr.status ? "no" : "yes");
	results_row_set(&row, RC_CHECKS, "%u", r->nworkers);
	return workload_append_row(o->results, &row, &wr);
}

static int run(void *opts_, const struct run_env *env)
{
	const struct opts *o = opts_;
	uint64_t *sums = calloc(env->nthreads, sizeof(*sums));
	struct worker_params p = { .ops = &hello_ops, .arg = sums, .env = env,
				   .nworkers = env->nthreads, .label = "sum" };
	struct worker_result r;
	unsigned i, good = 0;
	int ret = 1;

	if (!sums)
		return 1;
	if (worker_run(&p, &r) < 0)
		msg_error(PROG, "failed: %s", r.err);
	/* Test-only fault switch: a wrong sum must fail the check. */
	if (getenv("HELLO_FAULT"))
		sums[0]++;
	for (i = 0; r.ok && i < r.nworkers; i++)
		good += sums[i] == o->n * (o->n - 1) / 2;
	if (r.ok && good < r.nworkers)
		msg_error(PROG, "verification failed: %u of %u sums wrong", r.nworkers - good, r.nworkers);
	else if (r.ok)
		ret = 0;
	if (r.ok && !o->quiet)
		printf("hello: %u workers added up %llu numbers each in %.3f s\n", r.nworkers,
		       (unsigned long long)o->n, r.wall_s);
	if (r.started && o->results && append_row(o, env, &r, good) < 0)
		ret = 1;
	worker_result_free(&r);
	free(sums);
	return ret;
}

static const struct workload hello = {
	.name = PROG, WORKLOAD_OPTIONS(options), .opts = &opts, .usage = "[options]",
	.help_after = "Each worker adds up 0 .. N-1; the sums are checked against N (N - 1) / 2.\n",
	.run = run,
};

int main(int argc, char **argv)
{
	return workload_main(&hello, argc, argv);
}
