/* Planning cost per policy on a large synthetic machine, as ratios to the
 * cost of loading its topology (a peer measured in the same run). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "placement.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const char *const policies[] = { "compact", "scatter", "c1", "c8", "none",
						"list:0-4095", "list:0-15" /* wraps: oversubscribed */ };
	static const unsigned counts[] = { 1, 16, 4096 };
	const char *spec = argc > 1 ? argv[1] : "package:8 core:128 pu:8";
	int reps = argc > 2 ? atoi(argv[2]) : 3, r, ret = 1;
	pl_topology_t topo = NULL;
	struct pl_policy policy;
	struct pl_plan *plan;
	double t0, load, best, t;
	char err[256];
	size_t i, j;

	t0 = now_s();
	if (pl_topology_init(&topo) < 0 || pl_topology_set_source(topo, spec) < 0 ||
	    pl_topology_load(topo) < 0) {
		fprintf(stderr, "bench-plan: %s\n", topo ? pl_topology_get_error(topo) : "out of memory");
		goto out;
	}
	load = now_s() - t0;
	printf("topology '%s': %u PUs, loaded in %.3f s\n", spec, pl_topology_get_nbpus(topo), load);
	printf("%-12s %6s %12s %14s\n", "policy", "N", "plan_s", "plan/load");
	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		if (pl_policy_parse(policies[i], &policy, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench-plan: %s\n", err);
			goto out;
		}
		for (j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
			best = -1;
			for (r = 0; r < reps; r++) {
				t0 = now_s();
				if (pl_plan_compute(topo, &policy, counts[j], 0, &plan) < 0) {
					fprintf(stderr, "bench-plan: %s\n", pl_topology_get_error(topo));
					pl_policy_clear(&policy);
					goto out;
				}
				t = now_s() - t0;
				pl_plan_destroy(plan);
				if (best < 0 || t < best)
					best = t;
			}
			printf("%-12s %6u %12.6f %14.6f\n", policies[i], counts[j], best, best / load);
		}
		pl_policy_clear(&policy);
	}
	ret = 0;
out:
	pl_topology_destroy(topo);
	return ret;
}
