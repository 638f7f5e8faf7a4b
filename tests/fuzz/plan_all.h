/* Shared by the topology fuzz targets: load SOURCE (synthetic or XML) and
 * plan every kind of policy on it for a few worker counts. */
#ifndef PLAN_ALL_H
#define PLAN_ALL_H

#include "placement.h"

static inline void plan_all(const char *source)
{
	static const char *const policies[] = { "compact", "scatter", "c1", "c2", "list:1,0,3", "none",
						"core:0-1", "list:pu:1,package:0.core:1", "numa:0",
						"spread:cores", "close", "primary:sockets", "S0:0-1",
						"E:N:4:1:2", "S:scatter", "M:scatter", "N" };
	pl_topology_t topo = NULL;
	struct pl_policy policy;
	struct pl_plan *plan;
	char err[256], desc[512];
	size_t i;

	if (pl_topology_init(&topo) < 0 || pl_topology_set_source(topo, source) < 0 ||
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
}

#endif
