/*
 * Running one measurement on the worker API (worker.h): each worker's own
 * backend state, known answers and warm-up before the common start, sampled
 * checks while timed, a final check.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "histogram.h"
#include "runenv.h"
#include "worker.h"

struct run_params {
	const struct backend *be;
	void *bectx;
	const struct job *job;
	unsigned nworkers;
	const struct run_env *env;
	double seconds;         /* time-based: every worker runs this long */
	uint64_t reps;          /* count-based (when > 0): shared among workers */
	int fault_worker;       /* test-only: this worker's timed outputs are corrupted, or -1 */
	int kat_fault_worker;   /* test-only: the same before its known-answer test, or -1 */
	int fail_worker;        /* test-only: this worker's crypto call fails, or -1 */
	volatile sig_atomic_t *interrupted;   /* set by a signal handler */
	const char *label;      /* "sha256 8192 bytes": the measurement, for the cluster gate */
	bool latency;           /* time each batch of operations into a histogram per worker */
	uint64_t latency_batch; /* operations per timed batch; 0: chosen from the warm-up */
};

struct worker_count {
	uint64_t ops;
	uint64_t checks;        /* timed operations checked independently */
	struct histogram *lat;  /* with latency: this worker's batch times, or NULL */
};

struct run_result {
	uint64_t ops;
	double wall_s, user_s, sys_s;
	bool verified;          /* every check passed */
	uint64_t checks;
	unsigned unchecked;     /* workers that made no check */
	bool interrupted;
	bool started;           /* the workers passed the start: a measurement exists */
	unsigned nworkers;
	struct worker_count *w;
	struct worker_result wr; /* threads, placement, times */
	/* With latency: every worker's batches merged (NULL otherwise), and the
	 * operations per batch; a percentile / lat_batch is per operation. */
	struct histogram *lat;
	uint64_t lat_batch;
	char err[512];          /* the first failure, naming worker and CPU */
};

/* Run it.  0 when every worker ran and checked clean; -1 otherwise, with
 * R->err set (R is filled either way; free it with runner_result_free). */
int runner_run(const struct run_params *p, struct run_result *r);
void runner_result_free(struct run_result *r);

#endif
