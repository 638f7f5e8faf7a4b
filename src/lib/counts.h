/*
 * Figures derived from performance counts (threadrun --counters): cycles
 * per byte, cycles per operation, instructions per cycle, FLOPs per cycle,
 * and the correction of a multiplexed count.  Pure arithmetic, shared by
 * threadrun (the run row) and threadreport (per placement).
 */
#ifndef COUNTS_H
#define COUNTS_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
