/*
 * Fuzz target: hwloc synthetic topology strings through the placement
 * library, and plans on whatever loads (placement/topology.c, plan.c).
 * Inputs that would name a file (a '/', ".xml") are left out: they would
 * read the machine's files, not exercise the parser.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const policies[] = { "compact", "scatter", "c1", "c2", "list:0,3,1", "none" };
	char *text, err[256], desc[512];
	pl_topology_t topo = NULL;
	struct pl_policy policy;
	struct pl_plan *plan;
	size_t i;

	if (size > 200)
		return 0;
	text = strndup((const char *)data, size);
	if (!text || strchr(text, '/') || strstr(text, ".xml") || !*text)
		goto out;
	if (pl_topology_init(&topo) < 0 || pl_topology_set_source(topo, text) < 0 ||
	    pl_topology_load(topo) < 0 || pl_topology_get_nbpus(topo) > 4096)
		goto out;
	pl_topology_describe(topo, desc, sizeof(desc));
	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		if (pl_policy_parse(policies[i], &policy, err, sizeof(err)) < 0)
			continue;
		for (unsigned n = 1; n <= 9; n += 4)
			if (pl_plan_compute(topo, &policy, n, 0, &plan) == 0)
				pl_plan_destroy(plan);
		pl_policy_clear(&policy);
	}
out:
	pl_topology_destroy(topo);
	free(text);
	return 0;
}
