/* Fuzz target: the /proc/stat parser (src/lib/cpuload.c). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuload.h"

static void on_cpu(void *arg, int cpu, const struct cpu_ticks *t)
{
	(void)arg;
	/* The machine's line, or a CPU number below 2^20; totals never wrap
	 * unnoticed (each field fits 64 bits). */
	if (cpu < -1 || cpu >= 1 << 20)
		abort();
	(void)cpu_ticks_total(t);
}

static void on_counter(void *arg, const char *name, unsigned long long value)
{
	(void)arg;
	(void)value;
	if (!*name || strchr(name, ' ') || strchr(name, '\n') || !strncmp(name, "cpu", 3))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct procstat_visit v = { on_cpu, on_counter, NULL };
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	procstat_parse(f, &v);
	fclose(f);
	return 0;
}
