/*
 * Cluster measurements: the rows of one job's ranks at one measurement
 * (results_same_cluster), their cluster rate — all ranks' work over the
 * longest rank's wall time (HPL's and IMB's rule), shown only where the
 * ranks' measurement windows overlapped — and the cells a report prints:
 * ranks x policy x threads with the repeats' median, the speedup against
 * 1 rank, and per host the per-rank rates.  The sum of per-rank rates is
 * never a throughput here: ranks that did not run together add up to a
 * rate no cluster reached.
 */
#ifndef CLUSTER_H
#define CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dataset.h"
#include "output.h"

/* The least overlap at which a cluster rate is shown. */
#define CLUSTER_MIN_OVERLAP 0.9

/* (min end - max start) / (max end - min start) of N windows: 1 when they
 * coincide, 0 or less when one ended before another started; NAN when N
 * is 0, a bound is unknown (NAN) or a window ends before it starts. */
double cluster_overlap(const double *start, const double *end, size_t n);

/* The work of a row, what its rate divides by wall_s (results/README.md,
 * the row contract): bytes for bytes/s, ops for ops/s and runs/s, ops / 1e6
 * for MFLOPS; NAN for another unit (a --metric row's) or a missing column. */
double cluster_work(const struct obs *o);

/* One cluster measurement. */
struct cmeas {
	size_t first, n;        /* its rows: ds->obs[cl->rows[first .. first + n)], by rank */
	long ranks;             /* what its first row says (-1: not said) */
	size_t present;         /* distinct ranks 0..ranks-1 among its rows */
	bool complete;          /* every rank once, no row out of place */
	double work, wall;      /* all ranks' work, the longest wall_s */
	double overlap;         /* cluster_overlap of its windows; NAN without them */
	double rate;            /* work / wall; NAN (n/a) and REASON says why */
	char reason[128];
	size_t unsynced;        /* rows with start_sync no */
};

/* The per-rank rates of one host at one cell. */
struct chost {
	const char *host;
	size_t n;
	double min, median, max;
};

/* Ranks x policy x threads of one series: its measurements (all repeats,
 * all jobs) cl->m[mfirst .. mfirst + mn). */
struct ccell {
	size_t series;
	const char *policy;
	unsigned threads;
	long ranks;
	size_t mfirst, mn;
	size_t n, na;           /* measurements with a rate, without */
	double median, min, max;        /* of those with a rate; NAN when none */
	double speedup, efficiency;     /* against the same policy and threads on 1 rank; NAN without */
	double overlap_min;     /* the least overlap of its measurements; NAN when none said */
	const char *reason;     /* the first n/a measurement's reason; NULL when none */
	struct chost *hosts;    /* by host name (into cl->hosts) */
	size_t nhosts;
	size_t slowest;         /* the host of the lowest median; nhosts with fewer than 2 hosts */
	size_t unsynced;        /* rows with start_sync no */
};

struct cseries {
	const struct obs *key;  /* names and units */
	size_t first, n;        /* its cells, by policy (first seen), threads, ranks */
	size_t incomplete, unsynced;
	size_t apart;           /* measurements whose ranks overlapped under CLUSTER_MIN_OVERLAP */
	double least_overlap;   /* the least of theirs */
	bool no_one_rank;       /* a cell without its 1-rank cell: no speedup */
	size_t big;             /* the cell of the per-host table: most ranks, then threads */
};

struct cluster {
	const struct dataset *ds;
	size_t *rows;           /* obs indices, grouped by measurement */
	size_t nrows;
	struct cmeas *m;
	size_t nm;
	struct ccell *cells;
	size_t ncells;
	struct cseries *series;
	size_t nseries;
	struct chost *hosts;
	size_t nhosts;
	bool multi_config;
};

/*
 * The cluster measurements of DS (built: superseded rows left out) into
 * CL.  A measurement with a rank twice, a rank out of 0..ranks-1, a row
 * without a rank or rows that disagree on ranks is named in one line on
 * ERRF and counts as incomplete.  -1 when memory runs out (free CL with
 * cluster_free either way).
 */
int cluster_build(const struct dataset *ds, struct cluster *cl, FILE *errf);
void cluster_free(struct cluster *cl);

/* The cluster section in FMT: text and markdown for people; csv and tsv
 * one row per cell (HOSTS: one per cell and host instead), columns named;
 * json the series one after another (the caller writes the brackets). */
void cluster_emit(FILE *out, const struct cluster *cl, enum format fmt, bool raw, bool hosts);

#endif
