/* The cluster start gate, the measured programs' side (gate.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "gate.h"
#include "runenv.h"

/* One gate per process: the descriptors are the process's. */
static struct {
	pthread_once_t once;
	pthread_mutex_t mu;     /* one request and its reply at a time */
	int rfd, wfd;           /* -1: no gate */
	bool gone;              /* the wrapper closed its ends: run unsynchronised */
	unsigned long tokens;
	unsigned seq;           /* this process's measurements */
	unsigned index;         /* THREADRUN_SWEEP_INDEX */
} g = { PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, -1, -1, false, 0, 0, 0 };

/* A descriptor number as the wrapper writes it: digits, at most INT_MAX. */
static int parse_fd(const char *s, const char **end)
{
	long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
	}
	*end = s;
	return (int)v;
}

/* Whether FD can be a gate's end: above stderr, a pipe or a socket (a
 * regular file would be written over, a terminal read from), open for
 * reading (WRITE false) or writing. */
static bool gate_end(int fd, bool write)
{
	struct stat st;
	int fl;

	if (fd <= STDERR_FILENO || fstat(fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return false;
	fl &= O_ACCMODE;
	return fl == O_RDWR || fl == (write ? O_WRONLY : O_RDONLY);
}

static void open_once(void)
{
	const char *s = getenv(ENV_SYNC_FD), *p, *idx = getenv(ENV_SWEEP_INDEX);
	int r, w = -1;

	if (idx) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(idx, &end, 10);
		if (!errno && *idx >= '0' && *idx <= '9' && !*end && v <= UINT_MAX)
			g.index = (unsigned)v;
	}
	if (!s)
		return;
	r = parse_fd(s, &p);
	if (r >= 0 && *p == ',')
		w = parse_fd(p + 1, &p);
	if (r < 0 || w < 0 || *p || r == w || !gate_end(r, false) || !gate_end(w, true)) {
		fprintf(stderr, "%s: warning: ignoring %s=%s (not R,W: two distinct descriptors above 2, each an open pipe or socket): the start is not synchronised across ranks\n",
			program_invocation_short_name, ENV_SYNC_FD, ESC(s));
		return;
	}
	g.rfd = r;
	g.wfd = w;
}

int gate_open(void)
{
	pthread_once(&g.once, open_once);
	return g.rfd >= 0;
}

/* Write LINE whole; a wrapper that is gone is no signal (SIGPIPE held and
 * taken back) but the end of the gate. */
static void put_line(const char *line, size_t len)
{
	sigset_t pipe_set, old, pending;
	const struct timespec zero = { 0, 0 };
	bool was_pending;
	ssize_t w;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	do
		w = write(g.wfd, line, len);
	while (w < 0 && errno == EINTR);
	if (w < 0 && errno == EPIPE && !was_pending)
		sigtimedwait(&pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (w != (ssize_t)len)
		g.gone = true;
}

/* One reply line into BUF (a longer one is cut): 1, 0 at EOF or an error. */
static int get_line(char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;
	char c;

	for (;;) {
		r = read(g.rfd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		if (c == '\n')
			break;
		if (n + 1 < len)
			buf[n++] = c;
	}
	buf[n] = '\0';
	return 1;
}

/* Wait for VERB TOKEN ANSWER; its answer's first character, or -1 when the
 * wrapper is gone, -2 when a signal ended the wait. */
static int await(const char *verb, const char *token, volatile sig_atomic_t *flag,
		 int (*interrupted)(void))
{
	struct pollfd pfd = { .fd = g.rfd, .events = POLLIN };
	char line[GATE_LINE], *tok, *ans;
	size_t vlen = strlen(verb);
	int n;

	for (;;) {
		if ((flag && *flag) || (interrupted && interrupted()))
			return -2;
		/* A signal's handler may restart read(), never poll(): the
		 * flags above are looked at every 100 ms at least. */
		n = poll(&pfd, 1, 100);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n <= 0)
			continue;
		if (!get_line(line, sizeof(line)))
			return -1;
		if (strncmp(line, verb, vlen) || line[vlen] != ' ')
			continue;
		tok = line + vlen + 1;
		ans = strchr(tok, ' ');
		if (!ans)
			continue;
		*ans++ = '\0';
		if (strcmp(tok, token) == 0)
			return (unsigned char)*ans;
	}
}

/* KEY on one line: line breaks become spaces; a key too long for the line
 * is sent as its hash (ranks compare keys, never read them). */
static int format_request(char *line, size_t len, const char *head, const char *key)
{
	uint64_t h = 14695981039346656037ull;   /* FNV-1a */
	size_t hl = strlen(head), kl = strlen(key), i;
	int n;

	if (hl + kl + 2 <= len) {
		memcpy(line, head, hl);
		line[hl] = ' ';
		for (i = 0; i < kl; i++)
			line[hl + 1 + i] = key[i] == '\n' || key[i] == '\r' ? ' ' : key[i];
		line[hl + 1 + kl] = '\n';
		return (int)(hl + kl + 2);
	}
	for (i = 0; i < kl; i++)
		h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
	n = snprintf(line, len, "%s #%016llx\n", head, (unsigned long long)h);
	return n > 0 && (size_t)n < len ? n : -1;
}

/* Send HEAD KEY and wait for VERB's answer under the lock: the answer, or
 * -1 gone, -2 interrupted. */
static int ask(const char *kind, const char *pos_done, const char *verb, const char *key,
	       volatile sig_atomic_t *flag, int (*interrupted)(void))
{
	char head[256], token[64], line[GATE_LINE];
	int n, ans;

	snprintf(token, sizeof(token), "%ld.%lu", (long)getpid(), ++g.tokens);
	snprintf(head, sizeof(head), "%s %s %s", kind, token, pos_done);
	n = format_request(line, sizeof(line), head, key);
	if (n < 0)
		return -1;
	put_line(line, (size_t)n);
	if (g.gone)
		return -1;
	ans = await(verb, token, flag, interrupted);
	if (ans == -1)
		g.gone = true;
	return ans;
}

int gate_ready(const char *key, volatile sig_atomic_t *interrupted)
{
	char pos[64];
	int ans, ret = 0;

	if (!gate_open())
		return -1;
	pthread_mutex_lock(&g.mu);
	/* Counted even when gone: a measurement's number is its place. */
	snprintf(pos, sizeof(pos), "%u.%u", g.index, ++g.seq);
	if (!g.gone) {
		ans = ask(GATE_READY, pos, GATE_GO, key, interrupted, NULL);
		ret = ans == GATE_YES[0];
	}
	pthread_mutex_unlock(&g.mu);
	return ret;
}

int gate_resume(unsigned index, bool done, const char *key, int (*interrupted)(void))
{
	char pos[64];
	int ret = 0;

	if (!gate_open())
		return -1;
	pthread_mutex_lock(&g.mu);
	snprintf(pos, sizeof(pos), "%u.0 %s", index, done ? GATE_TRUE : GATE_FALSE);
	if (!g.gone)
		ret = ask(GATE_RESUME, pos, GATE_SKIP, key, NULL, interrupted) == GATE_TRUE[0];
	pthread_mutex_unlock(&g.mu);
	return ret;
}

void gate_row(double work, const char *unit, double wall_s, long long t_start_us,
	      long long t_end_us, int status)
{
	char line[512], u[64];
	size_t i;
	int n;

	if (!gate_open())
		return;
	/* A unit is one field: a metric's may hold spaces. */
	snprintf(u, sizeof(u), "%s", unit && *unit ? unit : "-");
	for (i = 0; u[i]; i++)
		if (u[i] == ' ' || u[i] == '\t' || u[i] == '\n' || u[i] == '\r')
			u[i] = '_';
	pthread_mutex_lock(&g.mu);
	if (!g.gone) {
		n = snprintf(line, sizeof(line), GATE_ROW " %ld.%lu %.17g %s %.9g %lld %lld %d\n",
			     (long)getpid(), ++g.tokens, work == work ? work : 0.0, u, wall_s,
			     t_start_us, t_end_us, status);
		if (n > 0 && (size_t)n < sizeof(line))
			put_line(line, (size_t)n);
	}
	pthread_mutex_unlock(&g.mu);
}

const char *start_sync_text(enum start_sync s)
{
	return s == START_SYNC_YES ? "yes" : s == START_SYNC_NO ? "no" : NULL;
}

enum start_sync start_sync_of(int ready)
{
	return ready > 0 ? START_SYNC_YES : ready == 0 ? START_SYNC_NO : START_SYNC_NONE;
}
