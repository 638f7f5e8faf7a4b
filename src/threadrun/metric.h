/*
 * threadrun --metric: a program's own figure, read from what it prints.
 * Each metric is a Perl-compatible regular expression (PCRE2) whose first
 * capture group is the figure; the last matching line of the run counts.
 * The output still goes where it went (the terminal, or the sweep's log):
 * a tap copies it there while it scans it line by line, in bounded memory
 * and time (PCRE2's JIT, each match under limits), every byte of a line
 * matched, a NUL too, as grep -a matches it.
 */
#ifndef METRIC_H
#define METRIC_H

#include <stdbool.h>
#include <stddef.h>

/* A name: 1..METRIC_NAME_MAX letters, digits, '_' or '-'. */
#define METRIC_NAME_MAX 64
/* A line longer than this is scanned in its first METRIC_LINE_MAX bytes. */
#define METRIC_LINE_MAX 65536
/* A capture longer than this is not a number: kept cut, for the note. */
#define METRIC_CAPTURE_MAX 256

struct metric {
	char *name;             /* the row's algorithm */
	const char *unit;       /* the row's unit */
	char *spec;             /* as given, control bytes shown as '?' */
	const char *regex;      /* its regex part, for notes */
	void *re;               /* its pcre2_code, JIT-compiled where the machine allows */
	char *last;             /* group 1 of the last matching line, or NULL */
	size_t last_len;        /* its bytes (a NUL among them makes it no number) */
	bool last_cut;          /* LAST was longer than METRIC_CAPTURE_MAX */
	size_t undecided;       /* a line after LAST went past the matcher's
				 * limits: its length, else 0 (no figure then) */
};

struct metric_set {
	struct metric *m;
	unsigned n;
};

/*
 * Add one --metric: "REGEX" or "NAME=REGEX" (NAME= when the text before
 * the first '=' holds no character of regex syntax).  0, or -1 with one
 * line in ERR naming the bad text (PCRE2's compile error, no capture
 * group, a bad or repeated name).
 */
int metric_add(struct metric_set *s, const char *spec, char *err, size_t errlen);

/*
 * Name the unnamed metrics (metric, or metric1, metric2, ... by position
 * when there are several) and give units: none (every unit "value"), one
 * for all, or one per metric in order.  0, or -1 with a message.
 */
int metric_finish_setup(struct metric_set *s, const char *const *units, unsigned nunits,
			char *err, size_t errlen);

/* Forget the matches of the previous run. */
void metric_reset(struct metric_set *s);

void metric_free(struct metric_set *s);

/*
 * The figure of metric M after a run: 0 with *VALUE the captured text (a
 * plain non-negative decimal number, at most 1e18), or -1 with the reason
 * in *WHY, a new string (no line matched, or what was captured is not a
 * number, or a line after the last match was too costly to match; NULL
 * when out of memory).
 */
int metric_value(const struct metric *m, const char **value, char **why);

/*
 * The tap: two pipes, the program's stdout and stderr, copied to OUT and
 * ERR (the same descriptor for a sweep's log) and scanned for S's metrics
 * by a thread of its own.  metric_tap_open gives the pipes' write ends in
 * *CHILD_OUT and *CHILD_ERR for the program; metric_tap_started closes the
 * parent's copies once the program is started; metric_tap_close waits for
 * the end of the output (or, once the program is gone, for what is left in
 * the pipes) and frees the tap.  metric_tap_stop, when a signal ends the
 * run: the tap stops at the end of the line it is matching, so that close
 * returns at once.
 */
struct metric_tap;

struct metric_tap *metric_tap_open(struct metric_set *s, int out, int err, int *child_out,
				   int *child_err, char *msg, size_t msglen);
void metric_tap_started(struct metric_tap *t);
void metric_tap_stop(struct metric_tap *t);
void metric_tap_close(struct metric_tap *t);

#endif
