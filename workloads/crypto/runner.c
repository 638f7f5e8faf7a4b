/* One crypto measurement on the worker API: known answers and warm-up
 * before the start, sampled checks in the timed loop, a final check. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "runner.h"
#include "timing.h"

/* One worker's own: its backend state and counts. */
struct crypto_worker {
	void *state;
	uint64_t every, quota;
	/* With latency: the batch this worker's warm-up asks for, and the one
	 * every worker uses (the largest asked), set after the start. */
	uint64_t batch_want, batch;
	struct worker_count *res;
};

/* A batch is at most this many operations (and the batch time fits the
 * histogram's range). */
#define MAX_BATCH (UINT64_C(1) << 20)

struct ctx {
	const struct run_params *p;
	struct crypto_worker *cw;
};

/*
 * Untimed warm-up that also sizes the sampling: a check is taken once every
 * EVERY operations, EVERY chosen so checks cost under 0.25% of the time and
 * happen about every 10 ms where that allows.  What a check costs is what it
 * adds to the operation it counts (an RSA-2048 sign's check adds one verify,
 * a twentieth of the sign).  A rate is compared with openssl speed's, which
 * checks nothing: at 1% the checks alone were half of ECDSA sign's gap to
 * it (two verifies, six signs' worth); at 0.25% ECDSA P-256 checks a
 * signature every ~60 ms.
 */
static int warm_up(const struct backend *be, void *state, uint64_t *every, uint64_t *batch,
		   char *err, size_t errlen)
{
	atomic_int never = 0;
	double t_check, t_one, t_ops, t_clock, start;
	uint64_t ops = 0, chunk = 1, need;
	struct timespec ts;
	int i, r;

	start = now_s();
	while ((t_ops = now_s() - start) < 0.01) {
		if (be->run(state, chunk, &never, &ops, err, errlen) < 0)
			return -1;
		chunk *= 2;
	}
	t_ops /= (double)ops;
	/* What a check adds: the least of three warm checks over the least of
	 * three single operations, timed alike (a cold or preempted one says
	 * more of the machine than of the check). */
	t_check = t_one = INFINITY;
	for (r = 0; r < 3; r++) {
		start = now_s();
		if (be->run(state, 1, &never, &ops, err, errlen) < 0)
			return -1;
		t_one = fmin(t_one, now_s() - start);
		start = now_s();
		if (be->check(state, &ops, err, errlen) < 0)
			return -1;
		t_check = fmin(t_check, now_s() - start);
	}
	need = (uint64_t)(400.0 * fmax(t_check - t_one, 0) / t_ops) + 1;
	*every = (uint64_t)(0.01 / t_ops);
	if (*every < need)
		*every = need;
	if (*every < 2)
		*every = 2;
	/* With --latency: batches long enough that the one clock read per
	 * batch costs at most 1% of it (one operation when it does already).
	 * Read between operations the clock costs about twice what this tight
	 * loop of reads says (it waits for the operation before it), so the
	 * batch is sized for 0.5% of that. */
	/* The least of 8 rounds of 32 reads: a round the thread was preempted
	 * in says nothing of the clock (a busy machine would inflate the batch). */
	t_clock = INFINITY;
	for (r = 0; r < 8; r++) {
		start = now_s();
		for (i = 0; i < 32; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
		start = (now_s() - start) / 32;
		if (start < t_clock)
			t_clock = start;
	}
	*batch = (uint64_t)ceil(200.0 * t_clock / t_ops);
	if (*batch < 1)
		*batch = 1;
	if (*batch > MAX_BATCH)
		*batch = MAX_BATCH;
	return 0;
}

static inline uint64_t elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (uint64_t)((int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (b->tv_nsec - a->tv_nsec));
}

/*
 * Run up to N operations.  With latency, in batches of C->batch, one clock
 * read after each (*T0 is the previous one, moved on): the batch's time
 * goes into the worker's histogram; a batch cut short (the run stopped, a
 * check is due) is scaled to a whole one.
 */
static int run_ops(struct worker *w, struct crypto_worker *c, const struct run_params *p,
		   uint64_t n, struct timespec *t0, char *err, size_t errlen)
{
	uint64_t *ops = &c->res->ops, before, done, k, ns;
	struct histogram *h = c->res->lat;
	struct timespec t1;

	if (!h)
		return p->be->run(c->state, n, worker_stop_flag(w), ops, err, errlen);
	while (n) {
		k = n < c->batch ? n : c->batch;
		before = *ops;
		if (p->be->run(c->state, k, worker_stop_flag(w), ops, err, errlen) < 0)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = elapsed_ns(t0, &t1);
		*t0 = t1;
		done = *ops - before;
		if (done == c->batch)
			histogram_record(h, ns);
		else if (done)
			histogram_record(h, ns * c->batch / done);
		if (done < k)
			break;
		n -= k;
	}
	return 0;
}

/* One check, counted. */
static int check(struct worker *w, struct crypto_worker *c, const struct backend *be,
		 char *err, size_t errlen)
{
	if (be->check(c->state, &c->res->ops, err, errlen) < 0)
		return -1;
	c->res->checks++;
	worker_sample(w);
	return 0;
}

/*
 * Run QUOTA operations (UINT64_MAX: until stopped), every EVERY-th of them
 * a check; the last operation is always a check, so every worker that ran
 * checked at least once, however short its run.
 */
static int timed_loop(struct worker *w, struct crypto_worker *c, const struct run_params *p,
		      char *err, size_t errlen)
{
	uint64_t *ops = &c->res->ops, chunk, quota = c->quota, every = c->every;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (*ops < quota && !worker_stopping(w)) {
		chunk = quota - *ops - 1 < every - 1 ? quota - *ops - 1 : every - 1;
		if (run_ops(w, c, p, chunk, &t0, err, errlen) < 0)
			return -1;
		if ((int)w->index == p->fail_worker) {
			snprintf(err, errlen, "%s call failed (injected by T2ACCEL_FAIL_WORKER)",
				 p->be->name);
			return -1;
		}
		if (worker_stopping(w))
			break;
		if (check(w, c, p->be, err, errlen) < 0)
			return -1;
		/* The check is not one of the timed batches. */
		if (c->res->lat)
			clock_gettime(CLOCK_MONOTONIC, &t0);
	}
	/* Stopped by time: the final check (another worker's failure or a
	 * signal ends the run unmeasured, so none is needed then). */
	if (*ops < quota && !worker_cancelled(w) &&
	    check(w, c, p->be, err, errlen) < 0)
		return -1;
	return 0;
}

static int crypto_setup(struct worker *w, char *err, size_t errlen)
{
	struct ctx *x = w->arg;
	const struct run_params *p = x->p;
	struct crypto_worker *c = &x->cw[w->index];

	c->every = 2;
	c->quota = UINT64_MAX;
	if (p->be->worker_init(p->bectx, p->job, &c->state, err, errlen) < 0)
		return -1;
	if ((int)w->index == p->kat_fault_worker)
		p->be->inject_fault(c->state);
	if (p->be->kat(c->state, err, errlen) < 0)
		return -1;
	/* From the warm-up on, operations allocate as in any program. */
	heap_timed(true);
	if (warm_up(p->be, c->state, &c->every, &c->batch_want, err, errlen) < 0)
		return -1;
	if (p->latency) {
		/* Here, on the worker's PU: its memory is near it. */
		c->res->lat = malloc(sizeof(*c->res->lat));
		if (!c->res->lat) {
			snprintf(err, errlen, "out of memory for the latency histogram");
			return -1;
		}
		histogram_init(c->res->lat);
		if (p->latency_batch)
			c->batch_want = p->latency_batch;
	}
	if (p->reps)
		c->quota = p->reps / p->nworkers + (w->index < p->reps % p->nworkers);
	return 0;
}

static int crypto_run(struct worker *w, char *err, size_t errlen)
{
	struct ctx *x = w->arg;
	struct crypto_worker *c = &x->cw[w->index];
	unsigned i;

	/* One batch for all (every worker set up before the start): the
	 * largest any worker's warm-up asked for, so the histograms merge. */
	for (i = 0, c->batch = 1; i < x->p->nworkers; i++)
		if (x->cw[i].batch_want > c->batch)
			c->batch = x->cw[i].batch_want;
	if ((int)w->index == x->p->fault_worker)
		x->p->be->inject_fault(c->state);
	return timed_loop(w, c, x->p, err, errlen);
}

static void crypto_teardown(struct worker *w)
{
	struct ctx *x = w->arg;
	struct crypto_worker *c = &x->cw[w->index];

	if (c->state)
		x->p->be->worker_fini(c->state);
	heap_timed(false);
}

static const struct worker_ops crypto_ops = {
	.name = "t2accel",
	.setup = crypto_setup,
	.run = crypto_run,
	.teardown = crypto_teardown,
};

int runner_run(const struct run_params *p, struct run_result *r)
{
	struct ctx x = { .p = p };
	struct worker_params wp = {
		.ops = &crypto_ops, .arg = &x, .env = p->env, .nworkers = p->nworkers,
		.seconds = p->reps ? 0 : p->seconds, .interrupted = p->interrupted,
		.label = p->label,
	};
	unsigned i;

	memset(r, 0, sizeof(*r));
	r->nworkers = p->nworkers;
	x.cw = calloc(p->nworkers, sizeof(*x.cw));
	r->w = calloc(p->nworkers, sizeof(*r->w));
	if (!x.cw || !r->w) {
		snprintf(r->err, sizeof(r->err), "out of memory for %u workers", p->nworkers);
		free(x.cw);
		return -1;
	}
	for (i = 0; i < p->nworkers; i++)
		x.cw[i].res = &r->w[i];
	worker_run(&wp, &r->wr);
	r->wall_s = r->wr.wall_s;
	r->user_s = r->wr.user_s;
	r->sys_s = r->wr.sys_s;
	r->started = r->wr.started;
	r->interrupted = r->wr.interrupted;
	r->verified = r->wr.ok;
	snprintf(r->err, sizeof(r->err), "%s", r->wr.err);
	for (i = 0; i < r->wr.created; i++) {
		r->ops += r->w[i].ops;
		r->checks += r->w[i].checks;
		if (!r->w[i].checks)
			r->unchecked++;
		if (r->w[i].lat && !r->lat && (r->lat = malloc(sizeof(*r->lat))))
			histogram_init(r->lat);
		if (r->w[i].lat && r->lat)
			histogram_merge(r->lat, r->w[i].lat);
		if (x.cw[i].batch > r->lat_batch)
			r->lat_batch = x.cw[i].batch;
	}
	if (p->latency && r->started && !r->lat) {
		snprintf(r->err, sizeof(r->err), "out of memory for the latency histogram");
		r->verified = false;
	}
	free(x.cw);
	return r->verified ? 0 : -1;
}

void runner_result_free(struct run_result *r)
{
	unsigned i;

	for (i = 0; r->w && i < r->nworkers; i++)
		free(r->w[i].lat);
	free(r->lat);
	r->lat = NULL;
	free(r->w);
	r->w = NULL;
	worker_result_free(&r->wr);
}
