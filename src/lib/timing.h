/* Wall-clock (CLOCK_MONOTONIC) and CPU time: rates divide by the former. */
#ifndef TIMING_H
#define TIMING_H

#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall-clock time (CLOCK_REALTIME) in microseconds since the epoch: when a
 * measurement ran, to line it up with other hosts' (never a rate's divisor). */
static inline long long epoch_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* This thread's CPU seconds: on a shared machine a stretch the thread
 * was preempted in does not count (a kernel timed over it still times
 * the kernel). */
static inline double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* User and system seconds of this process so far (all threads). */
static inline void cpu_times(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = tv_s(ru.ru_utime);
	*sys = tv_s(ru.ru_stime);
}

#endif
