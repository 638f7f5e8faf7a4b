/*
 * Fuzz target: CPU lists, CPU sets (OS indices, hwloc locations) and policy
 * names, hwloc's, OpenMP's and likwid-pin's spellings included
 * (placement/policy.c, cpuset.c, dialects.c): parsed, and what parses is
 * resolved and planned on one synthetic topology with packages, NUMA
 * nodes, cores and strands.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

/* Loaded once: the fuzzer calls in a loop, and planning never changes it. */
static pl_topology_t topology(void)
{
	static pl_topology_t topo;

	if (!topo && (pl_topology_init(&topo) < 0 ||
		      pl_topology_set_source(topo, "numa:2 package:2 core:3 pu:2") < 0 ||
		      pl_topology_load(topo) < 0))
		abort();
	return topo;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), err[512], name[256];
	pl_topology_t topo = topology();
	struct pl_policy policy;
	struct pl_plan *plan;
	unsigned *list = NULL;

	if (!text)
		return 0;
	if (pl_cpulist_parse(text, &list, err, sizeof(err)) >= 0)
		free(list);
	if (pl_cpus_check(text, err, sizeof(err)) == 0 &&
	    pl_topology_parse_cpus(topo, text, "fuzz", &list) >= 0)
		free(list);
	if (pl_policy_parse(text, &policy, err, sizeof(err)) == 0) {
		pl_policy_name(&policy, name, sizeof(name));
		for (unsigned n = 1; n <= 13; n += 6)
			if (pl_plan_compute(topo, &policy, n, 0, &plan) == 0)
				pl_plan_destroy(plan);
		pl_policy_clear(&policy);
	}
	free(text);
	return 0;
}
