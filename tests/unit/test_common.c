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
#include <unistd.h>

#include <cmocka.h>

#include "opt.h"
#include "results.h"
#include "runenv.h"
#include "sweep.h"

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
	assert_string_equal(s.note[0], "a, \"quoted\" note");
	assert_string_equal(s.algo[1], "rsa");
	assert_string_equal(info.missing, "");
	assert_int_equal(info.bad_lines, 0);
	unlink(path);
	free(path);
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
	assert_non_null(strstr(err, "binary"));
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

/* A full disk mid-append: the file is cut back to where it was. */
static void results_full_disk(void **state)
{
	struct results_row row;
	char err[512];

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	results_row_init(&row);
	results_row_set(&row, RC_WORKLOAD, "x");
	assert_int_equal(results_append("/dev/full", &row, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No space left"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers),
		cmocka_unit_test(one_way),
		cmocka_unit_test(results_round_trip),
		cmocka_unit_test(results_tolerant_reader),
		cmocka_unit_test(results_writer_guards),
		cmocka_unit_test(results_full_disk),
		cmocka_unit_test(run_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
