/*
 * Fuzz target: hwloc XML topologies (small files) through the placement
 * library, and plans on whatever loads.  tests/fuzz/run runs it twice:
 * with hwloc's libxml2 parser where the plugin is installed, and with its
 * own minimal parser (HWLOC_LIBXML=0).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const policies[] = { "compact", "scatter", "c2", "list:1,0", "none" };
	char path[] = "/tmp/fuzz_xml_XXXXXX.xml", err[256], desc[512];
	pl_topology_t topo = NULL;
	struct pl_policy policy;
	struct pl_plan *plan;
	size_t i;
	int fd;

	if (size > 16384)
		return 0;
	fd = mkstemps(path, 4);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size)
		goto out;
	if (pl_topology_init(&topo) < 0 || pl_topology_set_source(topo, path) < 0 ||
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
	close(fd);
	unlink(path);
	return 0;
}
