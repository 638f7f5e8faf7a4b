#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "cputrack.h"

void cpu_track_init(struct cpu_track *t, int planned)
{
	memset(t, 0, sizeof(*t));
	t->planned = planned;
	t->last = -1;
}

int cpu_track_sample(struct cpu_track *t)
{
	int cpu = sched_getcpu();

	if (cpu < 0)
		return cpu;
	t->samples++;
	if (t->last >= 0 && cpu != t->last)
		t->migrations++;
	if (t->planned >= 0 && cpu != t->planned)
		t->off_plan++;
	if (cpu < CPUTRACK_MAX)
		t->seen[cpu / 64] |= 1ull << (cpu % 64);
	t->last = cpu;
	return cpu;
}

void cpu_track_merge(struct cpu_track *dst, const struct cpu_track *src)
{
	size_t i;

	/* Each run's worker is a new thread: moves count within runs only. */
	dst->samples += src->samples;
	dst->migrations += src->migrations;
	dst->off_plan += src->off_plan;
	for (i = 0; i < CPUTRACK_MAX / 64; i++)
		dst->seen[i] |= src->seen[i];
	if (src->last >= 0)
		dst->last = src->last;
}

int cpu_track_format_seen(const struct cpu_track *t, char *buf, size_t len)
{
	size_t used = 0;
	int cpu, n;

	buf[0] = '\0';
	for (cpu = 0; cpu < CPUTRACK_MAX; cpu++) {
		if (!(t->seen[cpu / 64] & (1ull << (cpu % 64))))
			continue;
		n = snprintf(buf + used, len - used, "%s%d", used ? "|" : "", cpu);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	if (!used)
		snprintf(buf, len, "?");
	return 0;
}

void cpu_track_summarise(const struct cpu_track *const *tracks, unsigned n, char *buf,
			 size_t len, bool *honoured, unsigned long *migrations)
{
	char one[256];
	size_t used = 0;
	unsigned i;
	int w;

	*honoured = true;
	*migrations = 0;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const struct cpu_track *t = tracks[i];

		if (t->planned >= 0 && (t->off_plan || !t->samples))
			*honoured = false;
		*migrations += t->migrations;
		cpu_track_format_seen(t, one, sizeof(one));
		w = snprintf(buf + used, len - used, "%s%s", i ? "," : "", one);
		if (w < 0 || (size_t)w >= len - used) {
			if (len > 4)
				strcpy(buf + len - 4, "...");
			used = len;
			continue;
		}
		used += (size_t)w;
	}
}
