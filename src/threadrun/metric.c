/* threadrun --metric: parsing the metrics, the output tap, the figures. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "metric.h"
#include "opt.h"

#define UNIT_MAX 32
#define DEFAULT_UNIT "value"
#define NAME_CHARS "letters, digits, '_' and '-'"
/* What one line may cost the matcher (a regex that backtracks would take
 * seconds on a long line): PCRE2's match limit, in proportion to the line,
 * and the JIT's stack, its default 32 KiB (a larger one lets a repeated
 * group backtrack over longer stretches, in time that grows as their
 * square); for the interpreter, where the JIT is not allowed, its heap in
 * KiB. */
#define MATCH_LIMIT_BASE 10000
#define MATCH_LIMIT_PER_BYTE 16
#define HEAP_LIMIT_KIB (16 * 1024)

/* The characters of regex syntax: text before '=' holding one is no name. */
static const char regex_syntax[] = "\\^$.[]|()*+?{}";

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* Text for a message: control bytes (a newline in a name, a NUL in a
 * capture) shown as '?'. */
static void printable_n(char *s, size_t n)
{
	for (; n > 0; s++, n--)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void printable(char *s)
{
	printable_n(s, strlen(s));
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

/* M's regex, with at least one group; JIT-compiled where the machine lets
 * it (where not, the interpreter matches under the same limits). */
static int compile(struct metric *m, const char *regex, char *err, size_t errlen)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	uint32_t groups = 0;
	pcre2_code *re;
	int rc;

	re = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, 0, &rc, &off, NULL);
	if (!re) {
		pcre2_get_error_message(rc, msg, sizeof(msg));
		snprintf(err, errlen, "metric: '%s' is not a Perl-compatible regex (PCRE2): %s at offset %zu",
			 m->regex, (const char *)msg, (size_t)off);
		return -1;
	}
	if (pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &groups) != 0 || groups < 1) {
		pcre2_code_free(re);
		snprintf(err, errlen, "metric: '%s' has no capture group: put the figure in ( ), e.g. 'Triad: +([0-9.]+)'",
			 m->regex);
		return -1;
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	m->re = re;
	return 0;
}

int metric_add(struct metric_set *s, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *regex = spec;
	struct metric *grown, *m;
	char *shown = strdup(spec);
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
	if (compile(m, regex, err, errlen) < 0)
		goto fail;
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
		/* The value shown as far as it is printable, 40 at most. */
		snprintf(err, errlen, "unit: '%.*s%s' is not a unit, allowed 1..%d printable characters, e.g. MB/s",
			 p - unit > 40 ? 40 : (int)(p - unit), unit, *p || p - unit > 40 ? "..." : "",
			 UNIT_MAX);
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
		s->m[i].last_len = 0;
		s->m[i].last_cut = false;
		s->m[i].undecided = 0;
	}
}

void metric_free(struct metric_set *s)
{
	unsigned i;

	metric_reset(s);
	for (i = 0; i < s->n; i++) {
		free(s->m[i].name);
		free(s->m[i].spec);
		pcre2_code_free(s->m[i].re);
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
	if (m->last && !m->undecided && !m->last_cut && strlen(m->last) == m->last_len &&
	    num_is_decimal(m->last) && strtod(m->last, NULL) <= 1e18) {
		*value = m->last;
		return 0;
	}
	if (m->undecided) {
		/* That line may have held the figure: no figure is better than
		 * an earlier one. */
		n = asprintf(why, "metric '%s': a line of %zu bytes%s took '%s' past the matcher's limits (too much backtracking), so the last figure is not known",
			     m->name, m->undecided, m->last ? " after the last match" : "", m->regex);
	} else if (!m->last) {
		n = asprintf(why, "metric '%s': no line of the output matched '%s'", m->name,
			     m->regex);
	} else {
		shown = malloc(m->last_len + 1);
		if (shown) {
			memcpy(shown, m->last, m->last_len + 1);
			printable_n(shown, m->last_len);
		}
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
	char *line;             /* METRIC_LINE_MAX bytes */
	size_t len;
	bool cut;               /* the current line went past the bound: skip to its end */
};

struct metric_tap {
	struct metric_set *set;
	struct stream st[2];
	int child[2];           /* the write ends, until the program has them */
	pcre2_match_data *md;   /* the matcher's, the tap thread's alone */
	pcre2_match_context *mc;
	pthread_t thread;
	bool running;
	atomic_bool program_gone;
	atomic_bool stop;       /* a signal ends the run: no more matching */
};

/* M's figure is now LEN bytes at P (group 1 of a line). */
static void keep(struct metric *m, const char *p, size_t len)
{
	size_t n = len > METRIC_CAPTURE_MAX ? METRIC_CAPTURE_MAX : len;
	char *copy = malloc(n + 1);

	if (!copy)
		return;
	memcpy(copy, p, n);
	copy[n] = '\0';
	free(m->last);
	m->last = copy;
	m->last_len = n;
	m->last_cut = len > n;
	m->undecided = 0;
}

/* The line's LEN bytes, a NUL among them as any other byte (grep -a). */
static void scan_line(struct metric_tap *t, const char *line, size_t len)
{
	const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->md);
	struct metric_set *s = t->set;
	unsigned i;
	int rc;

	for (i = 0; i < s->n; i++) {
		struct metric *m = &s->m[i];

		pcre2_set_match_limit(t->mc, MATCH_LIMIT_BASE + MATCH_LIMIT_PER_BYTE * (uint32_t)len);
		rc = pcre2_match(m->re, (PCRE2_SPTR)line, len, 0, 0, t->md, t->mc);
		if (rc == PCRE2_ERROR_NOMATCH)
			continue;
		/* A limit reached (or no memory): this line may hold the
		 * figure or not. */
		if (rc < 0) {
			m->undecided = len;
			continue;
		}
		/* 0: more groups than the two pairs asked for, group 1 is set.
		 * A group that took no part in the match captured nothing. */
		if (ov[2] == PCRE2_UNSET)
			keep(m, line, 0);
		else
			keep(m, line + ov[2], ov[3] - ov[2]);
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
static void take(struct metric_tap *t, struct stream *st, const char *buf, size_t n)
{
	const char *nl;
	size_t part;

	while (n > 0 && !atomic_load(&t->stop)) {
		nl = line_end(buf, n);
		part = nl ? (size_t)(nl - buf) : n;
		if (!st->cut) {
			size_t room = METRIC_LINE_MAX - st->len;
			size_t keep = part < room ? part : room;

			memcpy(st->line + st->len, buf, keep);
			st->len += keep;
			if (part > keep || (!nl && st->len == METRIC_LINE_MAX)) {
				scan_line(t, st->line, st->len);
				st->cut = true;
			}
		}
		if (nl) {
			if (!st->cut && st->len > 0)
				scan_line(t, st->line, st->len);
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
	bool gone;

	for (i = 0; i < 2; i++)
		pf[i] = (struct pollfd){ .fd = t->st[i].in, .events = POLLIN };
	while (open > 0 && !atomic_load(&t->stop)) {
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
			/* The output goes on before it is matched. */
			gone = pass_on(&t->st[i], buf, (size_t)n) < 0;
			take(t, &t->st[i], buf, (size_t)n);
			if (gone) {
				close(t->st[i].in);
				t->st[i].in = pf[i].fd = -1;
				open--;
			}
		}
	}
	/* The last line of each stream, if it had no newline. */
	for (i = 0; i < 2 && !atomic_load(&t->stop); i++)
		if (!t->st[i].cut && t->st[i].len > 0)
			scan_line(t, t->st[i].line, t->st[i].len);
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
	pcre2_match_data_free(t->md);
	pcre2_match_context_free(t->mc);
	free(t);
}

/* The matcher's state and its limits: what one line may cost. */
static int matcher_open(struct metric_tap *t)
{
	t->md = pcre2_match_data_create(2, NULL);
	t->mc = pcre2_match_context_create(NULL);
	if (!t->md || !t->mc)
		return -1;
	pcre2_set_heap_limit(t->mc, HEAP_LIMIT_KIB);
	return 0;
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
	if (matcher_open(t) < 0) {
		snprintf(msg, msglen, "metric: out of memory");
		goto fail;
	}
	for (i = 0; i < 2; i++) {
		t->st[i].line = malloc(METRIC_LINE_MAX);
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

void metric_tap_stop(struct metric_tap *t)
{
	if (t)
		atomic_store(&t->stop, true);
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
