/*
 * An ordinary pthreads program that knows nothing of threadrun: N workers,
 * the main thread being worker 0, and one helper thread created first (a
 * logger, say: what likwid-pin's skip mask is for).  Each thread reports,
 * from inside itself, the CPU it runs on and the CPUs it may run on:
 *   worker I cpu C cpus LIST
 *   helper cpus LIST
 * The tests compare that with the plan to prove threadrun --pthreads
 * placed each thread.  The helper lives until the workers end; each
 * worker spins SPIN times (default 2000000) before it reports, long
 * enough with a large SPIN for threadrun --monitor to see every thread.
 * Usage: pthread_where N [SPIN]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int done;
static long spin = 2000000;

/* The thread's own CPU set as a comma list. */
static void cpus(char *buf, size_t len)
{
	cpu_set_t set;
	size_t used = 0;

	buf[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	for (int c = 0; c < CPU_SETSIZE && used < len; c++)
		if (CPU_ISSET(c, &set))
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
}

static void *helper(void *arg)
{
	char list[256];

	(void)arg;
	cpus(list, sizeof(list));
	pthread_mutex_lock(&out);
	printf("helper cpus %s\n", list);
	fflush(stdout);
	while (!done)
		pthread_cond_wait(&done_cv, &out);
	pthread_mutex_unlock(&out);
	return NULL;
}

static void *worker(void *arg)
{
	volatile double x = 0;
	char list[256];

	/* Some work, so the thread is really running when it reports. */
	for (long i = 0; i < spin; i++)
		x += i * 1e-9;
	cpus(list, sizeof(list));
	pthread_mutex_lock(&out);
	printf("worker %ld cpu %d cpus %s\n", (long)(intptr_t)arg, sched_getcpu(), list);
	pthread_mutex_unlock(&out);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc >= 2 && argc <= 3 ? strtol(argv[1], NULL, 10) : 0;
	pthread_t h, *t;

	if (argc == 3)
		spin = strtol(argv[2], NULL, 10);
	if (n < 1 || n > 1024 || spin < 0) {
		fprintf(stderr, "usage: pthread_where N (1..1024) [SPIN]\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t || pthread_create(&h, NULL, helper, NULL) != 0)
		return 1;
	for (long i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) != 0)
			return 1;
	worker((void *)0);
	for (long i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_lock(&out);
	done = 1;
	pthread_cond_signal(&done_cv);
	pthread_mutex_unlock(&out);
	pthread_join(h, NULL);
	free(t);
	return 0;
}
