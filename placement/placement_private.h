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
	char err[512];
};

/* Record a message for pl_topology_get_error() and set errno to ERR. */
void pl_set_error(pl_topology_t topo, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* 0 when OS_INDEX exists and is usable, else -1 with a message naming WHAT. */
int pl_check_pu(pl_topology_t topo, unsigned os_index, const char *what);

#endif
