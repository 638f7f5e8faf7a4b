/*
 * The results file: one CSV schema, written and read only through this
 * module (format in results/README.md).  A row is one measurement and
 * carries its own provenance, so files from several machines merge.
 */
#ifndef RESULTS_H
#define RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The algorithm column of the rows threadrun writes about whole runs. */
#define RESULTS_RUN_ALGORITHM "(run)"
/* The most workers a row says (threads): as many as threadrun plans. */
#define RESULTS_MAX_THREADS (1u << 20)

/* Columns, in file order.  The names are in results.c's const table. */
enum results_col {
	RC_TIME, RC_HOST, RC_CPU_MODEL, RC_TOPOLOGY, RC_CORES, RC_PUS, RC_VERSIONS,
	RC_WORKLOAD, RC_ALGORITHM, RC_BACKEND, RC_IMPL, RC_SIZE, RC_SIZE_UNIT,
	RC_THREADS, RC_POLICY, RC_CPUS, RC_CPUS_SEEN, RC_REPEAT,
	RC_RUN, RC_SEQ, RC_CONFIG, RC_JOB, RC_RANK, RC_RANKS, RC_LOCAL_RANK,
	RC_LAUNCHER, RC_CPUSET, RC_START_SYNC,
	RC_OPS, RC_BYTES, RC_WALL_S, RC_USER_S, RC_SYS_S, RC_T_START, RC_T_END, RC_RATE, RC_UNIT,
	RC_VERIFIED, RC_CHECKS, RC_PLACEMENT_OK, RC_MIGRATIONS, RC_OFF_PLAN, RC_STEAL_PCT, RC_OTHERS_PCT,
	RC_SYS_SHARE,
	/* Latency (t2accel --latency, linpack and stream with --latency): one block. */
	RC_LAT_BATCH, RC_LAT_N, RC_LAT_P50_S, RC_LAT_P90_S, RC_LAT_P99_S, RC_LAT_P999_S,
	RC_LAT_MAX_S, RC_LAT_WORKERS,
	/* threadrun --counters: one block (results/README.md) */
	RC_COUNTERS, RC_TASK_CLOCK_S, RC_CTX_SWITCHES, RC_CPU_MIGRATIONS, RC_PAGE_FAULTS,
	RC_CYCLES, RC_INSTRUCTIONS, RC_CACHE_REFS, RC_CACHE_MISSES, RC_BRANCH_MISSES,
	RC_EVENTS, RC_COUNTED_PCT, RC_CYCLES_PER_BYTE, RC_CYCLES_PER_OP, RC_IPC,
	RC_FLOPS_PER_CYCLE, RC_CTR_WORKERS,
	RC_SEED, RC_POLICIES, RC_STOP,
	RC_STATUS, RC_NOTE,
	RC_COUNT
};

struct results_row {
	char *val[RC_COUNT];    /* NULL: empty (or missing from an old file) */
};

const char *results_col_name(enum results_col col);
/* The column of NAME, or -1. */
int results_col_find(const char *name);

void results_row_init(struct results_row *row);
void results_row_clear(struct results_row *row);
int results_row_set(struct results_row *row, enum results_col col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *results_row_get(const struct results_row *row, enum results_col col);
/* The column as a number; NAN when empty or not a plain decimal number in
 * the column's range (no sign, hex, inf or nan; no fraction or exponent in
 * a count column). */
double results_row_num(const struct results_row *row, enum results_col col);
/* The column as a whole number 0..MAX, or -1 when it is empty, not a
 * number, fractional or out of that range (files may hold anything). */
long results_row_count(const struct results_row *row, enum results_col col, long max);
/* 0 when every numeric column of ROW is empty or valid, else -1 with the
 * column, the value and the problem in ERR. */
int results_row_check(const struct results_row *row, char *err, size_t errlen);

/*
 * Fill time, host, CPU model, topology, core and PU counts, and VERSIONS
 * (the program's libraries; hwloc's is added here).  The topology comes from
 * threadrun's THREADRUN_TOPOLOGY when set, else from hwloc.
 */
int results_row_provenance(struct results_row *row, const char *versions);

/*
 * Check up front that PATH can be appended to (its directory exists and is
 * writable, and an existing file has this schema's header, after a UTF-8
 * BOM or not, ended by LF or CR LF, and takes locks).  0 or -1 with a
 * message in ERR.
 */
int results_check(const char *path, char *err, size_t errlen);

/*
 * Append ROW whole: under an exclusive lock, with signals held off, in one
 * write; a write that fails part-way (a full disk) is cut back so the file
 * ends where it did.  A new file gets the header first; a file whose
 * header line ends in CR LF gets the row with CR LF.
 */
int results_append(const char *path, const struct results_row *row, char *err,
		   size_t errlen);

/*
 * The message for a lock on LOCKED (RESULTS or a file beside it) that
 * failed with ENOLCK: a network file system without a lock service, where
 * ranks on several hosts cannot share RESULTS; it suggests one file per
 * host (-o 'DIR/NAME-%h.csv').
 */
void results_nolock_error(const char *locked, const char *results, char *err, size_t errlen);

/*
 * The identity of a measurement, defined here once (results/README.md,
 * "Identity") and used by threadrun --resume and the reporter alike.
 * Two rows are the same SERIES when every column of results_series_cols
 * is equal (text for text); the same POINT when they are the same series
 * and also have equal policy and threads; the same REPEAT when they are
 * the same point and also have equal repeat and rank.  Rows of one repeat
 * from different runs (several sweeps, single runs, two processes at once)
 * are all kept as repeats: a later row supersedes an earlier one only when
 * both are the same repeat, the earlier failed (status not 0) and the later
 * comes from another run: the explicit rerun --resume makes of a failed
 * repeat.
 */
#define RESULTS_NSERIES_COLS 10
#define RESULTS_NPOINT_COLS 2
#define RESULTS_NREPEAT_COLS 2
extern const enum results_col *const results_series_cols;
extern const enum results_col *const results_point_cols;   /* beyond the series' */
extern const enum results_col *const results_repeat_cols;  /* beyond the point's */
/* Whether two runs are the same: both known and equal (rows of files
 * without a run column are never the same run). */
bool results_same_run(const char *a, const char *b);

bool results_same_series(const struct results_row *a, const struct results_row *b);
bool results_same_point(const struct results_row *a, const struct results_row *b);
bool results_same_repeat(const struct results_row *a, const struct results_row *b);
/*
 * A CLUSTER MEASUREMENT: the rows of one job (job not empty) with the same
 * series but host, the same point and the same repeat number; their ranks
 * tell them apart, and it is complete when each of its ranks is there once.
 * results_cluster_cols are the columns that must be equal (job among them).
 */
#define RESULTS_NCLUSTER_COLS 12
extern const enum results_col *const results_cluster_cols;
bool results_same_cluster(const struct results_row *a, const struct results_row *b);
/* Whether LATER, written after EARLIER, replaces it (the rule above). */
bool results_supersedes(const struct results_row *later, const struct results_row *earlier);
/* The same rule for two rows already known to be the same repeat: the
 * earlier's status (-1 when not said) and both runs. */
bool results_rerun_replaces(long earlier_status, const char *earlier_run, const char *later_run);

/* Called once per usable data row with the 1-based line number where it
 * starts (a quoted field may hold newlines); non-zero stops. */
typedef int (*results_cb)(const struct results_row *row, unsigned line, void *arg);

/* What results_read() found besides the rows. */
struct results_info {
	unsigned rows;
	unsigned bad_lines;        /* damaged records and unusable rows, each reported to ERRF */
	char missing[1024];         /* schema columns the file does not have */
	bool has[RC_COUNT];        /* which columns the file has */
};

/*
 * Read PATH (or "-" for stdin: a file or a pipe), mapping columns by name
 * so older files and files with extra columns read too.  Records are RFC
 * 4180 (quoted fields may hold commas, quotes, CR LF and newlines), each at
 * most 1 MiB and 1024 fields, lines ended by LF or CR LF, a UTF-8 BOM at
 * the start skipped.  Each damaged record (bad quoting, NUL bytes,
 * too long, wrong field count) and each row with an invalid number is
 * reported on ERRF with the line where it starts and skipped, never
 * silently; damage costs that record only.  Returns 0, or -1 with a message
 * in ERR when the file is missing, not a regular file, empty or has no
 * usable header.
 */
int results_read(const char *path, results_cb cb, void *arg, FILE *errf,
		 struct results_info *info, char *err, size_t errlen);
/* The runs of the rows a read skipped for an invalid value: each of them
 * lost a measurement (--resume makes it again; its run row does not stand
 * in for it in a report). */
struct results_lost {
	char **run;             /* sorted, each once, when a read has ended */
	size_t n, cap;
};
/* results_read, and added to LOST (results_lost_free frees it) the run of
 * each row it skips for an invalid value and of each row without its
 * threads or rate (its run did not fail), threadrun's run rows aside. */
int results_read_lost(const char *path, results_cb cb, void *arg, struct results_lost *lost,
		      FILE *errf, struct results_info *info, char *err, size_t errlen);
bool results_lost_has(const struct results_lost *lost, const char *run);
void results_lost_free(struct results_lost *lost);

#endif
