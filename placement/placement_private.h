/* Internals shared by the placement library's files; not installed. */
#ifndef PLACEMENT_PRIVATE_H
#define PLACEMENT_PRIVATE_H

#include "placement.h"

struct pl_topology {
	hwloc_topology_t topo;
	char *source;           /* NULL: this machine; else synthetic or XML */
	bool loaded;
	bool thissystem;
	hwloc_bitmap_t usable;  /* OS indices of the PUs plans may use */
	hwloc_obj_t *by_os;     /* every PU, sorted by OS index, for lookups */
	unsigned npus;
	char *note;             /* what load ignored, or NULL */
	char err[512];
};

/* Record a message for pl_topology_get_error() and set errno to ERR. */
void pl_set_error(pl_topology_t topo, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The PU of OS index OS_INDEX, or NULL: a binary search, not hwloc's scan. */
hwloc_obj_t pl_pu_by_os(pl_topology_t topo, unsigned os_index);

/* 0 when OS_INDEX exists and is usable, else -1 with a message naming WHAT. */
int pl_check_pu(pl_topology_t topo, unsigned os_index, const char *what);

#endif
