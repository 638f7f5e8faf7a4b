/* Threads, placement, timing and sampling for one crypto measurement. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "placement.h"
#include "runner.h"
#include "timing.h"

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

struct shared {
	const struct run_params *p;
	struct gate ready, start, end;
	atomic_int stop;        /* workers stop taking operations */
	atomic_int abort;       /* a worker failed before the start */
	atomic_int cancelled;   /* a signal ends the run unmeasured */
	atomic_uint finished;
};

struct worker {
	struct shared *sh;
	unsigned index;
	pthread_t thread;
	struct worker_result *res;
};

static void fail(struct worker *w, const char *err)
{
	w->res->failed = true;
	w->res->cpu = pl_thread_get_cpu();
	snprintf(w->res->err, sizeof(w->res->err), "%s", err);
	atomic_store(&w->sh->stop, 1);
}

/*
 * Untimed warm-up that also sizes the sampling: a check is taken once every
 * EVERY operations, EVERY chosen so checks cost under 1% of the time and
 * happen about every 10 ms where that allows.
 */
static int warm_up(struct worker *w, void *state, uint64_t *every, char *err, size_t errlen)
{
	const struct backend *be = w->sh->p->be;
	atomic_int never = 0;
	double t0 = now_s(), t_check, t_ops, start;
	uint64_t ops = 0, chunk = 1, need;

	if (be->check(state, &ops, err, errlen) < 0)
		return -1;
	t_check = now_s() - t0;
	ops = 0;
	start = now_s();
	while ((t_ops = now_s() - start) < 0.01) {
		if (be->run(state, chunk, &never, &ops, err, errlen) < 0)
			return -1;
		chunk *= 2;
	}
	t_ops /= (double)ops;
	need = (uint64_t)(100.0 * t_check / t_ops) + 1;
	*every = (uint64_t)(0.01 / t_ops);
	if (*every < need)
		*every = need;
	if (*every < 2)
		*every = 2;
	return 0;
}

/* One check, counted. */
static int check(struct worker *w, void *state, char *err, size_t errlen)
{
	if (w->sh->p->be->check(state, &w->res->ops, err, errlen) < 0)
		return -1;
	w->res->checks++;
	cpu_track_sample(&w->res->track);
	return 0;
}

/*
 * Run QUOTA operations (UINT64_MAX: until stopped), every EVERY-th of them
 * a check; the last operation is always a check, so every worker that ran
 * checked at least once, however short its run.
 */
static int timed_loop(struct worker *w, void *state, uint64_t quota, uint64_t every,
		      char *err, size_t errlen)
{
	const struct run_params *p = w->sh->p;
	uint64_t *ops = &w->res->ops, chunk;

	while (*ops < quota && !atomic_load_explicit(&w->sh->stop, memory_order_relaxed)) {
		chunk = quota - *ops - 1 < every - 1 ? quota - *ops - 1 : every - 1;
		if (p->be->run(state, chunk, &w->sh->stop, ops, err, errlen) < 0)
			return -1;
		if ((int)w->index == p->fail_worker) {
			snprintf(err, errlen, "%s call failed (injected by T2ACCEL_FAIL_WORKER)",
				 p->be->name);
			return -1;
		}
		if (atomic_load_explicit(&w->sh->stop, memory_order_relaxed))
			break;
		if (check(w, state, err, errlen) < 0)
			return -1;
	}
	/* Stopped by time: the final check (another worker's failure or a
	 * signal ends the run unmeasured, so none is needed then). */
	if (*ops < quota && !atomic_load(&w->sh->abort) && !atomic_load(&w->sh->cancelled) &&
	    check(w, state, err, errlen) < 0)
		return -1;
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	const struct run_params *p = sh->p;
	int planned = run_env_planned(p->env, w->index);
	uint64_t every = 2, quota = UINT64_MAX;
	void *state = NULL;
	char err[256];

	char name[16];

	/* threadrun --monitor tells workers apart by these names. */
	snprintf(name, sizeof(name), "t2accel-w%u", w->index);
	pthread_setname_np(pthread_self(), name);
	cpu_track_init(&w->res->track, planned);
	if (planned >= 0 && pl_thread_bind((unsigned)planned) < 0) {
		snprintf(err, sizeof(err), "cannot bind to PU %d: %s", planned, strerror(errno));
		goto init_failed;
	}
	cpu_track_sample(&w->res->track);
	if (p->be->worker_init(p->bectx, p->job, &state, err, sizeof(err)) < 0)
		goto init_failed;
	if ((int)w->index == p->kat_fault_worker)
		p->be->inject_fault(state);
	if (p->be->kat(state, err, sizeof(err)) < 0 ||
	    warm_up(w, state, &every, err, sizeof(err)) < 0)
		goto init_failed;
	if (p->reps)
		quota = p->reps / p->nworkers + (w->index < p->reps % p->nworkers);
	gate_wait(&sh->ready);
	gate_wait(&sh->start);
	if ((int)w->index == p->fault_worker)
		p->be->inject_fault(state);
	if (!atomic_load(&sh->abort) && timed_loop(w, state, quota, every, err, sizeof(err)) < 0)
		fail(w, err);
	w->res->end = now_s();
	cpu_track_sample(&w->res->track);
	atomic_fetch_add(&sh->finished, 1);
	gate_wait(&sh->end);
	p->be->worker_fini(state);
	return NULL;

init_failed:
	fail(w, err);
	atomic_store(&sh->abort, 1);
	gate_wait(&sh->ready);
	gate_wait(&sh->start);
	w->res->end = now_s();
	atomic_fetch_add(&sh->finished, 1);
	gate_wait(&sh->end);
	if (state)
		p->be->worker_fini(state);
	return NULL;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* The main thread's part between start and end: time the run, and turn a
 * signal into a stop. */
static void supervise(struct shared *sh, double start, unsigned created, struct run_result *r)
{
	const struct run_params *p = sh->p;
	double left;

	for (;;) {
		if (atomic_load(&sh->finished) >= created)
			return;
		if (*p->interrupted) {
			r->interrupted = true;
			atomic_store(&sh->cancelled, 1);
			atomic_store(&sh->stop, 1);
			return;
		}
		if (!p->reps) {
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

static void summarise(unsigned created, double start, struct run_result *r)
{
	double end = start;
	unsigned i;

	r->verified = true;
	for (i = 0; i < created; i++) {
		struct worker_result *w = &r->w[i];

		r->ops += w->ops;
		r->checks += w->checks;
		if (!w->checks)
			r->unchecked++;
		if (w->end > end)
			end = w->end;
		if (w->failed && r->verified) {
			r->verified = false;
			snprintf(r->err, sizeof(r->err), "worker %u on CPU %d: %s", i, w->cpu, w->err);
		}
	}
	r->wall_s = end - start;
}

int runner_run(const struct run_params *p, struct run_result *r)
{
	struct shared sh = { .p = p };
	struct worker *ws;
	double start, u0, s0, u1, s1;
	unsigned i, created = 0;
	int err;

	memset(r, 0, sizeof(*r));
	r->nworkers = p->nworkers;
	ws = calloc(p->nworkers, sizeof(*ws));
	r->w = calloc(p->nworkers, sizeof(*r->w));
	if (!ws || !r->w) {
		snprintf(r->err, sizeof(r->err), "out of memory for %u workers", p->nworkers);
		free(ws);
		return -1;
	}
	gate_init(&sh.ready, p->nworkers + 1);
	gate_init(&sh.start, p->nworkers + 1);
	gate_init(&sh.end, p->nworkers + 1);
	for (i = 0; i < p->nworkers; i++) {
		ws[i] = (struct worker){ .sh = &sh, .index = i, .res = &r->w[i] };
		err = pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]);
		if (err) {
			snprintf(r->err, sizeof(r->err), "cannot start worker %u of %u: %s", i,
				 p->nworkers, strerror(err));
			atomic_store(&sh.abort, 1);
			atomic_store(&sh.stop, 1);
			break;
		}
		created++;
	}
	gate_set_expected(&sh.ready, created + 1);
	gate_set_expected(&sh.start, created + 1);
	gate_set_expected(&sh.end, created + 1);
	gate_wait(&sh.ready);
	if (atomic_load(&sh.abort))
		atomic_store(&sh.stop, 1);
	cpu_times(&u0, &s0);
	start = now_s();
	gate_wait(&sh.start);
	r->started = !atomic_load(&sh.abort);
	if (r->started)
		supervise(&sh, start, created, r);
	else
		atomic_store(&sh.stop, 1);
	gate_wait(&sh.end);
	cpu_times(&u1, &s1);
	r->user_s = u1 - u0;
	r->sys_s = s1 - s0;
	for (i = 0; i < created; i++)
		pthread_join(ws[i].thread, NULL);
	summarise(created, start, r);
	if (created < p->nworkers)
		r->verified = false;
	gate_destroy(&sh.ready);
	gate_destroy(&sh.start);
	gate_destroy(&sh.end);
	free(ws);
	return r->verified ? 0 : -1;
}

void runner_result_free(struct run_result *r)
{
	free(r->w);
	r->w = NULL;
}
