/* The per-CPU and per-thread sampler behind threadrun --monitor. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "counts.h"
#include "cpuload.h"
#include "datafile.h"
#include "escape.h"
#include "monitor.h"
#include "results.h"
#include "timing.h"

#define MAX_CPUS 1024
#define BUSY_UNPLANNED_PCT 25.0

const char monitor_series_header[] =
	"t_s,kind,id,name,cpu,planned,usr_pct,sys_pct,irq_pct,idle_pct,steal_pct,intr,"
	"utime_s,stime_s,vcsw,ivcsw\n";

struct thread_seen {
	pid_t pid, tid;
	char name[32];
	int worker;             /* index in the plan, -1 unknown */
	struct counted *cnt;    /* its counters (--counters), or NULL */
	int planned;            /* its worker's OS PU, -1 none */
	double utime, stime;
	unsigned long vcsw, ivcsw;
	/* What it did under its current name (a rename clears the fields
	 * from here on): the samples it was seen off plan, and whether it
	 * has passed its bind point (been seen bound to one PU). */
	unsigned long off;
	bool bound;
	/* Where it ran since its bind point, or since it took its name while
	 * it is not bound (the bind point clears the fields from here on). */
	int last_cpu;
	unsigned long samples, migrations;
	uint64_t seen[MAX_CPUS / 64];
};

struct monitor {
	pid_t pid;
	double interval, start, end;
	struct counters *ctr;   /* --counters: each new thread gets its counters */
	double discover;        /* with ctr: seconds between walks that only look for threads */
	bool full;              /* sampling on (--monitor), not only counting */
	bool light;             /* this walk only finds threads (and follows names) */
	const struct pl_plan *plan;
	int series;             /* the time series file, -1: none */
	FILE *out;              /* this sample's lines, written whole at its end */
	bool affinity;          /* --pthreads: a thread's planned PU is the one it is bound to */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, running;
	int ncpus;
	struct cpu_ticks first[MAX_CPUS], last[MAX_CPUS];
	unsigned long long intr0[MAX_CPUS], intr[MAX_CPUS];
	unsigned long long ctxt0, ctxt, intr_total0, intr_total;
	struct thread_seen *threads;
	size_t nthreads, cap;
	unsigned samples;
	double cost_s;          /* the sampler's own CPU time */
	long ticks_per_s;
};

/* What one read of /proc/stat fills (through the one parser, cpuload.h). */
struct stat_read {
	struct cpu_ticks *t;
	unsigned long long *ctxt, *intr;
	int n;
};

static void stat_cpu(void *arg, int cpu, const struct cpu_ticks *t)
{
	struct stat_read *r = arg;

	if (cpu < 0 || cpu >= MAX_CPUS)
		return;
	r->t[cpu] = *t;
	if (cpu + 1 > r->n)
		r->n = cpu + 1;
}

static void stat_counter(void *arg, const char *name, unsigned long long value)
{
	struct stat_read *r = arg;

	if (!strcmp(name, "ctxt"))
		*r->ctxt = value;
	else if (!strcmp(name, "intr"))
		*r->intr = value;
}

static int read_stat(struct monitor *m, struct cpu_ticks *t, unsigned long long *ctxt,
		     unsigned long long *intr)
{
	struct stat_read r = { t, ctxt, intr, 0 };
	const struct procstat_visit v = { stat_cpu, stat_counter, &r };

	if (procstat_read("/proc/stat", &v) < 0)
		return -1;
	if (r.n > m->ncpus)
		m->ncpus = r.n;
	return 0;
}

/* Per-CPU interrupt counts: the sum of each CPU column of /proc/interrupts. */
static void read_interrupts(struct monitor *m, unsigned long long *per_cpu)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char *line = NULL, *p, *end;
	size_t len = 0;
	int cpu;

	memset(per_cpu, 0, sizeof(*per_cpu) * MAX_CPUS);
	if (!f)
		return;
	if (getline(&line, &len, f) < 0)
		goto out;
	while (getline(&line, &len, f) > 0) {
		p = strchr(line, ':');
		if (!p)
			continue;
		for (p++, cpu = 0; cpu < m->ncpus; cpu++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			per_cpu[cpu] += v;
			p = end;
		}
	}
out:
	free(line);
	fclose(f);
}

static struct thread_seen *thread_find(struct monitor *m, pid_t pid, pid_t tid)
{
	struct thread_seen *t, *grown;
	size_t i;

	for (i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == tid && m->threads[i].pid == pid)
			return &m->threads[i];
	if (m->nthreads == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		grown = realloc(m->threads, m->cap * sizeof(*grown));
		if (!grown)
			return NULL;
		m->threads = grown;
	}
	t = &m->threads[m->nthreads++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->worker = -1;
	t->planned = -1;
	t->last_cpu = -1;
	/* Counted from the moment it is first seen (counters.h). */
	if (m->ctr)
		t->cnt = counters_attach(m->ctr, pid, tid);
	return t;
}

/* Clear where T ran (the fields from last_cpu on): at its bind point and,
 * with --pthreads, at a new binding. */
static void forget_where(struct thread_seen *t)
{
	memset(&t->last_cpu, 0, sizeof(*t) - offsetof(struct thread_seen, last_cpu));
	t->last_cpu = -1;
}

/* A new name is a new identity: what the thread did under its old one (a
 * new thread under its parent's name, a process before exec) says nothing
 * about the worker it now says it is. */
static void forget_all(struct thread_seen *t)
{
	memset(&t->off, 0, sizeof(*t) - offsetof(struct thread_seen, off));
	t->last_cpu = -1;
}

/* Which worker a thread is: the project's workloads name their workers
 * "...-wN" and a main thread that does no work "...-main"; any other
 * program's threads count in order of appearance (OpenMP's initial thread
 * is thread 0). */
static int worker_index(const struct monitor *m, const struct thread_seen *t)
{
	const char *w = strrchr(t->name, '-');
	size_t i;
	int n = 0;

	if (w && w[1] == 'w' && isdigit((unsigned char)w[2]))
		return atoi(w + 2);
	if ((w && !strcmp(w, "-main")) || t->pid != m->pid)
		return -1;
	for (i = 0; i < m->nthreads && &m->threads[i] != t; i++)
		n += m->threads[i].pid == m->pid && m->threads[i].worker >= 0;
	return n;
}

static bool planned_pu(const struct pl_plan *plan, int cpu)
{
	unsigned i;

	for (i = 0; plan->bound && i < plan->nworkers; i++)
		if (plan->pu[i] == cpu)
			return true;
	return false;
}

static bool in_set(const uint64_t *set, int cpu)
{
	return cpu >= 0 && cpu < MAX_CPUS && (set[cpu / 64] >> (cpu % 64) & 1);
}

/*
 * The thread's context switches, and its CPU set ("Cpus_allowed_list:")
 * into ALLOWED (bits for CPUs below MAX_CPUS).  Returns how many CPUs the
 * set holds, or -1 when it could not be read (the thread is gone).
 */
static int read_status(const char *dir, struct thread_seen *t, uint64_t *allowed)
{
	char path[128], err[128], *line = NULL;
	unsigned *pus = NULL;
	size_t len = 0;
	int n = -1, i;
	FILE *f;

	memset(allowed, 0, sizeof(*allowed) * (MAX_CPUS / 64));
	snprintf(path, sizeof(path), "%s/status", dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* A set as scattered as "0,2,4,..." is longer than any line's buffer:
	 * getline. */
	while (getline(&line, &len, f) > 0) {
		if (!strncmp(line, "voluntary_ctxt_switches:", 24)) {
			t->vcsw = strtoul(line + 24, NULL, 10);
		} else if (!strncmp(line, "nonvoluntary_ctxt_switches:", 27)) {
			t->ivcsw = strtoul(line + 27, NULL, 10);
		} else if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			char *v = line + 18 + strspn(line + 18, " \t");

			v[strcspn(v, "\n")] = '\0';
			free(pus);
			pus = NULL;
			n = pl_cpulist_parse(v, &pus, err, sizeof(err));
			for (i = 0; i < n; i++)
				if (pus[i] < MAX_CPUS)
					allowed[pus[i] / 64] |= 1ull << (pus[i] % 64);
		}
	}
	free(pus);
	free(line);
	fclose(f);
	return n;
}

/*
 * The PU T is held to: its planned PU from its bind point on, none before.
 * A thread is at its bind point at the first sample that sees it bound to
 * one PU: a foreign OpenMP program's initial thread when libgomp binds it
 * while the program loads (not at exec), each OpenMP thread as it starts,
 * a workload's worker as it binds itself.  One that never is (threadrun's
 * own child before exec, an idle parent that only waits, any thread of a
 * program placed by a process-wide CPU set only) is never off plan: what
 * placed it is the CPU set the process was given, not a PU.
 */
static int judged_pu(const struct thread_seen *t)
{
	return t->bound ? t->planned : -1;
}

/* A thread is renamed after exec and by the workloads: follow it.  BUF is
 * its stat line, CLOSE the ')' after its name. */
static void follow_name(const struct monitor *m, struct thread_seen *t, const char *buf,
			const char *close)
{
	const char *open = strchr(buf, '(');
	char name[32];

	snprintf(name, sizeof(name), "%.*s", open ? (int)(close - open - 1) : 0, open ? open + 1 : "");
	if (!strcmp(name, t->name))
		return;
	forget_all(t);
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->worker = worker_index(m, t);
	t->planned = !m->affinity && t->worker >= 0 && m->plan->bound
			     ? m->plan->pu[(unsigned)t->worker % m->plan->nworkers] : -1;
}

/* The stat fields after "(comm) ": state is field 3; utime 14, stime 15,
 * processor 39.  0, or -1 when the line is cut. */
static int stat_fields(const char *p, unsigned long *utime, unsigned long *stime, int *cpu)
{
	int i;

	for (i = 3; i < 14 && p; i++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	if (!p || sscanf(p, "%lu %lu", utime, stime) != 2)
		return -1;
	for (; i < 39 && p; i++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	return p && sscanf(p, "%d", cpu) == 1 ? 0 : -1;
}

/* Where the thread is bound: ONE, the single PU of its set (-1 a wider
 * set), read from its status (N its read_status answer). */
static void follow_binding(const struct monitor *m, struct thread_seen *t, int n, int one)
{
	if (m->affinity && n >= 0) {
		/* --pthreads: the preloaded library binds each thread to the
		 * PU the plan gives its creation, which the order threads
		 * appear in cannot tell (a skipped helper, a thread that ended
		 * unseen): planned on the plan's PU it is bound to, none on a
		 * wider set.  A new thread runs its first instants under its
		 * creator's binding: where it ran then is forgotten. */
		int pu = planned_pu(m->plan, one) ? one : -1;

		if (pu != t->planned && t->samples)
			forget_where(t);
		t->planned = pu;
	}
	if (one >= 0 && !t->bound) {
		/* Its bind point: where it ran before, and its move onto the
		 * PU, are no part of the placement. */
		forget_where(t);
		t->bound = true;
	}
}

static void sample_thread(struct monitor *m, pid_t pid, pid_t tid, double now)
{
	char dir[96], path[128], buf[1024], *p;
	uint64_t allowed[MAX_CPUS / 64];
	unsigned long utime, stime;
	struct thread_seen *t;
	int cpu, i, n, one = -1;
	FILE *f;

	snprintf(dir, sizeof(dir), "/proc/%d/task/%d", (int)pid, (int)tid);
	snprintf(path, sizeof(path), "%s/stat", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return;
	t = thread_find(m, pid, tid);
	if (!t)
		return;
	follow_name(m, t, buf, p);
	if (m->light || stat_fields(p + 2, &utime, &stime, &cpu) < 0)
		return;
	n = read_status(dir, t, allowed);
	for (i = 0; n == 1 && i < MAX_CPUS && one < 0; i++)
		if (in_set(allowed, i))
			one = i;
	follow_binding(m, t, n, one);
	t->utime = (double)utime / m->ticks_per_s;
	t->stime = (double)stime / m->ticks_per_s;
	/* On a CPU outside its own set, the set changed between the two
	 * reads (stat, then status): where it ran this time is not judged. */
	if (n > 0 && (cpu >= MAX_CPUS || in_set(allowed, cpu))) {
		t->samples++;
		if (t->last_cpu >= 0 && cpu != t->last_cpu)
			t->migrations++;
		if (cpu >= 0 && cpu < MAX_CPUS)
			t->seen[cpu / 64] |= 1ull << (cpu % 64);
		t->last_cpu = cpu;
		t->off += judged_pu(t) >= 0 && cpu != judged_pu(t);
	}
	if (!m->out)
		return;
	/* A thread names itself: quoted like any text field. */
	fprintf(m->out, "%.3f,thread,%d,", now, (int)tid);
	esc_csv(m->out, t->name, 0);
	fprintf(m->out, ",%d,%d,,,,,,,%.2f,%.2f,%lu,%lu\n", cpu, judged_pu(t), t->utime, t->stime,
		t->vcsw, t->ivcsw);
}

/* Every thread of PID, then of its children (fork and exec included). */
static void sample_process(struct monitor *m, pid_t pid, double now, int depth)
{
	char path[64], buf[4096], *p, *end;
	struct dirent *e;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);  /* O_CLOEXEC already */
	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0)
			continue;
		sample_thread(m, pid, tid, now);
		if (depth > 16)
			continue;
		snprintf(buf, sizeof(buf), "/proc/%d/task/%d/children", (int)pid, (int)tid);
		f = fopen(buf, "re");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		while (p && *p) {
			long child = strtol(p, &end, 10);

			if (end == p)
				break;
			sample_process(m, (pid_t)child, now, depth + 1);
			p = end;
		}
	}
	closedir(d);
}

static void sample(struct monitor *m)
{
	struct cpu_ticks now_t[MAX_CPUS];
	unsigned long long intr_now[MAX_CPUS], ctxt = 0, intr = 0;
	double now = now_s() - m->start;
	char *text = NULL;
	size_t len = 0;
	int c;

	if (m->series >= 0)
		m->out = open_memstream(&text, &len);
	/* A CPU whose line was damaged this time keeps its last counters. */
	memcpy(now_t, m->last, sizeof(now_t));
	if (read_stat(m, now_t, &ctxt, &intr) == 0) {
		read_interrupts(m, intr_now);
		for (c = 0; m->out && c < m->ncpus; c++) {
			const struct cpu_ticks *a = &m->last[c], *b = &now_t[c];
			double tot = (double)(cpu_ticks_total(b) - cpu_ticks_total(a));

			/* No tick counted on this CPU in the interval (one shorter
			 * than a tick): no shares, rather than zeros that read as
			 * a CPU never idle. */
			if (tot <= 0) {
				fprintf(m->out, "%.3f,cpu,%d,,%d,%d,,,,,,%llu,,,,\n", now, c, c, -1,
					intr_now[c] - m->intr[c]);
				continue;
			}
			fprintf(m->out, "%.3f,cpu,%d,,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%llu,,,,\n", now, c,
				c, -1, 100.0 * (double)(b->usr + b->nice - a->usr - a->nice) / tot,
				100.0 * (double)(b->sys - a->sys) / tot,
				100.0 * (double)(b->irq + b->softirq - a->irq - a->softirq) / tot,
				100.0 * (double)(b->idle + b->iowait - a->idle - a->iowait) / tot,
				100.0 * (double)(b->steal - a->steal) / tot, intr_now[c] - m->intr[c]);
		}
		memcpy(m->last, now_t, sizeof(now_t));
		memcpy(m->intr, intr_now, sizeof(intr_now));
		m->ctxt = ctxt;
		m->intr_total = intr;
	}
	sample_process(m, m->pid, now, 0);
	m->samples++;
	if (m->out) {
		/* One sample, whole, under the file's lock: concurrent runs on one
		 * file interleave samples, never lines. */
		if (fclose(m->out) == 0 && len)
			datafile_append(m->series, monitor_series_header, text, len);
		m->out = NULL;
		free(text);
	}
}

/* A walk that only finds new threads for their counters. */
static void discover(struct monitor *m)
{
	m->light = true;
	sample_process(m, m->pid, now_s() - m->start, 0);
	m->light = false;
}

/* A full sample every interval, the first one interval after the start: a
 * sample covers the interval before it, and one at the start would cover
 * none.  With --counters a walk that only finds new threads comes every
 * m->discover seconds between them (a new thread is counted from then on). */
static void *sampler(void *arg)
{
	struct monitor *m = arg;
	struct timespec ts, c0, c1;
	double next = m->start, next_full = m->start + m->interval, step, wait;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	step = m->ctr && (!m->full || m->discover < m->interval) ? m->discover : m->interval;
	pthread_mutex_lock(&m->mu);
	for (;;) {
		next += step;
		wait = next - now_s();
		if (wait < 0)
			wait = 0, next = now_s();
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)wait;
		ts.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!m->stop && pthread_cond_timedwait(&m->cv, &m->mu, &ts) != ETIMEDOUT)
			;
		if (m->stop)
			break;
		pthread_mutex_unlock(&m->mu);
		if (m->full && now_s() >= next_full - step / 2) {
			sample(m);
			next_full += m->interval;
		} else {
			discover(m);
		}
		pthread_mutex_lock(&m->mu);
	}
	pthread_mutex_unlock(&m->mu);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	m->cost_s = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
	return NULL;
}

struct monitor *monitor_start(pid_t pid, double interval, const struct pl_plan *plan,
			      bool affinity, int series, struct counters *ctr, char *err,
			      size_t errlen)
{
	struct monitor *m = calloc(1, sizeof(*m));
	unsigned long long ctxt = 0, intr = 0;
	sigset_t all, old;
	int rc;

	if (!m) {
		snprintf(err, errlen, "monitor: out of memory");
		return NULL;
	}
	m->pid = pid;
	m->full = interval > 0;
	m->interval = interval > 0 ? interval : MONITOR_DISCOVER_S;
	m->ctr = ctr;
	m->discover = MONITOR_DISCOVER_S;
	m->plan = plan;
	m->affinity = affinity;
	m->series = series;
	m->ticks_per_s = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	if (read_stat(m, m->first, &ctxt, &intr) < 0 || access("/proc/self/task", R_OK) < 0) {
		snprintf(err, errlen, "monitor: /proc cannot be read (%s); running without the monitor",
			 strerror(errno));
		free(m);
		return NULL;
	}
	memcpy(m->last, m->first, sizeof(m->first));
	read_interrupts(m, m->intr0);
	memcpy(m->intr, m->intr0, sizeof(m->intr0));
	m->ctxt0 = m->ctxt = ctxt;
	m->intr_total0 = m->intr_total = intr;
	m->start = now_s();
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	/* Signals are threadrun's main thread's business: the sampler starts
	 * with all of them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&m->thread, NULL, sampler, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		snprintf(err, errlen, "monitor: cannot start the sampler thread; running without it");
		free(m);
		return NULL;
	}
	m->running = true;
	return m;
}

void monitor_stop(struct monitor *m)
{
	if (!m || !m->running)
		return;
	pthread_mutex_lock(&m->mu);
	m->stop = true;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
	pthread_join(m->thread, NULL);
	m->running = false;
	m->end = now_s();
	counters_finish(m->ctr);
	/* The CPUs' totals over the whole run (the threads are gone now). */
	{
		unsigned long long ctxt = m->ctxt, intr = m->intr_total;

		read_stat(m, m->last, &ctxt, &intr);
		m->ctxt = ctxt;
		m->intr_total = intr;
		read_interrupts(m, m->intr);
	}
}

struct cpu_pct {
	double usr, sys, irq, idle, steal, busy;
};

static struct cpu_pct cpu_share(const struct monitor *m, int c)
{
	const struct cpu_ticks *a = &m->first[c], *b = &m->last[c];
	double tot = (double)(cpu_ticks_total(b) - cpu_ticks_total(a));
	struct cpu_pct p = { 0 };

	if (tot <= 0)
		return p;
	p.usr = 100.0 * (double)(b->usr + b->nice - a->usr - a->nice) / tot;
	p.sys = 100.0 * (double)(b->sys - a->sys) / tot;
	p.irq = 100.0 * (double)(b->irq + b->softirq - a->irq - a->softirq) / tot;
	p.idle = 100.0 * (double)(b->idle + b->iowait - a->idle - a->iowait) / tot;
	p.steal = 100.0 * (double)(b->steal - a->steal) / tot;
	p.busy = 100.0 - p.idle;
	return p;
}

void monitor_summarise(const struct monitor *m, struct monitor_summary *s)
{
	double usr = 0, sys = 0, steal_ticks = 0, all_ticks = 0;
	size_t used = 0, i;
	int c;

	memset(s, 0, sizeof(*s));
	s->samples = m->samples;
	for (i = 0; i < m->nthreads; i++) {
		const struct thread_seen *t = &m->threads[i];

		/* A main thread that only supervises (named "-main") is no worker:
		 * its moves say nothing about the placement. */
		if (t->worker >= 0)
			s->migrations += t->migrations;
		s->off_plan += t->off;
		s->threads_off_plan += t->off > 0;
		usr += t->utime;
		sys += t->stime;
	}
	s->sys_share = usr + sys > 0 ? 100.0 * sys / (usr + sys) : 0;
	for (c = 0; c < m->ncpus; c++) {
		const struct cpu_ticks *a = &m->first[c], *b = &m->last[c];
		struct cpu_pct p = cpu_share(m, c);

		steal_ticks += (double)(b->steal - a->steal);
		all_ticks += (double)(cpu_ticks_total(b) - cpu_ticks_total(a));
		if (m->plan->bound && !planned_pu(m->plan, c) && p.busy > BUSY_UNPLANNED_PCT)
			s->busy_unplanned++;
	}
	s->steal_pct = all_ticks > 0 ? 100.0 * steal_ticks / all_ticks : 0;
	s->cost_pct = m->end > m->start ? 100.0 * m->cost_s / (m->end - m->start) : 0;
#define WARN(...) \
	used += (size_t)snprintf(s->warnings + used, used < sizeof(s->warnings) ? sizeof(s->warnings) - used : 0, __VA_ARGS__)
	if (s->threads_off_plan)
		WARN("%u thread%s seen off %s planned PU (%lu sample%s); ", s->threads_off_plan,
		     s->threads_off_plan == 1 ? "" : "s", s->threads_off_plan == 1 ? "its" : "their",
		     s->off_plan, s->off_plan == 1 ? "" : "s");
	if (s->busy_unplanned)
		WARN("%u CPU(s) busy though no worker was planned there (other load on the machine?); ",
		     s->busy_unplanned);
	if (s->steal_pct >= 1.0)
		WARN("steal %.1f%% (a noisy virtual machine); ", s->steal_pct);
#undef WARN
	if (used >= 2 && used < sizeof(s->warnings))
		s->warnings[used - 2] = '\0';
}

static void format_seen(const struct thread_seen *t, char *buf, size_t len)
{
	size_t used = 0;
	int c, n;

	buf[0] = '\0';
	for (c = 0; c < MAX_CPUS; c++)
		if (t->seen[c / 64] & (1ull << (c % 64))) {
			n = snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
			if (n < 0 || (size_t)n >= len - used)
				return;
			used += (size_t)n;
		}
}

void monitor_print(const struct monitor *m, FILE *out, bool quiet)
{
	struct monitor_summary s;
	double secs = m->end - m->start;
	char seen[128], planned[16];
	size_t i;
	int c;

	monitor_summarise(m, &s);
	if (!quiet) {
		fprintf(out, "monitor: %u sample%s over %.2f s, %.0f context switches/s, %.0f interrupts/s; sampler cost %.2f%% of one CPU\n",
			s.samples, s.samples == 1 ? "" : "s", secs, secs > 0 ? (double)(m->ctxt - m->ctxt0) / secs : 0,
			secs > 0 ? (double)(m->intr_total - m->intr_total0) / secs : 0, s.cost_pct);
		fprintf(out, "%-5s %7s %7s %7s %7s %7s %9s %8s\n", "CPU", "%usr", "%sys", "%irq", "%steal",
			"%idle", "intr/s", "planned");
		for (c = 0; c < m->ncpus; c++) {
			struct cpu_pct p = cpu_share(m, c);

			fprintf(out, "%-5d %7.1f %7.1f %7.1f %7.1f %7.1f %9.0f %8s%s\n", c, p.usr, p.sys,
				p.irq, p.steal, p.idle, secs > 0 ? (double)(m->intr[c] - m->intr0[c]) / secs : 0,
				planned_pu(m->plan, c) ? "yes" : "-",
				m->plan->bound && !planned_pu(m->plan, c) && p.busy > BUSY_UNPLANNED_PCT
					? "  BUSY, not planned" : "");
		}
		fprintf(out, "%-8s %-16s %7s %7s %-12s %5s %8s %8s %8s %8s\n", "TID", "name", "worker",
			"planned", "seen on", "migr", "vcsw", "ivcsw", "usr s", "sys s");
		for (i = 0; i < m->nthreads; i++) {
			const struct thread_seen *t = &m->threads[i];

			format_seen(t, seen, sizeof(seen));
			snprintf(planned, sizeof(planned), "%d", judged_pu(t));
			fprintf(out, "%-8d %-16s %7d %7s %-12s %5lu %8lu %8lu %8.2f %8.2f%s\n", (int)t->tid,
				t->name, t->worker, judged_pu(t) >= 0 ? planned : "-", seen, t->migrations,
				t->vcsw, t->ivcsw, t->utime, t->stime, t->off ? "  OFF PLAN" : "");
		}
	}
	if (s.warnings[0])
		fprintf(out, "monitor: warning: %s\n", s.warnings);
}

void monitor_free(struct monitor *m)
{
	if (!m)
		return;
	monitor_stop(m);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cv);
	free(m->threads);
	free(m);
}

/* One event's figure in the counters table: seconds for task-clock, a
 * count else; "-" when not counted. */
static void counter_cell(FILE *out, const struct counter_ev *e, double v, int width)
{
	if (v < 0)
		fprintf(out, " %*s", width, "-");
	else if (e->col == RC_TASK_CLOCK_S)
		fprintf(out, " %*.3f", width, v);
	else
		fprintf(out, " %*.0f", width, v);
}

static int counter_width(const struct counter_ev *e)
{
	size_t n = strlen(e->name);

	return n > 16 ? 12 : n < 10 ? 10 : (int)n;
}

static void counter_header(FILE *out, const struct counters_spec *s)
{
	unsigned i;

	fprintf(out, "%-8s %-16s %6s", "TID", "name", "worker");
	for (i = 0; i < s->n; i++) {
		char head[24];

		if (strlen(s->ev[i].name) > 16)
			snprintf(head, sizeof(head), "ev%u", i);
		else
			snprintf(head, sizeof(head), "%s", s->ev[i].name);
		fprintf(out, " %*s", counter_width(&s->ev[i]), head);
	}
	fprintf(out, " %6s %8s\n", "ipc", "counted%");
}

/* IPC from event values (n/a without cycles or instructions). */
static void ipc_cell(FILE *out, const struct counters_spec *s, double cycles, double instr)
{
	struct counts_in in = { .cycles = cycles, .instructions = instr,
				.bytes = -1, .ops = -1, .flops = -1 };
	struct counts_derived d;
	char buf[24];

	(void)s;
	counts_derive(&in, &d);
	fprintf(out, " %6s", counts_format(d.ipc, buf, sizeof(buf)));
}

/* One thread's line of the table: its least share of time counted. */
static double counter_thread_line(const struct monitor *m, const struct thread_seen *t,
				  int ci, int ii, FILE *out)
{
	const struct counters_spec *s = counters_spec_of(m->ctr);
	double share = counters_share(m->ctr, t->cnt);
	unsigned i;

	fprintf(out, "%-8d %-16s %6d", (int)t->tid, t->name, t->worker);
	for (i = 0; i < s->n; i++)
		counter_cell(out, &s->ev[i], counters_value(m->ctr, t->cnt, i),
			     counter_width(&s->ev[i]));
	ipc_cell(out, s, ci >= 0 ? counters_value(m->ctr, t->cnt, (unsigned)ci) : -1,
		 ii >= 0 ? counters_value(m->ctr, t->cnt, (unsigned)ii) : -1);
	fprintf(out, " %7.1f%%\n", 100.0 * share);
	return share;
}

/* What the inherited totals hold beyond the threads' own counts: the
 * moments before a thread was seen, and threads never seen. */
static void counter_unseen_line(const struct monitor *m, FILE *out)
{
	const struct counters_spec *s = counters_spec_of(m->ctr);
	unsigned i;
	size_t k;

	fprintf(out, "%-8s %-16s %6s", "-", "(before seen)", "-");
	for (i = 0; i < s->n; i++) {
		double total = counters_total(m->ctr, i), sum = 0;

		for (k = 0; k < m->nthreads; k++)
			if (m->threads[k].cnt && counters_value(m->ctr, m->threads[k].cnt, i) > 0)
				sum += counters_value(m->ctr, m->threads[k].cnt, i);
		counter_cell(out, &s->ev[i], s->ev[i].hw || total < 0 ? -1 : total > sum ? total - sum : 0,
			     counter_width(&s->ev[i]));
	}
	fprintf(out, " %6s %8s\n", "", "");
}

void monitor_print_counters(const struct monitor *m, FILE *out)
{
	const struct counters_spec *s;
	int ci, ii, e;
	double least = 1, share;
	unsigned i, failed;
	size_t k;

	if (!m || !m->ctr)
		return;
	s = counters_spec_of(m->ctr);
	ci = counters_find(s, RC_CYCLES);
	ii = counters_find(s, RC_INSTRUCTIONS);
	fprintf(out, "counters: every thread from when threadrun first saw it (walks every %.0f ms), task-clock in s\n",
		m->discover * 1e3);
	for (i = 0; i < s->n; i++)
		if (strlen(s->ev[i].name) > 16)
			fprintf(out, "counters: ev%u is %s\n", i, s->ev[i].name);
	counter_header(out, s);
	for (k = 0; k < m->nthreads; k++) {
		if (!m->threads[k].cnt)
			continue;
		share = counter_thread_line(m, &m->threads[k], ci, ii, out);
		if (share < least)
			least = share;
	}
	counter_unseen_line(m, out);
	fprintf(out, "%-8s %-16s %6s", "-", "(total)", "-");
	for (i = 0; i < s->n; i++)
		counter_cell(out, &s->ev[i], counters_total(m->ctr, i), counter_width(&s->ev[i]));
	ipc_cell(out, s, ci >= 0 ? counters_total(m->ctr, (unsigned)ci) : -1,
		 ii >= 0 ? counters_total(m->ctr, (unsigned)ii) : -1);
	fprintf(out, " %7.1f%%\n", 100.0 * least);
	failed = counters_failed(m->ctr, &e);
	if (failed)
		fprintf(out, "counters: warning: %u thread%s could not be counted (%s): only the totals hold them\n",
			failed, failed == 1 ? "" : "s", strerror(e));
	if (least < 1)
		fprintf(out, "counters: multiplexed: more events than the PMU has counters; each count is scaled by time enabled / time running (the least share %.1f%%)\n",
			100.0 * least);
}

struct counters *monitor_counters(const struct monitor *m)
{
	return m ? m->ctr : NULL;
}
