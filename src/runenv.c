/* Reading threadrun's variables inside a workload. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "cputrack.h"
#include "placement.h"
#include "results.h"
#include "runenv.h"

int run_env_load(struct run_env *env, unsigned default_threads, char *err,
		 size_t errlen)
{
	const char *threads = getenv(ENV_THREADS), *plan = getenv(ENV_PLAN);
	const char *policy = getenv(ENV_POLICY), *repeat = getenv(ENV_REPEAT);
	char omp[32];
	unsigned *pus = NULL;
	int n;

	memset(env, 0, sizeof(*env));
	env->nthreads = default_threads;
	if (!threads && getenv("OMP_NUM_THREADS")) {
		/* OMP_NUM_THREADS may be a nesting list "4,2": the first level counts. */
		snprintf(omp, sizeof(omp), "%s", getenv("OMP_NUM_THREADS"));
		omp[strcspn(omp, ",")] = '\0';
		threads = omp;
	}
	if (threads && num_parse_unsigned(threads == omp ? "OMP_NUM_THREADS" : ENV_THREADS,
					  threads, 1, PL_MAX_WORKERS, &env->nthreads, err,
					  errlen) < 0)
		return -1;
	if (repeat && num_parse_unsigned(ENV_REPEAT, repeat, 0, 1000000, &env->repeat,
					 err, errlen) < 0)
		return -1;
	if (plan && *plan && strcmp(plan, "none") != 0) {
		n = pl_cpulist_parse(plan, &pus, err, errlen);
		if (n < 0)
			return -1;
		env->plan = calloc((size_t)n, sizeof(*env->plan));
		if (!env->plan) {
			free(pus);
			return -1;
		}
		for (env->nplan = 0; env->nplan < (unsigned)n; env->nplan++)
			env->plan[env->nplan] = (int)pus[env->nplan];
		free(pus);
	}
	snprintf(env->policy, sizeof(env->policy), "%s", policy ? policy : "none");
	env->results = getenv(ENV_RESULTS);
	if (env->results && !*env->results)
		env->results = NULL;
	return 0;
}

void run_env_free(struct run_env *env)
{
	free(env->plan);
	env->plan = NULL;
	env->nplan = 0;
}

int run_env_planned(const struct run_env *env, unsigned worker)
{
	return env->nplan ? env->plan[worker % env->nplan] : -1;
}

int run_env_format_plan(const struct run_env *env, unsigned n, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i;
	int w;

	if (!env->nplan)
		return snprintf(buf, len, "-") < (int)len ? 0 : -1;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		w = snprintf(buf + used, len - used, "%s%d", i ? "," : "", run_env_planned(env, i));
		if (w < 0 || (size_t)w >= len - used) {
			errno = ENOSPC;
			return -1;
		}
		used += (size_t)w;
	}
	return 0;
}

void run_env_set_placement(const struct run_env *env, unsigned n,
			   const struct cpu_track *const *tracks, struct results_row *row)
{
	size_t len = (size_t)n * 24 + 16;
	char *buf = malloc(len);
	unsigned long migrations = 0;
	bool honoured = true;

	results_row_set(row, RC_THREADS, "%u", n);
	results_row_set(row, RC_POLICY, "%s", env->policy);
	results_row_set(row, RC_REPEAT, "%u", env->repeat);
	if (buf && env->nplan && run_env_format_plan(env, n, buf, len) == 0)
		results_row_set(row, RC_CPUS, "%s", buf);
	if (buf) {
		cpu_track_summarise(tracks, n, buf, len, &honoured, &migrations);
		results_row_set(row, RC_CPUS_SEEN, "%s", buf);
	}
	if (env->nplan)
		results_row_set(row, RC_PLACEMENT_OK, "%s", honoured ? "yes" : "no");
	results_row_set(row, RC_MIGRATIONS, "%lu", migrations);
	free(buf);
}
