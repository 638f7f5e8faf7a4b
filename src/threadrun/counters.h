/*
 * threadrun --counters: per-thread performance counts (perf_event_open).
 *
 * Every thread of the program is counted on its own: the main thread from
 * its exec on (its counters are opened while the launch holds the child
 * before exec), every other thread from when the monitor's walk of
 * /proc/PID/task first sees it (monitor.c; every 10 ms with --counters).
 * The run's total of each software event is counted besides by one
 * inherited counter (inherit=1: the kernel folds every thread and child
 * process into it), so what a thread did before it was seen is not lost:
 * it is shown as its own line.  Hardware events are counted per thread
 * only (an inherited copy would take a second PMU counter per event).
 * docs/counters.md says why and what it means.
 */
#ifndef COUNTERS_H
#define COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define COUNTERS_MAX 16

struct counter_ev {
	char name[96];
	uint32_t type;
	uint64_t config, config1, config2;
	int col;                /* its results column (results.h), -1: in the events column */
	bool hw;                /* needs the PMU */
};

struct counters_spec {
	unsigned n;
	struct counter_ev ev[COUNTERS_MAX];
	bool asked;             /* named by the user: a missing one is exit 3 */
	char note[320];         /* what could not be counted here, "" when all */
};

/* The events a run counts: NULL the default set (software events,
 * and the hardware ones the PMU allows); else a comma list of names
 * (counters_list) or libpfm4 names.  0, or 2 with the message in ERR. */
int counters_parse(const char *list, struct counters_spec *s, char *err, size_t errlen);

/*
 * Whether SPEC can be counted here (each event opened once on threadrun
 * itself).  A named hardware event the PMU lacks: 3; the default set drops
 * them with the note in SPEC->note.  perf_event_paranoid too high for this
 * user: 3, naming the sysctl and the value needed.  0, or 3 with ERR.
 */
int counters_probe(struct counters_spec *s, char *err, size_t errlen);

/* SPEC as THREADRUN_COUNTERS (the worker API counts each measurement
 * with it): 0, or -1 when BUF is too small. */
int counters_export(const struct counters_spec *s, char *buf, size_t len);

/* --counters=list: the names counters_parse takes, one per line. */
void counters_list(FILE *out);

struct counters;
struct counted;

/*
 * Start counting PID, which the launch holds before its exec: the
 * inherited totals and the main thread's own counters, both enabled at the
 * exec.  NULL with a message in ERR.
 */
struct counters *counters_start(const struct counters_spec *s, pid_t pid, char *err,
				size_t errlen);

/* The counters of thread TID of process PID, opened now (enabled at once),
 * or the ones it already has; NULL when they cannot be opened (a thread
 * already gone).  Safe from the monitor's sampler thread. */
struct counted *counters_attach(struct counters *c, pid_t pid, pid_t tid);

/* Read every counter; the program has ended. */
void counters_finish(struct counters *c);

/* What a thread (or the run, T NULL) counted, after counters_finish:
 * event I's scaled count, or -1 when it never ran; *SHARE the least
 * running/enabled share of its events (1: no multiplexing). */
double counters_value(const struct counters *c, const struct counted *t, unsigned i);
double counters_share(const struct counters *c, const struct counted *t);
/* The run's total of event I: the inherited counter's for a software
 * event (every thread, also before it was seen), the threads' sum else. */
double counters_total(const struct counters *c, unsigned i);

const struct counters_spec *counters_spec_of(const struct counters *c);
/* The run's totals as the row writer takes them (counts.h): each event's
 * counters_total, the run's share. */
struct counts_sum;
void counters_sum(const struct counters *c, struct counts_sum *sum);

/* Threads whose counters could not be opened (not those already gone),
 * and the last error. */
unsigned counters_failed(const struct counters *c, int *err);

/* Index of the event in column COL, or -1 when not counted. */
int counters_find(const struct counters_spec *s, int col);

void counters_free(struct counters *c);

#endif
