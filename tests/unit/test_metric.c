/* threadrun --metric: the NAME=REGEX rule, default names and units, and
 * the tap's line scanning (chunk boundaries, the line bound, the last
 * match, captures that are no number, NUL bytes, the matcher's limits),
 * fed through its own pipes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "metric.h"

static void add_ok(struct metric_set *s, const char *spec)
{
	char err[512] = "";

	if (metric_add(s, spec, err, sizeof(err)) < 0)
		fail_msg("'%s' refused: %s", spec, err);
}

static void add_bad(const char *spec, const char *want)
{
	struct metric_set s = { 0 };
	char err[512] = "";

	assert_int_equal(metric_add(&s, spec, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("'%s': message '%s' lacks '%s'", spec, err, want);
	assert_null(strchr(err, '\n'));
	metric_free(&s);
}

static void names(void **state)
{
	struct metric_set s = { 0 };
	const char *units[] = { "MB/s" };
	char err[512];

	(void)state;
	add_ok(&s, "Triad=Triad: +([0-9.]+)");
	add_ok(&s, "Copy: +([0-9.]+)");          /* no '=': unnamed */
	add_ok(&s, "x (=) ([0-9]+)");             /* '(' before '=': unnamed */
	add_ok(&s, "rate_1-a=a=([0-9]+)");        /* the first '=' ends the name */
	assert_int_equal(metric_finish_setup(&s, units, 1, err, sizeof(err)), 0);
	assert_string_equal(s.m[0].name, "Triad");
	assert_string_equal(s.m[0].regex, "Triad: +([0-9.]+)");
	assert_string_equal(s.m[1].name, "metric2");
	assert_string_equal(s.m[2].name, "metric3");
	assert_string_equal(s.m[2].regex, "x (=) ([0-9]+)");
	assert_string_equal(s.m[3].name, "rate_1-a");
	assert_string_equal(s.m[3].regex, "a=([0-9]+)");
	assert_string_equal(s.m[3].unit, "MB/s");
	metric_free(&s);

	add_ok(&s, "v ([0-9]+)");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	assert_string_equal(s.m[0].name, "metric");
	assert_string_equal(s.m[0].unit, "value");
	metric_free(&s);

	add_bad("([0-9]", "is not a Perl-compatible regex (PCRE2): missing closing parenthesis at offset 6");
	add_bad("(?:[0-9]+)", "has no capture group");
	add_bad("[0-9]+", "has no capture group");
	add_bad("n=", "the regex is empty");
	add_bad("=(1)", "name '' in '=(1)' is not a name");
	add_bad("a b=(1)", "name 'a b'");
	add_bad("a\tb=(1)", "name 'a?b' in 'a?b=(1)'");
}

/* Feed TEXT (LEN bytes, in chunks of STEP) to a tap on S. */
static void feed(struct metric_set *s, const char *text, size_t len, size_t step, bool on_err)
{
	struct metric_tap *t;
	char msg[256];
	int out, err;
	size_t off, n;

	t = metric_tap_open(s, -1, -1, &out, &err, msg, sizeof(msg));
	if (!t)
		fail_msg("tap: %s", msg);
	for (off = 0; off < len; off += n) {
		n = len - off < step ? len - off : step;
		assert_int_equal(write(on_err ? err : out, text + off, n), (ssize_t)n);
	}
	metric_tap_close(t);
}

static const char *value_of(const struct metric *m)
{
	const char *v;
	char *why;

	if (metric_value(m, &v, &why) < 0) {
		free(why);
		return NULL;
	}
	return v;
}

static void scanning(void **state)
{
	struct metric_set s = { 0 };
	const char text[] = "Triad: 1.5 MB/s\nnoise\nTriad: 22.25 MB/s\nTriad: bad\r\nTriad: 3";
	char err[512], *big, *why;
	const char *v;
	size_t step;

	(void)state;
	add_ok(&s, "T=^Triad: ([0-9.]+)");
	add_ok(&s, "W=^Triad: (bad)");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	/* Any chunking: the last line, without its newline, counts. */
	for (step = 1; step <= sizeof(text); step += 7) {
		feed(&s, text, sizeof(text) - 1, step, false);
		assert_string_equal(value_of(&s.m[0]), "3");
		assert_string_equal(s.m[1].last, "bad");
	}
	/* A progress display's carriage returns end lines; empty lines are
	 * not scanned (this regex would match one). */
	metric_free(&s);
	add_ok(&s, "P=^([0-9]*)$");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	feed(&s, "10\r20\r30\r\n\n", 11, 3, false);
	assert_string_equal(value_of(&s.m[0]), "30");
	metric_free(&s);
	add_ok(&s, "T=^Triad: ([0-9.]+)");
	add_ok(&s, "W=^Triad: (bad)");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	/* stderr is read too, and a new run forgets the last one. */
	feed(&s, "Triad: 4\n", 9, 64, true);
	assert_string_equal(value_of(&s.m[0]), "4");
	assert_null(s.m[1].last);
	assert_int_equal(metric_value(&s.m[1], &v, &why), -1);
	assert_non_null(strstr(why, "metric 'W': no line of the output matched '^Triad: (bad)'"));
	free(why);
	metric_free(&s);

	/* A line of exactly the bound is matched whole; one byte more and
	 * its tail is not read; the next line is. */
	big = malloc(2 * METRIC_LINE_MAX + 64);
	assert_non_null(big);
	add_ok(&s, "x(7)$");
	add_ok(&s, "^(y)");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	memset(big, 'x', METRIC_LINE_MAX - 1);
	big[METRIC_LINE_MAX - 1] = '7';
	big[METRIC_LINE_MAX] = '\n';
	feed(&s, big, METRIC_LINE_MAX + 1, 4096, false);
	assert_string_equal(s.m[0].last, "7");
	memset(big, 'x', METRIC_LINE_MAX);
	big[METRIC_LINE_MAX] = '7';
	memcpy(big + METRIC_LINE_MAX + 1, "\ny\n", 3);
	feed(&s, big, METRIC_LINE_MAX + 4, 1000, false);
	assert_null(s.m[0].last);
	assert_string_equal(s.m[1].last, "y");
	free(big);
	metric_free(&s);

	/* A capture that is no number, or too long to be one. */
	add_ok(&s, "n: (.*)");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	big = malloc(METRIC_CAPTURE_MAX + 16);
	assert_non_null(big);
	memcpy(big, "n: ", 3);
	memset(big + 3, '9', METRIC_CAPTURE_MAX + 1);
	feed(&s, big, METRIC_CAPTURE_MAX + 4, 512, false);
	assert_int_equal(metric_value(&s.m[0], &v, &why), -1);
	assert_true(s.m[0].last_cut);
	assert_non_null(strstr(why, "9...' (group 1 of 'n: (.*)') is not a plain non-negative decimal"));
	free(why);
	feed(&s, "n: 1e19\n", 8, 8, false);
	assert_null(value_of(&s.m[0]));
	feed(&s, "n: 1e18\n", 8, 8, false);
	assert_string_equal(value_of(&s.m[0]), "1e18");
	feed(&s, "n: \001\n", 5, 8, false);
	assert_int_equal(metric_value(&s.m[0], &v, &why), -1);
	assert_non_null(strstr(why, "'?'"));
	free(why);
	free(big);
	metric_free(&s);
}

/* Every byte of a line is matched, a NUL as any other (grep -a); a line
 * that takes the matcher past its limits after the last match leaves no
 * figure; long lines without a match cost no more than grep's. */
static void bytes_and_limits(void **state)
{
	struct metric_set s = { 0 };
	const char nul[] = "rate 1\nid\0rate 2\0 x\na\0b 7\nv 5\0006\n";
	char err[512], *why, *big;
	const char *v;
	size_t step, i;

	(void)state;
	add_ok(&s, "R=rate ([0-9]+)");
	add_ok(&s, "D=a.b ([0-9]+)");
	add_ok(&s, "V=v (.+)");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	for (step = 1; step <= sizeof(nul); step += 5) {
		feed(&s, nul, sizeof(nul) - 1, step, false);
		assert_string_equal(value_of(&s.m[0]), "2");
		assert_string_equal(value_of(&s.m[1]), "7");
		assert_int_equal(s.m[2].last_len, 3);
		assert_int_equal(metric_value(&s.m[2], &v, &why), -1);
		assert_non_null(strstr(why, "'5?6' (group 1 of 'v (.+)')"));
		free(why);
	}
	metric_free(&s);

	add_ok(&s, "v ([0-9]+)|^(x+x+)+y");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	feed(&s, "v 3\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", 45, 64, false);
	assert_int_equal(s.m[0].undecided, 40);
	assert_int_equal(metric_value(&s.m[0], &v, &why), -1);
	assert_non_null(strstr(why, "a line of 40 bytes after the last match took"));
	free(why);
	/* A match after it decides again. */
	feed(&s, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nv 4\n", 45, 64, false);
	assert_string_equal(value_of(&s.m[0]), "4");
	metric_free(&s);

	/* Lines of digits that glibc's regexec took 8-20 s each on. */
	big = malloc(4 * (METRIC_LINE_MAX + 1) + 32);
	assert_non_null(big);
	for (i = 0; i < 4; i++) {
		memset(big + i * (METRIC_LINE_MAX + 1), '1', METRIC_LINE_MAX - 7);
		memcpy(big + i * (METRIC_LINE_MAX + 1) + METRIC_LINE_MAX - 7, " MB/x s\n", 8);
	}
	memcpy(big + 4 * (METRIC_LINE_MAX + 1), "Triad 2.5 MB/s\n", 15);
	add_ok(&s, "T=([0-9.]+) MB/s");
	add_ok(&s, "A=^(.*) MB/s");
	assert_int_equal(metric_finish_setup(&s, NULL, 0, err, sizeof(err)), 0);
	feed(&s, big, 4 * (METRIC_LINE_MAX + 1) + 15, 4096, false);
	assert_string_equal(value_of(&s.m[0]), "2.5");
	assert_string_equal(s.m[1].last, "Triad 2.5");
	assert_int_equal(s.m[1].undecided, 0);
	free(big);
	metric_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(scanning),
		cmocka_unit_test(bytes_and_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
