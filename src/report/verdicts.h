/*
 * What a series lets the report conclude, from evidence only: per thread
 * count, the policies grouped by plan (the same PUs are one plan, never
 * ranked), the best plan where a two-sided Mann-Whitney U test of its
 * repeats against every other plan's gives p < VERDICT_ALPHA (at least 3
 * repeats a side), the sharing penalty cK / c1 by the same test, and which
 * points are flagged.  Each ratio comes with its 95% interval: paired
 * (the median of the ratios of rows of one file and repeat, the interval
 * from order statistics) where rows pair, else the ratio of medians within
 * the ratios of the ranges' ends.
 */
#ifndef VERDICTS_H
#define VERDICTS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "dataset.h"

/* What makes a point unfit to carry a verdict silently, and (superlinear:
 * above DATASET_SUPERLINEAR, a fact of its 1-thread point more than of its
 * own rates) what only marks it where it is shown. */
enum {
	FLAG_BUSY = 1, FLAG_OVERSUBSCRIBED = 2, FLAG_UNVERIFIED = 4, FLAG_SUPERLINEAR = 8,
	FLAG_LAST = FLAG_SUPERLINEAR
};

/* The flags of a cell that its verdicts carry (FLAG_* but superlinear). */
unsigned cell_flags(const struct cell *c);
/* The marks of a cell where it is shown: its flags and superlinear. */
unsigned cell_marks(const struct cell *c);

/* FLAGS as words joined by SEP into BUF ("" when none). */
void flags_text(unsigned flags, const char *sep, char *buf, size_t len);

/* The word of one FLAG_* bit ("busy", "oversubscribed", "unverified",
 * "superlinear"). */
const char *flag_name(unsigned bit);

/* Why a verdict is what it is: "winner", "fewer than 3 repeats", "ranges overlap". */
const char *verdict_text(enum verdict v);

/* A test of two sides' repeats: the Mann-Whitney p (NAN: not tested), the
 * ratio A / B and its 95% interval (PAIRED: from rows paired by file and
 * repeat; else the ranges' ends), and, where VERDICT_ALPHA <= p < 0.2,
 * about how many repeats a side would settle it (stats_mw_repeats; else 0). */
struct vtest {
	double p, ratio, lo, hi;
	bool paired;
	unsigned settle;
};

/* Why V, in words, into BUF: verdict_text, or for VERDICT_NOT_SIGNIFICANT
 * "Mann-Whitney p 0.31" and the repeats that would settle it. */
void verdict_why(enum verdict v, const struct vtest *t, char *buf, size_t len);

/* T's ratio's interval into BUF: "95% CI 1.88..1.93" (paired) or
 * "ranges 1.81..2.10"; "" where it has none. */
void vtest_interval_text(const struct vtest *t, char *buf, size_t len);

/* The verdict at one thread count: the policies measured there grouped by
 * plan (policies that plan the same PUs are one plan), each plan's
 * repeats pooled, and the best plan if the evidence names one. */
struct tverdict {
	unsigned threads;
	size_t first, end;      /* its cells: order[first..end), by policy */
	size_t ngroups;
	enum verdict v;         /* with 2 plans or more */
	size_t best, worst;     /* plans */
	double ratio;           /* best / worst: test.ratio where tested, else of the medians */
	struct vtest test;      /* best against worst; p the largest against any plan */
	unsigned flags;         /* of every cell compared */
	bool disagree;          /* two policies of one plan apart beyond their spread */
};

/* The sharing penalty cK / c1 at one thread count, with its verdict. */
struct share {
	const struct cell *c1, *ck;
	enum verdict v;
	struct vtest test;      /* ck against c1; ratio ck / c1 of the medians where untested */
};

/* Everything sparse (per cell, not per policy x thread count): a file of
 * many policies and counts costs n log n, not their product. */
struct verdicts {
	const struct series *s;
	size_t nt, nshare;
	struct tverdict *t;     /* thread counts ascending */
	size_t *order;          /* cell indices by threads, then policy */
	size_t *rank;           /* [cell]: its policy's index in s->policies */
	size_t *group;          /* [cell]: its plan at its thread count */
	size_t *tidx;           /* [cell]: its thread count's index in t */
	size_t *same;           /* [policy]: first policy planning the same PUs wherever both ran */
	struct share *share;
};

/* The verdicts of S into V (free with verdicts_free, also after -1: out
 * of memory).  n log n in S's cells. */
int series_verdicts(const struct series *s, struct verdicts *v);
void verdicts_free(struct verdicts *v);

/* The best-policy verdict on cell C (an index into s->cells): "winner",
 * "beaten", "no difference measured", or "" where one plan ran alone. */
const char *cell_verdict(const struct verdicts *v, size_t c);

#endif
