/*
 * A parent that only waits, as stress-ng's does: it starts N children
 * that spin SECONDS each and waits for them.  With CPU, once they are
 * started, it moves onto CPU and gives its CPU set back, as the scheduler
 * may leave an unbound thread anywhere in it: it waits there, asleep.
 *   idle_parent N SECONDS [CPU]
 * Exit status: 0; 1 when a child could not be started or failed; 2 for
 * bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	cpu_set_t saved, one;
	char *end;
	long n = 0, cpu = -1, i;
	double s = -1, t0;
	int status, ret = 0;
	pid_t pid;

	if (argc == 3 || argc == 4) {
		n = strtol(argv[1], &end, 10);
		if (*end || end == argv[1])
			n = 0;
		s = strtod(argv[2], &end);
		if (*end || end == argv[2])
			s = -1;
		if (argc == 4) {
			cpu = strtol(argv[3], &end, 10);
			if (*end || end == argv[3] || cpu < 0 || cpu >= CPU_SETSIZE)
				n = 0;
		}
	}
	if (n < 1 || n > 64 || !(s >= 0 && s <= 60)) {
		fprintf(stderr, "usage: idle_parent N SECONDS [CPU] (N 1..64, seconds 0..60, CPU 0..%d)\n",
			CPU_SETSIZE - 1);
		return 2;
	}
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "idle_parent: cannot fork: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		if (pid == 0) {
			volatile double x = 0;

			for (t0 = now(); now() - t0 < s;)
				x += 1e-9;
			_exit(0);
		}
	}
	if (cpu >= 0 && sched_getaffinity(0, sizeof(saved), &saved) == 0 && CPU_ISSET(cpu, &saved)) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			sched_setaffinity(0, sizeof(saved), &saved);
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	return ret;
}
