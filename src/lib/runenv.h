/*
 * The launcher -> program contract: the variables threadrun exports and the
 * project's workloads read (besides OMP_NUM_THREADS, OMP_PLACES and
 * OMP_PROC_BIND, which any OpenMP program honours).
 */
#ifndef RUNENV_H
#define RUNENV_H

#include <stdbool.h>
#include <stddef.h>

#include "launcher.h"

#define ENV_THREADS  "THREADRUN_THREADS"   /* worker count */
#define ENV_PLAN     "THREADRUN_PLAN"      /* OS PU per worker: "3,5,7"; "none" */
#define ENV_POLICY   "THREADRUN_POLICY"    /* canonical policy name */
#define ENV_RESULTS  "THREADRUN_RESULTS"   /* results file to append rows to */
#define ENV_REPEAT   "THREADRUN_REPEAT"    /* repeat number within a sweep */
#define ENV_TOPOLOGY "THREADRUN_TOPOLOGY"  /* machine description for rows */
#define ENV_RUN      "THREADRUN_RUN"       /* this launch's run id, shared by its rows */
#define ENV_CONFIG   "THREADRUN_CONFIG"    /* the launch's canonical configuration */
/* A config longer than RUN_ENV_CONFIG_MAX: an open file that holds it, so
 * that no environment string grows with the program's arguments (the
 * kernel refuses one over 128 KiB, and the whole exec is bounded). */
#define ENV_CONFIG_FD "THREADRUN_CONFIG_FD"
#define RUN_ENV_CONFIG_MAX 4096
#define ENV_CORES    "THREADRUN_CORES"
#define ENV_PUS      "THREADRUN_PUS"
/* The PUs threadrun was given when it started (by a launcher, a cgroup or
 * taskset), as a list: the rows' cpuset column. */
#define ENV_CPUSET   "THREADRUN_CPUSET"
/* threadrun-mpi's cluster start gate: "R,W", the descriptors a measurement
 * reads its release from and writes its readiness to (src/lib/gate.h). */
#define ENV_SYNC_FD  "THREADRUN_SYNC_FD"
/* An open file the program writes one line to per row it appends (the
 * worker API does): threadrun adds its own run row only when it stays
 * empty. */
#define ENV_ROWS_FD  "THREADRUN_ROWS_FD"
/* threadrun --counters: the events the worker API counts over each
 * measurement, in every worker (src/lib/counts.h has the format). */
#define ENV_COUNTERS "THREADRUN_COUNTERS"

struct run_env {
	unsigned nthreads;
	int *plan;              /* NULL when unbound */
	unsigned nplan;
	char *policy;           /* canonical policy name, any length */
	const char *results;    /* NULL: write no rows */
	unsigned repeat;
	int rows_fd;            /* THREADRUN_ROWS_FD, or -1 */
	char *run;              /* THREADRUN_RUN, else a new one for this process */
	char *config;           /* THREADRUN_CONFIG(_FD), else NULL: the program sets its own */
	struct launcher_id id;  /* which rank of which job; id.launcher NULL: none */
	char *cpuset;           /* the PUs given ("0-3,8"), NULL when unknown */
};

/*
 * Read the variables.  The worker count is THREADRUN_THREADS, else
 * OMP_NUM_THREADS (its first value), else DEFAULT_THREADS.  A malformed
 * value is an error with a message in ERR.  Call before starting threads:
 * it checks THREADRUN_TOPOLOGY/_CORES/_PUS, which rows copy, and replaces
 * them with this machine's when they are missing or bad (one warning).
 * It reads the identity as run_env_identify() does, INHERIT true.
 */
int run_env_load(struct run_env *env, unsigned default_threads, char *err,
		 size_t errlen);
void run_env_free(struct run_env *env);

/*
 * The identity of this process's rows, read once: which rank of which job
 * its launcher made it (launcher_detect on the environment) and the PUs
 * it was given, *CPUSET: with INHERIT, THREADRUN_CPUSET when it is a valid
 * CPU list (threadrun's, which binds its program to the plan), else this
 * process's own affinity; a compact list "0-3,8", NULL when unknown.  An
 * incomplete or contradictory launcher environment counts as none, said
 * in one line on stderr (PROG: warning: ignoring the launcher's
 * environment: ...), except under threadrun (THREADRUN_RUN set), which
 * said it already.  0, or -1 out of memory.  Free with run_env_identity_free().
 */
int run_env_identify(struct launcher_id *id, char **cpuset, bool inherit);
void run_env_identity_free(struct launcher_id *id, char **cpuset);

/* This process's affinity as a compact list "0-3,8": a new string, or NULL. */
char *run_env_affinity(void);

/* A new run id, unique per program run: "HOST:PID:START_US" (start time in
 * microseconds since the epoch).  A new string, or NULL. */
char *run_env_make_run(void);
/*
 * Export CONFIG for the program: THREADRUN_CONFIG up to RUN_ENV_CONFIG_MAX
 * bytes, else THREADRUN_CONFIG_FD, an inheritable memfd holding it (*FD,
 * for the caller to close after the launch; -1 when none).  0, or -1 with
 * errno.
 */
int run_env_export_config(const char *config, int *fd);

/* The run's config: THREADRUN_CONFIG(_FD) when threadrun gave one (every row of
 * a launch has one config), else OWN, the program's (opt_config).  Takes
 * OWN; -1 when out of memory. */
int run_env_set_config(struct run_env *env, char *own);

/* The planned PU of WORKER (plans wrap round-robin), or -1 when unbound. */
int run_env_planned(const struct run_env *env, unsigned worker);

struct results_row;
struct cpu_track;

/*
 * Fill a result row's placement columns for N workers: threads, policy,
 * planned CPUs, repeat and, when TRACKS is given, where each was seen,
 * placement honoured and migrations.  One place for what every workload's rows say about placement.
 */
void run_env_set_placement(const struct run_env *env, unsigned n,
			   const struct cpu_track *const *tracks, struct results_row *row);

/* The planned PUs of the first N workers as "3,5,7", or "-" when unbound. */
int run_env_format_plan(const struct run_env *env, unsigned n, char *buf, size_t len);

#endif
