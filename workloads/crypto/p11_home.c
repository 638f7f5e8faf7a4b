/* The throwaway token's home: made private and locked, removed whole, and
 * what killed runs left behind removed by the next run. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "p11_home.h"

#define PREFIX "t2accel-token-"
/* SoftHSM2 nests tokens/UUID/files: deeper than this is not ours. */
#define MAX_DEPTH 8

static const char softhsm_conf[] =
	"directories.tokendir = %s/tokens\nobjectstore.backend = file\nlog.level = ERROR\n"
	"slots.removable = false\n";
/* Single DES inside SoftHSM2 needs OpenSSL's legacy provider. */
static const char openssl_conf[] =
	"openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n"
	"[provider_sect]\ndefault = default_sect\nlegacy = legacy_sect\n"
	"[default_sect]\nactivate = 1\n[legacy_sect]\nactivate = 1\n";

/* An empty TMPDIR counts as unset (a directory named "" is none); a
 * relative one would change meaning with the working directory. */
static const char *tmp_base(void)
{
	const char *t = getenv("TMPDIR");

	return t && t[0] == '/' ? t : "/tmp";
}

/* Process PID's start time in clock ticks after boot (field 22 of
 * /proc/PID/stat), or 0 when it cannot be read. */
static unsigned long long proc_start(pid_t pid)
{
	char path[32], buf[1024], *p, *end;
	unsigned long long v;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The command name (field 2) may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return 0;
	errno = 0;
	v = strtoull(p + 1, &end, 10);
	return errno || end == p + 1 ? 0 : v;
}

/* Whether the run that named a home for PID and START still lives. */
static bool owner_alive(pid_t pid, unsigned long long start)
{
	unsigned long long now = proc_start(pid);

	if (now)
		return now == start;
	/* No stat to read: gone, unless /proc is not there to tell. */
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* Decimal digits at *S (no sign, no blank), up to LIMIT. */
static bool digits(const char **s, unsigned long long limit, unsigned long long *v)
{
	const char *p = *s;

	*v = 0;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (*v > (limit - (unsigned)(*p - '0')) / 10)
			return false;
		*v = *v * 10 + (unsigned)(*p - '0');
	}
	*s = p;
	return true;
}

/* PREFIX PID - START - six characters of mkdtemp. */
static bool home_name(const char *name, pid_t *pid, unsigned long long *start)
{
	const char *p = name + strlen(PREFIX);
	unsigned long long v;
	size_t i;

	if (strncmp(name, PREFIX, strlen(PREFIX)) || !digits(&p, 0x7fffffff, &v) || v == 0 ||
	    *p++ != '-' || !digits(&p, ~0ULL, start) || *p++ != '-')
		return false;
	*pid = (pid_t)v;
	for (i = 0; i < 6; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
		      (p[i] >= '0' && p[i] <= '9')))
			return false;
	return p[6] == '\0';
}

/* Empty directory FD: no symlink followed, no other file system entered. */
static int rm_tree(int fd, int depth)
{
	struct stat top, st;
	struct dirent *e;
	DIR *d;
	int sub, ret = 0;

	if (fstat(fd, &top) < 0)
		return -1;
	sub = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = sub < 0 ? NULL : fdopendir(sub);
	if (!d) {
		if (sub >= 0)
			close(sub);
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(fd, e->d_name, 0) == 0)
			continue;
		if ((errno != EISDIR && errno != EPERM) || depth >= MAX_DEPTH) {
			ret = -1;
			continue;
		}
		sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || fstat(sub, &st) < 0 || st.st_dev != top.st_dev ||
		    rm_tree(sub, depth + 1) < 0 || unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0)
			ret = -1;
		if (sub >= 0)
			close(sub);
	}
	closedir(d);
	return ret;
}

/* Remove the homes in BASE that killed runs left: our name, our uid, a
 * directory (not a link to one), the owner gone and the lock free. */
static void sweep(int base)
{
	unsigned long long start;
	struct dirent *e;
	struct stat st;
	pid_t pid;
	DIR *d;
	int fd;

	fd = openat(base, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (!home_name(e->d_name, &pid, &start) || owner_alive(pid, start))
			continue;
		fd = openat(base, e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0 && rm_tree(fd, 0) == 0)
			unlinkat(base, e->d_name, AT_REMOVEDIR);
		close(fd);
	}
	closedir(d);
}

/* NAME in directory FD, new, holding TEXT. */
static int write_new(int fd, const char *name, const char *text)
{
	size_t len = strlen(text), done = 0;
	ssize_t n;
	int f = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (f < 0)
		return -1;
	while (done < len) {
		n = write(f, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			close(f);
			errno = e;
			return -1;
		}
		done += (size_t)n;
	}
	return close(f);
}

/* DIR/NAME in new memory, or NULL. */
static char *join(const char *dir, const char *name)
{
	char *s;

	return asprintf(&s, "%s/%s", dir, name) < 0 ? NULL : s;
}

int p11_home_make(struct p11_home *h, char *err, size_t errlen)
{
	const char *base = tmp_base();
	char *conf = NULL, *sconf = NULL, *oconf = NULL;
	int bfd, ret = BE_FAIL;

	h->dir = NULL;
	h->fd = -1;
	/* The path goes into SoftHSM2's configuration, one setting a line. */
	if (strpbrk(base, "\n\r")) {
		snprintf(err, errlen, "TMPDIR holds a line break, which SoftHSM2's configuration cannot carry");
		return BE_USAGE;
	}
	bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0) {
		snprintf(err, errlen, "cannot use the temporary directory '%s': %s", base, strerror(errno));
		return BE_FAIL;
	}
	sweep(bfd);
	close(bfd);
	if (asprintf(&h->dir, "%s/" PREFIX "%d-%llu-XXXXXX", base, (int)getpid(),
		     proc_start(getpid())) < 0) {
		h->dir = NULL;
		snprintf(err, errlen, "out of memory");
		return BE_FAIL;
	}
	if (!mkdtemp(h->dir)) {
		snprintf(err, errlen, "cannot create a temporary token directory in '%s': %s", base,
			 strerror(errno));
		free(h->dir);
		h->dir = NULL;
		return BE_FAIL;
	}
	if (asprintf(&conf, softhsm_conf, h->dir) < 0)
		conf = NULL;
	sconf = join(h->dir, "softhsm2.conf");
	oconf = join(h->dir, "openssl.cnf");
	errno = ENOMEM;
	if (!conf || !sconf || !oconf ||
	    (h->fd = open(h->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    flock(h->fd, LOCK_EX | LOCK_NB) < 0 || mkdirat(h->fd, "tokens", 0700) < 0 ||
	    write_new(h->fd, "softhsm2.conf", conf) < 0 ||
	    write_new(h->fd, "openssl.cnf", openssl_conf) < 0 ||
	    setenv("SOFTHSM2_CONF", sconf, 1) < 0 || setenv("OPENSSL_CONF", oconf, 1) < 0) {
		snprintf(err, errlen, "cannot write the temporary token directory %s: %s", h->dir,
			 strerror(errno));
		goto out;
	}
	ret = BE_OK;
out:
	free(conf);
	free(sconf);
	free(oconf);
	if (ret != BE_OK)
		p11_home_remove(h);
	return ret;
}

void p11_home_remove(struct p11_home *h)
{
	if (!h->dir)
		return;
	if (h->fd >= 0) {
		rm_tree(h->fd, 0);
		close(h->fd);
	}
	rmdir(h->dir);
	unsetenv("SOFTHSM2_CONF");
	unsetenv("OPENSSL_CONF");
	free(h->dir);
	h->dir = NULL;
	h->fd = -1;
}
