/*
 * What else ran during a measurement: two reads of /proc/stat, at the start
 * and at the end of the window (no sampling thread), give the machine's
 * steal and the CPU time other processes took on the planned PUs.  Also
 * the one /proc/stat parser (threadrun --monitor reads through it too).
 */
#ifndef CPULOAD_H
#define CPULOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Cumulative /proc/stat counters of one CPU, in clock ticks. */
struct cpu_ticks {
	unsigned long long usr, nice, sys, idle, iowait, irq, softirq, steal;
};

/* Every tick of the CPU (guest time is inside user and nice already). */
unsigned long long cpu_ticks_total(const struct cpu_ticks *t);
/* Work done on the CPU: user, nice, system, irq, softirq.  Steal is not
 * work on the PU (the hypervisor ran someone else), idle and iowait none. */
unsigned long long cpu_ticks_busy(const struct cpu_ticks *t);

/* What procstat_read() hands over, line by line. */
struct procstat_visit {
	/* A "cpuN" line (CPU -1: the machine's "cpu" line). */
	void (*cpu)(void *arg, int cpu, const struct cpu_ticks *t);
	/* Another line's name and its first number (ctxt, intr, ...). */
	void (*counter)(void *arg, const char *name, unsigned long long value);
	void *arg;
};

/*
 * Read PATH (/proc/stat) and hand each well-formed line to V.  Parsing is
 * bounded: a line is looked at up to 255 characters (the rest of a longer
 * line is skipped, never read as lines of its own), numbers are plain
 * digits that fit, a cpu line needs its 8 first fields; anything else is
 * skipped and costs that line only.  0, or -1 with errno when PATH cannot
 * be opened.
 */
int procstat_read(const char *path, const struct procstat_visit *v);
/* The same on an open stream (the fuzz target's). */
void procstat_parse(FILE *f, const struct procstat_visit *v);

/* The window's figures; NAN when /proc/stat could not be read. */
struct cpuload {
	double steal_pct;       /* steal, % of all the machine's CPU time */
	double others_pct;      /* others' work on the PUs, % of window x PUs */
};

/* One read: the machine's ticks and the watched PUs' ticks. */
struct cpuload_mark {
	bool ok;
	unsigned long long all, steal;          /* the machine ("cpu" line) */
	unsigned long long pus_busy;            /* the PUs watched, summed */
	unsigned npus;                          /* of the PUs, those /proc/stat had */
	double t;                               /* CLOCK_MONOTONIC seconds */
};

/* What happened between marks, summed over one or more windows. */
struct cpuload_span {
	unsigned windows, bad;  /* windows added, and those a read failed in */
	unsigned long long all, steal, pus_busy;
	unsigned long long slack_ticks;  /* the reads' rounding: a tick per PU */
	double window_s, pus_s; /* the windows' length, and times their PUs */
	double own_s;           /* CPU seconds the measured work took */
};

/*
 * Read /proc/stat now for the PUs PUS[0..N-1] (duplicates count once); N
 * 0 or PUS NULL: every PU this process may run on (an unbound run).
 * Never fails: M->ok says whether the read worked.
 */
void cpuload_mark(struct cpuload_mark *m, const int *pus, unsigned n);

/* Add the window A..B to SPAN (zeroed to start), OWN_S being the CPU
 * seconds the measured work itself took in it (getrusage). */
void cpuload_span_add(struct cpuload_span *span, const struct cpuload_mark *a,
		      const struct cpuload_mark *b, double own_s);

/* Add the windows of SRC to DST (a measurement over several runs). */
void cpuload_span_merge(struct cpuload_span *dst, const struct cpuload_span *src);

/*
 * The figures of SPAN, both NAN when a read failed or nothing was added.
 * Others are the PUs' busy ticks less OWN_S and less one tick per PU (the
 * reads' rounding, taken off once however many windows), as % of the
 * windows' length times the PUs, clamped to 0..100: approximate, /proc/stat counts in clock ticks (10 ms).
 */
struct cpuload cpuload_figures(const struct cpuload_span *span);

#endif
