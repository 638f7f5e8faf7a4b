/*
 * The worker API: a workload declares its name and what one worker does;
 * the library does the rest of a measurement.  It reads the plan, starts
 * N threads named NAME-wN (threadrun --monitor tells workers apart by
 * them), binds each to its planned PU (a failed bind fails the run, named),
 * tracks where each ran, holds the one common start barrier, times wall
 * (CLOCK_MONOTONIC), user and system time from that barrier to the last
 * worker's end, and fills every provenance and placement column of the
 * row.  The workload fills only its measurement.  docs/workers.md has the
 * checklist for adding a workload.
 */
#ifndef WORKER_H
#define WORKER_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "counts.h"
#include "cpuload.h"
#include "cputrack.h"
#include "gate.h"
#include "histogram.h"
#include "results.h"
#include "runenv.h"

struct worker_shared;

/* One worker thread, handed to the workload's callbacks. */
struct worker {
	unsigned index;
	int pu;                 /* planned PU, -1 when unbound */
	void *arg;              /* worker_params.arg */
	void *state;            /* the workload's own, set by setup */
	struct cpu_track *track;
	struct worker_shared *sh;
};

/* What a workload declares: its name and the three steps of one worker. */
struct worker_ops {
	const char *name;       /* threads NAME-wN, the rows' workload column */
	/* Untimed, on the worker's bound PU, before the common start: set up
	 * state (first touch), check known answers, warm up.  0, or -1 with
	 * a message in ERR, which ends the run before its start. */
	int (*setup)(struct worker *w, char *err, size_t errlen);
	/* The timed part, from the common start to this worker's end.  0, or
	 * -1 with a message in ERR, which stops the other workers. */
	int (*run)(struct worker *w, char *err, size_t errlen);
	/* Untimed, after every worker ended; also after a failed setup. */
	void (*teardown)(struct worker *w);
};

struct worker_params {
	const struct worker_ops *ops;
	void *arg;
	const struct run_env *env;
	unsigned nworkers;
	double seconds;         /* > 0: the workers are told to stop after this long */
	volatile sig_atomic_t *interrupted;  /* set by a signal handler, or NULL */
	/* What is measured, beyond workload, config, threads, policy and
	 * repeat ("sha256 8192", "triad"): under threadrun-mpi, ranks start
	 * together only at the same measurement. */
	const char *label;
};

/* What the library measured; the workload keeps its own counts. */
struct worker_result {
	unsigned nworkers, created;
	struct cpu_track *tracks;       /* one per worker */
	double wall_s, user_s, sys_s;
	/* The window on the wall clock (CLOCK_REALTIME, microseconds since the
	 * epoch): the common start, and the start plus wall_s (the last
	 * worker's end); 0 when nothing started. */
	long long t_start_us, t_end_us;
	struct cpuload_span load;       /* steal and others' CPU time in the window */
	bool started;           /* every worker passed the start: a measurement exists */
	bool interrupted;       /* a signal ended it unmeasured */
	bool ok;                /* every worker started, set up and ran without error */
	enum start_sync start_sync;     /* released with every rank's (gate.h) */
	/* THREADRUN_COUNTERS' events, counted in each worker from the common
	 * start to its end, summed (spec.n 0: not counted), and each worker's
	 * own (nworkers of them; NULL when not counted). */
	struct counts_sum counts;
	struct counts_sum *worker_counts;
	char err[512];          /* the first failure, naming worker and CPU */
};

/* Run one measurement.  0 when R->ok, else -1 (R is filled either way;
 * free it with worker_result_free). */
int worker_run(const struct worker_params *p, struct worker_result *r);
/* Name the calling thread NAME-main, a main thread that only supervises
 * (worker_run does; call it early when setup comes first). */
void worker_main_thread(const char *workload);
void worker_result_free(struct worker_result *r);

/* For the workers: the flag that tells them to stop (time is up, another
 * worker failed, a signal), as the backends take it ... */
atomic_int *worker_stop_flag(struct worker *w);
bool worker_stopping(struct worker *w);
/* ... and whether the run ends unmeasured (a failed setup, a signal). */
bool worker_cancelled(struct worker *w);
/* Record where the calling worker runs now. */
void worker_sample(struct worker *w);

/*
 * OpenMP workloads: the team of a parallel region are the workers.  Each
 * team thread calls worker_team_enter() once inside the region (named,
 * bound, sampled) and worker_team_sample() in later regions; the timed
 * parts go between worker_team_begin() and worker_team_end(), which add up
 * wall, user and system time (and /proc/stat's view of those windows).
 */
struct worker_team {
	const char *name;
	const struct run_env *env;
	unsigned n;
	struct cpu_track *tracks;
	atomic_int failed;      /* a team thread could not bind */
	char err[512];
	double t0, u0, s0, wall_s, user_s, sys_s;
	/* The first worker_team_begin() and the last worker_team_end() on the
	 * wall clock (CLOCK_REALTIME, microseconds since the epoch); 0: none. */
	long long t_start_us, t_end_us;
	struct cpuload_mark mark0;      /* /proc/stat at worker_team_begin() */
	struct cpuload_span load;       /* steal and others' CPU time, the timed parts */
	/* Set before the first worker_team_begin(): what is measured (as
	 * worker_params.label), and whether its start was released with every rank's. */
	const char *label;
	enum start_sync start_sync;
	/* THREADRUN_COUNTERS: each team thread's counters (opened as it
	 * enters, counting between worker_team_begin() and worker_team_end()),
	 * their sum once worker_team_counts() took them, and each thread's. */
	struct counts_thread *ct;
	struct counts_sum counts;
	struct counts_sum *worker_counts;
};

int worker_team_init(struct worker_team *t, const char *name, const struct run_env *env,
		     unsigned n, char *err, size_t errlen);
void worker_team_enter(struct worker_team *t, unsigned index);
void worker_team_sample(struct worker_team *t, unsigned index);
/* After the region that entered: 0, or -1 with the first failed bind in ERR. */
int worker_team_check(const struct worker_team *t, char *err, size_t errlen);
void worker_team_begin(struct worker_team *t);
/* Returns the seconds since worker_team_begin(). */
double worker_team_end(struct worker_team *t);
/* After the last worker_team_end(): the team's counts over every timed
 * part (NULL when not counted), SHARE of them (a median rep's). */
const struct counts_sum *worker_team_counts(struct worker_team *t, double share);
void worker_team_free(struct worker_team *t);

/*
 * The one row builder, for every workload and for threadrun's own row.
 * ROW holds the measurement (algorithm, backend, impl, size, ops, bytes,
 * unit, verified, checks, note; rate too when it is not ops or bytes over
 * wall); this fills provenance, workload, threads, policy, planned CPUs,
 * repeat, where the workers ran (when TRACKS is given), wall, user and
 * system time, steal and others' CPU time on the PUs (when LOAD is given;
 * empty when /proc/stat could not be read), status and, when unset, rate
 * (bytes or ops per wall second, by unit), run, seq and config (from ENV);
 * appends it; and counts it on THREADRUN_ROWS_FD, which tells
 * threadrun the program wrote rows.  The identity columns (job, rank,
 * ranks, local_rank, launcher, cpuset) come from ENV, t_start and t_end
 * from the row's window; and reports it to threadrun-mpi's gate (gate_row).
 */
struct worker_row {
	const char *workload;
	const char *versions;   /* the program's libraries, or NULL */
	const struct run_env *env;
	unsigned nworkers;
	const struct cpu_track *tracks;  /* nworkers of them, or NULL: not tracked */
	double wall_s, user_s, sys_s;
	/* When the measurement ran (worker_result's or worker_team's window:
	 * CLOCK_REALTIME microseconds since the epoch); 0: not said. */
	long long t_start_us, t_end_us;
	const struct cpuload_span *load;  /* the measurement's windows, or NULL */
	int status;
	const struct counts_sum *counts;        /* the measurement's counts, or NULL */
	/* Each worker's counts (nworkers of them, or NULL) and its work in the
	 * row's unit: bytes, operations or flops (NULL: not known per worker);
	 * the ctr_workers column. */
	const struct counts_sum *worker_counts;
	const double *worker_work;
	const unsigned *seq;    /* the row's seq, or NULL: this process's next */
	enum start_sync start_sync;     /* `no` adds a note */
};

int worker_row_append(const char *path, struct results_row *row, const struct worker_row *wr,
		      char *err, size_t errlen);

/*
 * The one way to fill a struct worker_row: from a measurement of
 * worker_run() or from a team's timed parts.  The row stands for WALL_S of
 * the measured time (all of it, or a best or median rep's): user and
 * system time, and a team's counts, are scaled to it; a result's counts go
 * in only when the row stands for its whole window.  Status 0, versions
 * NULL: the workload sets them.
 */
struct worker_row worker_row_of_result(const char *workload, const struct run_env *env,
				       const struct worker_result *r, double wall_s);
struct worker_row worker_row_of_team(struct worker_team *t, const struct run_env *env,
				     double wall_s);

/*
 * The latency columns of ROW (results/README.md): lat_batch (BATCH
 * operations per recorded value), lat_n (values recorded), the merged
 * histogram's p50, p90, p99, p99.9 and max in seconds per operation (a
 * value / BATCH), and lat_workers: each worker's p50/p99/max, in worker
 * order (WORKERS[i] NULL or empty: "-").  -1 when out of memory.
 */
int worker_row_latency(struct results_row *row, const struct histogram *merged,
		       struct histogram *const *workers, unsigned nworkers, uint64_t batch);

#endif
