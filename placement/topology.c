/* Loading a topology (this machine, synthetic or XML) and asking where PUs sit. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "placement_private.h"

void pl_set_error(pl_topology_t topo, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(topo->err, sizeof(topo->err), fmt, ap);
	va_end(ap);
	errno = err;
}

int pl_topology_init(pl_topology_t *topop)
{
	pl_topology_t topo = calloc(1, sizeof(*topo));

	if (!topo)
		return -1;
	topo->usable = hwloc_bitmap_alloc();
	if (!topo->usable) {
		free(topo);
		return -1;
	}
	*topop = topo;
	return 0;
}

int pl_topology_set_source(pl_topology_t topo, const char *spec)
{
	char *copy = strdup(spec);

	if (!copy)
		return -1;
	free(topo->source);
	topo->source = copy;
	return 0;
}

static bool looks_like_xml(const char *spec)
{
	struct stat st;
	size_t n = strlen(spec);

	return stat(spec, &st) == 0 || strchr(spec, '/') ||
	       (n > 4 && strcmp(spec + n - 4, ".xml") == 0);
}

/* Point hwloc at the requested source; fills the error on failure. */
static int select_source(pl_topology_t topo)
{
	FILE *f;

	if (!topo->source)
		return 0;
	if (!looks_like_xml(topo->source)) {
		if (hwloc_topology_set_synthetic(topo->topo, topo->source) == 0)
			return 0;
		pl_set_error(topo, EINVAL,
			     "topology: '%.60s%s' is not a valid hwloc synthetic description "
			     "(e.g. 'numa:1 package:1 core:8 pu:8') nor an XML file",
			     topo->source, strlen(topo->source) > 60 ? "..." : "");
		return -1;
	}
	f = fopen(topo->source, "r");
	if (!f) {
		pl_set_error(topo, errno, "topology: cannot read XML file '%s': %s",
			     topo->source, strerror(errno));
		return -1;
	}
	fclose(f);
	if (hwloc_topology_set_xml(topo->topo, topo->source) == 0)
		return 0;
	pl_set_error(topo, EINVAL,
		     "topology: '%s' is not a valid hwloc XML export (make one with 'lstopo FILE.xml')",
		     topo->source);
	return -1;
}

/* Usable PUs of this machine: hwloc already drops what the cgroup forbids;
 * the process's own affinity (a parent's taskset) narrows it further. */
static int compute_usable(pl_topology_t topo)
{
	hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo->topo);
	hwloc_bitmap_t bind = NULL;
	int ret = -1;

	hwloc_bitmap_copy(topo->usable, all);
	if (!topo->thissystem)
		return 0;
	hwloc_bitmap_and(topo->usable, topo->usable,
			 hwloc_topology_get_allowed_cpuset(topo->topo));
	bind = hwloc_bitmap_alloc();
	if (!bind)
		goto out;
	if (hwloc_get_cpubind(topo->topo, bind, HWLOC_CPUBIND_PROCESS) == 0)
		hwloc_bitmap_and(topo->usable, topo->usable, bind);
	if (hwloc_bitmap_iszero(topo->usable)) {
		pl_set_error(topo, ENODEV, "topology: no PU is usable by this process");
		goto out;
	}
	ret = 0;
out:
	hwloc_bitmap_free(bind);
	return ret;
}

int pl_topology_load(pl_topology_t topo)
{
	if (topo->loaded) {
		pl_set_error(topo, EBUSY, "topology: already loaded");
		return -1;
	}
	if (hwloc_topology_init(&topo->topo) < 0) {
		pl_set_error(topo, errno, "topology: hwloc init failed: %s", strerror(errno));
		return -1;
	}
	/* Plans need no caches; leaving them out also keeps descriptions short. */
	hwloc_topology_set_cache_types_filter(topo->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_icache_types_filter(topo->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	if (select_source(topo) < 0)
		return -1;
	if (hwloc_topology_load(topo->topo) < 0) {
		pl_set_error(topo, errno, "topology: hwloc could not load '%s': %s",
			     topo->source ? topo->source : "this machine", strerror(errno));
		return -1;
	}
	topo->thissystem = hwloc_topology_is_thissystem(topo->topo);
	if (compute_usable(topo) < 0)
		return -1;
	topo->loaded = true;
	return 0;
}

int pl_topology_restrict(pl_topology_t topo, const char *cpulist)
{
	unsigned *pus = NULL;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int n, i, ret = -1;

	if (!set)
		return -1;
	n = pl_cpulist_parse(cpulist, &pus, topo->err, sizeof(topo->err));
	if (n < 0) {
		errno = EINVAL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (pl_check_pu(topo, pus[i], "allowed") < 0)
			goto out;
		hwloc_bitmap_set(set, pus[i]);
	}
	hwloc_bitmap_and(topo->usable, topo->usable, set);
	ret = 0;
out:
	free(pus);
	hwloc_bitmap_free(set);
	return ret;
}

void pl_topology_destroy(pl_topology_t topo)
{
	if (!topo)
		return;
	if (topo->topo)
		hwloc_topology_destroy(topo->topo);
	hwloc_bitmap_free(topo->usable);
	free(topo->source);
	free(topo);
}

const char *pl_topology_get_error(pl_topology_t topo)
{
	return topo->err;
}

hwloc_topology_t pl_topology_get_hwloc(pl_topology_t topo)
{
	return topo->topo;
}

bool pl_topology_is_thissystem(pl_topology_t topo)
{
	return topo->thissystem;
}

unsigned pl_topology_get_nbpus(pl_topology_t topo)
{
	return (unsigned)hwloc_get_nbobjs_by_type(topo->topo, HWLOC_OBJ_PU);
}

unsigned pl_topology_get_nbcores(pl_topology_t topo)
{
	int n = hwloc_get_nbobjs_by_type(topo->topo, HWLOC_OBJ_CORE);

	return n > 0 ? (unsigned)n : pl_topology_get_nbpus(topo);
}

unsigned pl_topology_get_nbusable(pl_topology_t topo)
{
	return (unsigned)hwloc_bitmap_weight(topo->usable);
}

unsigned pl_topology_get_max_strands(pl_topology_t topo)
{
	unsigned max = 1;
	hwloc_obj_t core = NULL;

	while ((core = hwloc_get_next_obj_by_type(topo->topo, HWLOC_OBJ_CORE, core))) {
		int w = hwloc_get_nbobjs_inside_cpuset_by_type(topo->topo, core->cpuset,
							       HWLOC_OBJ_PU);
		if (w > 0 && (unsigned)w > max)
			max = (unsigned)w;
	}
	return max;
}

int pl_topology_describe(pl_topology_t topo, char *buf, size_t len)
{
	int n = hwloc_topology_export_synthetic(topo->topo, buf, len,
			HWLOC_TOPOLOGY_EXPORT_SYNTHETIC_FLAG_NO_ATTRS);

	if (n >= 0 && (size_t)n < len)
		return 0;
	/* Asymmetric machines have no synthetic form: give the counts. */
	n = snprintf(buf, len, "%d packages, %u cores, %u PUs",
		     hwloc_get_nbobjs_by_type(topo->topo, HWLOC_OBJ_PACKAGE),
		     pl_topology_get_nbcores(topo), pl_topology_get_nbpus(topo));
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* Logical index of OBJ's ancestor of TYPE, or -1. */
static int ancestor_index(hwloc_topology_t t, hwloc_obj_t obj, hwloc_obj_type_t type)
{
	hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t, type, obj);

	return a ? (int)a->logical_index : -1;
}

int pl_topology_get_pu_info(pl_topology_t topo, unsigned os_index,
			    struct pl_pu_info *info)
{
	hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo->topo, os_index);
	hwloc_obj_t core, numa;
	int first;

	if (!pu) {
		errno = ENOENT;
		return -1;
	}
	info->os_index = os_index;
	info->core = ancestor_index(topo->topo, pu, HWLOC_OBJ_CORE);
	info->package = ancestor_index(topo->topo, pu, HWLOC_OBJ_PACKAGE);
	info->strand = 0;
	core = hwloc_get_ancestor_obj_by_type(topo->topo, HWLOC_OBJ_CORE, pu);
	if (core) {
		first = hwloc_get_obj_inside_cpuset_by_type(topo->topo, core->cpuset,
							    HWLOC_OBJ_PU, 0)->logical_index;
		info->strand = (int)pu->logical_index - first;
	}
	info->numa = -1;
	first = hwloc_bitmap_first(pu->nodeset);
	if (first >= 0) {
		numa = hwloc_get_numanode_obj_by_os_index(topo->topo, (unsigned)first);
		info->numa = numa ? (int)numa->logical_index : -1;
	}
	info->usable = hwloc_bitmap_isset(topo->usable, os_index);
	return 0;
}

int pl_check_pu(pl_topology_t topo, unsigned os_index, const char *what)
{
	char usable[256];

	if (hwloc_get_pu_obj_by_os_index(topo->topo, os_index) &&
	    hwloc_bitmap_isset(topo->usable, os_index))
		return 0;
	hwloc_bitmap_list_snprintf(usable, sizeof(usable), topo->usable);
	if (!hwloc_get_pu_obj_by_os_index(topo->topo, os_index))
		pl_set_error(topo, EINVAL, "%s: PU %u does not exist, usable PUs are %s",
			     what, os_index, usable);
	else
		pl_set_error(topo, EINVAL, "%s: PU %u is not allowed for this process, usable PUs are %s",
			     what, os_index, usable);
	return -1;
}
