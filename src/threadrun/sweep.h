/* threadrun --sweep: one run per (thread count, policy, repeat), each
 * repeat's combinations in a random order seeded by SEED + repeat; with
 * --repeat auto, each repeat runs the points not yet known precisely. */
#ifndef SWEEP_H
#define SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metric.h"
#include "counters.h"
#include "placement.h"

/*
 * Thread counts: "1,2,4,8", ranges "1-8", doubling "1-64x2" (any factor
 * >= 2), mixed with commas; strictly ascending, each 1..4096.  Returns the
 * count (array in *OUT, caller frees) or -1 with a message in ERR.
 */
int sweep_parse_counts(const char *text, unsigned **out, char *err, size_t errlen);

/*
 * Policies: a comma list of policy names (compact,scatter,c1,c2,none); a
 * policy whose value is a comma list itself (list:, a CPU set such as
 * core:0,pu:3, a likwid-pin domain list such as S0:0,2;
 * pl_policy_takes_list()) takes the rest of the text, so it comes last.
 * Returns the count (*OUT, release each with pl_policy_clear and free) or -1.
 */
int sweep_parse_policies(const char *text, struct pl_policy **out, char *err, size_t errlen);

struct sweep_opts {
	const unsigned *counts;
	int ncounts;
	const struct pl_policy *policies;
	int npolicies;
	unsigned repeat;        /* the repeats; with adaptive, the most */
	bool adaptive;          /* --repeat auto: a point stops once PRECISION is reached */
	double precision;       /* --precision: the interval's half-width, % of the median */
	bool shuffle;           /* --order shuffle: each repeat in its own random order */
	bool seed_given;        /* --seed: SEED, else the resumed file's, else a new one */
	uint64_t seed;
	unsigned warmup;        /* --warmup: unrecorded runs before the first recorded one */
	bool resume, strict, quiet, dry_run;
	double monitor;         /* --monitor interval, 0: off */
	const struct counters_spec *counters;   /* --counters, or NULL */
	const char *results;    /* NULL: the default file */
	const char *tag;        /* ".rankN" before .log and .monitor.csv, or NULL */
	long rank;              /* this process's rank, -1 outside a launcher */
	double wait;            /* --wait: seconds to wait for the file's measuring lock */
	struct metric_set *metrics;     /* --metric, or NULL */
	bool pthreads;          /* --pthreads */
	uint64_t skip;          /* --skip */
	char **argv;            /* the program and its arguments */
	const char *config;     /* its config, asked already (execute_ask_own), or NULL */
};

/* Run the sweep under the results file's measuring lock (outfile_hold);
 * returns threadrun's exit status (0 all ran, 1 a run failed or another
 * sweep or run holds the file, 2 usage, 128+N interrupted). */
int sweep_run(pl_topology_t topo, const struct sweep_opts *o);

#endif
