/*
 * The reporter's view of result files: every row as an observation,
 * grouped into series (one workload, algorithm, backend, size) and cells
 * (one policy at one thread count, the median of its repeats).
 */
#ifndef DATASET_H
#define DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis.h"
#include "results.h"

/* A point is "busy" when one of its rows had steal or others' CPU time on
 * its PUs above this many % (results/README.md, threadreport --help). */
#define DATASET_BUSY_PCT 5

/* A point is "superlinear" when its speedup is over this many times the
 * PUs it has (its threads, or the machine's PUs when oversubscribed): no
 * shared unit makes that; a slow 1-thread point or caches adding up do. */
#define DATASET_SUPERLINEAR 1.15

/* A drift smaller than this fraction is noise, whatever its p-value. */
#define DATASET_DRIFT_FLOOR 0.03

/* The latency figures a row may carry: p50, p90, p99, p99.9, max. */
#define DATASET_LAT_P 5
extern const char *const dataset_lat_name[DATASET_LAT_P];

struct obs {
	/* Interned (dataset.c): equal texts are one pointer. */
	char *host, *workload, *algorithm, *backend, *impl, *unit, *policy, *size_unit, *note;
	char *versions;         /* not part of any series: --compare-by versions */
	char *cpu_model, *topology; /* the machine, as the html page shows it */
	char *cpus;             /* the plan: planned PU of each worker, "" when unbound */
	double size, rate;
	unsigned threads, pus, cores;
	int repeat;             /* -1 when the file has no repeat column */
	int verified, placed;   /* 1 yes, 0 no, 2 unchecked (verified only), -1 not said */
	double migrations, off_plan, steal_pct, sys_share;   /* NAN: not monitored */
	double others_pct;      /* NAN: not recorded */
	/* threadrun --counters: the figures derived from the run's counts
	 * (NAN: n/a or not counted); a program's row takes its run row's. */
	bool counted;
	double cycles_per_byte, cycles_per_op, ipc, flops_per_cycle;
	/* Its workers' per-unit figures (ctr_workers): the highest above the
	 * lowest, %; NAN with fewer than two. */
	double worker_spread;
	/* The identity (results.h): the series columns' texts, and the point's
	 * and repeat's beyond them, interned; the run, and the exit status
	 * (-1 when not said). */
	char *skey[RESULTS_NSERIES_COLS];
	char *pkey[RESULTS_NPOINT_COLS], *rkey[RESULTS_NREPEAT_COLS];
	char *run, *seq, *time, *config;
	char *policies;         /* a sweep's -p list (threadrun's rows), "" not said */
	long status;
	/* Its cluster measurement (results_same_cluster): that key, interned,
	 * and what the cluster rate and the overlap take from each rank's row. */
	char *ckey[RESULTS_NCLUSTER_COLS];
	char *job;              /* "" outside a cluster job */
	long rank, ranks;       /* -1: not said */
	int sync;               /* start_sync: 1 yes, 0 no, -1 not said */
	double ops, bytes, wall_s, t_start, t_end;      /* NAN: not said */
	/* Latency (--latency): seconds per operation at p50, p90, p99, p99.9
	 * and the max, and the operations per timed value; NAN: not said. */
	double lat[DATASET_LAT_P], lat_batch;
	const char *file;
	unsigned line;
	bool dropped;           /* superseded by a rerun of the same repeat, a run row
	                         * standing aside for the program's own, or a row read
	                         * twice (drop_duplicates) */
	bool failed;            /* its status says the run failed (not 0): no measurement,
	                         * its rate NAN or not one; in no series */
	size_t sid;             /* series number, for grouping (dataset_build) */
};

struct cell {
	const char *policy;
	unsigned threads;
	size_t n;
	double median, min, max, speedup, efficiency;
	/* The median's 95% interval from order statistics and its exact
	 * coverage (stats_median_ci). */
	double median_lo, median_hi, ci_coverage;
	/* Speedup is paired where it can be: the median of the ratios of each
	 * repeat's rate to the same policy's 1-thread rate in that repeat (of
	 * the same file), over PAIRS repeats, with its 95% interval; where no
	 * repeat pairs (PAIRS 0) it is the ratio of medians, which is kept
	 * beside it in any case. */
	double speedup_of_medians, speedup_lo, speedup_hi;
	size_t pairs;
	bool oversubscribed;
	bool superlinear;       /* above DATASET_SUPERLINEAR */
	bool unverified;        /* a row of it failed its checks or was never checked */
	const char *cpus;       /* the plan its rows share; NULL when they differ or none is known */
	/* The busiest of its rows: steal and others' CPU time on the PUs in the
	 * measurement (NAN when no row said), and whether either went over
	 * DATASET_BUSY_PCT. */
	double load_steal, load_others;
	bool busy;
	size_t policy_end;      /* past the last cell of this policy */
	const struct obs *const *rows;  /* its N rows (the repeats), for the verdicts' tests */
	/* What threadrun --monitor saw of the runs behind this cell. */
	size_t monitored;
	double migrations, off_plan, steal_pct, sys_share;  /* sums, max, max, median */
	/* Latency: the median over the rows that carry it (lat_rows of them)
	 * of each figure, NAN when none does; the largest batch among them. */
	size_t lat_rows;
	double lat[DATASET_LAT_P], lat_batch;
	/* threadrun --counters: rows counted, the medians of their derived
	 * figures (NAN: n/a). */
	size_t counted;
	double cycles_per_byte, cycles_per_op, ipc, flops_per_cycle;
	double worker_spread;   /* the rows' median worker spread, % (NAN: none) */
};

struct series {
	const struct obs *key;  /* the first observation: names and units */
	struct cell *cells;     /* by policy (the sweep's -p order, else first-seen), then threads ascending */
	size_t ncells;
	const char **policies;
	size_t npolicies;
	const struct obs **rows;        /* the cells' rows, cell by cell */
	unsigned pus, cores;
	size_t unverified, unchecked, misplaced, busy;
	bool no_one_thread;     /* a policy without a 1-thread point: no speedup */
	bool unpaired;          /* a speedup that is a ratio of medians: no repeat paired */
	/* The machine's drift over the rows' start times (dataset.c,
	 * series_drift): Kendall's tau of rate against t_start within each
	 * point, pooled over the points, and its p-value; the change from the
	 * first repeat to the last (the median of each repeat's rates over their
	 * point's median; -0.3: 30% slower) and the seconds the rows span.
	 * NAN: not known. */
	double drift, drift_tau, drift_p, drift_span_s;
	bool drifted;           /* drift_p < 0.05 and |drift| > DATASET_DRIFT_FLOOR */
	bool monitored;              /* some cell has monitor figures */
	bool latency;                /* some cell has latency figures */
	bool counted;                /* some cell was counted (threadrun --counters) */
	bool spread;                 /* some cell has a workers' spread (ctr_workers) */
};

struct dataset {
	struct obs *obs;
	size_t nobs, cap;
	struct series *series;
	size_t nseries;
	bool multi_host;
	bool multi_config;      /* rows of several configs: titles name them */
	bool multi_job;         /* rows of several cluster jobs: titles name them */
	unsigned bad_lines;
	/* Rows of failed runs (status not 0, not superseded) left out of
	 * every series, and the first of them (dataset_build). */
	unsigned failed;
	const struct obs *first_failed;
	/* Rows read twice (a file named twice, or copied into another): each
	 * counted once, and the first repeat with the row it repeats. */
	unsigned duplicates;
	const struct obs *first_duplicate, *first_duplicated;
	struct results_lost lost;   /* the runs of rows skipped for an invalid value */
	char **pool;            /* the interned texts of obs (hash table) */
	size_t npool, pool_cap;
};

/*
 * Read one results file into DS.  Columns are matched by name (with the
 * published-figures aliases: tool, machine, size_bytes, key_bits); columns
 * a file lacks are named on ERRF.  -1 with a message in ERR for a file
 * that is missing, empty, binary or has no usable header.
 */
int dataset_read(struct dataset *ds, const char *path, FILE *errf, char *err, size_t errlen);

/* Drop superseded repeats and threadrun's whole-run rows where the program
 * wrote its own, leave out (and count) the rows of failed runs, then build
 * the series and their cells. */
int dataset_build(struct dataset *ds);

/* How many rows of failed runs DS left out (the first named) in BUF, ""
 * when none; and that as one line on ERRF, PROG first, with a line for
 * rows read twice. */
void dataset_failed_text(const struct dataset *ds, char *buf, size_t len);
void dataset_note_skipped(const struct dataset *ds, FILE *errf, const char *prog);
/* After the output: how many rows the reader skipped, if any. */
void dataset_note_damaged(const struct dataset *ds, FILE *errf, const char *prog);
void dataset_free(struct dataset *ds);

/* The cell of POLICY at THREADS in S, or NULL. */
const struct cell *series_cell(const struct series *s, const char *policy, unsigned threads);
/* The cell at THREADS among S's cells [LO, HI), one policy's run (threads
 * ascending), or NULL: never a cell past HI. */
const struct cell *series_run_cell(const struct series *s, size_t lo, size_t hi, unsigned threads);

/* The fitted USL of one policy of S (see usl_fit), on the points with no
 * more threads than PUs. */
void series_usl(const struct series *s, const char *policy, struct usl_fit *fit);

#endif
