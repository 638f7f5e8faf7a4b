/*
 * Opening the files a run writes (the results file, FILE.log,
 * FILE.monitor.csv, FILE.lock) one safe way, and the standard descriptors
 * every program relies on.
 */
#ifndef DATAFILE_H
#define DATAFILE_H

#include <stddef.h>

/*
 * Open PATH for writing (FLAGS: O_WRONLY or O_RDWR, O_CREAT, O_APPEND):
 * never through a symbolic link, never blocking (a FIFO is refused at
 * once), a regular file only, close-on-exec, never on descriptors 0-2.
 * WHAT names the file in the message ("results", "log").  Returns the
 * descriptor, or -1 with errno set and a message in ERR; a path of
 * PATH_MAX characters or more fails with ENAMETOOLONG.
 */
int datafile_open(const char *what, const char *path, int flags, char *err, size_t errlen);

/*
 * Append TEXT (LEN bytes, whole lines) to FD under an exclusive flock,
 * HEADER first when the file is empty, so concurrent writers never tear a
 * line or repeat the header.  0, or -1 with errno.
 */
int datafile_append(int fd, const char *header, const char *text, size_t len);

/* Write all of BUF, retrying short writes and EINTR.  0, or -1 with errno. */
int datafile_write_all(int fd, const char *buf, size_t len);

/*
 * At the start of main: open /dev/null on any of descriptors 0-2 that is
 * closed, so no file lands there, and check at exit that standard output
 * was written (a full disk, /dev/full): PROG names the program in the
 * message, and the exit status becomes 1 (141 when the reader went away,
 * as SIGPIPE would have it).
 */
void datafile_stdio_init(const char *prog);

#endif
