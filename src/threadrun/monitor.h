/*
 * threadrun --monitor: mpstat and prstat built in.  A sampler thread reads
 * /proc while the program runs: every CPU's time split (/proc/stat),
 * interrupts and context switches, and every thread of the program and its
 * children (/proc/PID/task): where it last ran, its CPU time and context
 * switches.  At the end: tables, warnings (threads off their planned PU,
 * CPUs busy with no worker planned there, steal), a time series file, and
 * summary figures for the run's result row.
 */
#ifndef MONITOR_H
#define MONITOR_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "placement.h"

struct monitor;
struct counters;

/* With --counters: seconds between the walks that find new threads. */
#define MONITOR_DISCOVER_S 0.01

struct monitor_summary {
	unsigned long migrations;       /* summed over threads */
	unsigned long off_plan;         /* thread samples seen off their planned PU */
	double steal_pct;               /* steal, % of all CPU time in the run */
	double sys_share;               /* system / (user + system) of the program */
	double cost_pct;                /* the sampler's own CPU time, % of one CPU */
	unsigned samples;
	unsigned busy_unplanned;        /* CPUs busy with no worker planned there */
	unsigned threads_off_plan;
	char warnings[512];             /* "" when nothing to distrust */
};

/*
 * Start sampling PID every INTERVAL seconds.  SERIES, when not -1, is the
 * descriptor of the time series file (results/README.md): each sample is
 * appended whole under its lock.  With AFFINITY (--pthreads) a thread's
 * planned PU is the one PU of the plan it is bound to, none when its CPU
 * set is wider.  With CTR (--counters) every thread the walk finds gets its
 * counters (counters_attach), the walk coming every MONITOR_DISCOVER_S;
 * INTERVAL 0 then samples nothing else (counters without --monitor).
 * Returns NULL with a message in ERR when /proc cannot be read (the caller
 * runs on without a monitor).
 */
struct monitor *monitor_start(pid_t pid, double interval, const struct pl_plan *plan,
			      bool affinity, int series, struct counters *ctr, char *err,
			      size_t errlen);

/* Take the last sample and stop the sampler; PID has been waited for.
 * The counters are read then (counters_finish). */
void monitor_stop(struct monitor *m);

void monitor_summarise(const struct monitor *m, struct monitor_summary *s);

/* The mpstat-like CPU table and the per-thread table (QUIET: warnings only). */
void monitor_print(const struct monitor *m, FILE *out, bool quiet);

/* --counters: the per-thread table (every thread the walk found, its
 * worker, each event, the share of the time its counters ran), what the
 * run did before threads were seen, and the run's total. */
void monitor_print_counters(const struct monitor *m, FILE *out);

/* The counters the monitor attaches threads to, or NULL. */
struct counters *monitor_counters(const struct monitor *m);

void monitor_free(struct monitor *m);

/* The time series' header line. */
extern const char monitor_series_header[];

#endif
