/*
 * threadrun --pthreads: a library preloaded into any dynamically linked
 * program, which places its threads one by one, as likwid-pin's
 * liblikwidpin does.  The main thread takes the first PU of the plan
 * (THREADRUN_PLAN); the threads pthread_create() starts take the next ones
 * in creation order, round-robin when there are more threads than PUs.
 * The creations listed in THREADRUN_PTHREADS_SKIP (0 = the first thread
 * created) are helper threads: they are not pinned and keep the CPU set
 * the process started with.  Each new thread binds itself, in a start
 * routine of ours, before the program's routine runs: none of the
 * program's code in it runs elsewhere.  Only pthread_create is exported.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

#define NAME "threadrun-pthreads"
#define MAX_PU 65535

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* Read once (pthread_once), then only read. */
static struct {
	create_fn *create;      /* the real pthread_create */
	uint64_t *plan;         /* OS PU of worker i; NULL: pin nothing */
	int nplan;
	uint64_t *skip;         /* creation indices left unpinned */
	int nskip;
	cpu_set_t *start_set;   /* the process's CPU set at load: skipped threads' */
	size_t setsize;
} cfg;
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static unsigned long created;   /* pthread_create calls so far (atomic) */
static int warned;              /* one binding failure said (atomic) */

struct start {
	void *(*routine)(void *);
	void *arg;
	long pu;                /* -1: a skipped thread */
};

/* Bind the calling thread to PU, or give it back the process's CPU set
 * at load (-1; with none known it keeps its creator's). */
static void bind_self(long pu)
{
	size_t size = CPU_ALLOC_SIZE(MAX_PU + 1);
	cpu_set_t *set;
	int err;

	if (pu < 0 && !cfg.start_set)
		return;
	set = CPU_ALLOC(MAX_PU + 1);
	if (!set) {
		err = ENOMEM;
	} else {
		CPU_ZERO_S(size, set);
		if (pu >= 0)
			CPU_SET_S((size_t)pu, size, set);
		else
			memcpy(set, cfg.start_set, cfg.setsize);
		err = pthread_setaffinity_np(pthread_self(), size, set);
		CPU_FREE(set);
	}
	if (err && !__atomic_exchange_n(&warned, 1, __ATOMIC_SEQ_CST)) {
		if (pu >= 0)
			fprintf(stderr, NAME ": cannot bind a thread to PU %ld: %s; it runs unpinned\n", pu,
				strerror(err));
		else
			fprintf(stderr, NAME ": cannot give a skipped thread the process's CPU set: %s\n",
				strerror(err));
	}
}

/* THREADRUN_PLAN and THREADRUN_PTHREADS_SKIP, hostile input: a bad value
 * pins nothing and says so once. */
static void load(void)
{
	const char *plan = getenv("THREADRUN_PLAN"), *skip = getenv("THREADRUN_PTHREADS_SKIP");
	char err[256];

	/* The default version: pthread_create@@GLIBC_2.34 in libc since glibc
	 * 2.34, libpthread's before; the same call for every x86-64 and
	 * AArch64 program linked against either. */
	cfg.create = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
	if (!plan || !strcmp(plan, "none"))
		return;
	cfg.nplan = num_parse_list("THREADRUN_PLAN", plan, 0, MAX_PU, &cfg.plan, err, sizeof(err));
	if (cfg.nplan > 0 && skip && *skip)
		cfg.nskip = num_parse_list("THREADRUN_PTHREADS_SKIP", skip, 0, UINT64_MAX, &cfg.skip, err,
					   sizeof(err));
	if (cfg.nplan <= 0 || cfg.nskip < 0) {
		fprintf(stderr, NAME ": %s; threads are not pinned\n", err);
		free(cfg.plan);
		cfg.plan = NULL;
		return;
	}
	cfg.setsize = CPU_ALLOC_SIZE(MAX_PU + 1);
	cfg.start_set = CPU_ALLOC(MAX_PU + 1);
	if (cfg.start_set && sched_getaffinity(0, cfg.setsize, cfg.start_set) < 0) {
		CPU_FREE(cfg.start_set);
		cfg.start_set = NULL;
	}
}

/* Loaded into the program: its main thread is worker 0. */
__attribute__((constructor)) static void pin_main(void)
{
	pthread_once(&cfg_once, load);
	if (cfg.plan)
		bind_self((long)cfg.plan[0]);
}

static void *start(void *p)
{
	struct start s = *(struct start *)p;

	free(p);
	bind_self(s.pu);
	return s.routine(s.arg);
}

/* The PU of creation K: worker 1 + K less the skipped creations before
 * it, round-robin over the plan; -1 when K is skipped.  A pure function
 * of K, so that concurrent creations each get their own. */
static long pu_of(unsigned long k)
{
	unsigned long before = 0;

	for (int i = 0; i < cfg.nskip; i++) {
		if (cfg.skip[i] == k)
			return -1;
		before += cfg.skip[i] < k;
	}
	return (long)cfg.plan[(1 + k - before) % (unsigned long)cfg.nplan];
}

__attribute__((visibility("default"))) int pthread_create(pthread_t *thread,
							   const pthread_attr_t *attr,
							   void *(*routine)(void *), void *arg)
{
	create_fn *real;
	struct start *s;
	int ret;

	pthread_once(&cfg_once, load);
	/* Before glibc 2.34 libpthread may come later, with a dlopen(). */
	real = cfg.create ? cfg.create : (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
	if (!real)
		return EAGAIN;
	if (!cfg.plan)
		return real(thread, attr, routine, arg);
	s = malloc(sizeof(*s));
	if (!s)
		return EAGAIN;
	s->routine = routine;
	s->arg = arg;
	s->pu = pu_of(__atomic_fetch_add(&created, 1, __ATOMIC_SEQ_CST));
	ret = real(thread, attr, start, s);
	if (ret)
		free(s);
	return ret;
}
