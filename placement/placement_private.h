/* Internals shared by the placement library's files; not installed. */
#ifndef PLACEMENT_PRIVATE_H
#define PLACEMENT_PRIVATE_H

#include "placement.h"

/* Most entries one CPU list or CPU set may expand to. */
#define PL_MAX_LIST 65536u
/* Most levels of one hwloc location (machine.package.numa.die.core.pu...). */
#define PL_MAX_LEVELS 8u

struct pl_topology {
	hwloc_topology_t topo;
	char *source;           /* NULL: this machine; else synthetic or XML */
	char *xml;              /* an XML source's text, as hwloc reads it */
	size_t xml_len;
	bool loaded;
	bool thissystem;
	bool caches;            /* pl_topology_set_caches(): the data caches kept */
	char *cache_file;       /* pl_topology_set_cache_file(), or NULL */
	bool from_cache;        /* loaded from cache_file */
	hwloc_bitmap_t usable;  /* OS indices of the PUs plans may use */
	hwloc_obj_t *by_os;     /* every PU, sorted by OS index, for lookups */
	unsigned npus;
	char *note;             /* what load ignored, or NULL */
	char err[512];
};

/* Load T (initialised, nothing set) from the cache file PATH when its key
 * matches this machine and its PUs are the online CPUs: 0; else -1, and T
 * must be destroyed. */
int pl_topocache_load(hwloc_topology_t t, const char *path);

/* Write T, this machine's loaded topology, to PATH for the next load:
 * whole or not at all; -1 when it could not (nothing to report). */
int pl_topocache_store(hwloc_topology_t t, const char *path);

/* A growing list of OS indices. */
struct pl_ulist {
	unsigned *v;
	size_t n, cap;
};

/* Append V; -1 with errno (E2BIG past PL_MAX_LIST entries, ENOMEM). */
int pl_ulist_add(struct pl_ulist *l, unsigned v);

/* Parse an unsigned decimal at *P (digits only: no sign or space, as every
 * number of the project), advancing it past the digits; -1 when there is
 * none, -2 when it is above MAX, however long. */
long pl_parse_index(const char **p, unsigned long max);

/* Check the syntax of a likwid-pin expression: 0, or -1 with a message. */
int pl_likwid_check(const char *text, char *err, size_t errlen);

/* True when TEXT is written as a likwid-pin expression (it may still be a
 * bad one): E:..., L:..., N, N:..., S0, S0:..., M0:..., S:scatter... */
bool pl_likwid_looks(const char *text);

/* The OS indices of the likwid-pin expression TEXT on TOPO's usable PUs,
 * appended to OUT; -1 with the message in TOPO. */
int pl_likwid_resolve(pl_topology_t topo, const char *text, struct pl_ulist *out);

/* Place NWORKERS workers as libgomp places OpenMP threads with BIND over
 * PLACES made of TOPO's usable PUs: OUT[i] is worker i's OS index.  -1
 * with the message in TOPO. */
int pl_openmp_place(pl_topology_t topo, enum pl_omp_bind bind, enum pl_omp_places places,
		    unsigned nworkers, int *out);

/* Record a message for pl_topology_get_error() and set errno to ERR. */
void pl_set_error(pl_topology_t topo, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The PU of OS index OS_INDEX, or NULL: a binary search, not hwloc's scan. */
hwloc_obj_t pl_pu_by_os(pl_topology_t topo, unsigned os_index);

/* Append the usable PUs inside SET to OUT in logical order (hwloc's, as
 * hwloc_get_next_obj_inside_cpuset_by_type gives them); -1 with errno
 * (E2BIG past PL_MAX_LIST, ENOMEM). */
int pl_usable_pus_inside(pl_topology_t topo, hwloc_const_cpuset_t set, struct pl_ulist *out);

/* 0 when OS_INDEX exists and is usable, else -1 with a message naming WHAT. */
int pl_check_pu(pl_topology_t topo, unsigned os_index, const char *what);

#endif
