/* The files a run writes: opened without links, FIFOs or stray descriptors. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "datafile.h"

int datafile_open(const char *what, const char *path, int flags, char *err, size_t errlen)
{
	struct stat st;
	int fd, moved, saved;
	size_t len = strlen(path);

	if (len >= PATH_MAX) {
		errno = ENAMETOOLONG;
		snprintf(err, errlen, "%s: '%.32s...' (%zu characters): %s, at most %d", what, ESC(path),
			 len, strerror(errno), PATH_MAX - 1);
		return -1;
	}
	/* O_NONBLOCK: opening a FIFO must not wait for a reader. */
	fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0) {
		saved = errno;
		if (saved == ELOOP)
			snprintf(err, errlen, "%s: '%s' is a symbolic link; links are not followed, give the file itself",
				 what, ESC(path));
		else if (saved == ENXIO || saved == EISDIR)
			snprintf(err, errlen, "%s: '%s' is not a regular file, give a file", what, ESC(path));
		else
			snprintf(err, errlen, "%s: cannot open '%s': %s", what, ESC(path), strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: '%s' is not a regular file, give a file", what, ESC(path));
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		goto fail;
	/* Descriptors 0-2 belong to stdin, stdout and stderr, never to a file. */
	if (fd <= 2) {
		moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (moved < 0)
			goto fail;
		close(fd);
		fd = moved;
	}
	return fd;
fail:
	saved = errno;
	snprintf(err, errlen, "%s: cannot open '%s': %s", what, ESC(path), strerror(saved));
	close(fd);
	errno = saved;
	return -1;
}

int datafile_write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int datafile_append(int fd, const char *header, const char *text, size_t len)
{
	struct stat st;
	int ret = -1, saved;

	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return -1;
	if (fstat(fd, &st) < 0)
		goto out;
	if (st.st_size == 0 && header && datafile_write_all(fd, header, strlen(header)) < 0)
		goto out;
	ret = datafile_write_all(fd, text, len);
out:
	saved = errno;
	flock(fd, LOCK_UN);
	errno = saved;
	return ret;
}

static const char *stdout_prog;

/* Like gnulib's close_stdout: a lost table is a failed run. */
static void check_stdout(void)
{
	bool failed = fflush(stdout) == EOF || ferror(stdout);
	int saved = errno;

	if (fclose(stdout) == EOF && !failed) {
		failed = true;
		saved = errno;
	}
	if (failed) {
		fprintf(stderr, "%s: cannot write standard output: %s\n", stdout_prog,
			strerror(saved ? saved : EIO));
		/* A reader that went away ends the run as SIGPIPE would. */
		_exit(saved == EPIPE ? 128 + SIGPIPE : 1);
	}
}

void datafile_stdio_init(const char *prog)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
			_exit(127);
	stdout_prog = prog;
	atexit(check_stdout);
}
