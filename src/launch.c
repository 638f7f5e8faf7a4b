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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "timing.h"

/* Signal state is process-wide by nature: the handler needs the child. */
static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t got_signal;

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
	if (strchr(program, '/')) {
		st = check_path(program);
		if (st == 0) {
			snprintf(buf, len, "%s", program);
			return 0;
		}
		snprintf(err, errlen, st == 126 ? "program '%s' is not executable"
						: "program '%s' does not exist",
			 program);
		return st;
	}
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

static void forward(int sig)
{
	got_signal = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

int launch_interrupted(void)
{
	return got_signal;
}

int launch_run(const char *path, char *const argv[], const struct pl_plan *plan, int output_fd,
	       const struct launch_hook *hook, struct launch_result *r, char *err, size_t errlen)
{
	static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { 0 }, old[3];
	struct rusage ru;
	int pipefd[2], child_errno = 0, status = 0, ret = -1;
	double start;
	pid_t pid;
	size_t i;

	memset(r, 0, sizeof(*r));
	/* The child reports a failed exec through a close-on-exec pipe. */
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		r->status = 126;
		return -1;
	}
	got_signal = 0;
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(forwarded[i], &sa, &old[i]);
	start = now_s();
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		r->status = 126;
		goto out;
	}
	if (pid == 0) {
		for (i = 0; i < 3; i++)
			sigaction(forwarded[i], &old[i], NULL);
		close(pipefd[0]);
		if (output_fd >= 0 && (dup2(output_fd, 1) < 0 || dup2(output_fd, 2) < 0))
			child_errno = errno;
		else if (plan && pl_process_restrict(plan) < 0)
			child_errno = errno;
		else
			execv(path, argv), child_errno = errno;
		if (write(pipefd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(child_errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	r->pid = pid;
	if (hook && hook->started)
		hook->started(pid, hook->arg);
	close(pipefd[1]);
	pipefd[1] = -1;
	while (read(pipefd[0], &child_errno, sizeof(child_errno)) < 0 && errno == EINTR)
		;
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "wait4 failed: %s", strerror(errno));
			r->status = 1;
			goto out;
		}
	}
	r->wall_s = now_s() - start;
	r->user_s = tv_s(ru.ru_utime);
	r->sys_s = tv_s(ru.ru_stime);
	if (child_errno) {
		snprintf(err, errlen, "cannot run '%s': %s", path, strerror(child_errno));
		r->status = child_errno == ENOENT ? 127 : 126;
		goto out;
	}
	if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		r->status = 128 + r->signal;
	} else {
		r->status = WEXITSTATUS(status);
	}
	ret = 0;
out:
	child_pid = 0;
	for (i = 0; i < 3; i++)
		sigaction(forwarded[i], &old[i], NULL);
	close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	return ret;
}
