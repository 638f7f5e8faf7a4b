/*
 * The skeleton every workload's main is: a descriptor (struct workload)
 * and workload_main(), which sets up stdio and the exit guard, parses the
 * options by the workload's table, answers the shared actions (--help,
 * --version, --list, --print-config), reads threadrun's environment,
 * settles the results file (-o, else threadrun's; checked before any work)
 * and calls the workload's run.  docs/workers.md has a complete example.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stdio.h>

#include "opt.h"
#include "results.h"
#include "runenv.h"
#include "units.h"
#include "worker.h"

/* The shared actions' ids (help's is its short name). */
enum { WORKLOAD_HELP = 'h', WORKLOAD_VERSION = 0x4000, WORKLOAD_LIST, WORKLOAD_CONFIG };

/* The shared rows, in a workload's table as { OPT_RESULTS(O(results), "...") }.
 * The results row is found by its name: workload_main() gives it
 * threadrun's file when -o is absent. */
#define OPT_RESULTS(d, h) OPT_STRING('o', "results", "FILE", d, h), .output_only = true
#define OPT_QUIET(d, h) OPT_FLAG('q', "quiet", d, h), .output_only = true
#define OPT_HELP OPT_ACTION(WORKLOAD_HELP, 'h', "help", "show this help")
#define OPT_LIST_ACTION(h) OPT_ACTION(WORKLOAD_LIST, 0, "list", h)
/* And the rows every workload has: { OPT_PRINT_CONFIG(WORKLOAD_CONFIG) },
 * { OPT_VERSION(WORKLOAD_VERSION) }. */

/* What prepare returns when the program did all it was asked (linpack --peak). */
#define WORKLOAD_DONE (-2)

struct workload {
	const char *name;               /* PROG: messages, threads, rows */
	const struct opt_spec *options;
	size_t noptions;
	void *opts;                     /* the table's struct, its defaults set */
	const char *usage;              /* after the name: "[options] N" */
	const char *help_after;         /* --help's text after the options */
	unsigned operands;              /* how many operands it takes at most */
	int (*list)(FILE *out);         /* --list, with OPT_LIST_ACTION: the exit status */
	void (*version)(FILE *out);     /* lines after version_print()'s, or NULL */
	/* After the options, before the environment: the ARGC operands, checks
	 * the table cannot make; 0, WORKLOAD_DONE, or -1 with ERR (exit 2). */
	int (*prepare)(void *opts, int argc, char **argv, char *err, size_t errlen);
	/* The workers when neither threadrun nor OMP_NUM_THREADS says: NULL 1. */
	unsigned (*default_workers)(void);
	/* The measurements, with the run's environment: the exit status. */
	int (*run)(void *opts, const struct run_env *env);
};

#define WORKLOAD_OPTIONS(table) .options = (table), .noptions = sizeof(table) / sizeof((table)[0])

/* Append ROW with worker_row_append() and clear it; a failure is one
 * line on stderr, named by WR's workload.  0, or -1. */
int workload_append_row(const char *path, struct results_row *row, const struct worker_row *wr);

/* main's whole body: return workload_main(&w, argc, argv). */
int workload_main(const struct workload *w, int argc, char **argv);

#endif
