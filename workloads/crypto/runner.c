/* One crypto measurement on the worker API: known answers and warm-up
 * before the start, sampled checks in the timed loop, a final check. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "timing.h"

/* One worker's own: its backend state and counts. */
struct crypto_worker {
	void *state;
	uint64_t every, quota;
	struct worker_count *res;
};

struct ctx {
	const struct run_params *p;
	struct crypto_worker *cw;
};

/*
 * Untimed warm-up that also sizes the sampling: a check is taken once every
 * EVERY operations, EVERY chosen so checks cost under 1% of the time and
 * happen about every 10 ms where that allows.
 */
static int warm_up(const struct backend *be, void *state, uint64_t *every, char *err,
		   size_t errlen)
{
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

	while (*ops < quota && !worker_stopping(w)) {
		chunk = quota - *ops - 1 < every - 1 ? quota - *ops - 1 : every - 1;
		if (p->be->run(c->state, chunk, worker_stop_flag(w), ops, err, errlen) < 0)
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
	if (p->be->kat(c->state, err, errlen) < 0 ||
	    warm_up(p->be, c->state, &c->every, err, errlen) < 0)
		return -1;
	if (p->reps)
		c->quota = p->reps / p->nworkers + (w->index < p->reps % p->nworkers);
	return 0;
}

static int crypto_run(struct worker *w, char *err, size_t errlen)
{
	struct ctx *x = w->arg;
	struct crypto_worker *c = &x->cw[w->index];

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
	}
	free(x.cw);
	return r->verified ? 0 : -1;
}

void runner_result_free(struct run_result *r)
{
	free(r->w);
	r->w = NULL;
	worker_result_free(&r->wr);
}
