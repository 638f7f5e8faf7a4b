/*
 * placement: turn a machine's topology and a placement policy into a plan.
 *
 * A plan is an ordered list of OS PU indices, one per worker: worker i runs
 * on plan->pu[i].  The API has hwloc's shape: opaque handles with
 * init/load/destroy, noun_verb names, and functions that return 0 on success
 * and -1 with errno set on failure.  Where a failure needs more than errno to
 * be understood (which value was bad, what is accepted) the message is kept
 * in the handle or in a caller's buffer; the library itself never prints.
 */
#ifndef PLACEMENT_H
#define PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sched.h>

#include <hwloc.h>

/* The most workers a plan may hold. */
#define PL_MAX_WORKERS 4096u

typedef struct pl_topology *pl_topology_t;

/*
 * Allocate a topology handle.  Until pl_topology_set_source() is called,
 * pl_topology_load() reads the machine the process runs on.
 */
int pl_topology_init(pl_topology_t *topop);

/*
 * Read the topology from SPEC instead of this machine: the path of an hwloc
 * XML export, or an hwloc synthetic description such as
 * "numa:1 package:1 core:8 pu:8".  Must be called before pl_topology_load().
 */
int pl_topology_set_source(pl_topology_t topo, const char *spec);

/*
 * Load the topology: the whole machine, PUs its cpuset forbids included, so
 * that a cgroup and a taskset describe it alike.  The usable PUs are those
 * the cpuset allows (for an XML export, its allowed set; for a synthetic
 * topology, all) and, on this machine, the process's affinity.  HWLOC_
 * variables that would load another machine (HWLOC_SYNTHETIC, HWLOC_XMLFILE,
 * HWLOC_FSROOT, HWLOC_THISSYSTEM, HWLOC_COMPONENTS...) are removed from the
 * environment first and named by pl_topology_get_ignored_env(); call this
 * before starting threads.  On failure the reason is in
 * pl_topology_get_error().
 */
int pl_topology_load(pl_topology_t topo);

/* Keep the data and unified caches when loading (before
 * pl_topology_load()).  Off by default: plans need none, and leaving them
 * out keeps a launch light and the description short. */
int pl_topology_set_caches(pl_topology_t topo, bool keep);

/* Keep this machine's topology in the file PATH (hwloc XML under a key
 * line) and load it from there, instead of discovering it, while the file
 * still describes this machine: same boot, same online CPUs, same hwloc.
 * What the cgroup allows is read from the system each time.  A file that is
 * not the user's, is damaged or is stale is ignored and replaced; one that
 * cannot be written is not an error.  Not used with a source or caches.
 * NULL (the default): discover every time.  Before pl_topology_load(). */
int pl_topology_set_cache_file(pl_topology_t topo, const char *path);

/* The cache file pl_topology_load() read the machine from, or NULL when it
 * discovered it (or read a source). */
const char *pl_topology_get_cache_used(pl_topology_t topo);

/* The size in bytes of the level-LEVEL data or unified cache that PU (an
 * OS index) sits under, in a topology loaded with its caches; 0 when no
 * such cache is known. */
unsigned long long pl_topology_get_cache_size(pl_topology_t topo, unsigned pu, unsigned level);

/* The HWLOC_ variables load ignored, as "HWLOC_SYNTHETIC, HWLOC_XMLFILE",
 * or NULL when there were none. */
const char *pl_topology_get_ignored_env(pl_topology_t topo);

/*
 * Narrow the usable PUs to those of CPUS, a CPU set as
 * pl_topology_parse_cpus() reads it ("0,8,16-23", "core:0-3", "pu:1").  A PU
 * named by OS index that does not exist, or is not allowed here, is an error
 * (EINVAL), and so is a location with no usable PU.
 */
int pl_topology_restrict(pl_topology_t topo, const char *cpus);

/*
 * Read a CPU set: comma-separated elements, each an OS index or range of OS
 * indices ("8", "16-23", "7-4" descending) or an hwloc location as
 * hwloc-calc reads it: TYPE:INDEX[.TYPE:INDEX...] with logical indices, each
 * level counted inside the objects of the one before ("core:0-3", "pu:0",
 * "package:1.core:0-1", "numa:0"); INDEX is N, N-M, N- (to the last), N:C (C
 * objects from N), all, odd or even.  A location stands for the usable PUs
 * of its objects, objects in index order and each one's PUs in logical
 * order; elements keep the order written.  Store the OS indices in a new
 * *OUT (the caller frees it) and return how many, or -1 with the message in
 * pl_topology_get_error().  WHAT names the set in messages ("list",
 * "allowed").
 */
int pl_topology_parse_cpus(pl_topology_t topo, const char *text, const char *what,
			   unsigned **out);

/*
 * Check the syntax of a CPU set as pl_topology_parse_cpus() reads it,
 * without a topology: 0, or -1 (EINVAL) with a message naming the bad value
 * and what is accepted in ERR.
 */
int pl_cpus_check(const char *text, char *err, size_t errlen);

/* Free the handle and everything it holds.  NULL is accepted. */
void pl_topology_destroy(pl_topology_t topo);

/* The message that explains the last failure on TOPO ("" when none). */
const char *pl_topology_get_error(pl_topology_t topo);

/* The underlying hwloc topology, valid after a successful load. */
hwloc_topology_t pl_topology_get_hwloc(pl_topology_t topo);

/* True when the topology describes the machine this process runs on. */
bool pl_topology_is_thissystem(pl_topology_t topo);

/* Counts over the whole machine (disallowed PUs included) and over the
 * usable PUs. */
unsigned pl_topology_get_nbpus(pl_topology_t topo);
unsigned pl_topology_get_nbcores(pl_topology_t topo);
unsigned pl_topology_get_nbusable(pl_topology_t topo);
/* The most PUs (strands) any one core has. */
unsigned pl_topology_get_max_strands(pl_topology_t topo);

/*
 * Write a short description of the topology to BUF, hwloc's synthetic form
 * ("Package:1 Core:2 PU:1") where it exists, else counts.
 */
int pl_topology_describe(pl_topology_t topo, char *buf, size_t len);

/* Where one PU sits: logical indices of its core, package and NUMA node. */
struct pl_pu_info {
	unsigned os_index;
	int core;      /* -1 when the topology has no core level */
	int strand;    /* position of the PU inside its core */
	int package;   /* -1 when the topology has no package level */
	int numa;      /* -1 when the topology has no NUMA node */
	bool usable;
};

/* Fill INFO for the PU of OS index OS_INDEX; ENOENT when it does not exist. */
int pl_topology_get_pu_info(pl_topology_t topo, unsigned os_index,
			    struct pl_pu_info *info);

enum pl_policy_kind {
	PL_POLICY_COMPACT,
	PL_POLICY_SCATTER,
	PL_POLICY_PERCORE,
	PL_POLICY_LIST,
	PL_POLICY_NONE,
	PL_POLICY_OPENMP,   /* OMP_PROC_BIND over OMP_PLACES, as libgomp places threads */
	PL_POLICY_LIKWID,   /* a likwid-pin CPU expression */
};

/* OpenMP's binding (OMP_PROC_BIND) and places (OMP_PLACES) words. */
enum pl_omp_bind { PL_OMP_CLOSE, PL_OMP_SPREAD, PL_OMP_PRIMARY };
enum pl_omp_places { PL_OMP_THREADS, PL_OMP_CORES, PL_OMP_SOCKETS };

struct pl_policy {
	enum pl_policy_kind kind;
	unsigned per_core;  /* PL_POLICY_PERCORE: strands per core */
	unsigned *list;     /* PL_POLICY_LIST: OS indices in the order given */
	unsigned nlist;
	char *spec;         /* PL_POLICY_LIST with hwloc locations, PL_POLICY_LIKWID:
	                     * the text, resolved on the topology a plan is for */
	enum pl_omp_bind bind;      /* PL_POLICY_OPENMP */
	enum pl_omp_places places;  /* PL_POLICY_OPENMP */
};

/*
 * Parse a policy name: compact, scatter, none, cK (K strands per core),
 * list:CPUS (a CPU set, pl_topology_parse_cpus()) or a CPU set that starts
 * with an hwloc location (core:0-3); OpenMP's BIND[:PLACES] (close, spread,
 * primary or master; threads, cores or sockets); likwid-pin's expressions
 * (N:0-3, S0:0-3, M0:0-1, L:S0:0-3, E:N:8:1:2, S:scatter, N, S1, joined by
 * @).  Only the syntax is checked: what a CPU set or an expression names is
 * resolved by pl_plan_compute().  On failure write a message naming the
 * value and what is accepted to ERR and return -1 (EINVAL).  Release with
 * pl_policy_clear().
 */
int pl_policy_parse(const char *text, struct pl_policy *policy,
		    char *err, size_t errlen);

/* True when TEXT starts a policy whose value is a comma list (a
 * CPU set, a likwid-pin domain list), so that it runs to the end of a
 * comma-separated list of policies. */
bool pl_policy_takes_list(const char *text);

/*
 * The other tools' spellings a policy or a CPU set accepts, for help
 * tables: TOOL ("likwid-pin"), THEIRS (how it is written there, "-c
 * S0:0-3"), OURS (the policy here, "same" when it is THEIRS) and MEANING.
 * Returns the table and its length in *N.
 */
struct pl_spelling {
	const char *tool;
	const char *theirs;
	const char *ours;
	const char *meaning;
};
const struct pl_spelling *pl_policy_spellings(size_t *n);

/* Write the canonical name of POLICY ("c2", "list:0,8,16") to BUF; ENOSPC
 * when LEN is too small. */
int pl_policy_name(const struct pl_policy *policy, char *buf, size_t len);

/* The canonical name of POLICY in a new string (any list length), or NULL
 * (ENOMEM).  The caller frees it. */
char *pl_policy_strdup(const struct pl_policy *policy);

/* A space-separated list of the accepted policy forms, for messages. */
const char *pl_policy_choices(void);

void pl_policy_clear(struct pl_policy *policy);

/*
 * Parse a CPU list of OS indices ("0,8,16-23"), keeping the order written.
 * Ranges may be descending ("7-4" is 7,6,5,4).  Returns the count, or -1
 * with a message in ERR.  The caller frees *OUT.
 */
int pl_cpulist_parse(const char *text, unsigned **out, char *err,
		     size_t errlen);

/* Refuse rather than wrap when workers outnumber the usable PUs. */
#define PL_PLAN_STRICT 1ul

struct pl_plan {
	unsigned nworkers;
	int *pu;            /* OS index per worker, -1 for "not bound" */
	unsigned distinct;  /* how many different PUs the plan uses */
	bool wrapped;       /* more workers than PUs: some PUs run several */
	bool bound;         /* false for the "none" policy */
};

/*
 * Compute the plan for NWORKERS workers under POLICY on the usable PUs of
 * TOPO.  With more workers than the policy has PUs, workers wrap round-robin
 * (plan->wrapped is set so the caller can warn), unless FLAGS holds
 * PL_PLAN_STRICT, which refuses with ERANGE.  The message of a failure is in
 * pl_topology_get_error().  Release with pl_plan_destroy().
 */
int pl_plan_compute(pl_topology_t topo, const struct pl_policy *policy,
		    unsigned nworkers, unsigned long flags,
		    struct pl_plan **planp);

void pl_plan_destroy(struct pl_plan *plan);

/*
 * Format the plan as an OS index list in worker order, joined by SEP
 * (",": "3,5,7"), or as OpenMP places ("{3},{5},{7}") with
 * pl_plan_format_places().  Return 0, or -1 (ENOSPC) when LEN is too small.
 */
int pl_plan_format(const struct pl_plan *plan, const char *sep, char *buf,
		   size_t len);
int pl_plan_format_places(const struct pl_plan *plan, char *buf, size_t len);

/* Bind the calling thread to PU (an OS index). */
int pl_thread_bind(unsigned pu);

/* The PUs of a bound PLAN as a CPU mask of *SIZE bytes, to restrict a
 * process to them with sched_setaffinity() where nothing may be allocated
 * (a vfork child); CPU_FREE() it.  NULL when PLAN is unbound (EINVAL) or
 * out of memory. */
cpu_set_t *pl_plan_cpuset(const struct pl_plan *plan, size_t *size);

/* The OS index of the PU the calling thread runs on now, or -1. */
int pl_thread_get_cpu(void);

#endif
