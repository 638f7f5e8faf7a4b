/*
 * threadreport --summary: the study's answer on one screen.  Per workload
 * one table (a row per series, a column per thread count, in each cell the
 * speedup and efficiency of every distinct plan, marked where flagged),
 * then the findings the evidence supports, each naming its evidence.
 */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis.h"
#include "dataset.h"
#include "output.h"
#include "table.h"

/* Efficiency at or above this is linear scaling; below the other, lost. */
#define SUMMARY_LINEAR 0.95
#define SUMMARY_LOW 0.8

/* The summary of DS in FMT on OUT (json: items into J, open at a list);
 * RAW: csv and tsv without the formula guard.  -1 when memory runs out. */
int summary_emit(FILE *out, const struct dataset *ds, enum format fmt, bool raw, struct json *j);

/* Where each cutoff point came from: its tag indexes these. */
struct cutoff_ref {
	const struct series *s;
	const struct cell *c;
};

/* Every cell of DS as a point for cutoffs_compute: family (workload,
 * algorithm, host, unit, size unit), config (policy, threads), backend
 * (rank in byte order).  Tag x is (*REF)[x]; free both. */
int cutoff_points(const struct dataset *ds, struct cutoff_point **pts, size_t *npts, struct cutoff_ref **ref);

/* FLAGS (FLAG_*) as a json list of their words. */
void json_flags(struct json *j, unsigned flags);

#endif
