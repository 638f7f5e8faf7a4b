/*
 * Where a worker really ran: sampled sched_getcpu() against its planned PU,
 * so every result says whether the plan was honoured and how often a
 * worker changed CPU.
 */
#ifndef CPUTRACK_H
#define CPUTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUTRACK_MAX 4096

struct cpu_track {
	int planned;            /* -1: unbound */
	int last;               /* -1 before the first sample */
	unsigned long samples, off_plan, migrations;
	uint64_t seen[CPUTRACK_MAX / 64];
};

void cpu_track_init(struct cpu_track *t, int planned);
/* Record where the calling thread runs now; returns that CPU. */
int cpu_track_sample(struct cpu_track *t);

/* Add what SRC saw to DST (the same worker over several runs). */
void cpu_track_merge(struct cpu_track *dst, const struct cpu_track *src);

/* The CPUs T was seen on, joined by '|' ("3" or "0|1"). */
int cpu_track_format_seen(const struct cpu_track *t, char *buf, size_t len);

/* Over N workers: seen lists joined by ',', whether all stayed on plan, and
 * the total of migrations.  BUF may be truncated with "..." when long. */
void cpu_track_summarise(const struct cpu_track *const *tracks, unsigned n, char *buf,
			 size_t len, bool *honoured, unsigned long *migrations);

#endif
