/* The worker API (worker.h): threads, placement, the start, timing, rows. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "placement.h"
#include "timing.h"
#include "units.h"
#include "worker.h"

/* A barrier whose party count can shrink, so a failed pthread_create
 * cannot leave the started workers waiting forever. */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned expected, arrived, generation;
};

static void gate_init(struct gate *g, unsigned expected)
{
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->expected = expected;
	g->arrived = 0;
	g->generation = 0;
}

static void gate_release_locked(struct gate *g)
{
	g->arrived = 0;
	g->generation++;
	pthread_cond_broadcast(&g->cv);
}

static void gate_wait(struct gate *g)
{
	unsigned gen;

	pthread_mutex_lock(&g->mu);
	gen = g->generation;
	if (++g->arrived >= g->expected)
		gate_release_locked(g);
	else
		while (gen == g->generation)
			pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

static void gate_set_expected(struct gate *g, unsigned expected)
{
	pthread_mutex_lock(&g->mu);
	g->expected = expected;
	if (g->arrived && g->arrived >= expected)
		gate_release_locked(g);
	pthread_mutex_unlock(&g->mu);
}

static void gate_destroy(struct gate *g)
{
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
}

/* Per worker, read by the main thread after the join. */
struct slot {
	struct worker w;
	pthread_t thread;
	double end;
	bool failed;
	bool counting;          /* ct holds its counters (THREADRUN_COUNTERS) */
	struct counts_thread ct;
	int cpu;                /* where it was when it failed */
	char err[256];
};

struct worker_shared {
	const struct worker_params *p;
	struct gate ready, start, end;
	const struct counts_spec *counts;       /* the events each worker counts */
	atomic_int stop;        /* workers stop taking work */
	atomic_int abort;       /* a worker failed before the start */
	atomic_int cancelled;   /* a signal ends the run unmeasured */
	atomic_uint finished;
};

atomic_int *worker_stop_flag(struct worker *w)
{
	return &w->sh->stop;
}

bool worker_stopping(struct worker *w)
{
	return atomic_load_explicit(&w->sh->stop, memory_order_relaxed);
}

bool worker_cancelled(struct worker *w)
{
	return atomic_load(&w->sh->abort) || atomic_load(&w->sh->cancelled);
}

void worker_sample(struct worker *w)
{
	cpu_track_sample(w->track);
}

static void fail(struct slot *s, const char *err)
{
	s->failed = true;
	s->cpu = pl_thread_get_cpu();
	snprintf(s->err, sizeof(s->err), "%s", err);
	atomic_store(&s->w.sh->stop, 1);
}

/* threadrun --monitor tells workers apart by these names: NAME-wN, and
 * NAME-main for a main thread that only supervises (at most 15
 * characters, the kernel's limit). */
static void name_thread(const char *workload, int index)
{
	char name[16];

	if (index < 0)
		snprintf(name, sizeof(name), "%s-main", workload);
	else
		snprintf(name, sizeof(name), "%s-w%d", workload, index);
	pthread_setname_np(pthread_self(), name);
}

void worker_main_thread(const char *workload)
{
	name_thread(workload, -1);
}

static int bind_planned(int pu, char *err, size_t errlen)
{
	if (pu >= 0 && pl_thread_bind((unsigned)pu) < 0) {
		snprintf(err, errlen, "cannot bind to PU %d: %s", pu, strerror(errno));
		return -1;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct slot *s = arg;
	struct worker *w = &s->w;
	struct worker_shared *sh = w->sh;
	const struct worker_ops *ops = sh->p->ops;
	bool set_up = false;
	char err[256];
	int bound;

	/* Bound before it takes a worker's name: a monitor judges the thread
	 * from its name on. */
	bound = bind_planned(w->pu, err, sizeof(err));
	name_thread(ops->name, (int)w->index);
	if (bound < 0)
		goto init_failed;
	cpu_track_sample(w->track);
	set_up = true;
	if (ops->setup && ops->setup(w, err, sizeof(err)) < 0)
		goto init_failed;
	/* Counted from the common start to this worker's end, as timed. */
	if (sh->counts->n) {
		counts_thread_open(sh->counts, &s->ct);
		s->counting = true;
	}
	gate_wait(&sh->ready);
	gate_wait(&sh->start);
	if (s->counting)
		counts_thread_enable(&s->ct, true);
	if (!atomic_load(&sh->abort) && ops->run(w, err, sizeof(err)) < 0)
		fail(s, err);
	if (s->counting)
		counts_thread_enable(&s->ct, false);
	s->end = now_s();
	cpu_track_sample(w->track);
	goto done;

init_failed:
	fail(s, err);
	atomic_store(&sh->abort, 1);
	gate_wait(&sh->ready);
	gate_wait(&sh->start);
	s->end = now_s();
done:
	atomic_fetch_add(&sh->finished, 1);
	gate_wait(&sh->end);
	if (set_up && ops->teardown)
		ops->teardown(w);
	return NULL;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* Read /proc/stat for the planned PUs of N workers (every usable PU when
 * unbound): the marks around a measurement window. */
static void watch_load(const struct run_env *env, unsigned n, struct cpuload_mark *mark)
{
	cpuload_mark(mark, env->plan, env->plan ? (n < env->nplan ? n : env->nplan) : 0);
}

/* Under threadrun-mpi, wait for the release of the measurement of N
 * workers named LABEL with every rank's (gate.h): its start_sync. */
static enum start_sync cluster_release(const char *workload, const struct run_env *env,
				       unsigned n, const char *label,
				       volatile sig_atomic_t *interrupted)
{
	char *key;
	int ready;

	if (!gate_open())
		return START_SYNC_NONE;
	/* What ranks must share to start together: one measurement. */
	if (asprintf(&key, "%s|%s|%u|%s|%u|%s", workload, env->config ? env->config : "", n,
		     env->policy ? env->policy : "", env->repeat, label ? label : "") < 0)
		return START_SYNC_NO;
	ready = gate_ready(key, interrupted);
	free(key);
	return start_sync_of(ready);
}

/*
 * The one common start barrier.  Every worker set up (or failed to) when
 * the ready gate opens; under threadrun-mpi the cluster's release comes
 * next, untimed; then the clock starts and the start gate lets them all
 * go.  Returns the start time and sets the CPU times it starts from.
 */
static double common_start(struct worker_shared *sh, struct cpuload_mark *mark, double *u0,
			   double *s0, struct worker_result *r)
{
	const struct worker_params *p = sh->p;
	double start;

	gate_wait(&sh->ready);
	if (atomic_load(&sh->abort))
		atomic_store(&sh->stop, 1);
	/* Asked even when this measurement failed to set up: every rank
	 * numbers its measurements alike. */
	r->start_sync = cluster_release(p->ops->name, p->env, p->nworkers, p->label,
					p->interrupted);
	watch_load(p->env, p->nworkers, mark);
	cpu_times(u0, s0);
	start = now_s();
	r->t_start_us = epoch_us();
	gate_wait(&sh->start);
	return start;
}

/* The main thread between start and end: time the run, and turn a signal
 * into a stop. */
static void supervise(struct worker_shared *sh, double start, unsigned created,
		      struct worker_result *r)
{
	const struct worker_params *p = sh->p;
	double left;

	for (;;) {
		if (atomic_load(&sh->finished) >= created)
			return;
		if (p->interrupted && *p->interrupted) {
			r->interrupted = true;
			atomic_store(&sh->cancelled, 1);
			atomic_store(&sh->stop, 1);
			return;
		}
		if (p->seconds > 0) {
			left = start + p->seconds - now_s();
			if (left <= 0) {
				atomic_store(&sh->stop, 1);
				return;
			}
			nap(left < 0.02 ? left : 0.02);
		} else {
			nap(0.005);
		}
	}
}

/* After the join: the wall time, the first failure, each worker's counts
 * and their sum. */
static void summarise(struct slot *slots, unsigned created, double start,
		      struct worker_result *r)
{
	double end = start;
	unsigned i;

	r->ok = created == r->nworkers;
	for (i = 0; i < created; i++) {
		if (slots[i].counting) {
			r->worker_counts[i].spec = r->counts.spec;
			counts_thread_take(&slots[i].ct, &r->worker_counts[i]);
			counts_sum_add(&r->counts, &r->worker_counts[i]);
		}
		if (slots[i].end > end)
			end = slots[i].end;
		if (slots[i].failed && (r->ok || !r->err[0])) {
			r->ok = false;
			snprintf(r->err, sizeof(r->err), "worker %u on CPU %d: %s", i, slots[i].cpu,
				 slots[i].err);
		}
	}
	r->wall_s = end - start;
}

/* One thread per worker; a failed pthread_create stops the ones started,
 * which the gates then wait for alone.  Returns how many started. */
static unsigned start_workers(struct worker_shared *sh, struct slot *slots,
			      struct worker_result *r)
{
	const struct worker_params *p = sh->p;
	unsigned i, created = 0;
	int err;

	for (i = 0; i < p->nworkers; i++) {
		slots[i].w = (struct worker){ .index = i, .pu = run_env_planned(p->env, i),
					      .arg = p->arg, .track = &r->tracks[i], .sh = sh };
		cpu_track_init(&r->tracks[i], slots[i].w.pu);
		err = pthread_create(&slots[i].thread, NULL, worker_main, &slots[i]);
		if (err) {
			snprintf(r->err, sizeof(r->err), "cannot start worker %u of %u: %s", i,
				 p->nworkers, strerror(err));
			atomic_store(&sh->abort, 1);
			atomic_store(&sh->stop, 1);
			break;
		}
		created++;
	}
	r->created = created;
	gate_set_expected(&sh->ready, created + 1);
	gate_set_expected(&sh->start, created + 1);
	gate_set_expected(&sh->end, created + 1);
	return created;
}

int worker_run(const struct worker_params *p, struct worker_result *r)
{
	struct worker_shared sh = { .p = p };
	struct slot *slots;
	struct cpuload_mark mark0, mark1;
	double start, u0, s0, u1, s1;
	unsigned i, created;

	memset(r, 0, sizeof(*r));
	r->nworkers = p->nworkers;
	/* Malformed: not counted (threadrun writes it; a hand-set one is the
	 * user's). */
	counts_spec_parse(getenv(ENV_COUNTERS), &r->counts.spec);
	sh.counts = &r->counts.spec;
	worker_main_thread(p->ops->name);
	slots = calloc(p->nworkers, sizeof(*slots));
	r->tracks = calloc(p->nworkers, sizeof(*r->tracks));
	if (r->counts.spec.n)
		r->worker_counts = calloc(p->nworkers, sizeof(*r->worker_counts));
	if (!slots || !r->tracks || (r->counts.spec.n && !r->worker_counts)) {
		snprintf(r->err, sizeof(r->err), "out of memory for %u workers", p->nworkers);
		free(slots);
		return -1;
	}
	gate_init(&sh.ready, p->nworkers + 1);
	gate_init(&sh.start, p->nworkers + 1);
	gate_init(&sh.end, p->nworkers + 1);
	created = start_workers(&sh, slots, r);
	start = common_start(&sh, &mark0, &u0, &s0, r);
	r->started = !atomic_load(&sh.abort);
	if (r->started)
		supervise(&sh, start, created, r);
	else
		atomic_store(&sh.stop, 1);
	gate_wait(&sh.end);
	cpu_times(&u1, &s1);
	watch_load(p->env, p->nworkers, &mark1);
	r->user_s = u1 - u0;
	r->sys_s = s1 - s0;
	cpuload_span_add(&r->load, &mark0, &mark1, r->user_s + r->sys_s);
	for (i = 0; i < created; i++)
		pthread_join(slots[i].thread, NULL);
	summarise(slots, created, start, r);
	/* The end on the same clock as wall_s: t_end - t_start is wall_s. */
	r->t_end_us = r->t_start_us + llround(r->wall_s * 1e6);
	gate_destroy(&sh.ready);
	gate_destroy(&sh.start);
	gate_destroy(&sh.end);
	free(slots);
	return r->ok ? 0 : -1;
}

void worker_result_free(struct worker_result *r)
{
	free(r->tracks);
	r->tracks = NULL;
	free(r->worker_counts);
	r->worker_counts = NULL;
}

/* OpenMP teams ------------------------------------------------------------ */

int worker_team_init(struct worker_team *t, const char *name, const struct run_env *env,
		     unsigned n, char *err, size_t errlen)
{
	unsigned i;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->env = env;
	t->n = n;
	t->tracks = calloc(n, sizeof(*t->tracks));
	if (!t->tracks) {
		snprintf(err, errlen, "out of memory for %u workers", n);
		return -1;
	}
	for (i = 0; i < n; i++)
		cpu_track_init(&t->tracks[i], run_env_planned(env, i));
	counts_spec_parse(getenv(ENV_COUNTERS), &t->counts.spec);
	if (t->counts.spec.n) {
		t->ct = calloc(n, sizeof(*t->ct));
		t->worker_counts = calloc(n, sizeof(*t->worker_counts));
		if (!t->ct || !t->worker_counts) {
			snprintf(err, errlen, "out of memory for %u workers' counters", n);
			free(t->ct);    /* no descriptor in it yet */
			t->ct = NULL;
			worker_team_free(t);
			return -1;
		}
		for (i = 0; i < n; i++)
			for (unsigned k = 0; k < COUNTS_MAX; k++)
				t->ct[i].fd[k] = -1;
	}
	return 0;
}

void worker_team_enter(struct worker_team *t, unsigned index)
{
	char err[256];
	int expected = 0;

	if (index >= t->n)
		return;
	name_thread(t->name, (int)index);
	if (bind_planned(t->tracks[index].planned, err, sizeof(err)) < 0 &&
	    atomic_compare_exchange_strong(&t->failed, &expected, 1))
		snprintf(t->err, sizeof(t->err), "worker %u: %s", index, err);
	cpu_track_sample(&t->tracks[index]);
	/* On itself, from inside: worker_team_begin() and _end() switch them. */
	if (t->ct && t->ct[index].fd[0] < 0)
		counts_thread_open(&t->counts.spec, &t->ct[index]);
}

/* Switch every team thread's counters (any thread may, by descriptor). */
static void team_counting(struct worker_team *t, bool on)
{
	unsigned i;

	for (i = 0; t->ct && i < t->n; i++)
		counts_thread_enable(&t->ct[i], on);
}

void worker_team_sample(struct worker_team *t, unsigned index)
{
	if (index < t->n)
		cpu_track_sample(&t->tracks[index]);
}

int worker_team_check(const struct worker_team *t, char *err, size_t errlen)
{
	if (!atomic_load(&t->failed))
		return 0;
	snprintf(err, errlen, "%s", t->err);
	return -1;
}

void worker_team_begin(struct worker_team *t)
{
	/* The first timed part is the measurement's start. */
	if (!t->t_start_us)
		t->start_sync = cluster_release(t->name, t->env, t->n, t->label, NULL);
	watch_load(t->env, t->n, &t->mark0);
	cpu_times(&t->u0, &t->s0);
	t->t0 = now_s();
	if (!t->t_start_us)
		t->t_start_us = epoch_us();
	team_counting(t, true);
}

double worker_team_end(struct worker_team *t)
{
	double secs = now_s() - t->t0, u, s;
	struct cpuload_mark mark1;

	team_counting(t, false);
	t->t_end_us = epoch_us();
	cpu_times(&u, &s);
	watch_load(t->env, t->n, &mark1);
	t->wall_s += secs;
	t->user_s += u - t->u0;
	t->sys_s += s - t->s0;
	cpuload_span_add(&t->load, &t->mark0, &mark1, u - t->u0 + s - t->s0);
	return secs;
}

const struct counts_sum *worker_team_counts(struct worker_team *t, double share)
{
	unsigned i;

	if (!t->ct)
		return NULL;
	if (!t->counts.threads && !t->counts.failed) {
		for (i = 0; i < t->n; i++) {
			t->worker_counts[i].spec = t->counts.spec;
			counts_thread_take(&t->ct[i], &t->worker_counts[i]);
			counts_sum_scale(&t->worker_counts[i], share);
			counts_sum_add(&t->counts, &t->worker_counts[i]);
		}
	}
	return &t->counts;
}

void worker_team_free(struct worker_team *t)
{
	unsigned i;

	for (i = 0; t->ct && i < t->n; i++) {
		counts_thread_enable(&t->ct[i], false);
		for (unsigned k = 0; k < COUNTS_MAX; k++)
			if (t->ct[i].fd[k] >= 0)
				close(t->ct[i].fd[k]);
	}
	free(t->ct);
	t->ct = NULL;
	free(t->worker_counts);
	t->worker_counts = NULL;
	free(t->tracks);
	t->tracks = NULL;
}

/* Rows -------------------------------------------------------------------- */

/* Tell threadrun one more row was written (runenv.h, ENV_ROWS_FD). */
static void count_row(const struct run_env *env)
{
	ssize_t w;

	if (env->rows_fd < 0)
		return;
	do
		w = write(env->rows_fd, "1\n", 2);
	while (w < 0 && errno == EINTR);
}

/* Which rank of which job wrote the row, and the PUs it was given. */
static void set_identity(const struct run_env *env, struct results_row *row)
{
	const struct launcher_id *id = &env->id;

	if (env->cpuset)
		results_row_set(row, RC_CPUSET, "%s", env->cpuset);
	if (!id->launcher)
		return;
	results_row_set(row, RC_LAUNCHER, "%s", id->launcher);
	if (id->job)
		results_row_set(row, RC_JOB, "%s", id->job);
	if (id->rank >= 0)
		results_row_set(row, RC_RANK, "%ld", id->rank);
	if (id->ranks >= 0)
		results_row_set(row, RC_RANKS, "%ld", id->ranks);
	if (id->local_rank >= 0)
		results_row_set(row, RC_LOCAL_RANK, "%ld", id->local_rank);
}

/* Add WHAT to the row's note: 0, or -1 out of memory. */
static int add_note(struct results_row *row, const char *what)
{
	const char *note = results_row_get(row, RC_NOTE);

	if (note && *note)
		return results_row_set(row, RC_NOTE, "%s; %s", note, what);
	return results_row_set(row, RC_NOTE, "%s", what);
}

/* Rows of this process, numbered in the order they are written (seq). */
static atomic_uint rows_written;

/* Where the workers ran and what they counted: 0, or -1 with ERR. */
static int set_workers(struct results_row *row, const struct worker_row *wr, char *err,
		       size_t errlen)
{
	const struct cpu_track **tp = NULL;
	unsigned i;
	int ret = -1;

	if (wr->tracks) {
		tp = calloc(wr->nworkers ? wr->nworkers : 1, sizeof(*tp));
		if (!tp) {
			snprintf(err, errlen, "out of memory for a row of %u workers", wr->nworkers);
			return -1;
		}
		for (i = 0; i < wr->nworkers; i++)
			tp[i] = &wr->tracks[i];
	}
	run_env_set_placement(wr->env, wr->nworkers, tp, row);
	if (wr->counts && wr->counts->spec.n && (wr->counts->threads || wr->counts->failed))
		counts_row(wr->counts, row);
	if (wr->counts && wr->counts->spec.n && wr->worker_counts &&
	    counts_row_workers(wr->worker_counts, wr->worker_work, wr->nworkers, row) < 0) {
		snprintf(err, errlen, "out of memory for a row's per-worker counts");
		goto out;
	}
	ret = 0;
out:
	free(tp);
	return ret;
}

/* When and how long it ran, and what else ran then: 0, or -1 with ERR. */
static int set_times(struct results_row *row, const struct worker_row *wr, char *err,
		     size_t errlen)
{
	/* Significant digits, not decimals: a short wall time (one STREAM
	 * iteration) must still give back its rate. */
	results_row_set(row, RC_WALL_S, "%.9g", wr->wall_s);
	results_row_set(row, RC_USER_S, "%.6f", wr->user_s);
	results_row_set(row, RC_SYS_S, "%.6f", wr->sys_s);
	if (wr->t_start_us > 0 && wr->t_end_us >= wr->t_start_us) {
		results_row_set(row, RC_T_START, "%lld", wr->t_start_us);
		results_row_set(row, RC_T_END, "%lld", wr->t_end_us);
	}
	if (wr->load) {
		struct cpuload l = cpuload_figures(wr->load);

		/* Unknown (no /proc/stat) stays empty, never a failure. */
		if (!isnan(l.steal_pct))
			results_row_set(row, RC_STEAL_PCT, "%.2f", l.steal_pct);
		if (!isnan(l.others_pct))
			results_row_set(row, RC_OTHERS_PCT, "%.2f", l.others_pct);
	}
	if (start_sync_text(wr->start_sync))
		results_row_set(row, RC_START_SYNC, "%s", start_sync_text(wr->start_sync));
	if (wr->start_sync == START_SYNC_NO && add_note(row, "start not synchronised across ranks") < 0) {
		snprintf(err, errlen, "out of memory for a row's note");
		return -1;
	}
	return 0;
}

int worker_row_append(const char *path, struct results_row *row, const struct worker_row *wr,
		      char *err, size_t errlen)
{
	const struct unit_props *unit = unit_find(results_row_get(row, RC_UNIT));
	double amount;

	results_row_provenance(row, wr->versions);
	results_row_set(row, RC_WORKLOAD, "%s", wr->workload);
	if (set_workers(row, wr, err, errlen) < 0)
		return -1;
	if (wr->env->run)
		results_row_set(row, RC_RUN, "%s", wr->env->run);
	if (wr->env->config)
		results_row_set(row, RC_CONFIG, "%s", wr->env->config);
	results_row_set(row, RC_SEQ, "%u", wr->seq ? *wr->seq : atomic_fetch_add(&rows_written, 1));
	set_identity(wr->env, row);
	if (set_times(row, wr, err, errlen) < 0)
		return -1;
	results_row_set(row, RC_STATUS, "%d", wr->status);
	if (!row->val[RC_RATE]) {
		amount = results_row_num(row, unit ? unit->work : RC_OPS);
		results_row_set(row, RC_RATE, "%.6g", wr->wall_s > 0 && amount == amount ?
				amount / wr->wall_s : 0.0);
	}
	if (results_append(path, row, err, errlen) < 0)
		return -1;
	count_row(wr->env);
	/* What the rate divides, whatever its unit: rate x wall. */
	gate_row(results_row_num(row, RC_RATE) * wr->wall_s, results_row_get(row, RC_UNIT), wr->wall_s,
		 wr->t_start_us, wr->t_end_us, wr->status);
	return 0;
}

struct worker_row worker_row_of_result(const char *workload, const struct run_env *env,
				       const struct worker_result *r, double wall_s)
{
	double share = r->wall_s > 0 ? wall_s / r->wall_s : 1;

	return (struct worker_row){
		.workload = workload, .env = env, .nworkers = r->nworkers, .tracks = r->tracks,
		.wall_s = wall_s, .user_s = r->user_s * share, .sys_s = r->sys_s * share,
		.load = &r->load, .start_sync = r->start_sync,
		.t_start_us = r->t_start_us, .t_end_us = r->t_end_us,
		.counts = wall_s == r->wall_s ? &r->counts : NULL,
		.worker_counts = wall_s == r->wall_s ? r->worker_counts : NULL,
	};
}

struct worker_row worker_row_of_team(struct worker_team *t, const struct run_env *env,
				     double wall_s)
{
	double share = t->wall_s > 0 ? wall_s / t->wall_s : 1;

	return (struct worker_row){
		.workload = t->name, .env = env, .nworkers = t->n, .tracks = t->tracks,
		.wall_s = wall_s, .user_s = t->user_s * share, .sys_s = t->sys_s * share,
		.load = &t->load, .start_sync = t->start_sync,
		.t_start_us = t->t_start_us, .t_end_us = t->t_end_us,
		/* Each thread's too; its share of the work is not known. */
		.counts = worker_team_counts(t, share), .worker_counts = t->worker_counts,
	};
}

int worker_row_latency(struct results_row *row, const struct histogram *merged,
		       struct histogram *const *workers, unsigned nworkers, uint64_t batch)
{
	static const struct { enum results_col col; double p; } cols[] = {
		{ RC_LAT_P50_S, 50 }, { RC_LAT_P90_S, 90 }, { RC_LAT_P99_S, 99 },
		{ RC_LAT_P999_S, 99.9 }, { RC_LAT_MAX_S, 100 },
	};
	const double per = 1e-9 / (double)(batch ? batch : 1);
	char *list = NULL;
	size_t len = 0, i;
	FILE *f;
	int ret = -1;

	results_row_set(row, RC_LAT_BATCH, "%llu", (unsigned long long)(batch ? batch : 1));
	results_row_set(row, RC_LAT_N, "%llu", (unsigned long long)merged->count);
	for (i = 0; merged->count && i < sizeof(cols) / sizeof(cols[0]); i++)
		results_row_set(row, cols[i].col, "%.6g", histogram_percentile(merged, cols[i].p) * per);
	f = open_memstream(&list, &len);
	if (!f)
		return -1;
	for (i = 0; i < nworkers; i++) {
		const struct histogram *h = workers ? workers[i] : NULL;

		if (i)
			fputc(',', f);
		if (h && h->count)
			fprintf(f, "%.6g/%.6g/%.6g", histogram_percentile(h, 50) * per,
				histogram_percentile(h, 99) * per, histogram_max(h) * per);
		else
			fputc('-', f);
	}
	if (fclose(f) == 0 && list && results_row_set(row, RC_LAT_WORKERS, "%s", list) == 0)
		ret = 0;
	free(list);
	return ret;
}
