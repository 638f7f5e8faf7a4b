/*
 * Running a program on one plan, shared by a single run and a sweep: the
 * launcher -> program environment (docs/environment.md), the launch, and the row
 * threadrun writes itself.
 */
#ifndef EXECUTE_H
#define EXECUTE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "launch.h"
#include "launcher.h"
#include "metric.h"
#include "placement.h"
#include "results.h"


struct execute {
	pl_topology_t topo;
	char path[PATH_MAX];    /* the resolved program */
	char results[PATH_MAX];
	const char *tag;        /* before .monitor.csv: ".rankN" when ranks share the results, or NULL */
	bool always_row;        /* a run row even when the program wrote rows */
	int output_fd;          /* the program's stdout and stderr go here; -1: inherited */
	double monitor;         /* --monitor interval in seconds, 0: off */
	const struct counters_spec *counters;   /* --counters: the events, or NULL */
	bool quiet;             /* the monitor prints its warnings only */
	bool omp_note;          /* notes (not with -q): the user's OMP_* settings the first
	                         * run replaces, the default results/ made */
	char **omp_user;        /* their values (NULL: unset), named once, then cleared */
	bool pthreads;          /* --pthreads: each thread on its PU, through the preloaded library */
	uint64_t skip;          /* --skip: bit i, the i-th thread created is not pinned */
	bool preloaded;         /* the library is preloaded (the run row's note says so) */
	bool own;               /* a workload of the project's (writes rows of its own) */
	char *process_note;     /* a program not OpenMP: said once, before the first run on 2+ PUs */
	int series;             /* the monitor's time series, beside the results; -1 */
	char *config;           /* the program's canonical config, for every row of a run */
	const char *asked_config;       /* execute_ask_own()'s, or NULL: the plain config */
	char *series_path;      /* FILE[.rankN].monitor.csv */
	struct metric_set *metrics;     /* --metric: figures read from the output, or NULL */
	const char *seed;       /* a sweep's order seed, in the seed column of threadrun's rows, or NULL */
	const char *policies;   /* a sweep's -p list, in the policies column of threadrun's rows, or NULL */
	/* A sweep's stop column of the run row, asked once the run's other
	 * rows are written (RUN its id, WALL_S its wall time); NULL: none. */
	const char *(*stop)(void *arg, const char *run, double wall_s);
	void *stop_arg;
	const char *unrecorded; /* a warm-up: no row of threadrun's, the program's to this file; NULL */
	/* Which rank threadrun is and the PUs it was given, NULL when unknown:
	 * read by execute_prepare unless IDENTIFIED (the caller read them, and
	 * gives them over); freed by execute_finish. */
	struct launcher_id id;
	char *cpuset;
	bool identified;
};

/*
 * Find the program ARGV[0], check the results file (RESULTS, else
 * THREADRUN_RESULTS, else results/runs.csv under the current directory,
 * results/ made when missing) and set the run's config: ASKED_CONFIG (a
 * program of the project's own, asked by execute_ask_own()), else its
 * base name and its arguments, quoted as opt_quote() does.  Then read
 * which rank of which job threadrun is (one warning when the launcher's
 * environment is bad) and the PUs it was given, which it exports as
 * THREADRUN_CPUSET.  With
 * pthreads, set the program up for the preloaded library (pthreads.h; a
 * program of ours binds its own workers: one note, no library); without,
 * keep the note a program that is not OpenMP gets (with omp_note).  0, or
 * the exit status (1, 2, 3, 126, 127) with a message in ERR.
 */
int execute_prepare(struct execute *ex, char *const argv[], const char *results, char *err,
		    size_t errlen);

/*
 * Ask a program of the project's own (beside threadrun) for its config
 * (*CONFIG) and the results file its own -o names, however its options
 * were spelt (-o FILE, -qoFILE, --results=FILE; *RESULTS, NULL for none):
 * one PROGRAM --print-config ARGS.  Both NULL for any other program; -1
 * when it gave no answer (bad arguments: the run says what is wrong).
 * The caller frees both.
 */
int execute_ask_own(char *const argv[], char **config, char **results);

/*
 * The environment a run on PLAN of POLICY gives the program (the launcher ->
 * program contract of docs/environment.md: OMP_NUM_THREADS, OMP_PLACES,
 * OMP_PROC_BIND, THREADRUN_THREADS, _PLAN, _POLICY, _RESULTS (RESULTS),
 * _TOPOLOGY, _CORES, _PUS, _CPUSET (CPUSET)), one PUT(NAME, VALUE, ARG) per
 * variable, VALUE NULL for one the run unsets; what differs from run to
 * run (THREADRUN_RUN, _CONFIG, _REPEAT, _ROWS_FD) is not in it.  The real
 * run and threadrun -n --env both take it from here.  0, or -1 when PUT
 * fails or memory runs out.
 */
typedef int (*execute_env_fn)(const char *name, const char *value, void *arg);
int execute_plan_env(pl_topology_t topo, const struct pl_plan *plan, const char *policy,
		     const char *results, const char *cpuset, execute_env_fn put, void *arg);

/* The results file a run given none writes: THREADRUN_RESULTS, else
 * results/runs.csv under the current directory. */
const char *execute_results_name(void);

/*
 * The identity of threadrun's own run row (results.h: its series columns
 * and ops): the run row sets it, --resume looks for rows that have it.
 */
void execute_run_identity(const struct execute *ex, struct results_row *row);

/* Close what execute_prepare opened. */
void execute_finish(struct execute *ex);

/*
 * Run ARGV on PLAN as repeat REPEAT and wait for it, as a run of its own
 * (a new THREADRUN_RUN, shared by the program's rows and threadrun's;
 * the first run on 2 PUs or more says the process note).  R
 * gets its status and times.  With metrics, appends one row per metric (the
 * figure its regex found last in the output; a metric without a figure
 * fails its row and the run, R->status 1).  A workload of ours that exits 0
 * without writing a row (a module that ended it from inside a call, or an
 * action such as --list) fails too, R->status 1: no measurement.  Appends
 * threadrun's run row when the program wrote none (it counts them on
 * THREADRUN_ROWS_FD, as the worker API does), or always, with always_row,
 * unless the run was interrupted; nothing with unrecorded.  0, or -1 with a message in ERR
 * (R->status says which exit status fits).
 */
int execute_run(struct execute *ex, const struct pl_plan *plan, const char *policy,
		char *const argv[], unsigned repeat, struct launch_result *r, char *err,
		size_t errlen);

#endif
