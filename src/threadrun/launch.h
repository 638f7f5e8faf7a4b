/* Running the program: finding it, starting it pinned, waiting for it. */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cpuload.h"
#include "placement.h"

/*
 * Find PROGRAM: a path as given, else among the project's programs (the
 * directory threadrun itself lives in), else on PATH.  Writes the path to
 * BUF.  Returns 0, or the exit status to use: 127 not found, 126 not
 * executable, with a message in ERR.
 */
int launch_resolve(const char *program, char *buf, size_t len, char *err, size_t errlen);

/* The directory of the running executable (for the project's programs and
 * its default results folder). */
int launch_self_dir(char *buf, size_t len);

struct launch_result {
	int status;             /* threadrun's exit status: the child's, 128+N */
	int signal;             /* the signal that ended it, or 0 */
	double wall_s, user_s, sys_s;
	long long t_start_us;   /* the launch on the wall clock (CLOCK_REALTIME, us) */
	struct cpuload_span load;  /* the run's window: steal, others on its PUs */
	pid_t pid;
};

/*
 * Take over every catchable signal that ends a process and comes from
 * outside (SIGINT, SIGTERM, SIGHUP, SIGUSR1, ... and the real-time ones):
 * while a job runs it is forwarded to the job's process group, otherwise
 * threadrun ends of it.  Once, at the start of main, before any thread.
 */
void launch_signals_init(void);

/* With DEFER, a signal that arrives while no job runs is only recorded
 * (launch_interrupted), so that a sweep can stop between two runs and say
 * how to resume; without, threadrun ends of it. */
void launch_signals_defer(bool defer);

/*
 * Called in the parent right after the fork (a monitor starts there); with
 * HOLD the child waits for it before its exec (counters are opened on it
 * then).  It returns 0, or the exit status to end the launch with (the
 * message in ERR): the child then ends without running the program.
 */
struct launch_hook {
	int (*started)(pid_t pid, void *arg, char *err, size_t errlen);
	void *arg;
	bool hold;
};

/*
 * Run PATH with ARGV, restricted to PLAN's PUs (when bound), and wait for it
 * (wait4: its user and system time; /proc/stat before the fork and after
 * the wait: steal, and others' CPU time on the plan's PUs, or on every PU
 * threadrun may use when unbound).  The job is a process group of its
 * own: signals are forwarded to all of it, and it dies with threadrun
 * however threadrun ends (PR_SET_PDEATHSIG, and a watchdog process that
 * kills what is left of the group, also when the program ends).  What
 * left the group (setsid) is ended when the program ends: threadrun is
 * the subreaper of its children (PR_SET_CHILD_SUBREAPER, set here); after
 * a SIGKILL of threadrun the watchdog ends what carries the run's
 * THREADRUN_RUN in its environment.  With
 * OUT_FD >= 0 its stdout goes there, with ERR_FD >= 0 its stderr.  The environment must
 * already be set by the caller.  Returns 0 with R filled, or -1 with a
 * message in ERR when the program could not be started at all (R->status
 * says 126 or 127).
 */
int launch_run(const char *path, char *const argv[], const struct pl_plan *plan, int out_fd,
	       int err_fd, const struct launch_hook *hook, struct launch_result *r, char *err,
	       size_t errlen);

/* The last signal that arrived (forwarded to the job or deferred), or 0. */
int launch_interrupted(void);

#endif
