/*
 * A program with a known number of voluntary context switches, for
 * threadrun --counters: N workers named sleepers-wI (docs/thread-names.md),
 * each of which spins SPIN ms (on CPU), then sleeps S times 5 ms (each
 * sleep a voluntary switch), then spins SPIN ms again.  The main thread,
 * named sleepers-main, only waits.  Each worker prints, when done, its CPU
 * time as /proc/self/task/TID/stat has it (utime + stime):
 *   worker I tid T proc_cpu_s X
 * Usage: sleepers N S [SPIN]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int sleeps;
static long spin_ms = 100;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* utime + stime of thread TID from /proc, in seconds; -1 unreadable. */
static double proc_cpu_s(int tid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return -1;
	/* After "(comm) ": field 3 on; utime is field 14. */
	for (p += 2, i = 3; i < 14 && p; i++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	if (!p || sscanf(p, "%lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* On CPU for MS milliseconds of its own CPU time. */
static void spin(long ms)
{
	double end = cpu_s() + (double)ms * 1e-3;
	volatile unsigned long x = 0;

	while (cpu_s() < end)
		x++;
}

static void *worker(void *arg)
{
	long i = (long)arg;
	struct timespec nap = { 0, 5000000 };
	char name[16];

	snprintf(name, sizeof(name), "sleepers-w%ld", i);
	prctl(PR_SET_NAME, name);
	spin(spin_ms);
	for (int k = 0; k < sleeps; k++)
		nanosleep(&nap, NULL);
	spin(spin_ms);
	pthread_mutex_lock(&out);
	printf("worker %ld tid %d proc_cpu_s %.3f\n", i, (int)gettid(), proc_cpu_s((int)gettid()));
	fflush(stdout);
	pthread_mutex_unlock(&out);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t *t;
	long n, i;

	if (argc < 3 || (n = atol(argv[1])) < 1 || n > 256 || (sleeps = atoi(argv[2])) < 0) {
		fprintf(stderr, "usage: sleepers N S [SPIN_MS]\n");
		return 2;
	}
	if (argc > 3)
		spin_ms = atol(argv[3]);
	prctl(PR_SET_NAME, "sleepers-main");
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
