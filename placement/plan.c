/* From a policy and a worker count to a plan: worker i runs on pu[i]. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement_private.h"

/* The policy's own order of PUs before any wrapping (its "base"). */
struct base {
	int *pu;
	unsigned n;
};

/* compact: usable PUs in hwloc logical order, every strand of a core before
 * the next core. */
static int base_compact(pl_topology_t topo, struct base *b)
{
	hwloc_obj_t pu = NULL;

	while ((pu = hwloc_get_next_obj_by_type(topo->topo, HWLOC_OBJ_PU, pu)))
		if (hwloc_bitmap_isset(topo->usable, pu->os_index))
			b->pu[b->n++] = (int)pu->os_index;
	return 0;
}

/* cK: the first K usable strands of each core, cores in logical order.  A
 * core with fewer than K usable strands is left out, so that every worker
 * really shares its core with K-1 others.  One walk over the PUs in logical
 * order (a core's PUs are consecutive in it): no per-core search. */
static int base_percore(pl_topology_t topo, unsigned k, struct base *b)
{
	unsigned max = pl_topology_get_max_strands(topo), taken = 0, start = 0;
	hwloc_obj_t pu = NULL, core, cur = NULL;

	if (k > max) {
		pl_set_error(topo, EINVAL,
			     "per-core: %u strands per core is more than a core has here, allowed 1..%u",
			     k, max);
		return -1;
	}
	/* A topology without a core level: every PU is its own core. */
	if (hwloc_get_nbobjs_by_type(topo->topo, HWLOC_OBJ_CORE) <= 0 && k == 1)
		return base_compact(topo, b);
	while ((pu = hwloc_get_next_obj_by_type(topo->topo, HWLOC_OBJ_PU, pu))) {
		core = hwloc_get_ancestor_obj_by_type(topo->topo, HWLOC_OBJ_CORE, pu);
		if (!core)
			continue;
		if (core != cur) {
			if (taken < k)
				b->n = start;  /* the previous core had too few */
			cur = core;
			taken = 0;
			start = b->n;
		}
		if (taken < k && hwloc_bitmap_isset(topo->usable, pu->os_index)) {
			b->pu[b->n++] = (int)pu->os_index;
			taken++;
		}
	}
	if (taken < k)
		b->n = start;
	if (b->n == 0) {
		pl_set_error(topo, EINVAL,
			     "per-core: no core has %u usable strands, allowed 1..%u here", k,
			     max);
		return -1;
	}
	return 0;
}

/* hwloc_distrib() over the usable PUs, without copying the topology: the
 * same recursion and rounding, weights counted in the usable set, and only
 * the first PU of each set kept (hwloc-distrib --single). */
struct distrib {
	pl_topology_t topo;
	hwloc_bitmap_t tmp;
};

static unsigned usable_weight(struct distrib *d, hwloc_obj_t obj)
{
	int w;

	hwloc_bitmap_and(d->tmp, obj->cpuset, d->topo->usable);
	w = hwloc_bitmap_weight(d->tmp);
	return w > 0 ? (unsigned)w : 0;
}

static int usable_first(struct distrib *d, hwloc_obj_t obj)
{
	hwloc_bitmap_and(d->tmp, obj->cpuset, d->topo->usable);
	return hwloc_bitmap_first(d->tmp);
}

static void distrib(struct distrib *d, hwloc_obj_t *roots, unsigned nroots, int *out,
		    unsigned n)
{
	unsigned long tot = 0, given = 0, w, chunk, j;
	unsigned i;
	int first;

	for (i = 0; i < nroots; i++)
		tot += usable_weight(d, roots[i]);
	for (i = 0; i < nroots; i++) {
		w = usable_weight(d, roots[i]);
		if (!w)
			continue;
		chunk = ((given + w) * n + tot - 1) / tot - (given * n + tot - 1) / tot;
		if (!roots[i]->arity || chunk <= 1) {
			first = usable_first(d, roots[i]);
			for (j = 0; j < chunk; j++)
				out[j] = first;
			/* No chunk: hwloc merges this set into the previous one. */
			if (!chunk && first < out[-1])
				out[-1] = first;
		} else {
			distrib(d, roots[i]->children, roots[i]->arity, out, (unsigned)chunk);
		}
		out += chunk;
		given += w;
	}
}

static int base_scatter(pl_topology_t topo, unsigned want, struct base *b)
{
	struct distrib d = { .topo = topo, .tmp = hwloc_bitmap_alloc() };
	hwloc_obj_t root = hwloc_get_root_obj(topo->topo);
	unsigned n = pl_topology_get_nbusable(topo);

	if (!d.tmp) {
		pl_set_error(topo, ENOMEM, "scatter: out of memory");
		return -1;
	}
	if (want < n)
		n = want;
	distrib(&d, &root, 1, b->pu, n);
	b->n = n;
	hwloc_bitmap_free(d.tmp);
	return 0;
}

static int base_list(pl_topology_t topo, const unsigned *list, unsigned n, struct base *b)
{
	unsigned i;

	if (n == 0) {
		pl_set_error(topo, EINVAL, "list: the CPU list is empty");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (pl_check_pu(topo, list[i], "list") < 0)
			return -1;
		b->pu[b->n++] = (int)list[i];
	}
	return 0;
}

/* The OS indices a CPU set with hwloc locations or a likwid-pin
 * expression stands for on TOPO, in a new *OUT; -1 with the message. */
static int resolve_policy(pl_topology_t topo, const struct pl_policy *policy, unsigned **out)
{
	struct pl_ulist l = { 0 };
	int n;

	*out = NULL;
	if (policy->kind == PL_POLICY_LIST)
		return pl_topology_parse_cpus(topo, policy->spec, "list", out);
	if (pl_likwid_resolve(topo, policy->spec, &l) < 0) {
		free(l.v);
		return -1;
	}
	n = (int)l.n;
	*out = l.v;
	return n;
}

static unsigned count_distinct(const int *pu, unsigned n)
{
	hwloc_bitmap_t seen = hwloc_bitmap_alloc();
	unsigned i;
	int w;

	if (!seen)
		return 0;
	for (i = 0; i < n; i++)
		hwloc_bitmap_set(seen, (unsigned)pu[i]);
	w = hwloc_bitmap_weight(seen);
	hwloc_bitmap_free(seen);
	return w > 0 ? (unsigned)w : 0;
}

/* The policy's base for NWORKERS workers in B (allocated here); OpenMP's
 * own placement of T threads on fewer PUs shares them. */
static int make_base(pl_topology_t topo, const struct pl_policy *policy, unsigned nworkers,
		     struct base *b)
{
	unsigned size = pl_topology_get_nbpus(topo), nlist = policy->nlist, *resolved = NULL;
	const unsigned *list = policy->list;
	int n, ret = -1;

	if ((policy->kind == PL_POLICY_LIST && policy->spec) || policy->kind == PL_POLICY_LIKWID) {
		if ((n = resolve_policy(topo, policy, &resolved)) < 0)
			return -1;
		list = resolved;
		nlist = (unsigned)n;
	}
	if (nlist > size)
		size = nlist;
	if (policy->kind == PL_POLICY_OPENMP && nworkers > size)
		size = nworkers;
	b->pu = calloc(size, sizeof(*b->pu));
	if (!b->pu)
		goto out;
	switch (policy->kind) {
	case PL_POLICY_NONE:    ret = 0; break;
	case PL_POLICY_COMPACT: ret = base_compact(topo, b); break;
	case PL_POLICY_PERCORE: ret = base_percore(topo, policy->per_core, b); break;
	case PL_POLICY_SCATTER: ret = base_scatter(topo, nworkers, b); break;
	case PL_POLICY_LIST:
	case PL_POLICY_LIKWID:  ret = base_list(topo, list, nlist, b); break;
	case PL_POLICY_OPENMP:
		ret = pl_openmp_place(topo, policy->bind, policy->places, nworkers, b->pu);
		b->n = count_distinct(b->pu, nworkers);
		break;
	}
out:
	free(resolved);
	return ret;
}

/* Worker i on the base's PU i, round-robin past its end (wrapped), or
 * refused in strict mode. */
static int fill_plan(pl_topology_t topo, const struct pl_policy *policy, unsigned long flags,
		     const struct base *b, struct pl_plan *plan)
{
	unsigned i;
	char *name;

	if (plan->nworkers > b->n) {
		if (flags & PL_PLAN_STRICT) {
			name = pl_policy_strdup(policy);
			pl_set_error(topo, ERANGE,
				     "threads: %u workers but policy %s has only %u PU%s here; strict mode refuses to share, allowed 1..%u",
				     plan->nworkers, name ? name : "?", b->n, b->n == 1 ? "" : "s", b->n);
			free(name);
			return -1;
		}
		plan->wrapped = true;
	}
	for (i = 0; i < plan->nworkers; i++)
		plan->pu[i] = policy->kind == PL_POLICY_OPENMP ? b->pu[i] : b->pu[i % b->n];
	plan->distinct = count_distinct(plan->pu, plan->nworkers);
	return 0;
}

int pl_plan_compute(pl_topology_t topo, const struct pl_policy *policy,
		    unsigned nworkers, unsigned long flags, struct pl_plan **planp)
{
	struct pl_plan *plan = NULL;
	struct base b = { 0 };
	unsigned i;
	int ret = -1;

	topo->err[0] = '\0';
	if (nworkers < 1 || nworkers > PL_MAX_WORKERS) {
		pl_set_error(topo, ERANGE, "threads: %u is out of range, allowed 1..%u",
			     nworkers, PL_MAX_WORKERS);
		return -1;
	}
	if (make_base(topo, policy, nworkers, &b) < 0)
		goto out;
	plan = calloc(1, sizeof(*plan));
	if (!plan || !(plan->pu = calloc(nworkers, sizeof(*plan->pu))))
		goto out;
	plan->nworkers = nworkers;
	plan->bound = policy->kind != PL_POLICY_NONE;
	if (!plan->bound)
		for (i = 0; i < nworkers; i++)
			plan->pu[i] = -1;
	else if (fill_plan(topo, policy, flags, &b, plan) < 0)
		goto out;
	*planp = plan;
	plan = NULL;
	ret = 0;
out:
	if (ret < 0 && !topo->err[0])
		pl_set_error(topo, errno ? errno : ENOMEM, "plan: out of memory");
	free(b.pu);
	pl_plan_destroy(plan);
	return ret;
}

void pl_plan_destroy(struct pl_plan *plan)
{
	if (!plan)
		return;
	free(plan->pu);
	free(plan);
}

static int format_entries(const struct pl_plan *plan, const char *pre, const char *post,
			  const char *sep, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i;
	int n;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < plan->nworkers; i++) {
		n = snprintf(buf + used, len - used, "%s%s%d%s", i ? sep : "", pre,
			     plan->pu[i], post);
		if (n < 0 || (size_t)n >= len - used) {
			errno = ENOSPC;
			return -1;
		}
		used += (size_t)n;
	}
	return 0;
}

int pl_plan_format(const struct pl_plan *plan, const char *sep, char *buf, size_t len)
{
	return format_entries(plan, "", "", sep, buf, len);
}

int pl_plan_format_places(const struct pl_plan *plan, char *buf, size_t len)
{
	return format_entries(plan, "{", "}", ",", buf, len);
}
