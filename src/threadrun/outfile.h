/*
 * The files a run writes, as this process of a cluster job names them: -o's
 * pattern (%h the host, %r the rank, %% a %) expanded once, before anything
 * opens a file, and the tag that keeps the ranks' FILE.log and monitor
 * series apart when they share one results file.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

#define OUTFILE_PATTERNS "%h (host name up to its first dot), %r (rank, 0 outside a launcher), %% (a %)"

struct outfile {
	char *results;  /* -o expanded; NULL: the default file */
	char tag[32];   /* ".rankN" before .log and .monitor.csv when ranks share the files, else "" */
	long rank;      /* this process's rank, -1 outside a launcher */
};

/*
 * Expand PATTERN (NULL: the default file) for this process: the host from
 * gethostname(), the rank from the launcher's environment (launcher.h).
 * 0, 2 (a bad pattern or a host name that cannot be part of a file name)
 * or 1 (out of memory), with a message in ERR.  Free with outfile_clear().
 */
int outfile_setup(struct outfile *of, const char *pattern, char *err, size_t errlen);
void outfile_clear(struct outfile *of);

/*
 * The expansion alone: PATTERN with HOST and RANK in place of %h and %r
 * (HOST is read only when the pattern names it: NULL is fine otherwise).
 * *HAS_RANK says whether %r occurs.  0, or with a message in ERR (*OUT
 * NULL) -1 for a bad pattern or host name, -2 out of memory.
 */
int outfile_expand(const char *pattern, const char *host, long rank, char **out,
		   bool *has_rank, char *err, size_t errlen);

/*
 * Whether names A and B are one file: the same text, the same existing file
 * (device and inode), or names of a file not there yet in the same directory
 * (`x.csv` and `./x.csv`).
 */
bool outfile_same(const char *a, const char *b);

/* --wait's value without one: as long as it takes (30 years). */
#define OUTFILE_WAIT_FOREVER 1e9

/*
 * The measuring lock of RESULTS (results/README.md): a process-associated
 * lock on RESULTS.lock, for this RANK (-1: every rank's, outside a
 * launcher), exclusive for a sweep, SHARED for a single run, so that no two
 * measurements of a sweep and nothing beside them run on one file.  Held
 * by another, it is tried again every 50 ms for WAIT_S seconds, with one
 * line on stderr that says so (not when QUIET); held by an ancestor (a
 * sweep whose program runs threadrun), it is not needed.  0 held (or
 * not needed), *FDP to close when done; 1 held by another (ERR names its
 * pid); 2 the file cannot be opened or locked (ERR).
 */
int outfile_hold(const char *results, long rank, bool shared, double wait_s, bool quiet,
		 int *fdp, char *err, size_t errlen);

#endif
