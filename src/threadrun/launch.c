/* Finding the program, starting it pinned, forwarding signals, wait4. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "runenv.h"
#include "timing.h"

/* Signal state is process-wide by nature: the handler needs the job.
 * Atomics, not volatile: the handler may interrupt any thread's reads. */
static pid_t job_pgid;
static int got_signal;
static bool defer_signals;

/* Every catchable signal whose default ends the process and that comes
 * from outside: forwarded to the job while one runs (the faults threadrun
 * itself could cause, SIGSEGV and the like, are left to the watchdog). */
static const int forwarded[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
	SIGPIPE, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU, SIGXFSZ,
};

int launch_self_dir(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -1;
	exe[n] = '\0';
	if ((size_t)snprintf(buf, len, "%s", dirname(exe)) >= len)
		return -1;
	return 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Check a candidate path: 0 runnable, 126 present but not runnable, 127 absent. */
static int check_path(const char *path)
{
	if (!is_file(path))
		return 127;
	return access(path, X_OK) == 0 ? 0 : 126;
}

/* PROGRAM named by its path (it has a '/'): as launch_resolve. */
static int resolve_path(const char *program, char *buf, size_t len, char *err, size_t errlen)
{
	int st = check_path(program);
	struct stat sb;

	if (st == 0) {
		snprintf(buf, len, "%s", program);
		return 0;
	}
	/* Something there that is not a file is the shell's 126 ("Is a
	 * directory"), not 127. */
	if (st == 127 && stat(program, &sb) == 0) {
		snprintf(err, errlen, "program '%s' is %s, not a program", program,
			 S_ISDIR(sb.st_mode) ? "a directory" : "not a regular file");
		return 126;
	}
	snprintf(err, errlen, st == 126 ? "program '%s' is not executable" : "program '%s' does not exist",
		 program);
	return st;
}

int launch_resolve(const char *program, char *buf, size_t len, char *err, size_t errlen)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX], cand[PATH_MAX];
	char *copy, *save = NULL, *d;
	int st, best = 127;

	if (!*program) {
		snprintf(err, errlen, "program: an empty name is not a program");
		return 127;
	}
	if (strchr(program, '/'))
		return resolve_path(program, buf, len, err, errlen);
	if (launch_self_dir(dir, sizeof(dir)) == 0) {
		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", dir, program) < sizeof(cand) &&
		    check_path(cand) == 0) {
			snprintf(buf, len, "%s", cand);
			return 0;
		}
	}
	copy = strdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return 126;
	}
	for (d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", *d ? d : ".", program) >= sizeof(cand))
			continue;
		st = check_path(cand);
		if (st == 0) {
			snprintf(buf, len, "%s", cand);
			free(copy);
			return 0;
		}
		if (st < best)
			best = st;
	}
	free(copy);
	snprintf(err, errlen,
		 best == 126 ? "program '%s' is found on PATH but is not executable"
			     : "program '%s' not found among threadrun's programs nor on PATH",
		 program);
	return best;
}

static bool is_forwarded(int sig)
{
	size_t i;

	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		return true;
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		if (forwarded[i] == sig)
			return true;
	return false;
}

/* While a job runs the signal goes to its whole process group; otherwise
 * threadrun ends of it as it would have without a handler, unless a sweep
 * asked to stop cleanly between its runs (it polls launch_interrupted). */
static void on_signal(int sig)
{
	int saved = errno;
	pid_t pgid = __atomic_load_n(&job_pgid, __ATOMIC_SEQ_CST);
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	__atomic_store_n(&got_signal, sig, __ATOMIC_SEQ_CST);
	if (pgid > 0) {
		kill(-pgid, sig);
	} else if (!__atomic_load_n(&defer_signals, __ATOMIC_SEQ_CST)) {
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		raise(sig);     /* delivered as the handler returns */
	}
	errno = saved;
}

/* The signals and their dispositions before threadrun took them over: the
 * program gets them back. */
static struct sigaction saved_actions[_NSIG];

void launch_signals_init(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int sig;

	sigemptyset(&sa.sa_mask);
	/* Under nohup a hangup is no ending, for threadrun and its job alike
	 * (SIGHUP stays ignored, as t2accel keeps it); every other signal is
	 * taken over, so that `kill -INT` of a background sweep still stops it
	 * cleanly although the shell started it with SIGINT ignored.  One
	 * call a signal takes it and keeps what it replaced (a launch's
	 * system calls are most of its cost on a VM); a hangup is looked at
	 * first, so that no SIGHUP under nohup ever finds the handler. */
	for (sig = 1; sig < _NSIG; sig++) {
		if (!is_forwarded(sig))
			continue;
		if (sig == SIGHUP && sigaction(sig, NULL, &saved_actions[sig]) == 0 &&
		    saved_actions[sig].sa_handler == SIG_IGN)
			continue;
		sigaction(sig, &sa, &saved_actions[sig]);
	}
}

/* In the child: the dispositions threadrun found (an ignored SIGINT stays
 * ignored, as the shell asked). */
static void restore_signals(const sigset_t *mask)
{
	int sig;

	for (sig = 1; sig < _NSIG; sig++)
		if (is_forwarded(sig))
			sigaction(sig, saved_actions[sig].sa_handler == on_signal
					       ? &(struct sigaction){ .sa_handler = SIG_DFL }
					       : &saved_actions[sig],
				  NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
}

void launch_signals_defer(bool defer)
{
	__atomic_store_n(&defer_signals, defer, __ATOMIC_SEQ_CST);
}

int launch_interrupted(void)
{
	return __atomic_load_n(&got_signal, __ATOMIC_SEQ_CST);
}

/* Close every descriptor from 3 up but KEEP (close_range, or one by one
 * on a kernel without it). */
static void close_others(int keep)
{
	struct rlimit rl;
	unsigned fd, max;

	if ((keep <= 3 || close_range(3, (unsigned)keep - 1, 0) == 0) &&
	    close_range((unsigned)keep + 1, ~0u, 0) == 0)
		return;
	max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1u << 20 ? (unsigned)rl.rlim_cur
									  : 1u << 20;
	for (fd = 3; fd < max; fd++)
		if (fd != (unsigned)keep)
			close((int)fd);
}

/*
 * Leftovers.  threadrun is its children's subreaper: whatever the program
 * starts, in its process group or out of it (setsid), becomes threadrun's
 * child when its parent ends, so that it can be ended with the run.
 * The kernel lists a task's children (/proc/PID/task/TID/children, with
 * CONFIG_PROC_CHILDREN): a few reads, where a scan of /proc reads every
 * process's stat (most of a launch's cost on a machine with a few hundred
 * processes).  Without that list, /proc is scanned, with system calls only
 * and memory on the stack, since the watchdog (which may share threadrun's
 * memory) scans it too.
 */
struct dirent64_raw {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Open /proc/PID/FILE (PID as its digits) to read; -1. */
static int proc_open(const char *pid, const char *file)
{
	char path[64];
	size_t n = 6;

	memcpy(path, "/proc/", 6);
	while (*pid && n < 40)
		path[n++] = *pid++;
	path[n++] = '/';
	while (*file && n < 63)
		path[n++] = *file++;
	path[n] = '\0';
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Appends the pids of FILE (digits separated by spaces) to PIDS[*N] (up
 * to MAX; *N counts on past it). */
static void read_pids(int fd, pid_t *pids, size_t max, size_t *n)
{
	char buf[1024];
	long pid = 0;
	bool digits = false;
	ssize_t got;

	while ((got = read(fd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR))
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				pid = pid * 10 + (buf[i] - '0');
				digits = pid <= INT_MAX;
				continue;
			}
			if (digits && *n < max)
				pids[*n] = (pid_t)pid;
			*n += digits;
			pid = 0;
			digits = false;
		}
	if (digits && *n < max)
		pids[*n] = (pid_t)pid;
	*n += digits;
}

/* Our children as the kernel lists them, of each of our threads: up to MAX
 * into PIDS.  How many there are (past MAX: some left out), or -1 where
 * the kernel keeps no such list. */
static long own_children(pid_t *pids, size_t max)
{
	char path[64], buf[1024];
	size_t n = 0;
	long got, off;
	int dir, fd;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)getpid());
	if ((dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	while ((got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
		for (off = 0; off < got; off += ((struct dirent64_raw *)(buf + off))->d_reclen) {
			const char *tid = ((struct dirent64_raw *)(buf + off))->d_name;

			if (*tid < '0' || *tid > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%.12s/children", (int)getpid(), tid);
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
				n = errno == ENOENT ? (size_t)-1 : n;
				continue;
			}
			read_pids(fd, pids, max, &n);
			close(fd);
		}
	close(dir);
	return n == (size_t)-1 ? -1 : (long)n;
}

/* Whether process PID's parent is PARENT (its stat's 4th field, after
 * the name in parentheses, which may hold anything). */
static bool child_of(const char *pid, void *parent)
{
	char buf[512], *p;
	long ppid = 0;
	ssize_t n;
	int fd = proc_open(pid, "stat");

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return false;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	return ppid == *(const pid_t *)parent;
}

/* Whether process PID's environment (as it was exec'd) holds the entry
 * MARKER ("THREADRUN_RUN=id"): a descendant of the run, whatever became
 * of its parents. */
static bool has_marker(const char *pid, void *marker)
{
	const char *m = marker;
	size_t len = strlen(m), at = 0;
	char buf[4096];
	bool same = true, found = false;
	ssize_t n;
	int fd = proc_open(pid, "environ");

	if (fd < 0)
		return false;
	while (!found && (n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n && !found; i++) {
			if (!buf[i]) {
				found = same && at == len;
				same = true;
				at = 0;
			} else if (same && at < len && buf[i] == m[at]) {
				at++;
			} else {
				same = false;
			}
		}
	close(fd);
	return found;
}

/* SIGKILL to every process of /proc that MATCH accepts, but SELF and
 * KEEP; with REAP (they are our children) each is waited for.  The
 * number killed. */
static unsigned kill_matching(bool (*match)(const char *, void *), void *arg,
			      pid_t self, pid_t keep, bool reap)
{
	char buf[4096];
	unsigned killed = 0;
	long n, off;
	pid_t pid;
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
		for (off = 0; off < n; off += ((struct dirent64_raw *)(buf + off))->d_reclen) {
			const char *name = ((struct dirent64_raw *)(buf + off))->d_name;

			pid = 0;
			for (const char *c = name; *c >= '0' && *c <= '9'; c++)
				pid = pid * 10 + (*c - '0');
			if (pid <= 0 || pid == self || pid == keep || !match(name, arg) ||
			    kill(pid, SIGKILL) < 0)
				continue;
			killed++;
			while (reap && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
	close(dir);
	return killed;
}

/*
 * The children threadrun had before its first run (a shell that started
 * a daemon and then exec'd threadrun hands it over): not the run's, so
 * never ended with it.  Read once; past PRIOR_MAX of them, no leftover is
 * looked for outside the job's group.
 */
#define PRIOR_MAX 256
static struct prior {
	bool known, overflow;
	size_t n;
	pid_t self, pid[PRIOR_MAX];
} prior;

/* kill_matching's MATCH that kills nothing: notes each child of ours. */
static bool note_prior(const char *pid, void *arg)
{
	struct prior *p = arg;

	if (child_of(pid, &p->self)) {
		if (p->n < PRIOR_MAX)
			p->pid[p->n++] = (pid_t)strtol(pid, NULL, 10);
		else
			p->overflow = true;
	}
	return false;
}

static void note_prior_children(void)
{
	long n;

	if (prior.known)
		return;
	prior.self = getpid();
	n = own_children(prior.pid, PRIOR_MAX);
	if (n < 0) {
		kill_matching(note_prior, &prior, prior.self, 0, false);
	} else {
		prior.n = n < PRIOR_MAX ? (size_t)n : PRIOR_MAX;
		prior.overflow = n > PRIOR_MAX;
	}
	prior.known = true;
}

static bool had_before(pid_t pid)
{
	for (size_t i = 0; i < prior.n; i++)
		if (prior.pid[i] == pid)
			return true;
	return false;
}

/* A child of ours that the run left: not one we had before it. */
static bool left_by_run(const char *pid, void *arg)
{
	const struct prior *p = arg;

	return !had_before((pid_t)strtol(pid, NULL, 10)) && child_of(pid, (void *)&p->self);
}

/* kill_matching(left_by_run) over the kernel's list of our children: the
 * number killed (and reaped), or -1 where there is no such list. */
static long kill_children_left(pid_t keep)
{
	pid_t pids[2 * PRIOR_MAX];
	long n = own_children(pids, sizeof(pids) / sizeof(pids[0])), killed = 0;

	for (long i = 0; i < n && i < (long)(sizeof(pids) / sizeof(pids[0])); i++) {
		if (pids[i] == keep || had_before(pids[i]) || kill(pids[i], SIGKILL) < 0)
			continue;
		killed++;
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	}
	return n < 0 ? -1 : killed;
}

/* The program has ended: its group, then whatever it started that is
 * left (each one killed hands its own children to threadrun), all but
 * the watchdog KEEP and the children threadrun had before. */
static void end_leftovers(pid_t pgid, pid_t keep)
{
	long killed;

	kill(-pgid, SIGKILL);
	if (!prior.known || prior.overflow)
		return;
	while ((killed = kill_children_left(keep)) > 0)
		;
	if (killed < 0)
		while (kill_matching(left_by_run, &prior, prior.self, keep, true))
			;
}

/*
 * The watchdog: a small process that outlives threadrun by an instant.  It
 * waits for the end of a pipe only threadrun holds; when that pipe closes,
 * at the end of the run or because threadrun died, even of SIGKILL, it
 * kills whatever is left of the job's process group.  PR_SET_PDEATHSIG
 * covers the program itself; this covers its children (sh -c 'prog').
 *
 * It shares threadrun's memory (clone with CLONE_VM, on a stack of its
 * own): a fork would copy threadrun's page tables and make every page
 * threadrun writes afterwards fault, 2-3 ms of a launch on a virtual
 * machine.  So it makes system calls only, and reads nothing threadrun
 * may change but its flag (its struct watchdog_arg lies in its own
 * mapping).  After threadrun's death it kills what carries the run's id
 * in its environment: a process that left the group and cleared or
 * replaced its environment at its exec escapes it.  Under a
 * sanitizer, whose runtime keeps per-thread state the two would share, it
 * is forked.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WATCHDOG_SHARES_MEMORY 0
#else
#define WATCHDOG_SHARES_MEMORY 1
#endif
#define WATCHDOG_MAP (64 * 1024)

/* The watchdog of one run: its pid (-1: none), the pipe's end threadrun
 * holds, the mapping it runs in. */
struct watchdog {
	pid_t pid;
	int wfd;
	void *map;
	bool reaped;    /* it ended before its time (killed) */
};

struct watchdog_arg {
	pid_t pgid;
	int rd, wr;
	char marker[320];       /* "THREADRUN_RUN=id" of the run, or "" */
	bool ended;             /* set by threadrun when it ended the run itself */
};

/* Passes over /proc after threadrun died: a process killed may show its
 * environment a moment longer. */
#define WATCHDOG_PASSES 100

static int watchdog_main(void *arg)
{
	const struct watchdog_arg *w = arg;
	int sig, i;
	char c;

	/* It keeps no descriptor but its pipe: one threadrun held (the read
	 * end of --metric's tap) would keep the job's pipes open. */
	close(w->wr);
	close_others(w->rd);
	for (sig = 1; sig < _NSIG; sig++)
		if (is_forwarded(sig))
			signal(sig, SIG_IGN);
	while (read(w->rd, &c, 1) < 0 && errno == EINTR)
		;
	kill(-w->pgid, SIGKILL);
	/* No word from threadrun: it died (SIGKILL) and ended nothing of the
	 * run.  What left the group (setsid) was its child, and is init's
	 * now: found by the run id in its environment. */
	for (i = 0; !__atomic_load_n(&w->ended, __ATOMIC_SEQ_CST) && w->marker[0] &&
		    i < WATCHDOG_PASSES &&
		    kill_matching(has_marker, (void *)w->marker, getpid(), 0, false); i++)
		;
	_exit(0);
}

static int start_watchdog(struct watchdog *wd, pid_t pgid)
{
	struct watchdog_arg *w;
	const char *run;
	int p[2], saved;

	wd->pid = -1;
	wd->map = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	/* Shared: a forked watchdog still sees threadrun's flag. */
	wd->map = mmap(NULL, WATCHDOG_MAP, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (wd->map == MAP_FAILED) {
		wd->map = NULL;
		goto fail;
	}
	/* The argument at the bottom, the stack growing down from the top. */
	w = wd->map;
	*w = (struct watchdog_arg){ pgid, p[0], p[1], "", false };
	run = getenv(ENV_RUN);
	if (run && strlen(run) + sizeof(ENV_RUN "=") <= sizeof(w->marker))
		snprintf(w->marker, sizeof(w->marker), "%s=%s", ENV_RUN, run);
	if (WATCHDOG_SHARES_MEMORY)
		wd->pid = clone(watchdog_main, (char *)wd->map + WATCHDOG_MAP, CLONE_VM | SIGCHLD, w);
	else if ((wd->pid = fork()) == 0)
		watchdog_main(w);
	if (wd->pid < 0)
		goto fail;
	close(p[0]);
	wd->wfd = p[1];
	return 0;
fail:
	saved = errno;
	close(p[0]);
	close(p[1]);
	if (wd->map)
		munmap(wd->map, WATCHDOG_MAP);
	wd->map = NULL;
	errno = saved;
	return -1;
}

static void stop_watchdog(struct watchdog *wd)
{
	if (wd->reaped) {
		close(wd->wfd);
		munmap(wd->map, WATCHDOG_MAP);
		wd->reaped = false;
	}
	if (wd->pid <= 0)
		return;
	/* threadrun ended the run itself (a flag, not a byte: a write to a
	 * watchdog killed meanwhile would raise SIGPIPE). */
	__atomic_store_n(&((struct watchdog_arg *)wd->map)->ended, true, __ATOMIC_SEQ_CST);
	close(wd->wfd);
	while (waitpid(wd->pid, NULL, 0) < 0 && errno == EINTR)
		;
	/* Its stack, once it is gone. */
	munmap(wd->map, WATCHDOG_MAP);
	wd->pid = -1;
}

/* Wait for the program PID: an orphan of the job that ends meanwhile is
 * reaped and ignored (its status is not the program's), and so is a
 * watchdog that was killed.  0 with STATUS and RU, or -1 with errno. */
static int wait_program(pid_t pid, struct watchdog *wd, int *status, struct rusage *ru)
{
	pid_t got;

	for (;;) {
		got = wait4(-1, status, 0, ru);
		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -1;
		if (got > 0 && got == wd->pid)
			wd->pid = -1, wd->reaped = true;
	}
}

/* What the program's child needs, all made before it starts. */
struct child {
	const char *path;
	char *const *argv;
	pid_t parent;
	const sigset_t *mask;   /* the signal mask to run the program with */
	int hold_rd, hold_wr;   /* the hook's hold pipe, or -1 */
	int err_rd, err_wr;     /* the failed exec's errno goes up this pipe */
	int out_fd, err_fd;     /* its stdout and stderr, or -1: threadrun's */
	const cpu_set_t *cpus;  /* the plan's PUs, or NULL: unbound */
	size_t cpus_size;
};

/* The program's child, up to its exec: only system calls, into memory of
 * its own or made before (it may share threadrun's). */
static _Noreturn void child_main(const struct child *c)
{
	int child_errno;
	ssize_t n;
	char go = 0;

	close(c->err_rd);
	/* The job is a process group of its own, so that a signal reaches
	 * every process of it; it dies with threadrun, even of SIGKILL
	 * (checked after setting: threadrun may be gone already). */
	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != c->parent)
		_exit(127);
	restore_signals(c->mask);
	if (c->hold_rd >= 0) {
		/* Released by a byte; the end of the pipe (the hook failed,
		 * threadrun died) means never. */
		close(c->hold_wr);
		while ((n = read(c->hold_rd, &go, 1)) < 0 && errno == EINTR)
			;
		if (n != 1 || go != 'g')
			_exit(127);
		close(c->hold_rd);
	}
	if ((c->out_fd >= 0 && dup2(c->out_fd, 1) < 0) || (c->err_fd >= 0 && dup2(c->err_fd, 2) < 0))
		child_errno = errno;
	else if (c->cpus && sched_setaffinity(0, c->cpus_size, c->cpus) < 0)
		child_errno = errno;
	else
		execv(c->path, c->argv), child_errno = errno;
	if (write(c->err_wr, &child_errno, sizeof(child_errno)) < 0)
		_exit(127);
	_exit(child_errno == ENOENT ? 127 : 126);
}

/* vfork: no copy of threadrun's page tables (a fork costs it ~0.4 ms);
 * threadrun waits until the exec.  A child held for the hook must let
 * threadrun go on first: fork. */
static pid_t start_child(const struct child *c)
{
	pid_t pid = c->hold_rd >= 0 ? fork() : vfork();

	if (pid == 0)
		child_main(c);
	return pid;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Let the started child go on: the hook's look at it, then the hold
 * pipe's release.  0, or the run's status when it never exec'd (it ends
 * at the pipe's end, and is waited for). */
static int release_child(pid_t pid, const struct launch_hook *hook, int hold[2], char *err,
			 size_t errlen)
{
	int st = hook && hook->started ? hook->started(pid, hook->arg, err, errlen) : 0;

	if (!st && hold[1] >= 0) {
		close_fd(&hold[0]);
		if (write(hold[1], "g", 1) != 1) {
			snprintf(err, errlen, "cannot release the program: %s", strerror(errno));
			st = 126;
		}
	}
	close_fd(&hold[1]);
	if (st)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return st;
}

/* The released child's end: how it ended and what it used, into R (the
 * start and MARK0 taken before it started).  0, or -1 with the message in
 * ERR and R's status. */
static int wait_result(pid_t pid, int exec_fd, const char *path, const struct pl_plan *plan,
		       struct watchdog *wd, const struct cpuload_mark *mark0, double start,
		       struct launch_result *r, char *err, size_t errlen)
{
	struct cpuload_mark mark1;
	struct rusage ru;
	int child_errno = 0, status = 0;

	while (read(exec_fd, &child_errno, sizeof(child_errno)) < 0 && errno == EINTR)
		;
	if (wait_program(pid, wd, &status, &ru) < 0) {
		snprintf(err, errlen, "wait4 failed: %s", strerror(errno));
		r->status = 1;
		return -1;
	}
	r->wall_s = now_s() - start;
	r->user_s = tv_s(ru.ru_utime);
	r->sys_s = tv_s(ru.ru_stime);
	cpuload_mark(&mark1, plan && plan->bound ? plan->pu : NULL,
		     plan && plan->bound ? plan->nworkers : 0);
	cpuload_span_add(&r->load, mark0, &mark1, r->user_s + r->sys_s);
	if (child_errno) {
		snprintf(err, errlen, "cannot run '%s': %s", path, strerror(child_errno));
		r->status = child_errno == ENOENT ? 127 : 126;
		return -1;
	}
	if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		r->status = 128 + r->signal;
	} else {
		r->status = WEXITSTATUS(status);
	}
	return 0;
}

/* The child started in a group of its own, known to the signal handlers
 * and watched by the watchdog: its pid, or -1 with the message in ERR. */
static pid_t start_job(struct child *c, sigset_t *old, struct watchdog *wd, char *err,
		       size_t errlen)
{
	sigset_t all;
	pid_t pid;

	/* Signals wait until the job's group exists and is known. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, old);
	pid = start_child(c);
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, old, NULL);
		return -1;
	}
	setpgid(pid, pid);
	__atomic_store_n(&job_pgid, pid, __ATOMIC_SEQ_CST);
	close_fd(&c->err_wr);
	start_watchdog(wd, pid);
	sigprocmask(SIG_SETMASK, old, NULL);
	if (wd->pid < 0)
		fprintf(stderr, "threadrun: warning: no watchdog (%s): the program's children may outlive a killed threadrun\n",
			strerror(errno));
	return pid;
}

int launch_run(const char *path, char *const argv[], const struct pl_plan *plan, int out_fd,
	       int err_fd, const struct launch_hook *hook, struct launch_result *r, char *err,
	       size_t errlen)
{
	struct cpuload_mark mark0;
	int pipefd[2] = { -1, -1 }, hold[2] = { -1, -1 }, ret = -1;
	sigset_t old;
	pid_t pid = -1;
	struct watchdog watchdog = { .pid = -1 };
	struct child c = { path, argv, getpid(), &old, -1, -1, -1, -1, out_fd, err_fd, NULL, 0 };
	cpu_set_t *mask = NULL;
	double start;

	memset(r, 0, sizeof(*r));
	r->status = 126;
	/* Made here: the child may share this memory (vfork) and allocates nothing. */
	if (plan && plan->bound && !(c.cpus = mask = pl_plan_cpuset(plan, &c.cpus_size))) {
		snprintf(err, errlen, "cannot make the plan's CPU mask: %s", strerror(errno));
		goto out;
	}
	/* The child reports a failed exec through a close-on-exec pipe; a
	 * hook that must see the child before its exec holds it on another. */
	if (pipe2(pipefd, O_CLOEXEC) < 0 || (hook && hook->hold && pipe2(hold, O_CLOEXEC) < 0)) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	/* What else runs on the plan's PUs: /proc/stat before and after. */
	cpuload_mark(&mark0, plan && plan->bound ? plan->pu : NULL,
		     plan && plan->bound ? plan->nworkers : 0);
	/* Orphans of the job become threadrun's children, to be ended with it. */
	note_prior_children();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	start = now_s();
	r->t_start_us = epoch_us();
	c.hold_rd = hold[0];
	c.hold_wr = hold[1];
	c.err_rd = pipefd[0];
	c.err_wr = pipefd[1];
	pid = start_job(&c, &old, &watchdog, err, errlen);
	pipefd[1] = c.err_wr;
	if (pid < 0)
		goto out;
	r->pid = pid;
	r->status = release_child(pid, hook, hold, err, errlen);
	if (!r->status)
		ret = wait_result(pid, pipefd[0], path, plan, &watchdog, &mark0, start, r, err,
				  errlen);
out:
	/* The program is gone; what it left, in its group or not, goes with it. */
	if (pid > 0)
		end_leftovers(pid, watchdog.pid);
	stop_watchdog(&watchdog);
	__atomic_store_n(&job_pgid, 0, __ATOMIC_SEQ_CST);
	close_fd(&pipefd[0]);
	close_fd(&pipefd[1]);
	close_fd(&hold[0]);
	close_fd(&hold[1]);
	CPU_FREE(mask);
	return ret;
}
