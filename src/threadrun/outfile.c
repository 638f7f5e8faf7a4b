/* -o's pattern, the per-rank files of a cluster job, the measuring lock. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "datafile.h"
#include "escape.h"
#include "launcher.h"
#include "outfile.h"
#include "results.h"
#include "timing.h"

/* A host name goes into a file name: a '/' would put the file elsewhere, a
 * control character would hide in listings and messages. */
static const char *bad_host(const char *host)
{
	if (!*host)
		return "it is empty";
	for (; *host; host++) {
		if (*host == '/')
			return "it holds '/'";
		if ((unsigned char)*host < 0x20 || *host == 0x7f)
			return "it holds a control character";
	}
	return NULL;
}

/* The expansion of %C in PATTERN onto F: 0, or -1 with the message in ERR. */
static int expand_one(FILE *f, char c, const char *pattern, const char *host, long rank,
		      bool *has_rank, char *err, size_t errlen)
{
	const char *why;

	switch (c) {
	case '%':
		fputc('%', f);
		return 0;
	case 'h':
		why = host ? bad_host(host) : "it is not known";
		if (why) {
			snprintf(err, errlen, "results: the host name '%s' cannot be part of a file name (%s): give -o without %%h",
				 ESC(host ? host : ""), why);
			return -1;
		}
		fputs(host, f);
		return 0;
	case 'r':
		fprintf(f, "%ld", rank < 0 ? 0 : rank);
		*has_rank = true;
		return 0;
	case '\0':
		snprintf(err, errlen, "results: '%s' ends in a lone %%, accepted: %s", ESC(pattern),
			 OUTFILE_PATTERNS);
		return -1;
	}
	if ((unsigned char)c < 0x21 || (unsigned char)c >= 0x7f)
		snprintf(err, errlen, "results: '%%\\x%02x' in '%s' is not known, accepted: %s",
			 (unsigned char)c, ESC(pattern), OUTFILE_PATTERNS);
	else
		snprintf(err, errlen, "results: '%%%c' in '%s' is not known, accepted: %s", c,
			 ESC(pattern), OUTFILE_PATTERNS);
	return -1;
}

int outfile_expand(const char *pattern, const char *host, long rank, char **out,
		   bool *has_rank, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *p;

	*out = NULL;
	*has_rank = false;
	if (!f) {
		snprintf(err, errlen, "results: out of memory");
		return -2;
	}
	for (p = pattern; *p; p++) {
		if (*p != '%') {
			fputc(*p, f);
		} else if (expand_one(f, *++p, pattern, host, rank, has_rank, err, errlen) < 0) {
			fclose(f);
			free(buf);
			return -1;
		}
	}
	if (fclose(f) != 0) {
		free(buf);
		snprintf(err, errlen, "results: out of memory");
		return -2;
	}
	*out = buf;
	return 0;
}

static const char *env_get(const char *name)
{
	return getenv(name);
}

int outfile_setup(struct outfile *of, const char *pattern, char *err, size_t errlen)
{
	struct launcher_id id;
	char warn[256], host[256 + 1];
	bool has_rank = false, host_ok;
	int rc, ret = 1;

	memset(of, 0, sizeof(*of));
	of->rank = -1;
	/* A bad launcher environment is a single-machine run; threadrun says
	 * so where it reads the environment for the rows. */
	rc = launcher_detect(env_get, &id, warn, sizeof(warn));
	if (rc == -2) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	if (rc == 1)
		of->rank = id.rank;
	host_ok = gethostname(host, sizeof(host) - 1) == 0;
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	if (pattern) {
		rc = outfile_expand(pattern, host_ok ? host : NULL, of->rank, &of->results,
				    &has_rank, err, errlen);
		if (rc < 0) {
			ret = rc == -2 ? 1 : 2;
			goto out;
		}
	}
	/* Ranks that share the results file keep a log and a series each:
	 * interleaved, neither would read.  A size not said may be several. */
	if (of->rank >= 0 && id.ranks != 1 && !has_rank)
		snprintf(of->tag, sizeof(of->tag), ".rank%ld", id.rank);
	ret = 0;
out:
	launcher_id_clear(&id);
	return ret;
}

void outfile_clear(struct outfile *of)
{
	free(of->results);
	of->results = NULL;
}

/* The real directory of NAME and its last part, into DIR and *BASE; -1
 * when the directory cannot be resolved. */
static int split_real(const char *name, char *copy, size_t len, char *dir,
		      const char **base)
{
	if ((size_t)snprintf(copy, len, "%s", name) >= len)
		return -1;
	*base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	return realpath(dirname(copy), dir) ? 0 : -1;
}

bool outfile_same(const char *a, const char *b)
{
	char ca[PATH_MAX], cb[PATH_MAX], da[PATH_MAX], db[PATH_MAX];
	const char *ba, *bb;
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (split_real(a, ca, sizeof(ca), da, &ba) < 0 ||
	    split_real(b, cb, sizeof(cb), db, &bb) < 0)
		return false;
	return strcmp(da, db) == 0 && strcmp(ba, bb) == 0;
}

/* The measuring lock's bytes of FILE.lock: from 2^41 (past the offsets
 * older versions claimed), one byte per rank, all of them outside a
 * launcher, so that a single machine's sweep excludes every rank's and the
 * ranks of a job, each on its own CPUs, measure together. */
static void hold_range(struct flock *fl, long rank, bool shared)
{
	memset(fl, 0, sizeof(*fl));
	fl->l_type = shared ? F_RDLCK : F_WRLCK;
	fl->l_whence = SEEK_SET;
	fl->l_start = ((off_t)1 << 41) + (rank < 0 ? 0 : 1 + (off_t)(rank & ((1l << 40) - 1)));
	fl->l_len = rank < 0 ? 0 : 1;
}

/* Whether PID is this process's parent, or its parent's, ... (/proc). */
static bool is_ancestor(pid_t pid)
{
	char path[64], buf[512], *end;
	pid_t p = getppid();
	long up;
	int i;
	FILE *f;

	for (i = 0; i < 256 && p > 1; i++) {
		if (p == pid)
			return true;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
		f = fopen(path, "re");
		if (!f)
			return false;
		end = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		/* After the name (which may hold anything): " S PPID ". */
		if (!end || sscanf(end + 1, " %*c %ld", &up) != 1)
			return false;
		p = (pid_t)up;
	}
	return false;
}

/* Who holds what FL asks for, in words: "the sweep of process 12"; its
 * pid in *PID (0 when not seen from here). */
static void holder(int fd, struct flock fl, pid_t *pid, char *buf, size_t len)
{
	bool got = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	const char *what = got && fl.l_type == F_RDLCK ? "a run" : "the sweep";

	*pid = got && fl.l_pid > 0 ? fl.l_pid : 0;
	if (*pid)
		snprintf(buf, len, "%s of process %d", what, (int)*pid);
	else
		snprintf(buf, len, "%s of a process not seen from here (another host?)", what);
}

/* The refusal: as flock(1) without waiting, or after --wait=S. */
static void busy_error(const char *results, const char *who, double wait_s, char *err,
		       size_t errlen)
{
	if (wait_s > 0)
		snprintf(err, errlen, "results: '%s' is still being measured by %s after --wait=%g s",
			 results, who, wait_s);
	else
		snprintf(err, errlen, "results: '%s' is being measured by %s; give --wait to wait for it, or another -o",
			 results, who);
}

/*
 * Take the lock on FD (the file PATH, beside RESULTS), waiting up to
 * WAIT_S seconds.  A process-associated lock: F_GETLK names its holder's
 * pid, the program (another process) never holds it, and it goes with
 * threadrun however it ends.  0, or the exit status with the message in ERR.
 */
static int take_lock(int fd, const char *path, const char *results, long rank, bool shared,
		     double wait_s, bool quiet, char *err, size_t errlen)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	double until = now_s() + wait_s;
	struct flock fl;
	char who[128];
	bool said = false;
	pid_t pid;

	for (;;) {
		hold_range(&fl, rank, shared);
		if (fcntl(fd, F_SETLK, &fl) == 0)
			return 0;
		if (errno == ENOLCK) {
			results_nolock_error(path, results, err, errlen);
			return 2;
		}
		if (errno != EAGAIN && errno != EACCES) {
			snprintf(err, errlen, "results: cannot lock '%s': %s", path, strerror(errno));
			return 2;
		}
		holder(fd, fl, &pid, who, sizeof(who));
		/* A threadrun that a sweep's program started is part of that
		 * measurement, not beside it. */
		if (pid && is_ancestor(pid))
			return 0;
		if (now_s() >= until) {
			busy_error(results, who, wait_s, err, errlen);
			return 1;
		}
		if (!said && !quiet)
			fprintf(stderr, "threadrun: waiting for %s, measuring on '%s'\n", who, ESC(results));
		said = true;
		nanosleep(&pause, NULL);
	}
}

int outfile_hold(const char *results, long rank, bool shared, double wait_s, bool quiet,
		 int *fdp, char *err, size_t errlen)
{
	char *path = NULL;
	int fd = -1, ret = 2;

	*fdp = -1;
	if (asprintf(&path, "%s.lock", results) < 0) {
		path = NULL;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	fd = datafile_open("lock", path, O_RDWR | O_CREAT | O_APPEND, err, errlen);
	/* A results file in a folder we may not write to still takes rows;
	 * its runs are then not kept apart, and one line says so. */
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		if (!quiet)
			fprintf(stderr, "threadrun: warning: %s: other sweeps and runs on '%s' are not kept apart\n",
				err, ESC(results));
		ret = 0;
		goto out;
	}
	if (fd < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "results: no lock file can be made beside '%s' ('%s' does not exist and cannot be created there); give a file in a folder of files",
				 ESC(results), ESC(path));
		goto out;
	}
	ret = take_lock(fd, path, results, rank, shared, wait_s, quiet, err, errlen);
	if (!ret) {
		*fdp = fd;
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return ret;
}
