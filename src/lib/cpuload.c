/* Steal and others' CPU time in a measurement window; the /proc/stat parser. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpuload.h"
#include "timing.h"

#define LINE_MAX_LOOKED 256
#define CPU_FIELDS 8

unsigned long long cpu_ticks_total(const struct cpu_ticks *t)
{
	return t->usr + t->nice + t->sys + t->idle + t->iowait + t->irq + t->softirq + t->steal;
}

unsigned long long cpu_ticks_busy(const struct cpu_ticks *t)
{
	return t->usr + t->nice + t->sys + t->irq + t->softirq;
}

/* A plain decimal at *P (no sign, no space first) that fits 64 bits; moves
 * *P past it.  -1 otherwise. */
static int parse_u64(const char **p, unsigned long long *v)
{
	const char *s = *p;
	unsigned long long x = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (unsigned)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (unsigned)(*s - '0');
	}
	*p = s;
	*v = x;
	return 0;
}

/* "cpu" is -1, "cpuN" is N (below 2^20); -2 for a name not of a CPU, -3
 * for a damaged CPU name. */
static int cpu_index(const char *name, size_t len)
{
	unsigned long long n;
	const char *p = name + 3;

	if (len < 3 || strncmp(name, "cpu", 3))
		return -2;
	if (len == 3)
		return -1;
	if (parse_u64(&p, &n) < 0 || p != name + len || n >= 1u << 20)
		return -3;
	return (int)n;
}

/* One line, without its newline (at most LINE_MAX_LOOKED - 1 characters of
 * it; WHOLE: all of it). */
static void parse_line(char *line, bool whole, const struct procstat_visit *v)
{
	unsigned long long f[CPU_FIELDS];
	const char *p;
	size_t len = strcspn(line, " ");
	int cpu, i;

	if (!len || line[len] != ' ')
		return;
	cpu = cpu_index(line, len);
	p = line + len;
	if (cpu == -2) {
		line[len] = '\0';
		p++;
		while (*p == ' ')
			p++;
		/* A long line's head (intr's) ends in a space, never mid-number. */
		if (v->counter && parse_u64(&p, &f[0]) == 0 && (*p == ' ' || (!*p && whole)))
			v->counter(v->arg, line, f[0]);
		return;
	}
	if (cpu == -3 || !whole)
		return;
	for (i = 0; i < CPU_FIELDS; i++) {
		while (*p == ' ')
			p++;
		if (parse_u64(&p, &f[i]) < 0 || (*p != ' ' && *p))
			return;
	}
	if (v->cpu)
		v->cpu(v->arg, cpu, &(struct cpu_ticks){ f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7] });
}

int procstat_read(const char *path, const struct procstat_visit *v)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	procstat_parse(f, v);
	fclose(f);
	return 0;
}

void procstat_parse(FILE *f, const struct procstat_visit *v)
{
	char line[LINE_MAX_LOOKED];
	size_t len = 0;
	bool whole = true;
	int c;

	/* Lines by hand: the head of each, however long it is or whatever
	 * bytes (NUL too) it holds; its tail is skipped, never a line. */
	do {
		c = getc_unlocked(f);
		if (c == '\n' || (c == EOF && len)) {
			line[len] = '\0';
			if (strlen(line) == len)
				parse_line(line, whole, v);
			len = 0;
			whole = true;
		} else if (c != EOF && len + 1 < sizeof(line)) {
			line[len++] = (char)c;
		} else if (c != EOF) {
			whole = false;
		}
	} while (c != EOF);
}

struct mark_ctx {
	struct cpuload_mark *m;
	const cpu_set_t *want;
	bool machine;
};

static void mark_cpu(void *arg, int cpu, const struct cpu_ticks *t)
{
	struct mark_ctx *c = arg;

	if (cpu < 0) {
		c->m->all = cpu_ticks_total(t);
		c->m->steal = t->steal;
		c->machine = true;
	} else if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, c->want)) {
		c->m->pus_busy += cpu_ticks_busy(t);
		c->m->npus++;
	}
}

void cpuload_mark(struct cpuload_mark *m, const int *pus, unsigned n)
{
	cpu_set_t want;
	struct mark_ctx c = { .m = m, .want = &want };
	const struct procstat_visit v = { .cpu = mark_cpu, .arg = &c };
	unsigned i;

	memset(m, 0, sizeof(*m));
	CPU_ZERO(&want);
	if (pus && n) {
		for (i = 0; i < n; i++)
			if (pus[i] >= 0 && pus[i] < CPU_SETSIZE)
				CPU_SET(pus[i], &want);
	} else if (sched_getaffinity(0, sizeof(want), &want) < 0) {
		return;
	}
	m->t = now_s();
	m->ok = procstat_read("/proc/stat", &v) == 0 && c.machine && m->npus > 0;
}

void cpuload_span_add(struct cpuload_span *span, const struct cpuload_mark *a,
		      const struct cpuload_mark *b, double own_s)
{
	span->windows++;
	/* Counters only grow; a read that failed or saw other PUs spoils it. */
	if (!a->ok || !b->ok || a->npus != b->npus || b->all < a->all || b->steal < a->steal ||
	    b->pus_busy < a->pus_busy || b->t < a->t) {
		span->bad++;
		return;
	}
	span->all += b->all - a->all;
	span->steal += b->steal - a->steal;
	span->pus_busy += b->pus_busy - a->pus_busy;
	span->window_s += b->t - a->t;
	span->pus_s += (b->t - a->t) * b->npus;
	span->own_s += own_s > 0 ? own_s : 0;
	/* The reads' rounding: up to a tick per PU.  Over several windows it
	 * averages out rather than adds up: taken off once. */
	if (b->npus > span->slack_ticks)
		span->slack_ticks = b->npus;
}

void cpuload_span_merge(struct cpuload_span *dst, const struct cpuload_span *src)
{
	dst->windows += src->windows;
	dst->bad += src->bad;
	dst->all += src->all;
	dst->steal += src->steal;
	dst->pus_busy += src->pus_busy;
	if (src->slack_ticks > dst->slack_ticks)
		dst->slack_ticks = src->slack_ticks;
	dst->window_s += src->window_s;
	dst->pus_s += src->pus_s;
	dst->own_s += src->own_s;
}

struct cpuload cpuload_figures(const struct cpuload_span *span)
{
	struct cpuload l = { NAN, NAN };
	long hz = sysconf(_SC_CLK_TCK);
	double others;

	if (!span->windows || span->bad)
		return l;
	if (hz <= 0)
		hz = 100;
	l.steal_pct = span->all ? 100.0 * (double)span->steal / (double)span->all : 0;
	others = ((double)span->pus_busy - (double)span->slack_ticks) / (double)hz - span->own_s;
	l.others_pct = span->pus_s > 0 ? fmin(100.0, fmax(0.0, 100.0 * others / span->pus_s)) : 0;
	return l;
}
