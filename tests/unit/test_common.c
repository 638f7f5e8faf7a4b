/* Unit tests of the shared pieces: numbers, the results file, the run env. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cpuload.h"
#include "escape.h"
#include "opt.h"
#include "results.h"
#include "runenv.h"
#include "stats.h"
#include "sweep.h"
#include "worker.h"

static void numbers(void **state)
{
	char err[256];
	uint64_t v;
	double d;
	unsigned u;
	uint64_t *list;

	(void)state;
	assert_int_equal(num_parse_u64("threads", "16", 1, 4096, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 16);
	assert_int_equal(num_parse_unsigned("threads", "0", 1, 4096, &u, err, sizeof(err)), -1);
	assert_string_equal(err, "threads: 0 is out of range, allowed 1..4096");
	assert_int_equal(num_parse_unsigned("threads", "-3", 1, 4096, &u, err, sizeof(err)), -1);
	assert_string_equal(err, "threads: -3 is out of range, allowed 1..4096");
	assert_int_equal(num_parse_unsigned("threads", "abc", 1, 4096, &u, err, sizeof(err)), -1);
	assert_string_equal(err, "threads: 'abc' is not a number, allowed 1..4096");
	assert_int_equal(num_parse_unsigned("threads", "12x", 1, 4096, &u, err, sizeof(err)), -1);
	assert_int_equal(num_parse_unsigned("threads", "", 1, 4096, &u, err, sizeof(err)), -1);
	assert_int_equal(num_parse_u64("n", "99999999999999999999999", 1, UINT64_MAX, &v, err,
				       sizeof(err)), -1);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(num_parse_double("seconds", "0.5", 0.001, 1e6, &d, err, sizeof(err)), 0);
	assert_true(d == 0.5);
	assert_int_equal(num_parse_double("seconds", "nan", 0.001, 1e6, &d, err, sizeof(err)), -1);
	assert_int_equal(num_parse_double("seconds", "0", 0.001, 1e6, &d, err, sizeof(err)), -1);
	assert_int_equal(num_parse_double("seconds", "1e400", 0.001, 1e6, &d, err, sizeof(err)), -1);
	assert_int_equal(num_parse_list("size", "16,64,8192", 1, 1 << 26, &list, err, sizeof(err)), 3);
	assert_int_equal(list[2], 8192);
	free(list);
	assert_int_equal(num_parse_list("size", "16,,64", 1, 1 << 26, &list, err, sizeof(err)), -1);
	assert_int_equal(num_parse_list("size", "16,0", 1, 1 << 26, &list, err, sizeof(err)), -1);
	assert_string_equal(err, "size: 0 is out of range, allowed 1..67108864");
}

static char *tmpfile_path(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", getenv("TEST_TMP") ? getenv("TEST_TMP") : "/tmp",
			     name) > 0);
	unlink(p);
	return p;
}

struct seen {
	unsigned n;
	char algo[4][64];
	double rate[4];
	char note[4][128];
};

static int collect(const struct results_row *row, unsigned line, void *arg)
{
	struct seen *s = arg;

	(void)line;
	if (s->n < 4) {
		snprintf(s->algo[s->n], 64, "%s", results_row_get(row, RC_ALGORITHM));
		s->rate[s->n] = results_row_num(row, RC_RATE);
		snprintf(s->note[s->n], 128, "%s", results_row_get(row, RC_NOTE));
	}
	s->n++;
	return 0;
}

struct hostile_seen {
	size_t n;
	const char *const *want;
};

static int check_hostile(const struct results_row *row, unsigned line, void *arg)
{
	struct hostile_seen *h = arg;
	char *note = NULL;

	(void)line;
	assert_string_equal(results_row_get(row, RC_WORKLOAD), h->want[h->n]);
	assert_true(asprintf(&note, "%s|%s", h->want[h->n], h->want[h->n]) > 0);
	assert_string_equal(results_row_get(row, RC_NOTE), note);
	free(note);
	h->n++;
	return 0;
}

static void results_round_trip(void **state)
{
	char *path = tmpfile_path("rt.csv"), err[512];
	struct results_row row;
	struct results_info info;
	struct seen s = { 0 };

	(void)state;
	assert_int_equal(results_check(path, err, sizeof(err)), 0);
	results_row_init(&row);
	results_row_provenance(&row, "OpenSSL test");
	results_row_set(&row, RC_WORKLOAD, "t2accel");
	results_row_set(&row, RC_ALGORITHM, "aes");
	results_row_set(&row, RC_THREADS, "2");
	results_row_set(&row, RC_RATE, "%.1f", 1234.5);
	results_row_set(&row, RC_NOTE, "a, \"quoted\"\nnote");
	assert_int_equal(results_append(path, &row, err, sizeof(err)), 0);
	results_row_set(&row, RC_ALGORITHM, "rsa");
	results_row_set(&row, RC_RATE, "99");
	assert_int_equal(results_append(path, &row, err, sizeof(err)), 0);
	results_row_clear(&row);

	assert_int_equal(results_read(path, collect, &s, stderr, &info, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.algo[0], "aes");
	assert_true(s.rate[0] == 1234.5);
	assert_string_equal(s.note[0], "a, \"quoted\"\nnote");
	assert_string_equal(s.algo[1], "rsa");
	assert_string_equal(info.missing, "");
	assert_int_equal(info.bad_lines, 0);
	unlink(path);
	free(path);
}

/* The one definition of series, point, repeat and rerun (results.h). */
static void results_identity(void **state)
{
	struct results_row a, b;

	(void)state;
	results_row_init(&a);
	results_row_init(&b);
	results_row_set(&a, RC_HOST, "h");
	results_row_set(&a, RC_WORKLOAD, "t2accel");
	results_row_set(&a, RC_CONFIG, "t2accel --algorithm=md5");
	results_row_set(&a, RC_ALGORITHM, "md5");
	results_row_set(&a, RC_THREADS, "2");
	results_row_set(&a, RC_POLICY, "compact");
	results_row_set(&a, RC_REPEAT, "0");
	results_row_set(&a, RC_RUN, "h:1:1");
	results_row_set(&a, RC_STATUS, "1");
	results_row_set(&b, RC_HOST, "h");
	results_row_set(&b, RC_WORKLOAD, "t2accel");
	results_row_set(&b, RC_CONFIG, "t2accel --algorithm=md5");
	results_row_set(&b, RC_ALGORITHM, "md5");
	results_row_set(&b, RC_THREADS, "2");
	results_row_set(&b, RC_POLICY, "compact");
	results_row_set(&b, RC_REPEAT, "0");
	results_row_set(&b, RC_RUN, "h:2:2");
	results_row_set(&b, RC_STATUS, "0");
	assert_true(results_same_repeat(&a, &b));
	/* A rerun from another run replaces the failed row, never a good one. */
	assert_true(results_supersedes(&b, &a));
	assert_false(results_supersedes(&a, &b));
	/* Within one run nothing is a rerun. */
	results_row_set(&b, RC_RUN, "h:1:1");
	assert_false(results_supersedes(&b, &a));
	/* Rows without a run column are each a run of their own. */
	results_row_set(&a, RC_RUN, "%s", "");
	results_row_set(&b, RC_RUN, "%s", "");
	assert_true(results_supersedes(&b, &a));
	/* Another repeat, rank, policy, config or host is not the same. */
	results_row_set(&b, RC_RANK, "1");
	assert_false(results_same_repeat(&a, &b));
	assert_true(results_same_point(&a, &b));
	assert_false(results_supersedes(&b, &a));
	results_row_set(&b, RC_POLICY, "scatter");
	assert_false(results_same_point(&a, &b));
	assert_true(results_same_series(&a, &b));
	results_row_set(&b, RC_CONFIG, "t2accel --algorithm=sha1");
	assert_false(results_same_series(&a, &b));
	results_row_set(&b, RC_CONFIG, "t2accel --algorithm=md5");
	results_row_set(&b, RC_HOST, "h2");
	assert_false(results_same_series(&a, &b));
	/* One cluster measurement: the same job, series but host, point and
	 * repeat number, whatever the rank and host; outside a job, none. */
	results_row_set(&b, RC_POLICY, "compact");
	assert_false(results_same_cluster(&a, &b));
	results_row_set(&a, RC_JOB, "7");
	results_row_set(&b, RC_JOB, "7");
	assert_true(results_same_cluster(&a, &b));
	results_row_set(&b, RC_REPEAT, "1");
	assert_false(results_same_cluster(&a, &b));
	results_row_set(&b, RC_REPEAT, "0");
	results_row_set(&b, RC_THREADS, "4");
	assert_false(results_same_cluster(&a, &b));
	results_row_set(&b, RC_THREADS, "2");
	results_row_set(&b, RC_JOB, "8");
	assert_false(results_same_cluster(&a, &b));
	results_row_clear(&a);
	results_row_clear(&b);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Older files (fewer columns, another order) read by name; bad lines named. */
static void results_tolerant_reader(void **state)
{
	char *path = tmpfile_path("old.csv"), err[512];
	struct results_info info;
	struct seen s = { 0 };

	(void)state;
	write_file(path, "threads,rate,workload,algorithm\n1,10.5,t2accel,md5\n"
			 "2,\"oops\n4,40,t2accel,md5\n");
	assert_int_equal(results_read(path, collect, &s, stderr, &info, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(info.bad_lines, 1);
	assert_true(s.rate[1] == 40);
	assert_non_null(strstr(info.missing, "host"));
	assert_non_null(strstr(info.missing, "verified"));

	write_file(path, "");
	assert_int_equal(results_read(path, collect, &s, stderr, &info, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is empty"));
	write_file(path, "a,b\n1,2\n");
	assert_int_equal(results_read(path, collect, &s, stderr, &info, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a results header"));
	assert_int_equal(results_read("/nonexistent.csv", collect, &s, stderr, &info, err,
				      sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot read"));
	{
		FILE *f = fopen(path, "w");
		fwrite("\0\1\2rate", 1, 7, f);
		fclose(f);
	}
	assert_int_equal(results_read(path, collect, &s, stderr, &info, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "has no header line"));
	unlink(path);
	free(path);
}

/* The writer refuses foreign files and never appends to a damaged line. */
static void results_writer_guards(void **state)
{
	char *path = tmpfile_path("guard.csv"), err[512], *text = NULL;
	struct results_row row;
	struct results_info info;
	struct seen s = { 0 };
	size_t len = 0;
	FILE *f;

	(void)state;
	write_file(path, "a,b\n1,2\n");
	results_row_init(&row);
	results_row_set(&row, RC_WORKLOAD, "x");
	results_row_set(&row, RC_THREADS, "1");
	results_row_set(&row, RC_RATE, "1");
	assert_int_equal(results_check(path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "header differs"));
	assert_int_equal(results_append(path, &row, err, sizeof(err)), -1);
	f = fopen(path, "r");
	assert_int_equal(getdelim(&text, &len, '\0', f) > 0, 1);
	fclose(f);
	assert_string_equal(text, "a,b\n1,2\n");

	/* A half row left by a crash elsewhere: ours still lands whole. */
	unlink(path);
	assert_int_equal(results_append(path, &row, err, sizeof(err)), 0);
	f = fopen(path, "a");
	fputs("2026,half", f);
	fclose(f);
	assert_int_equal(results_append(path, &row, err, sizeof(err)), 0);
	assert_int_equal(results_read(path, collect, &s, stderr, &info, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(info.bad_lines, 1);

	assert_int_equal(results_check("/nonexistent-dir/x.csv", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "does not exist"));
	assert_int_equal(results_check("/tmp", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a regular file"));
	results_row_clear(&row);
	free(text);
	unlink(path);
	free(path);
}

/* Write LEN bytes of TEXT (NULs allowed) to PATH. */
static void write_bytes(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

#define DAMAGE_HEAD "workload,threads,rate,note\n"
#define B(s) s, sizeof(s) - 1

/* One damaged record costs that record, named by the line where it starts;
 * the rows around it read. */
static const struct damage_case {
	const char *name;
	const char *text;
	size_t len;
	unsigned rows, bad;
	const char *msg;        /* in the reader's report, NULL: no report */
} damage_cases[] = {
	{ "embedded newline keeps the row", B(DAMAGE_HEAD "x,1,10,\"a\nb\"\nx,2,20,c\n"), 2, 0, NULL },
	{ "CR LF, commas, doubled quotes", B(DAMAGE_HEAD "x,1,10,\"a,\"\"b\"\"\r\nc\"\r\nx,2,20,d\r\n"), 2, 0, NULL },
	{ "four NULs cost one line", B(DAMAGE_HEAD "x,1,10,a\nx,2,\0\0\0\0,b\nx,4,40,c\n"), 2, 1, ":3: malformed row (NUL byte)" },
	{ "NUL in a quoted field", B(DAMAGE_HEAD "x,1,10,\"a\0\"\nx,4,40,c\n"), 1, 1, ":2: malformed row (NUL byte)" },
	{ "unterminated quote costs one line", B(DAMAGE_HEAD "x,1,10,a\nx,\"2\nx,4,40,c\n"), 2, 1, ":3: malformed row (unterminated quote)" },
	{ "text after a closing quote", B(DAMAGE_HEAD "x,\"2\"x,1,a\nx,4,40,c\n"), 1, 1, ":2: malformed row (text after a closing quote)" },
	{ "line of a record over lines", B(DAMAGE_HEAD "x,1,10,\"a\n\nb\"\nx,2\nx,4,40,c\n"), 2, 1, ":5: malformed row (2 fields, header has 4)" },
	{ "rate inf", B(DAMAGE_HEAD "x,1,10,a\nx,2,inf,b\n"), 1, 1, ":3: column 'rate': 'inf' is not a decimal number of 0 or more" },
	{ "rate nan", B(DAMAGE_HEAD "x,1,10,a\nx,2,nan,b\n"), 1, 1, ":3: column 'rate': 'nan'" },
	{ "rate negative", B(DAMAGE_HEAD "x,1,10,a\nx,2,-5,b\n"), 1, 1, ":3: column 'rate': '-5'" },
	{ "rate huge", B(DAMAGE_HEAD "x,1,10,a\nx,2,1e400,b\n"), 1, 1, ":3: column 'rate': '1e400' is out of range" },
	{ "rate hex", B(DAMAGE_HEAD "x,1,10,a\nx,2,0x10,b\n"), 1, 1, ":3: column 'rate': '0x10'" },
	{ "threads hex", B(DAMAGE_HEAD "x,1,10,a\nx,0x4,10,b\n"), 1, 1, ":3: column 'threads': '0x4' is not a whole decimal number" },
	{ "threads exponent", B(DAMAGE_HEAD "x,1,10,a\nx,1e1,10,b\n"), 1, 1, ":3: column 'threads': '1e1'" },
	{ "threads negative", B(DAMAGE_HEAD "x,1,10,a\nx,-1,10,b\n"), 1, 1, ":3: column 'threads': '-1'" },
	{ "threads fraction", B(DAMAGE_HEAD "x,1,10,a\nx,2.5,10,b\n"), 1, 1, ":3: column 'threads': '2.5'" },
	{ "threads huge", B(DAMAGE_HEAD "x,1,10,a\nx,99999999999999999999,10,b\n"), 1, 1, ":3: column 'threads': '99999999999999999999' is out of range" },
	{ "blank lines are not damage", B(DAMAGE_HEAD "\nx,1,10,a\n\r\n\nx,2,20,b\n"), 2, 0, NULL },
	{ "last line without an end", B(DAMAGE_HEAD "x,1,10,a\nx,2,20,\"b"), 1, 1, ":3: malformed row (unterminated quote)" },
};

static void results_damage_table(void **state)
{
	char *path = tmpfile_path("damage.csv"), *log = tmpfile_path("damage.log"), err[512];
	char *text = NULL;
	struct results_info info;
	struct seen s;
	size_t i, len = 0;
	FILE *errf;

	(void)state;
	for (i = 0; i < sizeof(damage_cases) / sizeof(damage_cases[0]); i++) {
		const struct damage_case *c = &damage_cases[i];

		memset(&s, 0, sizeof(s));
		write_bytes(path, c->text, c->len);
		errf = fopen(log, "w+");
		assert_non_null(errf);
		if (results_read(path, collect, &s, errf, &info, err, sizeof(err)) < 0)
			fail_msg("%s: %s", c->name, err);
		rewind(errf);
		if (getdelim(&text, &len, '\0', errf) < 0)
			text[0] = '\0';
		fclose(errf);
		if (s.n != c->rows || info.bad_lines != c->bad || info.rows != c->rows)
			fail_msg("%s: %u rows, %u bad, expected %u, %u; report: %s", c->name, s.n,
				 info.bad_lines, c->rows, c->bad, text);
		if (c->msg ? !strstr(text, c->msg) : *text != '\0')
			fail_msg("%s: report '%s', expected '%s'", c->name, text, c->msg ? c->msg : "");
	}
	/* The embedded newline and the CR LF inside quotes are kept as written. */
	write_bytes(path, B(DAMAGE_HEAD "x,1,10,\"a,\"\"b\"\"\r\nc\"\r\n"));
	memset(&s, 0, sizeof(s));
	assert_int_equal(results_read(path, collect, &s, stderr, &info, err, sizeof(err)), 0);
	assert_string_equal(s.note[0], "a,\"b\"\r\nc");
	free(text);
	unlink(path);
	unlink(log);
	free(path);
	free(log);
}

/* Fields beyond any header's, and records beyond 1 MiB: skipped, bounded. */
static void results_damage_bounds(void **state)
{
	char *path = tmpfile_path("bounds.csv"), err[512];
	struct results_info info;
	struct seen s = { 0 };
	FILE *f, *quiet;
	int i;

	(void)state;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(DAMAGE_HEAD "x,1,10,a\n", f);
	for (i = 0; i < 300; i++)
		fputs("1,", f);
	fputs("1\n", f);
	for (i = 0; i < 2000; i++)
		fputs("1,", f);
	fputs("1\n", f);
	for (i = 0; i < 3 << 20; i++)     /* 3 MiB without a newline */
		fputc('a', f);
	fputs("\nx,\"", f);
	for (i = 0; i < 3 << 20; i++)     /* 3 MiB quoted over lines */
		fputs(i % 4096 ? "b" : "\n", f);
	fputs("\"\nx,4,40,b\n", f);
	fclose(f);
	quiet = fopen("/dev/null", "w");
	assert_non_null(quiet);
	assert_int_equal(results_read(path, collect, &s, quiet, &info, err, sizeof(err)), 0);
	fclose(quiet);
	assert_int_equal(s.n, 2);
	assert_true(s.rate[1] == 40);
	/* 300 fields, 2001 fields, the long line, the long quote's first line,
	 * then every line it spanned (one field each, the closing one too). */
	assert_int_equal(info.bad_lines, 3 + 1 + (3 << 20) / 4096);

	/* A file of NULs is damage per line, not a file refused whole. */
	f = fopen(path, "w");
	fputs(DAMAGE_HEAD, f);
	for (i = 0; i < 4; i++)
		fwrite("\0\0\0\0\n", 1, 5, f);
	fputs("x,1,10,a\n", f);
	fclose(f);
	memset(&s, 0, sizeof(s));
	assert_int_equal(results_read(path, collect, &s, stderr, &info, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(info.bad_lines, 4);
	unlink(path);
	free(path);
}

/* Not regular files: refused at once, without blocking or reading. */
static void results_not_regular(void **state)
{
	char *fifo = tmpfile_path("fifo.csv"), err[512];
	struct results_info info;
	struct seen s = { 0 };

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(results_read(fifo, collect, &s, stderr, &info, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a regular file (a FIFO)"));
	assert_int_equal(results_read("/dev/zero", collect, &s, stderr, &info, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a regular file (a device)"));
	assert_int_equal(results_read("/tmp", collect, &s, stderr, &info, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a regular file (a directory)"));
	unlink(fifo);
	free(fifo);
}

/* What the writer writes, the reader reads back byte for byte. */
static void results_hostile_round_trip(void **state)
{
	static const char *const hostile[] = {
		"a,b", "\"", "\"\"", "say \"hi\"", "line\nbreak", "cr\rhere", "crlf\r\nend",
		"\n", "\r\n", ",", " lead", "trail ", "\"a\"\nb,\"c", "=cmd|' /C calc'!A0",
		"x'.system('touch /tmp/PWNED').'", "\\\\\\", "tab\there",
	};
	char *path = tmpfile_path("hostile.csv"), err[512];
	struct results_row row;
	struct results_info info;
	struct hostile_seen got = { 0, hostile };
	size_t i;

	(void)state;
	results_row_init(&row);
	results_row_set(&row, RC_THREADS, "1");
	results_row_set(&row, RC_RATE, "1");
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		results_row_set(&row, RC_WORKLOAD, "%s", hostile[i]);
		results_row_set(&row, RC_NOTE, "%s|%s", hostile[i], hostile[i]);
		assert_int_equal(results_append(path, &row, err, sizeof(err)), 0);
	}
	results_row_clear(&row);
	assert_int_equal(results_read(path, check_hostile, &got, stderr, &info, err, sizeof(err)), 0);
	assert_int_equal(info.bad_lines, 0);
	assert_int_equal(got.n, sizeof(hostile) / sizeof(hostile[0]));
	unlink(path);
	free(path);
}

/* A device is no results file: refused before anything is written
 * (a full disk mid-append is cut back: tests/sh/faults.sh). */
static void results_device(void **state)
{
	struct results_row row;
	char err[512];

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	results_row_init(&row);
	results_row_set(&row, RC_WORKLOAD, "x");
	assert_int_equal(results_append("/dev/full", &row, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a regular file"));
	results_row_clear(&row);
}

static void run_env(void **state)
{
	struct run_env env;
	char err[256], buf[64];

	(void)state;
	unsetenv(ENV_THREADS);
	unsetenv(ENV_PLAN);
	setenv("OMP_NUM_THREADS", "3,2", 1);
	assert_int_equal(run_env_load(&env, 1, err, sizeof(err)), 0);
	assert_int_equal(env.nthreads, 3);
	assert_int_equal(run_env_planned(&env, 0), -1);
	run_env_format_plan(&env, 3, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	run_env_free(&env);

	setenv(ENV_THREADS, "4", 1);
	setenv(ENV_PLAN, "3,5", 1);
	assert_int_equal(run_env_load(&env, 1, err, sizeof(err)), 0);
	assert_int_equal(env.nthreads, 4);
	assert_int_equal(run_env_planned(&env, 3), 5);
	run_env_format_plan(&env, 4, buf, sizeof(buf));
	assert_string_equal(buf, "3,5,3,5");
	run_env_free(&env);

	setenv(ENV_THREADS, "0", 1);
	assert_int_equal(run_env_load(&env, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "THREADRUN_THREADS: 0 is out of range, allowed 1..4096");
	setenv(ENV_THREADS, "2", 1);
	setenv(ENV_PLAN, "x", 1);
	assert_int_equal(run_env_load(&env, 1, err, sizeof(err)), -1);
	unsetenv(ENV_THREADS);
	unsetenv(ENV_PLAN);
	unsetenv("OMP_NUM_THREADS");
}

/* Numbers and lists are written one way, in every program. */
/* opt_check(): a row's needs and excludes rules, by the rows given. */
struct rule_opts {
	bool a, b, c;
};

static int check_rules(int argc, char **argv)
{
	static const struct opt_spec rows[] = {
		{ OPT_FLAG('a', "alpha", offsetof(struct rule_opts, a), "a"), .needs = "beta gamma",
		  .needs_msg = "alpha needs beta or gamma" },
		{ OPT_FLAG('b', "beta", offsetof(struct rule_opts, b), "b"), .excludes = "gamma",
		  .excludes_msg = "beta%s and gamma%s exclude each other" },
		{ OPT_FLAG('c', "gamma", offsetof(struct rule_opts, c), "c") },
	};
	struct rule_opts o = { 0 };
	struct opt_parser p;
	int ret;

	assert_int_equal(opt_init(&p, "test", rows, 3, 0), 0);
	assert_int_equal(opt_parse(&p, argc, argv, &o), OPT_END);
	ret = opt_check(&p);
	opt_fini(&p);
	return ret;
}

static void opt_rules(void **state)
{
	char *none[] = { "t", NULL }, *a[] = { "t", "-a", NULL }, *ab[] = { "t", "-a", "-b", NULL };
	char *ac[] = { "t", "--alpha", "--gamma", NULL }, *bc[] = { "t", "-b", "-c", NULL };
	char *c[] = { "t", "-c", NULL };

	(void)state;
	assert_int_equal(check_rules(1, none), 0);
	assert_int_equal(check_rules(2, a), -1);
	assert_int_equal(check_rules(3, ab), 0);
	assert_int_equal(check_rules(3, ac), 0);
	assert_int_equal(check_rules(3, bc), -1);
	assert_int_equal(check_rules(2, c), 0);
}

static void one_way(void **state)
{
	static const char *const bad_numbers[] = { " 4", "+4", "4 ", "0x4", "4e0", "", "-", "1-2" };
	static const struct { const char *text; int n; const char *msg; } sweeps[] = {
		{ "1-8x2", 4, NULL },
		{ "1,2,4-6,8-64x2", 9, NULL },
		{ "4294967297", -1, "thread count 4294967297 in '4294967297' is out of range" },
		{ "1- 2", -1, "is not a thread count list" },
		{ "1-+2", -1, "is not a thread count list" },
		{ "1-2x 2", -1, "is not a thread count list" },
		{ " 4", -1, "is not a thread count list" },
		{ "+4", -1, "is not a thread count list" },
		{ "2-4096x2147483648", -1, "factor 2147483648 in '2-4096x2147483648' is out of range" },
		{ "1,,2", -1, "empty element at character 3" },
		{ "8-1", -1, "descends" },
		{ "4,2", -1, "must ascend" },
	};
	const char *p;
	char err[256], **items;
	unsigned *counts, u;
	uint64_t v;
	double d;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(bad_numbers) / sizeof(bad_numbers[0]); i++)
		assert_int_equal(num_parse_u64("n", bad_numbers[i], 0, 100, &v, err, sizeof(err)), -1);
	assert_int_equal(num_parse_unsigned("n", "4294967297", 0, UINT32_MAX, &u, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of range"));
	p = "99999999999999999999999x";
	assert_int_equal(num_scan_u64(&p, UINT64_MAX, &v), -2);
	assert_string_equal(p, "x");
	p = "18446744073709551615";
	assert_int_equal(num_scan_u64(&p, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	p = "+1";
	assert_int_equal(num_scan_u64(&p, UINT64_MAX, &v), -1);
	assert_int_equal(num_parse_double("s", "0.25", 0, 1, &d, err, sizeof(err)), 0);
	assert_int_equal(num_parse_double("s", ".5e-1", 0, 1, &d, err, sizeof(err)), 0);
	assert_int_equal(num_parse_double("s", "+0.25", 0, 1, &d, err, sizeof(err)), -1);
	assert_int_equal(num_parse_double("s", "0x1p-2", 0, 1, &d, err, sizeof(err)), -1);
	assert_int_equal(num_parse_double("s", "inf", 0, INFINITY, &d, err, sizeof(err)), -1);
	assert_int_equal(num_parse_double("s", "-1", 0, 1, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "-1 is out of range"));
	n = list_split("a", "x,y,zz", "x or y", &items, err, sizeof(err));
	assert_int_equal(n, 3);
	assert_string_equal(items[2], "zz");
	list_free(items, n);
	assert_int_equal(list_split("a", "x,,y", "x or y", &items, err, sizeof(err)), -1);
	assert_string_equal(err, "a: 'x,,y' has an empty element at character 3, accepted: x or y");
	assert_int_equal(list_split("a", "x,", "x", &items, err, sizeof(err)), -1);
	assert_int_equal(list_split("a", "", "x", &items, err, sizeof(err)), -1);
	for (i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++) {
		n = sweep_parse_counts(sweeps[i].text, &counts, err, sizeof(err));
		assert_int_equal(n, sweeps[i].n);
		if (sweeps[i].msg)
			assert_non_null(strstr(err, sweeps[i].msg));
		free(counts);
	}
}

/* The worker API: every worker runs once, from one start, sampled; a
 * failed setup ends the run before its start, naming the worker; the row
 * builder fills placement, times and rate, and counts the row. */
static atomic_int worker_ran;

static int failing_setup(struct worker *w, char *err, size_t errlen)
{
	if ((int)w->index == *(const int *)w->arg) {
		snprintf(err, errlen, "no state here");
		return -1;
	}
	return 0;
}

static int counting_run(struct worker *w, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	atomic_fetch_add(&worker_ran, 1);
	worker_sample(w);
	return 0;
}

static const struct worker_ops test_ops = {
	.name = "unit", .setup = failing_setup, .run = counting_run,
};

struct row_seen {
	unsigned n;
	char threads[16], policy[32], seen[64], ok[8], workload[16];
	double rate, wall, steal, others;
};

static int collect_row(const struct results_row *row, unsigned line, void *arg)
{
	struct row_seen *s = arg;

	(void)line;
	s->n++;
	snprintf(s->workload, sizeof(s->workload), "%s", results_row_get(row, RC_WORKLOAD));
	snprintf(s->threads, sizeof(s->threads), "%s", results_row_get(row, RC_THREADS));
	snprintf(s->policy, sizeof(s->policy), "%s", results_row_get(row, RC_POLICY));
	snprintf(s->seen, sizeof(s->seen), "%s", results_row_get(row, RC_CPUS_SEEN));
	snprintf(s->ok, sizeof(s->ok), "%s", results_row_get(row, RC_PLACEMENT_OK));
	s->rate = results_row_num(row, RC_RATE);
	s->wall = results_row_num(row, RC_WALL_S);
	s->steal = results_row_num(row, RC_STEAL_PCT);
	s->others = results_row_num(row, RC_OTHERS_PCT);
	return 0;
}

static void worker_api(void **state)
{
	int plan[] = { 0 }, fail_at = -1, fds[2];
	struct run_env env = { .nthreads = 3, .plan = plan, .nplan = 1, .policy = "list:0",
			       .rows_fd = -1 };
	struct worker_params p = { .ops = &test_ops, .arg = &fail_at, .env = &env, .nworkers = 3 };
	struct worker_row wr = { .workload = "unit", .env = &env, .nworkers = 3, .wall_s = 2.0 };
	struct worker_result r;
	struct results_info info;
	struct results_row row;
	struct row_seen s = { 0 };
	char *path = tmpfile_path("worker_api.csv"), err[512], buf[8];
	unsigned i;

	(void)state;
	assert_int_equal(worker_run(&p, &r), 0);
	assert_true(r.ok && r.started && !r.interrupted);
	assert_int_equal(atomic_load(&worker_ran), 3);
	assert_true(r.wall_s >= 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(r.tracks[i].planned, 0);
		assert_true(r.tracks[i].samples >= 3);
		assert_int_equal(r.tracks[i].off_plan, 0);
	}

	assert_int_equal(pipe(fds), 0);
	env.rows_fd = fds[1];
	wr.tracks = r.tracks;
	wr.load = &r.load;
	results_row_init(&row);
	results_row_set(&row, RC_OPS, "10");
	results_row_set(&row, RC_UNIT, "ops/s");
	assert_int_equal(worker_row_append(path, &row, &wr, err, sizeof(err)), 0);
	results_row_clear(&row);
	worker_result_free(&r);
	assert_int_equal(read(fds[0], buf, sizeof(buf)), 2);
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(results_read(path, collect_row, &s, stderr, &info, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.workload, "unit");
	assert_string_equal(s.threads, "3");
	assert_string_equal(s.policy, "list:0");
	assert_string_equal(s.seen, "0,0,0");
	assert_string_equal(s.ok, "yes");
	assert_true(s.rate == 5.0 && s.wall == 2.0);
	/* The window's steal and others' CPU time, from /proc/stat. */
	assert_true(s.steal >= 0 && s.steal <= 100);
	assert_true(s.others >= 0 && s.others <= 100);

	/* Worker 1 cannot set up: nobody runs, the run never started. */
	atomic_store(&worker_ran, 0);
	fail_at = 1;
	assert_int_equal(worker_run(&p, &r), -1);
	assert_false(r.started || r.ok);
	assert_int_equal(atomic_load(&worker_ran), 0);
	assert_non_null(strstr(r.err, "worker 1 on CPU "));
	assert_non_null(strstr(r.err, ": no state here"));
	worker_result_free(&r);

	/* A PU that is not there: the bind fails, named. */
	plan[0] = 4000;
	fail_at = -1;
	assert_int_equal(worker_run(&p, &r), -1);
	assert_false(r.started);
	assert_non_null(strstr(r.err, "cannot bind to PU 4000: "));
	worker_result_free(&r);
	unlink(path);
	free(path);
}

/* A straggler: worker 1 of 3 takes STRAGGLER_S, the others 10 ms. */
#define STRAGGLER_S 0.3

static int straggling_run(struct worker *w, char *err, size_t errlen)
{
	double s = w->index == 1 ? STRAGGLER_S : 0.01;
	struct timespec ts = { 0, (long)(s * 1e9) };

	(void)err;
	(void)errlen;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}

static const struct worker_ops straggler_ops = { .name = "unit", .run = straggling_run };

/* The measurement lasts until its last worker ends: wall_s is the slowest
 * worker's span (not the first's, the last's or the average), and the
 * row's window and rate come from that one time. */
static void worker_straggler(void **state)
{
	struct run_env env = { .nthreads = 3, .policy = "none", .rows_fd = -1 };
	struct worker_params p = { .ops = &straggler_ops, .env = &env, .nworkers = 3 };
	struct worker_row wr = { .workload = "unit", .env = &env, .nworkers = 3 };
	struct worker_result r;
	struct results_info info;
	struct results_row row;
	struct row_seen s = { 0 };
	char *path = tmpfile_path("worker_straggler.csv"), err[512];

	(void)state;
	assert_int_equal(worker_run(&p, &r), 0);
	assert_true(r.ok && r.started);
	assert_true(r.wall_s >= STRAGGLER_S);
	/* Loose: a loaded machine (or a sanitizer) delays the workers. */
	assert_true(r.wall_s < STRAGGLER_S + 2);
	assert_true(r.t_start_us > 0);
	assert_true(r.t_end_us - r.t_start_us == llround(r.wall_s * 1e6));

	wr.wall_s = r.wall_s;
	wr.tracks = r.tracks;
	wr.t_start_us = r.t_start_us;
	wr.t_end_us = r.t_end_us;
	results_row_init(&row);
	results_row_set(&row, RC_OPS, "3");
	results_row_set(&row, RC_UNIT, "ops/s");
	assert_int_equal(worker_row_append(path, &row, &wr, err, sizeof(err)), 0);
	results_row_clear(&row);
	worker_result_free(&r);
	assert_int_equal(results_read(path, collect_row, &s, stderr, &info, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.wall >= STRAGGLER_S);
	assert_true(fabs(s.rate - 3 / s.wall) <= 1e-5 * s.rate);
	unlink(path);
	free(path);
}

/* What procstat_read() handed over. */
struct stat_seen {
	int cpus[16];
	struct cpu_ticks t[16];
	unsigned ncpus;
	char names[8][16];
	unsigned long long values[8];
	unsigned ncounters;
};

static void seen_cpu(void *arg, int cpu, const struct cpu_ticks *t)
{
	struct stat_seen *s = arg;

	assert_true(s->ncpus < 16);
	s->t[s->ncpus] = *t;
	s->cpus[s->ncpus++] = cpu;
}

static void seen_counter(void *arg, const char *name, unsigned long long value)
{
	struct stat_seen *s = arg;

	assert_true(s->ncounters < 8);
	snprintf(s->names[s->ncounters], sizeof(s->names[0]), "%s", name);
	s->values[s->ncounters++] = value;
}

/* Damaged lines of /proc/stat cost that line only; a long line's tail is
 * never read as lines of its own. */
static void procstat_damage(void **state)
{
	char *path = tmpfile_path("stat"), *text, tail[400];
	struct stat_seen s = { 0 };
	const struct procstat_visit v = { seen_cpu, seen_counter, &s };

	(void)state;
	memset(tail, ' ', sizeof(tail));
	memcpy(tail + 300, "cpu7 1 1 1 1 1 1 1 1", 20);
	tail[sizeof(tail) - 1] = '\0';
	assert_true(asprintf(&text,
			     "cpu  100 1 20 900 3 4 5 6 0 0\n"
			     "cpu0 50 0 10 450 1 2 3 4 0 0\n"
			     "cpu1 -5 0 10 450 1 2 3 4\n"
			     "cpu2 0x10 0 10 450 1 2 3 4\n"
			     "cpu3 1 2 3 4\n"
			     "cpu4 99999999999999999999999 0 1 2 3 4 5 6\n"
			     "cpu5x 1 2 3 4 5 6 7 8\n"
			     "cpu99999999 1 2 3 4 5 6 7 8\n"
			     "cpu6 1 2 3 4 5 6 7 8 %s\n"
			     "cpu8 1 2 3 4 5 6 7 8.5\n"
			     "ctxt 12345\n"
			     "ctxt -1\n"
			     "intr 77 1 2 3\n"
			     "cpu9 8 7 6 5 4 3 2 1",
			     tail) > 0);
	write_file(path, text);
	free(text);
	assert_int_equal(procstat_read(path, &v), 0);
	assert_int_equal(s.ncpus, 2 + 1);
	assert_int_equal(s.cpus[0], -1);
	assert_int_equal(s.cpus[1], 0);
	assert_int_equal(s.cpus[2], 9);
	assert_int_equal(cpu_ticks_total(&s.t[0]), 100 + 1 + 20 + 900 + 3 + 4 + 5 + 6);
	assert_int_equal(cpu_ticks_busy(&s.t[0]), 100 + 1 + 20 + 4 + 5);
	assert_int_equal(s.t[0].steal, 6);
	assert_int_equal(s.t[2].usr, 8);
	assert_int_equal(s.ncounters, 2);
	assert_string_equal(s.names[0], "ctxt");
	assert_int_equal(s.values[0], 12345);
	assert_string_equal(s.names[1], "intr");
	assert_int_equal(s.values[1], 77);
	/* A NUL byte costs its line only. */
	memset(&s, 0, sizeof(s));
	write_bytes(path, "cpu10 1 2 3\0 4 5 6 7 8\ncpu11 1 2 3 4 5 6 7 8\n", 45);
	assert_int_equal(procstat_read(path, &v), 0);
	assert_int_equal(s.ncpus, 1);
	assert_int_equal(s.cpus[0], 11);
	unlink(path);
	assert_int_equal(procstat_read(path, &v), -1);
	free(path);
}

/* The figures of a window: steal of the machine, others on the PUs less
 * the work's own time and a tick per PU, clamped; unknown when a read
 * failed or a counter went back. */
static void cpuload_maths(void **state)
{
	long hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	struct cpuload_mark a = { .ok = true, .all = 1000, .steal = 0, .pus_busy = 0, .npus = 2, .t = 10 };
	struct cpuload_mark b = a;
	struct cpuload_span span = { 0 }, two = { 0 };
	struct cpuload l;

	(void)state;
	/* 2 PUs for 1 s: 1.5 s busy (plus the reads' tick each), 0.5 s of it ours. */
	b.all = 1000 + 2 * (unsigned long long)hz;
	b.steal = (unsigned long long)hz / 5;
	b.pus_busy = (unsigned long long)(1.5 * (double)hz) + 2;
	b.t = 11;
	cpuload_span_add(&span, &a, &b, 0.5);
	l = cpuload_figures(&span);
	assert_true(fabs(l.steal_pct - 10.0) < 1e-9);
	assert_true(fabs(l.others_pct - 50.0) < 1e-9);
	/* Two such windows merged: the rounding's tick per PU taken off once
	 * (it averages out over windows rather than adds up). */
	cpuload_span_merge(&two, &span);
	cpuload_span_merge(&two, &span);
	l = cpuload_figures(&two);
	assert_true(fabs(l.steal_pct - 10.0) < 1e-9);
	assert_true(fabs(l.others_pct - (50.0 + 50.0 / (double)hz)) < 1e-9);
	/* More of our own time than the PUs were busy: 0, not negative. */
	span = (struct cpuload_span){ 0 };
	cpuload_span_add(&span, &a, &b, 5.0);
	assert_true(cpuload_figures(&span).others_pct == 0);
	/* A failed read, a counter that went back, nothing added: unknown. */
	span = (struct cpuload_span){ 0 };
	assert_true(isnan(cpuload_figures(&span).steal_pct));
	b.ok = false;
	cpuload_span_add(&span, &a, &b, 0.5);
	l = cpuload_figures(&span);
	assert_true(isnan(l.steal_pct) && isnan(l.others_pct));
	span = (struct cpuload_span){ 0 };
	b.ok = true;
	b.all = 10;
	cpuload_span_add(&span, &a, &b, 0.5);
	assert_true(isnan(cpuload_figures(&span).others_pct));
	/* A real read of this machine. */
	cpuload_mark(&a, NULL, 0);
	assert_true(a.ok && a.npus >= 1 && a.all > 0);
}

/* What one escaper wrote for S (FLAGS for csv and tsv), in a static buffer. */
enum esc_kind { K_LINE, K_JSON, K_CSV, K_TSV, K_MD, K_HTML };

static const char *escaped(enum esc_kind kind, const char *s, unsigned flags, size_t *bad)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	switch (kind) {
	case K_LINE: esc_line(f, s); break;
	case K_JSON: *bad = esc_json(f, s); break;
	case K_CSV: esc_csv(f, s, flags); break;
	case K_TSV: esc_tsv(f, s, flags); break;
	case K_MD: esc_md(f, s); break;
	case K_HTML: esc_html(f, s); break;
	}
	fclose(f);
	return out;
}

/* The message escape: control characters and bytes that are not UTF-8 as
 * C escapes, so a message is one line and a terminal shows, not obeys. */
static void escape_line(void **state)
{
	char buf[16];
	size_t bad = 0;

	(void)state;
	assert_string_equal(escaped(K_LINE, "a\nb\x1b[2Jc\td\r", 0, &bad), "a\\nb\\x1b[2Jc\\td\\r");
	assert_string_equal(escaped(K_LINE, "caf\xc3\xa9 \xff\xc3(", 0, &bad), "caf\xc3\xa9 \\xff\\xc3(");
	assert_string_equal(escaped(K_LINE, "\xc2\x9b" "31m\x7f", 0, &bad), "\\u009b31m\\x7f");
	assert_string_equal(escaped(K_LINE, "C:\\dir 'x'", 0, &bad), "C:\\dir 'x'");
	/* An escaped text passes a second time unchanged. */
	assert_string_equal(escaped(K_LINE, "a\\nb\\x1b", 0, &bad), "a\\nb\\x1b");
	/* Cut on a whole character, "..." saying so. */
	assert_string_equal(esc_text("abc", buf, sizeof(buf)), "abc");
	assert_string_equal(esc_text("0123456789abcdefgh", buf, sizeof(buf)), "0123456789ab...");
	assert_string_equal(esc_text("0123456789a\x1b" "bcdef", buf, sizeof(buf)), "0123456789a...");
	assert_string_equal(esc_text("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", buf, sizeof(buf)),
			    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9...");
	assert_string_equal(ESC("x\ny"), "x\\ny");
	/* Any bytes, any room: a string that fits, with no control byte. */
	srand(25);
	for (int i = 0; i < 2000; i++) {
		char in[24], out[32];
		size_t len = 1 + (size_t)rand() % sizeof(out), n = (size_t)rand() % sizeof(in);

		for (size_t j = 0; j < n; j++)
			in[j] = (char)(1 + rand() % 255);
		in[n] = '\0';
		esc_text(in, out, len);
		assert_true(strlen(out) < len);
		for (const char *c = out; *c; c++)
			assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
	}
}

/* JSON: valid UTF-8 whatever the input, every bad byte counted. */
static void escape_json(void **state)
{
	size_t bad = 0;

	(void)state;
	assert_string_equal(escaped(K_JSON, "a\"b\\c\n\x1b\x7f", 0, &bad), "\"a\\\"b\\\\c\\u000a\\u001b\\u007f\"");
	assert_int_equal(bad, 0);
	assert_string_equal(escaped(K_JSON, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, &bad),
			    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	assert_int_equal(bad, 0);
	/* A lone continuation byte, a cut sequence, an overlong '/', a surrogate. */
	assert_string_equal(escaped(K_JSON, "\x80" "a\xc3" "b\xc0\xaf\xed\xa0\x80", 0, &bad),
			    "\"\\ufffda\\ufffdb\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
	assert_int_equal(bad, 7);
}

/* CSV, TSV and markdown: one field, one cell; no HTML reaches a page. */
static void escape_fields(void **state)
{
	size_t bad = 0;

	(void)state;
	assert_string_equal(escaped(K_CSV, "plain", 0, &bad), "plain");
	assert_string_equal(escaped(K_CSV, "a,\"b\"\nc", 0, &bad), "\"a,\"\"b\"\"\nc\"");
	assert_string_equal(escaped(K_CSV, "a,b\r\nc", ESC_ONE_LINE, &bad), "\"a,b  c\"");
	assert_string_equal(escaped(K_CSV, " edge", 0, &bad), "\" edge\"");
	assert_string_equal(escaped(K_CSV, "=1+2", ESC_GUARD, &bad), "'=1+2");
	assert_string_equal(escaped(K_CSV, "-1.5e3", ESC_GUARD, &bad), "-1.5e3");
	assert_string_equal(escaped(K_CSV, "@a,b", ESC_GUARD, &bad), "\"'@a,b\"");
	assert_string_equal(escaped(K_CSV, "=1", 0, &bad), "=1");
	assert_string_equal(escaped(K_TSV, "a\tb\nc", 0, &bad), "a b c");
	assert_string_equal(escaped(K_TSV, "+x", ESC_GUARD, &bad), "'+x");
	assert_string_equal(escaped(K_MD, "<img src=x onerror=alert(1)> & a|b\\c", 0, &bad),
			    "&lt;img src=x onerror=alert(1)&gt; &amp; a\\|b\\\\c");
	assert_string_equal(escaped(K_MD, "a\nb\x1b", 0, &bad), "a\\nb\\x1b");
	assert_string_equal(ESC_MD("<b>", true), "&lt;b&gt;");
	assert_string_equal(ESC_MD("<b>\n", false), "<b>\\n");
	/* HTML text and attribute values: markup, quotes and controls shown. */
	assert_string_equal(escaped(K_HTML, "<script>a&b</script>", 0, &bad), "&lt;script&gt;a&amp;b&lt;/script&gt;");
	assert_string_equal(escaped(K_HTML, "\" onerror='x' |\\", 0, &bad), "&quot; onerror=&#39;x&#39; |\\");
	assert_string_equal(escaped(K_HTML, "a\nb\x1b\xff", 0, &bad), "a\\nb\\x1b\\xff");
}

/* The median's interval from order statistics: the textbook k for n = 9
 * (x(2)..x(8), 96.1%), [min, max] where nothing narrower covers 95%. */
static void median_interval(void **state)
{
	double nine[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 }, five[] = { 5, 1, 4, 2, 3 }, hundred[100];
	double lo, hi, cov;

	(void)state;
	assert_true(stats_median(nine, 9) == 5);
	assert_true(stats_median(five, 4) == 3);
	assert_true(isnan(stats_median(nine, 0)));
	cov = stats_median_ci(nine, 9, 0.05, &lo, &hi);
	assert_true(lo == 2 && hi == 8);
	assert_true(fabs(cov - (1 - 2 * 10.0 / 512)) < 1e-9);
	cov = stats_median_ci(five, 5, 0.05, &lo, &hi);
	assert_true(lo == 1 && hi == 5);
	assert_true(fabs(cov - (1 - 2.0 / 32)) < 1e-9);
	assert_true(stats_median_ci(five, 0, 0.05, &lo, &hi) == 0 && isnan(lo) && isnan(hi));
	/* n = 100: x(40)..x(61), 96.48% (the textbook's table). */
	for (int i = 0; i < 100; i++)
		hundred[i] = 100 - i;
	cov = stats_median_ci(hundred, 100, 0.05, &lo, &hi);
	assert_true(lo == 40 && hi == 61);
	assert_true(fabs(cov - 0.9648) < 1e-4);
}

/* Kendall's S and its variance by their definitions: every pair, and each
 * value's group of equals counted from every member. */
static double kendall_by_pairs(const double *x, const double *y, size_t n, double *var)
{
	double s = 0, nn = (double)n, t3[2] = { 0 }, t2[2] = { 0 }, t1[2] = { 0 };
	const double *v[2] = { x, y };

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			s += ((x[j] > x[i]) - (x[j] < x[i])) * ((y[j] > y[i]) - (y[j] < y[i]));
	for (int w = 0; w < 2; w++)
		for (size_t i = 0; i < n; i++) {
			double t = 0;

			for (size_t j = 0; j < n; j++)
				t += v[w][j] == v[w][i];
			t3[w] += (t - 1) * (2 * t + 5);
			t2[w] += (t - 1) * (t - 2);
			t1[w] += t - 1;
		}
	*var = n < 2 ? 0 : (nn * (nn - 1) * (2 * nn + 5) - t3[0] - t3[1]) / 18 +
			   t1[0] * t1[1] / (2 * nn * (nn - 1)) +
			   (n > 2 ? t2[0] * t2[1] / (9 * nn * (nn - 1) * (nn - 2)) : 0);
	return s;
}

/* The n log n count agrees with every pair's, ties in x, y and both. */
static void kendall_against_pairs(void **state)
{
	double x[60], y[60], var, want_var, s, want;
	unsigned seed = 27;

	(void)state;
	for (int it = 0; it < 2000; it++) {
		size_t n = (size_t)(rand_r(&seed) % 60);
		int mx = 1 + rand_r(&seed) % 12, my = 1 + rand_r(&seed) % 12;

		for (size_t i = 0; i < n; i++) {
			x[i] = rand_r(&seed) % mx + (it % 3 ? 0 : rand_r(&seed) / (double)RAND_MAX);
			y[i] = rand_r(&seed) % my;
		}
		s = stats_kendall_s(x, y, n, &var);
		want = kendall_by_pairs(x, y, n, &want_var);
		assert_true(s == want);
		assert_true(fabs(var - want_var) <= 1e-9 * fabs(want_var));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(median_interval),
		cmocka_unit_test(kendall_against_pairs),
		cmocka_unit_test(numbers),
		cmocka_unit_test(escape_line),
		cmocka_unit_test(escape_json),
		cmocka_unit_test(escape_fields),
		cmocka_unit_test(one_way),
		cmocka_unit_test(opt_rules),
		cmocka_unit_test(results_round_trip),
		cmocka_unit_test(results_identity),
		cmocka_unit_test(results_tolerant_reader),
		cmocka_unit_test(results_writer_guards),
		cmocka_unit_test(results_damage_table),
		cmocka_unit_test(results_damage_bounds),
		cmocka_unit_test(results_not_regular),
		cmocka_unit_test(results_hostile_round_trip),
		cmocka_unit_test(results_device),
		cmocka_unit_test(run_env),
		cmocka_unit_test(worker_api),
		cmocka_unit_test(worker_straggler),
		cmocka_unit_test(procstat_damage),
		cmocka_unit_test(cpuload_maths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
