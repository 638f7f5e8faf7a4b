/*
 * threadreport --compare: the same benchmark before and after a change.
 * Two sides, either two files or two groups of rows told apart by one
 * column (host, backend, impl, versions); for every configuration measured
 * on both, the ratio of the medians (after / before) with its spread, one
 * summary per algorithm, and the configurations only one side measured.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "output.h"

/*
 * Read FILES (two of them when BY is NULL: before, after; any number with
 * BY, "COL", "COL=A,COL=B" or "COL=A,B") and print the comparison to OUT in
 * FMT.  Notes on the files and errors go to stderr.  Returns the exit
 * status: 0, 1 (out of memory), 2 (unreadable input, a bad BY, or sides
 * that share no configuration).
 */
int compare_report(char **files, int nfiles, const char *by, enum format fmt, bool raw, FILE *out);

#endif
