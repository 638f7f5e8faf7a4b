/* Unit tests of the placement library on synthetic topologies. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "placement.h"

#define T2 "numa:1 package:1 core:8 pu:8"
#define SMT2X2 "package:2 [numa] core:16 pu:2"

static pl_topology_t load(const char *spec, const char *allowed)
{
	pl_topology_t t;

	assert_int_equal(pl_topology_init(&t), 0);
	assert_int_equal(pl_topology_set_source(t, spec), 0);
	assert_int_equal(pl_topology_load(t), 0);
	if (allowed)
		assert_int_equal(pl_topology_restrict(t, allowed), 0);
	return t;
}

/* Compute a plan; -1 when it fails (the error stays in the topology). */
static struct pl_plan *plan_for(pl_topology_t t, const char *policy_text, unsigned n,
				unsigned long flags)
{
	struct pl_policy policy;
	struct pl_plan *plan = NULL;
	char err[256];

	assert_int_equal(pl_policy_parse(policy_text, &policy, err, sizeof(err)), 0);
	if (pl_plan_compute(t, &policy, n, flags, &plan) < 0)
		plan = NULL;
	pl_policy_clear(&policy);
	return plan;
}

static void expect_plan(const char *spec, const char *allowed, const char *policy,
			unsigned n, const int *want, bool wrapped)
{
	pl_topology_t t = load(spec, allowed);
	struct pl_plan *plan = plan_for(t, policy, n, 0);
	unsigned i;

	if (!plan)
		fail_msg("%s n=%u: %s", policy, n, pl_topology_get_error(t));
	assert_int_equal(plan->nworkers, n);
	for (i = 0; i < n; i++)
		if (plan->pu[i] != want[i])
			fail_msg("%s n=%u worker %u: PU %d, want %d", policy, n, i, plan->pu[i],
				 want[i]);
	assert_int_equal(plan->wrapped, wrapped);
	pl_plan_destroy(plan);
	pl_topology_destroy(t);
}

static void expect_error(const char *spec, const char *allowed, const char *policy,
			 unsigned n, unsigned long flags, const char *needle)
{
	pl_topology_t t = load(spec, allowed);
	struct pl_plan *plan = plan_for(t, policy, n, flags);

	if (plan)
		fail_msg("%s n=%u: planned, want an error with '%s'", policy, n, needle);
	if (!strstr(pl_topology_get_error(t), needle))
		fail_msg("%s n=%u: error '%s' lacks '%s'", policy, n, pl_topology_get_error(t),
			 needle);
	pl_topology_destroy(t);
}

/* T2, compact: every strand of core 0, then core 1, ... */
static void t2_compact(void **state)
{
	int want[65];
	unsigned i, ns[] = { 1, 8, 16, 64, 65 }, k;

	(void)state;
	for (i = 0; i < 65; i++)
		want[i] = (int)(i % 64);
	for (k = 0; k < 5; k++)
		expect_plan(T2, NULL, "compact", ns[k], want, ns[k] > 64);
}

/* T2, cK: K strands on each of the 8 cores, cores in order. */
static void t2_percore(void **state)
{
	int want[65];
	unsigned i, k, n, ns[] = { 1, 8, 16, 64, 65 }, ks[] = { 1, 2, 4, 8 }, j;
	char name[16];

	(void)state;
	for (j = 0; j < 4; j++) {
		k = ks[j];
		for (i = 0; i < 65; i++) {
			unsigned slot = i % (8 * k);
			want[i] = (int)((slot / k) * 8 + slot % k);
		}
		snprintf(name, sizeof(name), "c%u", k);
		for (n = 0; n < 5; n++)
			expect_plan(T2, NULL, name, ns[n], want, ns[n] > 8 * k);
	}
}

static int core_of(int pu) { return pu / 8; }

/* T2, scatter: one strand per core before any core gets a second. */
static void t2_scatter(void **state)
{
	unsigned ns[] = { 1, 8, 16, 64, 65 }, k, i, per_core[8];
	pl_topology_t t = load(T2, NULL);

	(void)state;
	for (k = 0; k < 5; k++) {
		struct pl_plan *plan = plan_for(t, "scatter", ns[k], 0);
		unsigned n = ns[k] > 64 ? 64 : ns[k];

		assert_non_null(plan);
		memset(per_core, 0, sizeof(per_core));
		for (i = 0; i < n; i++)
			per_core[core_of(plan->pu[i])]++;
		for (i = 0; i < 8; i++) {
			unsigned lo = n / 8, hi = (n + 7) / 8;
			if (per_core[i] < lo || per_core[i] > hi)
				fail_msg("scatter n=%u: core %u has %u workers", n, i, per_core[i]);
		}
		assert_int_equal(plan->distinct, n);
		assert_int_equal(plan->wrapped, ns[k] > 64);
		if (ns[k] == 65)
			assert_int_equal(plan->pu[64], plan->pu[0]);
		pl_plan_destroy(plan);
	}
	pl_topology_destroy(t);
}

static void t2_list_and_none(void **state)
{
	static const int list[] = { 0, 8, 16, 17, 18, 19, 20, 21, 22, 23, 0 };
	static const int rev[] = { 7, 6, 5, 63 };
	static const int none[] = { -1, -1, -1 };

	(void)state;
	expect_plan(T2, NULL, "list:0,8,16-23", 10, list, false);
	expect_plan(T2, NULL, "list:0,8,16-23", 11, list, true);
	expect_plan(T2, NULL, "list:7-5,63", 4, rev, false);
	expect_plan(T2, NULL, "none", 3, none, false);
}

static void t2_errors(void **state)
{
	(void)state;
	expect_error(T2, NULL, "c9", 8, 0, "more than a core has here, allowed 1..8");
	expect_error(T2, NULL, "list:64", 1, 0, "PU 64 does not exist");
	expect_error(T2, NULL, "compact", 65, PL_PLAN_STRICT, "strict");
	expect_error(T2, NULL, "c1", 9, PL_PLAN_STRICT, "only 8 PUs");
	expect_error(T2, NULL, "compact", 0, 0, "threads: 0 is out of range, allowed 1..4096");
	expect_error(T2, NULL, "compact", 4097, 0, "allowed 1..4096");
}

/* Two packages, each with its NUMA node, 16 cores x 2 strands. */
static void smt2_two_socket(void **state)
{
	static const int compact[] = { 0, 1, 2, 3 };
	static const int c1[] = { 0, 2, 4, 6 };
	pl_topology_t t = load(SMT2X2, NULL);
	struct pl_plan *plan;
	struct pl_pu_info info;

	(void)state;
	expect_plan(SMT2X2, NULL, "compact", 4, compact, false);
	expect_plan(SMT2X2, NULL, "c1", 4, c1, false);
	plan = plan_for(t, "scatter", 2, 0);
	assert_non_null(plan);
	assert_int_equal(pl_topology_get_pu_info(t, (unsigned)plan->pu[0], &info), 0);
	assert_int_equal(info.package, 0);
	assert_int_equal(pl_topology_get_pu_info(t, (unsigned)plan->pu[1], &info), 0);
	assert_int_equal(info.package, 1);
	assert_int_equal(info.numa, 1);
	pl_plan_destroy(plan);
	/* 32 workers, scatter: every core once, no strand shared. */
	plan = plan_for(t, "scatter", 32, 0);
	assert_non_null(plan);
	for (unsigned i = 0; i < 32; i++) {
		pl_topology_get_pu_info(t, (unsigned)plan->pu[i], &info);
		assert_int_equal(info.strand, 0);
	}
	pl_plan_destroy(plan);
	assert_int_equal(pl_topology_get_nbcores(t), 32);
	assert_int_equal(pl_topology_get_nbpus(t), 64);
	assert_int_equal(pl_topology_get_max_strands(t), 2);
	pl_topology_destroy(t);
}

/* Only some PUs usable (as under a cgroup cpuset or taskset). */
static void restricted(void **state)
{
	static const int compact[] = { 0, 1, 2, 3, 8, 9, 10, 11, 0 };
	static const int c2[] = { 0, 1, 8, 9 };
	static const int c4[] = { 0, 1, 2, 3, 8, 9, 10, 11 };
	static const int c1[] = { 0, 8, 0 };
	pl_topology_t t = load(T2, "0-3,8-11");
	struct pl_plan *plan;
	unsigned i;

	(void)state;
	expect_plan(T2, "0-3,8-11", "compact", 9, compact, true);
	expect_plan(T2, "0-3,8-11", "c2", 4, c2, false);
	expect_plan(T2, "0-3,8-11", "c4", 8, c4, false);
	expect_plan(T2, "0-3,8-11", "c1", 3, c1, true);
	expect_error(T2, "0-3,8-11", "c8", 1, 0, "no core has 8 usable strands");
	expect_error(T2, "0-3,8-11", "list:0,4", 2, 0, "PU 4 is not allowed");
	assert_int_equal(pl_topology_get_nbusable(t), 8);
	plan = plan_for(t, "scatter", 8, 0);
	assert_non_null(plan);
	for (i = 0; i < 8; i++)
		assert_true((plan->pu[i] >= 0 && plan->pu[i] <= 3) ||
			    (plan->pu[i] >= 8 && plan->pu[i] <= 11));
	assert_int_equal(plan->distinct, 8);
	pl_plan_destroy(plan);
	plan = plan_for(t, "scatter", 2, 0);
	assert_int_equal(core_of(plan->pu[0]), 0);
	assert_int_equal(core_of(plan->pu[1]), 1);
	pl_plan_destroy(plan);
	pl_topology_destroy(t);
}

static void restrict_errors(void **state)
{
	pl_topology_t t = load(T2, NULL);

	(void)state;
	assert_int_equal(pl_topology_restrict(t, "0,64"), -1);
	assert_non_null(strstr(pl_topology_get_error(t), "PU 64 does not exist"));
	assert_int_equal(pl_topology_restrict(t, "x"), -1);
	assert_non_null(strstr(pl_topology_get_error(t), "'x' is not valid"));
	pl_topology_destroy(t);
}

static void bad_sources(void **state)
{
	pl_topology_t t;

	(void)state;
	assert_int_equal(pl_topology_init(&t), 0);
	pl_topology_set_source(t, "core:banana");
	assert_int_equal(pl_topology_load(t), -1);
	assert_non_null(strstr(pl_topology_get_error(t), "'core:banana' is not a valid hwloc synthetic"));
	pl_topology_destroy(t);
	assert_int_equal(pl_topology_init(&t), 0);
	pl_topology_set_source(t, "/nonexistent/topo.xml");
	assert_int_equal(pl_topology_load(t), -1);
	assert_non_null(strstr(pl_topology_get_error(t), "cannot read XML file"));
	pl_topology_destroy(t);
}

static void policy_parsing(void **state)
{
	struct pl_policy p;
	char err[256], name[64];

	(void)state;
	assert_int_equal(pl_policy_parse("c12", &p, err, sizeof(err)), 0);
	assert_int_equal(p.kind, PL_POLICY_PERCORE);
	assert_int_equal(p.per_core, 12);
	pl_policy_name(&p, name, sizeof(name));
	assert_string_equal(name, "c12");
	pl_policy_clear(&p);
	assert_int_equal(pl_policy_parse("list:3,1-2", &p, err, sizeof(err)), 0);
	assert_int_equal(p.nlist, 3);
	pl_policy_name(&p, name, sizeof(name));
	assert_string_equal(name, "list:3,1,2");
	pl_policy_clear(&p);

	static const char *const bad[] = { "", "spreads", "cores", "c0", "c2x", "c", "list:",
					   "spread:", "close:cores:x", "E:N:0", "S0:x", "C0:0-1", "S:0",
					   "foo:1", "core:", "core:3-1", "list:core:1,,2", "N@",
					   "list:a", "list:1-", "list:1,,2", "list:-1",
					   "list:99999999", "COMPACT", "compact ", "list:0-70000" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (pl_policy_parse(bad[i], &p, err, sizeof(err)) == 0)
			fail_msg("policy '%s' accepted", bad[i]);
		assert_true(strlen(err) > 10);
		pl_policy_clear(&p);
	}
	assert_int_equal(pl_policy_parse("spreads", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "policy 'spreads' not known, choices are: compact, scatter, none, "
				 "cK (K strands per core, e.g. c2), list:CPUS (e.g. list:0,8,16-23), "
				 "hwloc locations (core:0-3), OpenMP's close, spread, primary[:cores], "
				 "likwid-pin's S0:0-3, E:N:8:1:2 (see --help)");
	/* The other tools' spellings, by canonical name. */
	static const char *const named[][2] = {
		{ "spread", "spread:threads" }, { "master:sockets", "primary:sockets" },
		{ "close:cores", "close:cores" }, { "core:0-1", "list:core:0-1" },
		{ "list:core:0,pu:3", "list:core:0,pu:3" }, { "0-2", "list:0,1,2" },
		{ "S0:0-1", "S0:0-1" }, { "E:N:4:1:2", "E:N:4:1:2" }, { "S:scatter", "S:scatter" },
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (pl_policy_parse(named[i][0], &p, err, sizeof(err)) < 0)
			fail_msg("policy '%s' refused: %s", named[i][0], err);
		pl_policy_name(&p, name, sizeof(name));
		assert_string_equal(name, named[i][1]);
		pl_policy_clear(&p);
	}
}

/* hwloc locations as hwloc-calc reads them, OpenMP's places as libgomp
 * fills them, likwid-pin's expressions as likwid reads them. */
static void foreign_spellings(void **state)
{
	static const char *const topo = "numa:2 package:2 core:4 pu:2";
	static const struct {
		const char *policy;
		unsigned n;
		int want[8];
		bool wrapped;
	} cases[] = {
		{ "core:0-1", 4, { 0, 1, 2, 3 }, false },
		{ "package:1.core:0-1", 4, { 8, 9, 10, 11 }, false },
		{ "package:1.core:1-2.pu:1", 2, { 11, 13 }, false },
		{ "core:odd", 4, { 2, 3, 6, 7 }, false },
		{ "core:1:2", 4, { 2, 3, 4, 5 }, false },
		{ "numa:1.core:0", 2, { 16, 17 }, false },
		{ "list:pu:5,0,core:15", 4, { 5, 0, 30, 31 }, false },
		{ "spread", 4, { 0, 8, 16, 24 }, false },
		{ "spread:cores", 3, { 0, 12, 22 }, false },
		{ "close:cores", 4, { 0, 2, 4, 6 }, false },
		{ "close", 4, { 0, 1, 2, 3 }, false },
		{ "primary:cores", 3, { 0, 1, 0 }, true },
		{ "spread:sockets", 8, { 0, 1, 8, 9, 16, 17, 24, 25 }, false },
		{ "S0:0-3", 4, { 0, 2, 4, 6 }, false },
		{ "S1:0-1", 2, { 8, 10 }, false },
		{ "N:0-3", 4, { 0, 2, 4, 6 }, false },
		{ "M1:4-5", 2, { 24, 26 }, false },
		{ "E:N:8:1:2", 8, { 0, 2, 4, 6, 8, 10, 12, 14 }, false },
		{ "E:S1:4:2:4", 4, { 8, 9, 12, 13 }, false },
		{ "E:S0:6:1:4", 6, { 0, 4, 0, 4, 0, 4 }, false },
		{ "S:scatter", 4, { 0, 8, 16, 24 }, false },
		{ "S0:0-1@S1:0-1", 4, { 0, 2, 8, 10 }, false },
		{ "S1", 2, { 8, 9 }, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_plan(topo, NULL, cases[i].policy, cases[i].n, cases[i].want,
			    cases[i].wrapped);
	/* Within --allowed: locations keep their usable PUs. */
	expect_plan(topo, "core:0,core:2", "core:0-2", 4, (const int[]){ 0, 1, 4, 5 }, false);
	expect_plan(topo, "pu:1", "compact", 1, (const int[]){ 1 }, false);
}

static void foreign_errors(void **state)
{
	pl_topology_t t = load("numa:2 package:2 core:4 pu:2", NULL);
	static const char *const bad[][2] = {
		{ "core:40", "core 40 does not exist here, there are 16 cores (logical indices 0..15)" },
		{ "package:1.numa:0", "there is no numa there" },
		{ "l3:0", "there is no l3 in this topology" },
		{ "S9:0", "domain S9 does not exist here" },
		{ "S0:0-8", "9 indices for a domain of 8 usable PUs" },
		{ "S0:8", "index 8 is past the domain's 8 usable PUs" },
		{ "E:S0:2:1:1:8", "offset 8 is past the domain's 8 usable PUs" },
	};
	struct pl_policy p;
	struct pl_plan *plan;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pl_policy_parse(bad[i][0], &p, err, sizeof(err)), 0);
		if (pl_plan_compute(t, &p, 2, 0, &plan) == 0)
			fail_msg("policy '%s' planned", bad[i][0]);
		if (!strstr(pl_topology_get_error(t), bad[i][1]))
			fail_msg("policy '%s': '%s' lacks '%s'", bad[i][0], pl_topology_get_error(t),
				 bad[i][1]);
		pl_policy_clear(&p);
	}
	assert_int_equal(pl_topology_restrict(t, "core:0-1,pu:99"), -1);
	assert_non_null(strstr(pl_topology_get_error(t), "pu 99 does not exist here"));
	pl_topology_destroy(t);
}

static void formatting(void **state)
{
	pl_topology_t t = load(T2, NULL);
	struct pl_plan *plan = plan_for(t, "list:3,5,7", 3, 0);
	char buf[64], tiny[4];

	(void)state;
	assert_int_equal(pl_plan_format_places(plan, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "{3},{5},{7}");
	assert_int_equal(pl_plan_format(plan, ",", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "3,5,7");
	assert_int_equal(pl_plan_format(plan, ",", tiny, sizeof(tiny)), -1);
	assert_int_equal(pl_topology_describe(t, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "Package:1 [NUMANode] Core:8 PU:8");
	pl_plan_destroy(plan);
	pl_topology_destroy(t);
}

/* This machine: binding the calling thread is honoured. */
static void bind_here(void **state)
{
	pl_topology_t t;
	struct pl_plan *plan;

	(void)state;
	assert_int_equal(pl_topology_init(&t), 0);
	assert_int_equal(pl_topology_load(t), 0);
	assert_true(pl_topology_is_thissystem(t));
	plan = plan_for(t, "compact", 1, 0);
	assert_int_equal(pl_thread_bind((unsigned)plan->pu[0]), 0);
	assert_int_equal(pl_thread_get_cpu(), plan->pu[0]);
	pl_plan_destroy(plan);
	pl_topology_destroy(t);
}

/* A cpuset that hides PUs (an export with allowed_cpuset 0x2, as a cgroup
 * limited to CPU 1 shows it): the machine is still described whole, and a
 * hidden PU is "not allowed here", not missing. */
static void disallowed_pus(void **state)
{
	pl_topology_t t = load("tests/cli/allowed-pu1.xml", NULL);
	char desc[256];

	(void)state;
	assert_int_equal(pl_topology_get_nbcores(t), 2);
	assert_int_equal(pl_topology_get_nbpus(t), 2);
	assert_int_equal(pl_topology_get_nbusable(t), 1);
	assert_int_equal(pl_topology_describe(t, desc, sizeof(desc)), 0);
	assert_non_null(strstr(desc, "Core:2 PU:1"));
	assert_null(plan_for(t, "list:0", 1, 0));
	assert_non_null(strstr(pl_topology_get_error(t), "PU 0 is not allowed here"));
	assert_null(plan_for(t, "list:7", 1, 0));
	assert_non_null(strstr(pl_topology_get_error(t), "PU 7 does not exist"));
	pl_topology_destroy(t);
}

/* scatter without a topology copy must give what hwloc_distrib() gives on
 * the restricted copy, for every N and odd usable sets. */
static void scatter_matches_distrib(void **state)
{
	static const char *const sets[] = { NULL, "0,3,4,5,9,11", "1,2,3,7", "6-11", "5" };
	static const char spec[] = "package:2 core:3 pu:2";
	hwloc_topology_t dup;
	hwloc_bitmap_t sel, all[12];
	hwloc_obj_t root;
	struct pl_plan *plan;
	pl_topology_t t;
	unsigned n, i, usable;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		t = load(spec, sets[k]);
		usable = pl_topology_get_nbusable(t);
		sel = hwloc_bitmap_alloc();
		hwloc_bitmap_copy(sel, hwloc_topology_get_topology_cpuset(pl_topology_get_hwloc(t)));
		if (sets[k])
			hwloc_bitmap_list_sscanf(sel, sets[k]);
		for (n = 1; n <= usable; n++) {
			assert_int_equal(hwloc_topology_dup(&dup, pl_topology_get_hwloc(t)), 0);
			assert_int_equal(hwloc_topology_restrict(dup, sel, 0), 0);
			root = hwloc_get_root_obj(dup);
			assert_int_equal(hwloc_distrib(dup, &root, 1, all, n,
						       (int)hwloc_topology_get_depth(dup), 0), 0);
			plan = plan_for(t, "scatter", n, 0);
			assert_non_null(plan);
			for (i = 0; i < n; i++) {
				assert_int_equal(plan->pu[i], hwloc_bitmap_first(all[i]));
				hwloc_bitmap_free(all[i]);
			}
			pl_plan_destroy(plan);
			hwloc_topology_destroy(dup);
		}
		hwloc_bitmap_free(sel);
		pl_topology_destroy(t);
	}
}

/* cK on a restricted machine: cores with fewer than K usable strands are
 * left out, in one walk. */
static void percore_restricted(void **state)
{
	pl_topology_t t = load("package:1 core:4 pu:2", "0,1,2,5,6,7");
	struct pl_plan *plan = plan_for(t, "c2", 4, 0);
	static const int want2[] = { 0, 1, 6, 7 }, want1[] = { 0, 2, 5, 6 };
	unsigned i;

	(void)state;
	assert_non_null(plan);
	for (i = 0; i < 4; i++)
		assert_int_equal(plan->pu[i], want2[i]);
	pl_plan_destroy(plan);
	plan = plan_for(t, "c1", 4, 0);
	assert_non_null(plan);
	for (i = 0; i < 4; i++)
		assert_int_equal(plan->pu[i], want1[i]);
	pl_plan_destroy(plan);
	pl_topology_destroy(t);
}

/* Names of any length: a list of 400 CPUs is named whole. */
static void long_policy_names(void **state)
{
	struct pl_policy p;
	char err[256], *text = malloc(8 * 400 + 8), *name;
	size_t used = 0;
	unsigned i;

	(void)state;
	assert_non_null(text);
	used += (size_t)sprintf(text, "list:");
	for (i = 0; i < 400; i++)
		used += (size_t)sprintf(text + used, "%s%u", i ? "," : "", 1000 + i);
	assert_int_equal(pl_policy_parse(text, &p, err, sizeof(err)), 0);
	name = pl_policy_strdup(&p);
	assert_non_null(name);
	assert_string_equal(name, text);
	free(name);
	pl_policy_clear(&p);
	assert_int_equal(pl_policy_parse("list:0,,1", &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty element at character 3"));
	assert_int_equal(pl_policy_parse("list:4294967296", &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "4294967296 is above the highest OS index"));
	assert_int_equal(pl_policy_parse("list:+1", &p, err, sizeof(err)), -1);
	assert_int_equal(pl_policy_parse("list: 1", &p, err, sizeof(err)), -1);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t2_compact),
		cmocka_unit_test(t2_percore),
		cmocka_unit_test(t2_scatter),
		cmocka_unit_test(t2_list_and_none),
		cmocka_unit_test(t2_errors),
		cmocka_unit_test(smt2_two_socket),
		cmocka_unit_test(restricted),
		cmocka_unit_test(restrict_errors),
		cmocka_unit_test(bad_sources),
		cmocka_unit_test(policy_parsing),
		cmocka_unit_test(formatting),
		cmocka_unit_test(foreign_spellings),
		cmocka_unit_test(foreign_errors),
		cmocka_unit_test(bind_here),
		cmocka_unit_test(disallowed_pus),
		cmocka_unit_test(scatter_matches_distrib),
		cmocka_unit_test(percore_restricted),
		cmocka_unit_test(long_policy_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
