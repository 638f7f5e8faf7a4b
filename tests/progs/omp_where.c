/*
 * An ordinary OpenMP program that knows nothing of threadrun: each thread
 * reports, from inside itself, where it runs.  The tests compare that with
 * THREADRUN_PLAN to prove OMP_PLACES/OMP_PROC_BIND placed it.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>

int main(void)
{
	volatile double sink = 0;

#pragma omp parallel
	{
		double x = 0;
		int i;

		/* Some work, so each thread is really running when it reports. */
		for (i = 0; i < 2000000; i++)
			x += i * 1e-9;
		sink += x;
#pragma omp critical
		printf("thread %d cpu %d\n", omp_get_thread_num(), sched_getcpu());
	}
	return sink < 0;
}
