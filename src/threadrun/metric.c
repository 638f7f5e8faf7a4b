/* threadrun --metric: parsing the metrics, the output tap, the figures. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metric.h"
#include "opt.h"

#define UNIT_MAX 32
#define DEFAULT_UNIT "value"
#define NAME_CHARS "letters, digits, '_' and '-'"

/* The characters of regex syntax: text before '=' holding one is no name. */
static const char regex_syntax[] = "\\^$.[]|()*+?{}";

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* Text for a message: control bytes (a newline in a name) shown as '?'. */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static int check_name(const char *name, size_t len, const char *shown, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < len && name_char(name[i]); i++)
		;
	if (len == 0 || len > METRIC_NAME_MAX || i < len) {
		snprintf(err, errlen,
			 "metric: name '%.*s' in '%s' is not a name, allowed 1..%d %s (an unnamed regex with '=' in it: name it, NAME=REGEX)",
			 (int)len, shown, shown, METRIC_NAME_MAX, NAME_CHARS);
		return -1;
	}
	return 0;
}

int metric_add(struct metric_set *s, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *regex = spec;
	struct metric *grown, *m;
	char msg[256], *shown = strdup(spec);
	int rc;
	unsigned i;

	/* Messages and notes show the text on one line. */
	if (!shown) {
		snprintf(err, errlen, "metric: out of memory");
		return -1;
	}
	printable(shown);
	grown = realloc(s->m, (s->n + 1) * sizeof(*s->m));
	if (!grown) {
		snprintf(err, errlen, "metric: out of memory");
		free(shown);
		return -1;
	}
	s->m = grown;
	m = &s->m[s->n];
	memset(m, 0, sizeof(*m));
	m->regex = shown;
	if (eq && strcspn(spec, regex_syntax) > (size_t)(eq - spec)) {
		if (check_name(spec, (size_t)(eq - spec), shown, err, errlen) < 0)
			goto fail;
		m->name = strndup(spec, (size_t)(eq - spec));
		if (!m->name) {
			snprintf(err, errlen, "metric: out of memory");
			goto fail;
		}
		regex = eq + 1;
		m->regex = shown + (regex - spec);
		for (i = 0; i < s->n; i++)
			if (s->m[i].name && strcmp(s->m[i].name, m->name) == 0) {
				snprintf(err, errlen, "metric: name '%s' given twice, each metric needs its own",
					 m->name);
				goto fail;
			}
	}
	if (!*regex) {
		snprintf(err, errlen, "metric: '%s': the regex is empty, give one with a capture group, e.g. 'Triad: +([0-9.]+)'",
			 shown);
		goto fail;
	}
	rc = regcomp(&m->re, regex, REG_EXTENDED);
	if (rc) {
		regerror(rc, &m->re, msg, sizeof(msg));
		snprintf(err, errlen, "metric: '%s' is not a POSIX extended regex: %s", m->regex, msg);
		goto fail;
	}
	if (m->re.re_nsub < 1) {
		regfree(&m->re);
		snprintf(err, errlen, "metric: '%s' has no capture group: put the figure in ( ), e.g. 'Triad: +([0-9.]+)'",
			 m->regex);
		goto fail;
	}
	m->spec = shown;
	s->n++;
	return 0;
fail:
	free(m->name);
	free(shown);
	return -1;
}

static int check_unit(const char *unit, char *err, size_t errlen)
{
	const char *p;

	for (p = unit; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			break;
	if (!*unit || *p || p - unit > UNIT_MAX) {
		snprintf(err, errlen, "unit: '%.*s%s' is not a unit, allowed 1..%d printable characters, e.g. MB/s",
			 (int)(p - unit), unit, *p ? "..." : "", UNIT_MAX);
		return -1;
	}
	return 0;
}

int metric_finish_setup(struct metric_set *s, const char *const *units, unsigned nunits,
			char *err, size_t errlen)
{
	unsigned i, k;

	if (nunits > 1 && nunits != s->n) {
		snprintf(err, errlen, "unit: %u given for %u metrics, give one for all or one per metric",
			 nunits, s->n);
		return -1;
	}
	for (i = 0; i < nunits; i++)
		if (check_unit(units[i], err, errlen) < 0)
			return -1;
	for (i = 0; i < s->n; i++) {
		s->m[i].unit = nunits == 0 ? DEFAULT_UNIT : units[nunits == 1 ? 0 : i];
		if (s->m[i].name)
			continue;
		if (s->n == 1 ? asprintf(&s->m[i].name, "metric") < 0
			      : asprintf(&s->m[i].name, "metric%u", i + 1) < 0) {
			s->m[i].name = NULL;
			snprintf(err, errlen, "metric: out of memory");
			return -1;
		}
		for (k = 0; k < s->n; k++)
			if (k != i && s->m[k].name && strcmp(s->m[k].name, s->m[i].name) == 0) {
				snprintf(err, errlen, "metric: name '%s' is also the default name of unnamed metric %u, choose another",
					 s->m[i].name, i + 1);
				return -1;
			}
	}
	return 0;
}

void metric_reset(struct metric_set *s)
{
	unsigned i;

	for (i = 0; i < s->n; i++) {
		free(s->m[i].last);
		s->m[i].last = NULL;
		s->m[i].last_cut = false;
	}
}

void metric_free(struct metric_set *s)
{
	unsigned i;

	metric_reset(s);
	for (i = 0; i < s->n; i++) {
		free(s->m[i].name);
		free(s->m[i].spec);
		regfree(&s->m[i].re);
	}
	free(s->m);
	s->m = NULL;
	s->n = 0;
}

int metric_value(const struct metric *m, const char **value, char **why)
{
	char *shown;
	int n;

	*value = NULL;
	*why = NULL;
	if (m->last && !m->last_cut && num_is_decimal(m->last) && strtod(m->last, NULL) <= 1e18) {
		*value = m->last;
		return 0;
	}
	if (!m->last) {
		n = asprintf(why, "metric '%s': no line of the output matched '%s'", m->name,
			     m->regex);
	} else {
		shown = strdup(m->last);
		if (shown)
			printable(shown);
		n = asprintf(why, "metric '%s': '%s%s' (group 1 of '%s') is not a plain non-negative decimal number up to 1e18",
			     m->name, shown ? shown : "", m->last_cut ? "..." : "", m->regex);
		free(shown);
	}
	if (n < 0)
		*why = NULL;
	return -1;
}

/* One stream of the program's output: where it goes and its current line. */
struct stream {
	int in, out;            /* the pipe's read end; the destination, -1 once it failed */
	char *line;             /* METRIC_LINE_MAX + 1 bytes */
	size_t len;
	bool cut;               /* the current line went past the bound: skip to its end */
};

struct metric_tap {
	struct metric_set *set;
	struct stream st[2];
	int child[2];           /* the write ends, until the program has them */
	pthread_t thread;
	bool running;
	atomic_bool program_gone;
};

static void scan_line(struct metric_set *s, const char *line)
{
	regmatch_t mt[2];
	size_t len;
	unsigned i;

	for (i = 0; i < s->n; i++) {
		struct metric *m = &s->m[i];
		char *copy;

		if (regexec(&m->re, line, 2, mt, 0) != 0)
			continue;
		/* A group that took no part in the match captured nothing. */
		len = mt[1].rm_so < 0 ? 0 : (size_t)(mt[1].rm_eo - mt[1].rm_so);
		copy = strndup(mt[1].rm_so < 0 ? "" : line + mt[1].rm_so,
			       len > METRIC_CAPTURE_MAX ? METRIC_CAPTURE_MAX : len);
		if (!copy)
			continue;
		free(m->last);
		m->last = copy;
		m->last_cut = len > METRIC_CAPTURE_MAX;
	}
}

/*
 * Copy everything read.  A destination that fails is dropped and the scan
 * goes on, except a reader that went away (EPIPE): then the program's own
 * pipe closes too, so that it meets the broken pipe as it would have
 * without threadrun in between (SIGPIPE).  -1 in that case.
 */
static int pass_on(struct stream *st, const char *buf, size_t n)
{
	ssize_t w;

	while (st->out >= 0 && n > 0) {
		w = write(st->out, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			st->out = -1;
			return w < 0 && errno == EPIPE ? -1 : 0;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A line ends at a newline or a carriage return: what a progress display
 * redraws with '\r' is a line of its own, as on a terminal. */
static const char *line_end(const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] == '\n' || buf[i] == '\r')
			return buf + i;
	return NULL;
}

/* Split what was read into lines; a line over the bound is scanned in its
 * first METRIC_LINE_MAX bytes and the rest skipped up to its end.  Empty
 * lines hold no figure and are not scanned. */
static void take(struct metric_set *s, struct stream *st, const char *buf, size_t n)
{
	const char *nl;
	size_t part;

	while (n > 0) {
		nl = line_end(buf, n);
		part = nl ? (size_t)(nl - buf) : n;
		if (!st->cut) {
			size_t room = METRIC_LINE_MAX - st->len;
			size_t keep = part < room ? part : room;

			memcpy(st->line + st->len, buf, keep);
			st->len += keep;
			if (part > keep || (!nl && st->len == METRIC_LINE_MAX)) {
				st->line[st->len] = '\0';
				scan_line(s, st->line);
				st->cut = true;
			}
		}
		if (nl) {
			if (!st->cut && st->len > 0) {
				st->line[st->len] = '\0';
				scan_line(s, st->line);
			}
			st->len = 0;
			st->cut = false;
			part++;
		}
		buf += part;
		n -= part;
	}
}

static void *tap_thread(void *arg)
{
	struct metric_tap *t = arg;
	struct pollfd pf[2];
	char buf[16384];
	ssize_t n;
	int i, open = 2, rc;

	for (i = 0; i < 2; i++)
		pf[i] = (struct pollfd){ .fd = t->st[i].in, .events = POLLIN };
	while (open > 0) {
		/* Once the program is gone, only what is already in the pipes
		 * counts: a process that left its group may hold them open. */
		rc = poll(pf, 2, atomic_load(&t->program_gone) ? 0 : 100);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			if (rc < 0 || atomic_load(&t->program_gone))
				break;
			continue;
		}
		for (i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pf[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				pf[i].fd = -1;
				open--;
				continue;
			}
			take(t->set, &t->st[i], buf, (size_t)n);
			if (pass_on(&t->st[i], buf, (size_t)n) < 0) {
				close(t->st[i].in);
				t->st[i].in = pf[i].fd = -1;
				open--;
			}
		}
	}
	/* The last line of each stream, if it had no newline. */
	for (i = 0; i < 2; i++)
		if (!t->st[i].cut && t->st[i].len > 0) {
			t->st[i].line[t->st[i].len] = '\0';
			scan_line(t->set, t->st[i].line);
		}
	return NULL;
}

static void tap_free(struct metric_tap *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (t->st[i].in >= 0)
			close(t->st[i].in);
		if (t->child[i] >= 0)
			close(t->child[i]);
		free(t->st[i].line);
	}
	free(t);
}

struct metric_tap *metric_tap_open(struct metric_set *s, int out, int err, int *child_out,
				   int *child_err, char *msg, size_t msglen)
{
	struct metric_tap *t = calloc(1, sizeof(*t));
	sigset_t all, old;
	int p[2], i, rc;

	if (!t) {
		snprintf(msg, msglen, "metric: out of memory");
		return NULL;
	}
	t->set = s;
	for (i = 0; i < 2; i++) {
		t->st[i].in = t->child[i] = -1;
		t->st[i].out = i == 0 ? out : err;
	}
	metric_reset(s);
	for (i = 0; i < 2; i++) {
		t->st[i].line = malloc(METRIC_LINE_MAX + 1);
		/* Close-on-exec: the program gets the write ends as 1 and 2 only. */
		if (!t->st[i].line || pipe2(p, O_CLOEXEC) < 0) {
			snprintf(msg, msglen, "metric: cannot make a pipe for the output: %s",
				 strerror(t->st[i].line ? errno : ENOMEM));
			goto fail;
		}
		t->st[i].in = p[0];
		t->child[i] = p[1];
	}
	/* The reader takes no signal: they go to the main thread, and a broken
	 * pipe is an EPIPE it handles. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&t->thread, NULL, tap_thread, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(msg, msglen, "metric: cannot start the output reader: %s", strerror(rc));
		goto fail;
	}
	t->running = true;
	*child_out = t->child[0];
	*child_err = t->child[1];
	return t;
fail:
	tap_free(t);
	return NULL;
}

void metric_tap_started(struct metric_tap *t)
{
	int i;

	for (i = 0; i < 2; i++)
		if (t->child[i] >= 0) {
			close(t->child[i]);
			t->child[i] = -1;
		}
}

void metric_tap_close(struct metric_tap *t)
{
	if (!t)
		return;
	metric_tap_started(t);
	atomic_store(&t->program_gone, true);
	if (t->running)
		pthread_join(t->thread, NULL);
	tap_free(t);
}
