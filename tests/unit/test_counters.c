/* threadrun --counters: the maths of the derived figures (cycles per byte,
 * per operation, IPC, FLOPs per cycle), the multiplexing correction and the
 * per-placement change, from given counts; and the event list's parsing. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "counters.h"
#include "counts.h"
#include "results.h"

static void derive(void **state)
{
	/* AES over 1000 buffers of 8192 bytes in 24.576e6 cycles: 3 cycles
	 * per byte; 40e6 instructions: IPC 1.6276. */
	struct counts_in in = { .cycles = 24.576e6, .instructions = 40e6, .bytes = 8192e3,
				.ops = -1, .flops = -1 };
	struct counts_derived d;
	char buf[32];

	(void)state;
	counts_derive(&in, &d);
	assert_float_equal(d.cycles_per_byte, 3.0, 1e-12);
	assert_float_equal(d.ipc, 40e6 / 24.576e6, 1e-12);
	assert_true(isnan(d.cycles_per_op));
	assert_true(isnan(d.flops_per_cycle));
	/* RSA-2048: 500 signatures in 1e9 cycles, 2e6 cycles per signature. */
	in = (struct counts_in){ .cycles = 1e9, .instructions = -1, .bytes = -1, .ops = 500, .flops = -1 };
	counts_derive(&in, &d);
	assert_float_equal(d.cycles_per_op, 2e6, 1e-6);
	assert_true(isnan(d.ipc));
	assert_true(isnan(d.cycles_per_byte));
	/* linpack N=1000: 2/3 N^3 + 3/2 N^2 flops in 2.5e8 cycles. */
	in = (struct counts_in){ .cycles = 2.5e8, .instructions = 5e8, .bytes = -1, .ops = -1,
				 .flops = 2.0 / 3 * 1e9 + 1.5e6 };
	counts_derive(&in, &d);
	assert_float_equal(d.flops_per_cycle, (2.0 / 3 * 1e9 + 1.5e6) / 2.5e8, 1e-12);
	assert_float_equal(d.ipc, 2.0, 1e-12);
	/* No cycles (a machine without a PMU): every figure n/a. */
	in = (struct counts_in){ .cycles = -1, .instructions = -1, .bytes = 8192, .ops = 1, .flops = 1 };
	counts_derive(&in, &d);
	assert_true(isnan(d.cycles_per_byte) && isnan(d.cycles_per_op) && isnan(d.ipc) &&
		    isnan(d.flops_per_cycle));
	assert_string_equal(counts_format(d.ipc, buf, sizeof(buf)), "n/a");
	/* Zero cycles counted is no divisor either. */
	in.cycles = 0;
	in.instructions = 10;
	counts_derive(&in, &d);
	assert_true(isnan(d.ipc));
	assert_float_equal(d.cycles_per_byte, 0.0, 0);
	assert_string_equal(counts_format(3.0, buf, sizeof(buf)), "3");
	assert_string_equal(counts_format(1.62760417, buf, sizeof(buf)), "1.628");
}

static void scale(void **state)
{
	double v, share;

	(void)state;
	/* Ran all the time: as read. */
	assert_true(counts_scale(1000, 50, 50, &v, &share));
	assert_float_equal(v, 1000, 0);
	assert_float_equal(share, 1, 0);
	/* Multiplexed: counted a quarter of the time, the estimate is 4x. */
	assert_true(counts_scale(1000, 400, 100, &v, &share));
	assert_float_equal(v, 4000, 1e-9);
	assert_float_equal(share, 0.25, 1e-12);
	/* Enabled but never on a counter: no estimate. */
	assert_false(counts_scale(0, 400, 0, &v, &share));
	assert_float_equal(share, 0, 0);
	/* Never enabled (a thread that ended at once): zero, not multiplexed. */
	assert_true(counts_scale(0, 0, 0, &v, &share));
	assert_float_equal(v, 0, 0);
	assert_float_equal(share, 1, 0);
}

static void change(void **state)
{
	(void)state;
	/* "c2 vs c1: cycles per byte +38%". */
	assert_float_equal(counts_change_pct(2.5, 3.45), 38.0, 1e-9);
	assert_float_equal(counts_change_pct(4.0, 3.0), -25.0, 1e-9);
	assert_true(isnan(counts_change_pct(0, 3)));
	assert_true(isnan(counts_change_pct(NAN, 3)));
	assert_true(isnan(counts_change_pct(3, NAN)));
}

static void parse(void **state)
{
	struct counters_spec s;
	char err[512] = "";

	(void)state;
	assert_int_equal(counters_parse(NULL, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 9);
	assert_false(s.asked);
	assert_string_equal(s.ev[0].name, "task-clock");
	assert_int_equal(s.ev[0].col, RC_TASK_CLOCK_S);
	assert_false(s.ev[3].hw);
	assert_true(s.ev[4].hw);
	assert_int_equal(counters_find(&s, RC_CYCLES), 4);
	assert_int_equal(counters_parse("cycles,task-clock,cycles", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_true(s.asked);
	assert_string_equal(s.ev[1].name, "task-clock");
	assert_int_equal(counters_find(&s, RC_PAGE_FAULTS), -1);
	assert_int_equal(counters_parse("task-clock,nonesuch", &s, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "event 'nonesuch' not known"));
	assert_non_null(strstr(err, "threadrun --counters=list"));
	assert_int_equal(counters_parse(",,", &s, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "names no event"));
	assert_int_equal(counters_parse("", &s, err, sizeof(err)), 2);
}

/* THREADRUN_COUNTERS: what threadrun writes, the worker API reads. */
static void spec_text(void **state)
{
	struct counts_spec s, t;
	char buf[512];

	(void)state;
	assert_int_equal(counts_spec_parse(NULL, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(counts_spec_parse("1:1:0:0:task_clock_s:task-clock;0:0:0:0:cycles:cycles;"
					   "4:5:6:7:events:cpu::EV:umask=1", &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.ev[0].col, RC_TASK_CLOCK_S);
	assert_int_equal(s.ev[1].col, RC_CYCLES);
	assert_int_equal(s.ev[2].col, -1);
	assert_int_equal(s.ev[2].type, 4);
	assert_true(s.ev[2].config == 5 && s.ev[2].config1 == 6 && s.ev[2].config2 == 7);
	assert_string_equal(s.ev[2].name, "cpu::EV:umask=1");
	assert_int_equal(counts_spec_format(&s, buf, sizeof(buf)), 0);
	assert_int_equal(counts_spec_parse(buf, &t), 0);
	assert_int_equal(t.n, 3);
	assert_memory_equal(&s, &t, sizeof(s));
	assert_int_equal(counts_spec_format(&s, buf, 10), -1);
	/* Malformed: nothing counted. */
	assert_int_equal(counts_spec_parse("1:1:0:task_clock_s:task-clock", &s), -1);
	assert_int_equal(s.n, 0);
	assert_int_equal(counts_spec_parse("1:1:0:0:no_such_column:x", &s), -1);
	assert_int_equal(counts_spec_parse("x:1:0:0:cycles:cycles", &s), -1);
	assert_int_equal(counts_spec_parse("1:1:0:0:cycles:", &s), -1);
}

/* A measurement's row from given counts: the columns, the derived
 * figures from the row's own bytes or ops, n/a without cycles. */
static void row_figures(void **state)
{
	struct counts_sum sum = { .share = 0.5, .threads = 2 };
	struct results_row row;

	(void)state;
	assert_int_equal(counts_spec_parse("1:1:0:0:task_clock_s:task-clock;0:0:0:0:cycles:cycles;"
					   "0:1:0:0:instructions:instructions;0:5:0:0:events:perf::X",
					   &sum.spec), 0);
	sum.v[0] = 1.25;
	sum.v[1] = 24.576e6;
	sum.v[2] = 49.152e6;
	sum.v[3] = 7;
	results_row_init(&row);
	results_row_set(&row, RC_UNIT, "bytes/s");
	results_row_set(&row, RC_BYTES, "8192000");
	results_row_set(&row, RC_OPS, "1000");
	counts_row(&sum, &row);
	assert_string_equal(results_row_get(&row, RC_COUNTERS), "task-clock,cycles,instructions,perf::X");
	assert_string_equal(results_row_get(&row, RC_TASK_CLOCK_S), "1.250000");
	assert_string_equal(results_row_get(&row, RC_CYCLES), "24576000");
	assert_string_equal(results_row_get(&row, RC_EVENTS), "perf::X=7");
	assert_string_equal(results_row_get(&row, RC_COUNTED_PCT), "50.0");
	assert_string_equal(results_row_get(&row, RC_CYCLES_PER_BYTE), "3");
	assert_string_equal(results_row_get(&row, RC_CYCLES_PER_OP), "n/a");
	assert_string_equal(results_row_get(&row, RC_IPC), "2");
	assert_string_equal(results_row_get(&row, RC_FLOPS_PER_CYCLE), "n/a");
	assert_string_equal(results_row_get(&row, RC_NOTE), "");
	results_row_clear(&row);
	/* RSA: per operation. */
	results_row_init(&row);
	results_row_set(&row, RC_UNIT, "ops/s");
	results_row_set(&row, RC_OPS, "12288");
	counts_row(&sum, &row);
	assert_string_equal(results_row_get(&row, RC_CYCLES_PER_OP), "2000");
	assert_string_equal(results_row_get(&row, RC_CYCLES_PER_BYTE), "n/a");
	results_row_clear(&row);
	/* linpack: FLOPs per cycle. */
	results_row_init(&row);
	results_row_set(&row, RC_UNIT, "MFLOPS");
	results_row_set(&row, RC_OPS, "49152000");
	counts_row(&sum, &row);
	assert_string_equal(results_row_get(&row, RC_FLOPS_PER_CYCLE), "2");
	results_row_clear(&row);
	/* No cycles (never counted), a worker lost: n/a, and the note says. */
	sum.v[1] = -1;
	sum.failed = 1;
	results_row_init(&row);
	results_row_set(&row, RC_UNIT, "bytes/s");
	results_row_set(&row, RC_BYTES, "8192000");
	results_row_set(&row, RC_NOTE, "wrapped");
	counts_row(&sum, &row);
	assert_string_equal(results_row_get(&row, RC_CYCLES), "");
	assert_string_equal(results_row_get(&row, RC_CYCLES_PER_BYTE), "n/a");
	assert_string_equal(results_row_get(&row, RC_IPC), "n/a");
	assert_string_equal(results_row_get(&row, RC_NOTE), "wrapped; counters: 1 worker not counted");
	results_row_clear(&row);
}

/* Per worker: sums add up, and each worker's figures come from its own
 * counts and work. */
static void worker_figures(void **state)
{
	struct counts_sum w[3], total;
	struct results_row row;
	const double work[3] = { 4096, 2048, 0 };

	(void)state;
	memset(w, 0, sizeof(w));
	memset(&total, 0, sizeof(total));
	assert_int_equal(counts_spec_parse("1:1:0:0:task_clock_s:task-clock;0:0:0:0:cycles:cycles;"
					   "0:1:0:0:instructions:instructions", &total.spec), 0);
	for (int i = 0; i < 3; i++)
		w[i].spec = total.spec;
	/* Worker 0: 0.5 s, 8192 cycles, 16384 instructions; worker 1: its
	 * cycles never ran (multiplexed away), share 0.25; worker 2: lost. */
	w[0].v[0] = 0.5, w[0].v[1] = 8192, w[0].v[2] = 16384, w[0].share = 1, w[0].threads = 1;
	w[1].v[0] = 0.25, w[1].v[1] = -1, w[1].v[2] = 300, w[1].share = 0.25, w[1].threads = 1;
	w[2].v[0] = w[2].v[1] = w[2].v[2] = -1, w[2].share = 1, w[2].failed = 1;
	for (int i = 0; i < 3; i++)
		counts_sum_add(&total, &w[i]);
	assert_float_equal(total.v[0], 0.75, 1e-12);
	assert_float_equal(total.v[1], 8192, 0);
	assert_float_equal(total.v[2], 16684, 0);
	assert_float_equal(total.share, 0.25, 0);
	assert_int_equal(total.threads, 2);
	assert_int_equal(total.failed, 1);
	{
		struct counts_sum half = w[1];

		counts_sum_scale(&half, 0.5);
		assert_float_equal(half.v[0], 0.125, 1e-12);
		assert_float_equal(half.v[1], -1, 0);
	}
	results_row_init(&row);
	results_row_set(&row, RC_UNIT, "bytes/s");
	assert_int_equal(counts_row_workers(w, work, 3, &row), 0);
	assert_string_equal(results_row_get(&row, RC_CTR_WORKERS), "0.5/2/2,0.25/-/-,-");
	results_row_clear(&row);
	results_row_init(&row);
	results_row_set(&row, RC_UNIT, "ops/s");
	assert_int_equal(counts_row_workers(w, work, 1, &row), 0);
	assert_string_equal(results_row_get(&row, RC_CTR_WORKERS), "0.5/2/2");
	results_row_clear(&row);
	/* linpack: no per-worker work, so no per-unit figure; IPC stays. */
	results_row_init(&row);
	results_row_set(&row, RC_UNIT, "MFLOPS");
	assert_int_equal(counts_row_workers(w, NULL, 2, &row), 0);
	assert_string_equal(results_row_get(&row, RC_CTR_WORKERS), "0.5/-/2,0.25/-/-");
	results_row_clear(&row);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(derive),
		cmocka_unit_test(scale),
		cmocka_unit_test(change),
		cmocka_unit_test(parse),
		cmocka_unit_test(spec_text),
		cmocka_unit_test(row_figures),
		cmocka_unit_test(worker_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
