/*
 * Figures derived from performance counts (threadrun --counters): cycles
 * per byte, cycles per operation, instructions per cycle, FLOPs per cycle,
 * and the correction of a multiplexed count.  Pure arithmetic, shared by
 * threadrun (the run row) and threadreport (per placement).
 */
#ifndef COUNTS_H
#define COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

/*
 * A count read with time_enabled and time_running (perf_event_open's
 * PERF_FORMAT_TOTAL_TIME_*): the estimate value * enabled / running when
 * the event shared a counter with others (multiplexed), the value as it is
 * when it ran all the time.  *SHARE gets running / enabled (1 when it ran
 * throughout or was never enabled).  false when it was enabled but never
 * ran: there is no estimate.
 */
bool counts_scale(uint64_t value, uint64_t enabled, uint64_t running, double *scaled,
		  double *share);

/* What a measurement did, and what was counted over it; a negative value
 * is unknown (not counted, or no such figure for the workload). */
struct counts_in {
	double cycles, instructions;
	double bytes;           /* bytes processed (ciphers, digests) */
	double ops;             /* operations (signatures, verifications) */
	double flops;           /* floating-point operations (linpack) */
};

/* Each figure, or NAN when it cannot be derived (n/a). */
struct counts_derived {
	double cycles_per_byte, cycles_per_op, ipc, flops_per_cycle;
};

void counts_derive(const struct counts_in *in, struct counts_derived *out);

/* How much B differs from A, in %: +38 when B is 1.38 A; NAN when A is 0 or
 * either is NAN. */
double counts_change_pct(double a, double b);

/* A derived figure for a row or a table: "%.4g", or "n/a" for NAN. */
const char *counts_format(double v, char *buf, unsigned len);

/*
 * Counting a measurement from inside a workload (the worker API): the
 * events threadrun --counters passes in THREADRUN_COUNTERS, one per entry,
 * entries joined by ';': TYPE:CONFIG:CONFIG1:CONFIG2:COLUMN:NAME, numbers
 * in decimal (perf_event_attr's), COLUMN the results column it fills
 * ("events" for the events column), NAME the event's name (the rest).
 */
#define COUNTS_MAX 16

struct counts_event {
	uint32_t type;
	uint64_t config, config1, config2;
	int col;                /* results column (results.h), -1: the events column */
	char name[96];
};

struct counts_spec {
	unsigned n;
	struct counts_event ev[COUNTS_MAX];
};

/* TEXT (NULL: none) into S: 0, or -1 when malformed (S->n is 0 then). */
int counts_spec_parse(const char *text, struct counts_spec *s);
/* S as THREADRUN_COUNTERS takes it: 0, or -1 when BUF is too small. */
int counts_spec_format(const struct counts_spec *s, char *buf, size_t len);

/* One thread's counters, opened on the calling thread, disabled. */
struct counts_thread {
	int fd[COUNTS_MAX];
};

/* The measurement's counts over its threads (the spec travels with them). */
struct counts_sum {
	struct counts_spec spec;
	double v[COUNTS_MAX];   /* scaled; -1: never counted */
	double share;           /* the least running / enabled share */
	unsigned threads, failed;
};

void counts_thread_open(const struct counts_spec *s, struct counts_thread *t);
void counts_thread_enable(struct counts_thread *t, bool on);
/* Read T's counts into SUM and close them. */
void counts_thread_take(struct counts_thread *t, struct counts_sum *sum);

/* Add FROM, one worker's counts, into TO, which has the same spec. */
void counts_sum_add(struct counts_sum *to, const struct counts_sum *from);
/* Every counted value of SUM times BY (a team's counts scaled to one rep). */
void counts_sum_scale(struct counts_sum *sum, double by);

/*
 * ctr_workers in ROW (results/README.md): for each of the N workers, in
 * order, "task-clock/per-unit/IPC", where per-unit is the worker's cycles
 * per byte (a bytes/s row), per operation (ops/s) or its FLOPs per cycle
 * (MFLOPS), from WORK[i], the worker's bytes, operations or flops (WORK
 * NULL: unknown); "-" for a figure that cannot be derived, and for a
 * worker not counted.  0, or -1 when out of memory.
 */
int counts_row_workers(const struct counts_sum *workers, const double *work, unsigned n,
		       struct results_row *row);

/* SUM's columns in ROW (results/README.md): the events, each count, the
 * share, and the derived figures from ROW's bytes, ops and unit. */
void counts_row(const struct counts_sum *sum, struct results_row *row);
/* Its parts, for a row whose work is another's (threadrun's run row):
 * IN's work from a unit (bytes for bytes/s, OPS for ops/s, flops = OPS
 * for MFLOPS; the others -1); SUM's events, counts and share in ROW, and
 * IN's cycles and instructions from them; IN's derived figures in ROW. */
void counts_in_work(struct counts_in *in, const char *unit, double bytes, double ops);
void counts_row_counts(const struct counts_sum *sum, struct results_row *row, struct counts_in *in);
void counts_row_derived(const struct counts_in *in, struct results_row *row);

#endif
