/*
 * An OpenMP program that sleeps before its first parallel region, to test
 * that threadrun --monitor judges no thread before its bind point.
 *   omp_sleep LOAD_S MAIN_S WORK_S [CPU]
 * - LOAD_S seconds asleep before libgomp binds the initial thread: in a
 *   preinit function, which the loader runs before any library's
 *   constructor (libgomp binds the initial thread to the first place in
 *   its constructor, while the program loads, not in main).  With CPU,
 *   it first moves onto CPU and gives its CPU set back, as the scheduler
 *   may leave an unbound thread anywhere in it;
 * - then, in main, it reports its CPU set ("initial cpus LIST": one PU
 *   when libgomp bound it) and sleeps MAIN_S seconds;
 * - then each thread of the first parallel region works WORK_S seconds
 *   and reports "thread I cpu C".
 * Exit status: 0, or 2 for bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* A number of seconds 0..60, or -1. */
static double seconds(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	return errno || end == s || *end || !(v >= 0 && v <= 60) ? -1 : v;
}

/* A CPU number 0..CPU_SETSIZE-1, or -1. */
static int cpu_number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || end == s || *end || v < 0 || v >= CPU_SETSIZE ? -1 : (int)v;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Before every library's constructor, libgomp's included: nothing here
 * but system calls and parsing (main says what was wrong). */
static void before_load(int argc, char **argv, char **envp)
{
	cpu_set_t saved, one;
	double s;
	int cpu;

	(void)envp;
	if (argc < 4 || argc > 5 || (s = seconds(argv[1])) < 0)
		return;
	cpu = argc == 5 ? cpu_number(argv[4]) : -1;
	if (cpu >= 0 && sched_getaffinity(0, sizeof(saved), &saved) == 0 &&
	    CPU_ISSET(cpu, &saved)) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			sched_setaffinity(0, sizeof(saved), &saved);
	}
	sleep_s(s);
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit)(int, char **, char **) = before_load;

int main(int argc, char **argv)
{
	double load_s, main_s, work_s;
	cpu_set_t set;
	int c, first = 1;

	if (argc < 4 || argc > 5 || (load_s = seconds(argv[1])) < 0 ||
	    (main_s = seconds(argv[2])) < 0 || (work_s = seconds(argv[3])) < 0 ||
	    (argc == 5 && cpu_number(argv[4]) < 0)) {
		fprintf(stderr, "usage: omp_sleep LOAD_S MAIN_S WORK_S [CPU] (seconds 0..60, CPU 0..%d)\n",
			CPU_SETSIZE - 1);
		return 2;
	}
	(void)load_s;
	printf("initial cpus ");
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set)) {
				printf("%s%d", first ? "" : ",", c);
				first = 0;
			}
	printf("\n");
	fflush(stdout);
	sleep_s(main_s);
#pragma omp parallel
	{
		double t0 = omp_get_wtime();
		volatile double x = 0;

		while (omp_get_wtime() - t0 < work_s)
			x += 1e-9;
#pragma omp critical
		printf("thread %d cpu %d\n", omp_get_thread_num(), sched_getcpu());
	}
	return 0;
}
