/*
 * threadrun -n: the plan printed for people (text) or for programs (csv,
 * tsv, json), the machine forms read by column or key name.
 * docs/machine-output.md documents the fields.
 */
#ifndef PLANPRINT_H
#define PLANPRINT_H

#include <stdio.h>

#include "launcher.h"
#include "placement.h"

enum plan_format { PLAN_TEXT, PLAN_CSV, PLAN_TSV, PLAN_JSON };

/* The format named NAME; -1 when there is none (the choices are
 * PLAN_FORMAT_CHOICES). */
int plan_format_parse(const char *name);
#define PLAN_FORMAT_CHOICES "text csv tsv json"

/* What a plan says about the process it is for: which rank of which job
 * (ID, launcher NULL when none) and the PUs it was given (CPUSET, a list;
 * NULL when unknown). */
struct plan_who {
	const struct launcher_id *id;
	const char *cpuset;
};

/* Print PLAN of POLICY on TOPO to OUT in FMT, with the NWARN WARNINGS
 * threadrun also printed on stderr, for WHO. */
void plan_print(FILE *out, enum plan_format fmt, pl_topology_t topo, const struct pl_plan *plan,
		const char *policy, const char *const *warnings, unsigned nwarn,
		const struct plan_who *who);

#endif
