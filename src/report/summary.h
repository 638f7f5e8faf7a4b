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

/* DS's cutoffs between backends (cutoffs_compute over every cell: family
 * workload, algorithm, host, unit and size unit; config policy and
 * threads; backends ranked in byte order), and where each came from: a
 * cutoff's tag_a and tag_b index REF. */
struct backend_cutoffs {
	struct cutoff *cut;
	size_t n;
	struct cutoff_ref *ref;
};
/* 0, or -1 when memory runs out; free with backend_cutoffs_free either way. */
int backend_cutoffs_find(const struct dataset *ds, struct backend_cutoffs *bc);
void backend_cutoffs_free(struct backend_cutoffs *bc);

/* FLAGS (FLAG_*) as a json list of their words. */
void json_flags(struct json *j, unsigned flags);

#endif
