/* threadrun: run a program with N workers pinned to a placement plan. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "counters.h"
#include "datafile.h"
#include "execute.h"
#include "metric.h"
#include "sweep.h"
#include "opt.h"
#include "outfile.h"
#include "placement.h"
#include "planprint.h"
#include "pthreads.h"
#include "results.h"
#include "runenv.h"
#include "launcher.h"
#include "version.h"

#define PROG "threadrun"

#define MONITOR_DEFAULT_S 0.25
#define A(field) offsetof(struct args, field)

/* --order: a sweep's repeat runs its combinations shuffled or in order. */
struct order_row {
	const char *name;
	bool shuffle;
};
static const struct order_row orders[] = { { "shuffle", true }, { "fixed", false } };
static const size_t norders = sizeof(orders) / sizeof(orders[0]);

struct args {
	const char *policy_text;
	const char *topology;
	const char *allowed;
	const char *results;
	unsigned per_core;
	bool dry_run, strict, quiet, resume, pthreads, env;
	uint64_t skip;          /* --skip: bit i, the i-th thread created is not pinned */
	unsigned nthreads;
	const char *sweep;
	unsigned repeat;
	bool adaptive;          /* --repeat auto: REPEAT is the most */
	double precision;       /* --precision */
	bool precision_given;
	const struct order_row *order;  /* --order, NULL: shuffle */
	uint64_t seed;
	bool seed_given;
	unsigned warmup;
	int format;             /* enum plan_format; -1 when --format is not given */
	double monitor;
	double wait;            /* --wait: seconds, 0: refuse a file another run measures on */
	bool counters;          /* --counters */
	const char *events;     /* its EVENTS, NULL: the default set */
	struct counters_spec spec;
	struct metric_set metrics;      /* --metric, in the order given */
	const char **units;     /* --unit, in the order given */
	unsigned nunits;
	int argc;               /* PROGRAM and its arguments */
	char **argv;
	char *config;           /* a program of ours: its config and the file its own -o */
	char *own_results;      /* names, asked once (execute_ask_own) */
};

/* --metric [NAME=]REGEX, any number of times. */
static int add_metric(const char *arg, void *opts, char *err, size_t errlen)
{
	struct args *a = opts;

	return metric_add(&a->metrics, arg, err, errlen);
}

/* --unit UNIT: once for every metric, or once per metric. */
static int add_unit(const char *arg, void *opts, char *err, size_t errlen)
{
	struct args *a = opts;
	const char **grown = realloc(a->units, (a->nunits + 1) * sizeof(*a->units));

	if (!grown) {
		snprintf(err, errlen, "unit: out of memory");
		return -1;
	}
	a->units = grown;
	a->units[a->nunits++] = arg;
	return 0;
}

/* -n's form: for people, or for programs. */
static int set_format(const char *arg, void *opts, char *err, size_t errlen)
{
	struct args *a = opts;

	a->format = plan_format_parse(arg);
	if (a->format < 0) {
		snprintf(err, errlen, "format: '%s' not known, choices are: %s", arg, PLAN_FORMAT_CHOICES);
		return -1;
	}
	return 0;
}

/* likwid-pin's skip mask; it only means something with --pthreads. */
static int set_skip(const char *arg, void *opts, char *err, size_t errlen)
{
	struct args *a = opts;

	a->pthreads = true;
	return pthreads_parse_skip(arg, &a->skip, err, errlen);
}

/* --repeat R, or auto[:MAX]: repeat until --precision, at most MAX (default 10). */
static int set_repeat(const char *arg, void *opts, char *err, size_t errlen)
{
	struct args *a = opts;

	a->adaptive = !strncmp(arg, "auto", 4) && (!arg[4] || arg[4] == ':');
	if (!a->adaptive && !num_is_decimal(arg)) {
		snprintf(err, errlen, "repeat: '%s' is not a number or auto[:MAX], allowed 1..10000, auto, auto:3..auto:10000",
			 arg);
		return -1;
	}
	if (!a->adaptive)
		return num_parse_unsigned("repeat", arg, 1, 10000, &a->repeat, err, errlen);
	a->repeat = 10;
	return arg[4] ? num_parse_unsigned("repeat auto:MAX", arg + 5, 3, 10000, &a->repeat, err,
					   errlen) : 0;
}

/* --counters[=EVENTS]: checked once the options are read. */
static int set_counters(const char *arg, void *opts, char *err, size_t errlen)
{
	struct args *a = opts;

	(void)err;
	(void)errlen;
	a->counters = true;
	a->events = arg;
	return 0;
}

/* A plan for another machine is only printed. */
static int set_topology(const char *arg, void *opts, char *err, size_t errlen)
{
	struct args *a = opts;

	(void)err;
	(void)errlen;
	a->topology = arg;
	a->dry_run = true;
	return 0;
}

/* The rows' rules (opt_check): -n and -t alike print a plan, run nothing. */
#define PLAN_ONLY "dry-run topology"
#define SWEEP_ONLY "--repeat, --resume, --order, --seed and --warmup go with --sweep"

static const struct opt_spec options[] = {
	{ OPT_STRING('p', "policy", "POLICY", A(policy_text), "compact, scatter, none, cK, list:CPUS, an hwloc location, OpenMP's or likwid-pin's spelling (table below; default compact)") },
	{ OPT_UNSIGNED('c', "per-core", "K", A(per_core), 1, PL_MAX_WORKERS, "K strands on each core, cores in order (same as -p cK)"),
	  .excludes = "policy", .excludes_msg = "-c %s and -p %s both set the policy; give one" },
	{ OPT_CALLBACK('t', "topology", "SPEC", set_topology, "plan for an hwloc synthetic topology or XML file (implies -n)") },
	{ OPT_FLAG('n', "dry-run", A(dry_run), "print the plan (worker, PU, core, package, NUMA node), run nothing") },
	{ OPT_CALLBACK(0, "format", "FMT", set_format, "-n: the plan as text (default), or csv, tsv, json for programs"),
	  .needs = PLAN_ONLY, .needs_msg = "--format prints the plan: it goes with -n (or -t)" },
	{ OPT_FLAG(0, "env", A(env), "-n: print the environment the plan gives PROGRAM (OMP_*, THREADRUN_*) as shell lines, not the plan"),
	  .needs = PLAN_ONLY, .needs_msg = "--env prints a plan's environment: it goes with -n (or -t)",
	  .excludes = "format", .excludes_msg = "--env prints the environment, --format the plan: give one" },
	{ OPT_FLAG(0, "strict", A(strict), "refuse more workers than PUs instead of wrapping round-robin") },
	{ OPT_STRING(0, "allowed", "CPUS", A(allowed), "use only these PUs: OS indices (0-3,8) or hwloc locations (core:0-1, pu:1), besides the cgroup and affinity limits") },
	{ OPT_FLAG(0, "pthreads", A(pthreads), "one PU per thread of a dynamically linked program: main thread on the first, each thread it creates on the next") },
	{ OPT_CALLBACK('s', "skip", "MASK", set_skip, "hex mask, bit i set: the i-th thread created is not pinned (likwid-pin's -s; implies --pthreads)") },
	{ OPT_STRING('o', "results", "FILE", A(results), "results file workloads append to (default ./results/runs.csv); %h host, %r rank, %% a %") },
	{ OPT_STRING(0, "sweep", "LIST", A(sweep), "sweep thread counts: 1,2,4,8 or 1-8 or 1-64x2 (doubling); -p takes a comma list") },
	{ OPT_CALLBACK(0, "repeat", "R", set_repeat, "sweep: run every combination R times (default 1), or auto[:MAX]: until --precision is reached, 3..MAX times (default 10)"),
	  .needs = "sweep", .needs_msg = SWEEP_ONLY },
	{ OPT_DOUBLE(0, "precision", "P", A(precision), 0.1, 100, "sweep, --repeat auto: stop a point once the 95% interval of its median, or of its paired ratio to the 1-thread point, is within +-P% (default 2)"),
	  .seen = OPT_SEEN(struct args, precision_given), .needs = "sweep",
	  .needs_msg = "--precision goes with --sweep and --repeat auto" },
	{ OPT_FLAG(0, "resume", A(resume), "sweep: skip the combinations the results file already holds"),
	  .needs = "sweep", .needs_msg = SWEEP_ONLY },
	{ OPT_CHOICE(0, "order", "ORDER", A(order), orders, &norders, "sweep: shuffle (default): each repeat runs its combinations in a random order; fixed: policy by policy, counts ascending"),
	  .needs = "sweep", .needs_msg = SWEEP_ONLY },
	{ OPT_U64(0, "seed", "N", A(seed), 0, UINT64_MAX, "sweep: the shuffle's seed, 0..2^64-1 (default: --resume's file's, else a new one; the rows' seed column)"),
	  .seen = OPT_SEEN(struct args, seed_given), .needs = "sweep", .needs_msg = SWEEP_ONLY },
	{ OPT_UNSIGNED(0, "warmup", "K", A(warmup), 0, 10000, "sweep: K runs that record nothing before the first measurement (default 0)"),
	  .needs = "sweep", .needs_msg = SWEEP_ONLY },
	{ OPT_DOUBLE(0, "wait", "[=S]", A(wait), 0, OUTFILE_WAIT_FOREVER, "wait (at most S seconds) for the sweep or runs measuring on the results file to end; without it, refuse, exit 1"),
	  .implied = OUTFILE_WAIT_FOREVER },
	{ OPT_DOUBLE(0, "monitor", "[=S]", A(monitor), 0.01, 60, "watch every CPU and thread, sampling every S seconds (default 0.25)"),
	  .implied = MONITOR_DEFAULT_S },
	{ OPT_CALLBACK(0, "counters", "[=EVENTS]", set_counters, "count each thread's events (perf_event_open): EVENTS a comma list, default software and hardware; =list names them"),
	  .excludes = PLAN_ONLY, .excludes_msg = "--counters counts a run: it does not go with -n (or -t)" },
	{ OPT_CALLBACK(0, "metric", "RE", add_metric, "[NAME=]RE: the rate is group 1 of the last output line matching RE (PCRE2); repeatable"),
	  .excludes = PLAN_ONLY, .excludes_msg = "--metric reads a run's output: it does not go with -n (or -t)" },
	{ OPT_CALLBACK(0, "unit", "UNIT", add_unit, "--metric's unit (default value): one for all, or one per --metric in order"),
	  .needs = "metric", .needs_msg = "--unit names the figure of --metric: give --metric REGEX too" },
	{ OPT_FLAG('q', "quiet", A(quiet), "results only: no line of threadrun's own (summary, sweep progress; with --monitor, only its warnings); warnings stay") },
	{ OPT_VERSION('V') },
	{ OPT_ACTION('h', 'h', "help", "show this help") },
};

static const char usage[] = "[options] N [--] PROGRAM [ARGS...]\n"
			    "       threadrun --sweep LIST [-p POLICIES] [--repeat R] [-o FILE] -- PROGRAM [ARGS...]";
static const char help_after[] =
	"Runs PROGRAM with N workers placed by the policy.  PROGRAM is looked up among\n"
	"threadrun's own programs (t2accel, linpack) and then on PATH.  It gets\n"
	"OMP_NUM_THREADS, OMP_PLACES (the plan as {3},{5},...), OMP_PROC_BIND=close and\n"
	"THREADRUN_PLAN/_POLICY/_RESULTS/_THREADS, so any OpenMP program is placed;\n"
	"a user's own OMP_* that the plan replaces are named on stderr (not with -q);\n"
	"-n --env prints them as shell lines (export NAME=VALUE, unset NAME).\n"
	"A -- before PROGRAM is taken, as hwloc-bind and numactl take it.\n"
	"\n"
	"CPU sets (--allowed, list:, a policy such as core:0-1) take OS indices and\n"
	"hwloc locations, logical indices as hwloc-calc reads them: TYPE:INDEX, levels\n"
	"joined by '.', INDEX N, N-M, N-, N:C, all, odd or even; a location stands for\n"
	"its usable PUs, core by core.  OpenMP's BIND[:PLACES] places workers as\n"
	"libgomp places threads (BIND close, spread, primary or master; PLACES threads,\n"
	"the default, cores or sockets); workers that share a place take its PUs in\n"
	"logical order.  likwid-pin's expressions read as likwid-pin reads them.\n"
	"\n"
	"Any other program gets the plan's PUs as its CPU set, for every thread: one\n"
	"note says so when it is not OpenMP (not with -q).  --pthreads places its\n"
	"threads one by one, as likwid-pin does: a preloaded library wraps\n"
	"pthread_create; the main thread takes the plan's first PU, the threads it\n"
	"creates the next ones in creation order (round-robin past the plan's end);\n"
	"-s 0x1 leaves the first thread created (a helper) unpinned.  A statically\n"
	"linked or setuid program cannot take the library: exit 3.\n"
	"\n"
	"-n --format csv, tsv or json prints the plan for programs: one record per\n"
	"worker (worker, pu, core, package, numa) with the policy, the topology, its\n"
	"cores, PUs and usable PUs and any warnings, read by column or key name\n"
	"(docs/machine-output.md names each field).\n"
	"\n"
	"Examples:\n"
	"  threadrun 16 t2accel -a rsa\n"
	"  threadrun -p scatter 2 linpack 2000\n"
	"  threadrun -t 'numa:1 package:1 core:8 pu:8' -c 2 -n 16   # plan for a T2\n"
	"  threadrun -p S0:0-3 --allowed package:0 4 linpack 2000   # likwid-pin's, hwloc's\n"
	"  threadrun -n --env -p spread:cores 4                      # the OMP_* a plan gives\n"
	"  threadrun --sweep 1-8x2 -p compact,scatter,c1 --repeat 3 -o results/rsa.csv \\\n"
	"            -- t2accel -a rsa -d 1\n"
	"\n"
	"A sweep runs PROGRAM once per (thread count, policy, repeat), each repeat's\n"
	"combinations in a random order (--order, --seed; the rows' seed column),\n"
	"appends each run's rows as it ends and its output to FILE.log; Ctrl-C keeps every\n"
	"finished row and --resume carries on where it stopped.  One sweep at a time\n"
	"measures on FILE, and no single run beside it: another is refused naming\n"
	"its pid (exit 1), or with --wait waits and then measures what is left.\n"
	"\n"
	"One results file per run: when PROGRAM is one of threadrun's own and is given\n"
	"its own -o FILE (or --results) and threadrun none, FILE is the run's file\n"
	"(threadrun's rows, FILE.log, FILE.monitor.csv); when threadrun's -o differs,\n"
	"one note on stderr says where each row goes.\n"
	"\n"
	"-o FILE takes %h (the host name up to its first dot), %r (the rank under\n"
	"mpirun or srun, else 0) and %% (a %): -o 'results/cluster-%h.csv' gives\n"
	"each node of a cluster job its own file.  Ranks that share one FILE keep\n"
	"FILE.rankN.log and FILE.rankN.monitor.csv each (docs/cluster.md).\n"
	"\n"
	"--metric takes the row's rate from what PROGRAM prints (stdout and stderr,\n"
	"which still reach the terminal or FILE.log): one row per metric and run,\n"
	"algorithm NAME (default metric, or metric1, metric2... when several are\n"
	"unnamed), rate the first capture group of the LAST line that matches (a\n"
	"line ends at \\n or \\r; one over 64 KiB is matched in its first 64 KiB;\n"
	"a NUL is matched as any byte, as grep -a does).  RE is a Perl-compatible\n"
	"regex (PCRE2): an ERE means the same but that the first alternative that\n"
	"matches wins, not the longest, \\ escapes inside [ ], and *? +? are lazy.\n"
	"NAME (letters, digits, _ and -) is the text before the first '=' when it\n"
	"holds no regex syntax; name a regex that has an '=' in it.  No matching\n"
	"line, or a capture that is not a plain non-negative decimal number, fails\n"
	"that row and the run (McCalpin's STREAM, whose lines read 'Triad:  12345.6'):\n"
	"  threadrun --sweep 1-4 --metric 'Triad=Triad: +([0-9.]+)' --unit MB/s \\\n"
	"            -o results/stream.csv -- ./stream_c.exe\n"
	"\n"
	"PROGRAM runs in a process group of its own: signals threadrun gets are\n"
	"passed to all of it, and it and its children end when threadrun ends,\n"
	"however threadrun ends.  It cannot read the terminal.\n"
	"\n"
	"--counters counts every thread of PROGRAM on its own (perf_event_open): the\n"
	"main thread from its exec, each other thread from when threadrun first sees\n"
	"it (walks of /proc every 10 ms), the run's software totals besides (what a\n"
	"thread did before it was seen is its own line).  The per-thread table goes\n"
	"to stderr (not with -q), the totals and cycles per byte, cycles per\n"
	"operation, IPC and FLOPs per cycle to the run row (n/a without cycles).\n"
	"Default: task-clock, context-switches, cpu-migrations, page-faults and the\n"
	"hardware cycles, instructions, cache-references, cache-misses, branch-misses\n"
	"where the PMU has them (one line says when not); a named event that cannot\n"
	"be counted is exit 3; --counters=list names them all (libpfm4's too).\n"
	"\n"
	"Exit status: the program's; 2 usage error; 3 --pthreads cannot reach it,\n"
	"or --counters cannot count here (no PMU, kernel.perf_event_paranoid);\n"
	"126 cannot run it; 127 not found;\n"
	"128+N when it died of signal N.\n";

/* --help's table: the other tools' spellings and ours, from the placement
 * library's one table. */
static void print_spellings(FILE *out)
{
	size_t n, i;
	const struct pl_spelling *sp = pl_policy_spellings(&n);

	fprintf(out, "\nOther tools' spellings, as -p takes them (CPU sets in list: and --allowed too);\n"
		     "a policy's name in rows is canonical (spread -> spread:threads, core:0-3 ->\n"
		     "list:core:0-3):\n"
		     "  %-10s %-32s %-15s %s\n", "tool", "theirs", "ours", "meaning");
	for (i = 0; i < n; i++)
		fprintf(out, "  %-10s %-32s %-15s %s\n", sp[i].tool, sp[i].theirs, sp[i].ours,
			sp[i].meaning);
}

/* One line of -n --env: a shell assignment, or an unset. */
static int put_line(const char *name, const char *value, void *arg)
{
	FILE *out = arg;

	if (!value)
		return fprintf(out, "unset %s\n", name) < 0 ? -1 : 0;
	fprintf(out, "export %s=", name);
	opt_quote(out, value);
	return fputc('\n', out) == EOF ? -1 : 0;
}

/* What the options leave to be done once they are all read and their
 * rules hold: the metrics' units, the counters' events, the default
 * repeat.  0, or the exit status with the message in ERR. */
static int finish_options(struct args *a, char *err, size_t errlen)
{
	if (a->precision_given && !a->adaptive) {
		snprintf(err, errlen, "precision: --precision %g goes with --repeat auto", a->precision);
		return 2;
	}
	if (!a->precision_given)
		a->precision = 2;
	if (a->metrics.n && metric_finish_setup(&a->metrics, a->units, a->nunits, err, errlen) < 0)
		return 2;
	if (a->counters)
		return counters_parse(a->events, &a->spec, err, errlen);
	return 0;
}

/* The operands: N PROGRAM [ARGS...], or, with --sweep, PROGRAM [ARGS...].
 * 0, or 2 with the message in ERR. */
static int take_operands(int argc, char **argv, struct args *a, char *err, size_t errlen)
{
	if (a->sweep) {
		a->argc = argc - optind;
		a->argv = argv + optind;
		if (a->argc == 0) {
			snprintf(err, errlen, "program: missing, usage: %s --sweep LIST [options] -- PROGRAM [ARGS...]",
				 PROG);
			return 2;
		}
		return 0;
	}
	if (optind >= argc) {
		snprintf(err, errlen, "threads: missing, usage: %s [options] N PROGRAM [ARGS...]", PROG);
		return 2;
	}
	if (num_parse_unsigned("threads", argv[optind], 1, PL_MAX_WORKERS, &a->nthreads, err,
			       errlen) < 0)
		return 2;
	a->argc = argc - optind - 1;
	a->argv = argv + optind + 1;
	/* N -- PROGRAM, as hwloc-bind and numactl take it. */
	if (a->argc > 0 && strcmp(a->argv[0], "--") == 0) {
		a->argc--;
		a->argv++;
	}
	if (a->argc == 0 && !a->dry_run) {
		snprintf(err, errlen, "program: missing, usage: %s [options] N [--] PROGRAM [ARGS...]", PROG);
		return 2;
	}
	return 0;
}

/* Parse the command line; 0 to go on, else the exit status (help: 0 via -1). */
static int parse_args(int argc, char **argv, struct args *a)
{
	struct opt_parser p;
	char err[1024];         /* --counters' unit masks */
	int c, ret = -1;

	memset(a, 0, sizeof(*a));
	a->format = -1;
	if (opt_init(&p, PROG, options, sizeof(options) / sizeof(options[0]), OPT_STOP_AT_OPERAND) < 0)
		return 1;
	c = opt_parse(&p, argc, argv, a);
	if (c == 'h') {
		opt_help(&p, stdout, usage, help_after);
		print_spellings(stdout);
	} else if (c == 'V') {
		version_print(stdout, PROG);
	} else if (c == OPT_END && a->counters && a->events && !strcmp(a->events, "list")) {
		/* An action, as --help is: before any rule. */
		counters_list(stdout);
	} else if (c != OPT_END || opt_check(&p) < 0) {
		ret = 2;
	} else {
		if (!a->repeat)
			a->repeat = 1;
		ret = finish_options(a, err, sizeof(err));
		if (!ret)
			ret = take_operands(argc, argv, a, err, sizeof(err));
		if (ret)
			msg_error(PROG, "%s", err);
	}
	opt_fini(&p);
	return ret;
}

/* Print a warning on stderr and, when WARN has room, keep it for the
 * plan's machine forms. */
static void warn(char **warn, unsigned *nwarn, unsigned room, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void warn(char **warn, unsigned *nwarn, unsigned room, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	msg_error(PROG, "warning: %s", s);
	if (warn && *nwarn < room)
		warn[(*nwarn)++] = s;
	else
		free(s);
}

/* Where this machine's topology is kept between launches:
 * THREADRUN_TOPOLOGY_CACHE (a file, or "off"), else
 * $XDG_CACHE_HOME/threadrun/topology-HOST.xml, $HOME/.cache/... without it;
 * NULL for none.  Per host: a home shared by a cluster's nodes keeps each.
 * Only in a HOME of this user's own: under sudo -E, root would make
 * directories of its own in the user's home. */
static char *topology_cache_path(void)
{
	const char *env = getenv("THREADRUN_TOPOLOGY_CACHE"), *xdg = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	char host[256], *path = NULL;
	struct stat st;

	if (env)
		return *env && strcmp(env, "off") != 0 ? strdup(env) : NULL;
	if (!home || home[0] != '/' || stat(home, &st) < 0 || st.st_uid != geteuid() ||
	    gethostname(host, sizeof(host)) < 0)
		return NULL;
	host[sizeof(host) - 1] = '\0';
	if (strchr(host, '/'))
		return NULL;
	if (xdg && xdg[0] == '/' ? asprintf(&path, "%s/threadrun/topology-%s.xml", xdg, host) < 0 :
	    asprintf(&path, "%s/.cache/threadrun/topology-%s.xml", home, host) < 0)
		path = NULL;
	return path;
}

/* The topology is this machine, or the one -t names: never the one HWLOC_
 * variables would make hwloc load. */
static int load_topology(pl_topology_t topo, bool given, char **warns, unsigned *nwarn,
			 unsigned room)
{
	char *cache = given ? NULL : topology_cache_path();
	int ret = pl_topology_set_cache_file(topo, cache) < 0 ? -1 : pl_topology_load(topo);

	free(cache);

	if (pl_topology_get_ignored_env(topo))
		warn(warns, nwarn, room, "ignoring %s from the environment: %s",
		     pl_topology_get_ignored_env(topo),
		     given ? "-t names the topology" :
		     "a run uses this machine; plan for another with -t SPEC");
	return ret;
}

/* Under a launcher that gave this rank fewer usable PUs than WORKERS: say
 * how to give it enough. */
static void warn_launcher_pus(const struct launcher_id *id, pl_topology_t topo, unsigned workers,
			      char **warns, unsigned *nwarn, unsigned room)
{
	unsigned usable = pl_topology_get_nbusable(topo);

	if (!id->launcher || !pl_topology_is_thissystem(topo) || usable >= workers)
		return;
	warn(warns, nwarn, room,
	     "the %s launcher gave this rank %u usable PU%s for %u worker%s: give each rank %u, with mpirun --bind-to none or --map-by ppr:1:node:PE=%u, or srun -c %u",
	     id->launcher, usable, usable == 1 ? "" : "s", workers, workers == 1 ? "" : "s", workers, workers, workers);
}

static const char *get_env(const char *name)
{
	return getenv(name);
}

/* Runs ID and CPUSET (threadrun's identity) over to the run. */
static int run_single(pl_topology_t topo, const struct pl_plan *plan, const char *policy,
		      struct args *a, struct launcher_id *id, char **cpuset, const struct outfile *of)
{
	struct execute ex = { .topo = topo, .output_fd = -1, .monitor = a->monitor,
			      .counters = a->counters ? &a->spec : NULL,
			      .always_row = a->monitor > 0 || a->counters, .quiet = a->quiet,
			      .omp_note = !a->quiet,
			      .metrics = &a->metrics, .id = *id, .cpuset = *cpuset,
			      .identified = true, .tag = of->tag, .pthreads = a->pthreads,
			      .skip = a->skip, .asked_config = a->config };
	struct launch_result r = { 0 };
	char err[PATH_MAX + 256];
	int st, lockfd;

	id->job = NULL;
	*cpuset = NULL;
	st = execute_prepare(&ex, a->argv, of->results, err, sizeof(err));
	if (st) {
		msg_error(PROG, "%s", err);
		execute_finish(&ex);
		return st;
	}
	/* Shared: runs on one file go together, never beside its sweep. */
	st = outfile_hold(ex.results, of->rank, true, a->wait, a->quiet, &lockfd, err, sizeof(err));
	if (st) {
		msg_error(PROG, "%s", err);
		execute_finish(&ex);
		return st;
	}
	st = execute_run(&ex, plan, policy, a->argv, 0, &r, err, sizeof(err));
	execute_finish(&ex);
	if (lockfd >= 0)
		close(lockfd);
	if (st < 0) {
		msg_error(PROG, "%s", err);
		return r.status ? r.status : 1;
	}
	if (!a->quiet) {
		fprintf(stderr, "%s: %s: %u worker%s, %s: ", PROG, ESC(a->argv[0]), plan->nworkers,
			plan->nworkers == 1 ? "" : "s", policy);
		if (r.signal)
			fprintf(stderr, "killed by signal %d (%s)", r.signal, strsignal(r.signal));
		else
			fprintf(stderr, "exit %d", r.status);
		fprintf(stderr, ", wall %.3f s, user %.3f s, sys %.3f s\n", r.wall_s, r.user_s,
			r.sys_s);
	}
	return r.status;
}

static int sweep_main(struct args *a, const struct outfile *of)
{
	struct sweep_opts so = { .repeat = a->repeat, .adaptive = a->adaptive,
				 .precision = a->precision, .resume = a->resume, .strict = a->strict,
				 .shuffle = !a->order || a->order->shuffle, .seed = a->seed,
				 .seed_given = a->seed_given, .warmup = a->warmup,
				 .quiet = a->quiet, .results = of->results, .tag = of->tag,
				 .rank = of->rank, .wait = a->wait, .argv = a->argv, .config = a->config,
				 .monitor = a->monitor,
				 .counters = a->counters ? &a->spec : NULL,
				 .metrics = &a->metrics, .pthreads = a->pthreads, .skip = a->skip };
	struct pl_policy *pols = NULL;
	unsigned *counts = NULL, most = 0, i;
	pl_topology_t topo = NULL;
	struct launcher_id id;
	char err[512], pc[32];
	int n, ret = 2;

	if (a->dry_run) {
		msg_error(PROG, "--sweep runs; plan one combination with -n N instead");
		return 2;
	}
	so.ncounts = sweep_parse_counts(a->sweep, &counts, err, sizeof(err));
	if (so.ncounts < 0) {
		msg_error(PROG, "%s", err);
		goto out;
	}
	if (a->per_core)
		snprintf(pc, sizeof(pc), "c%u", a->per_core);
	n = sweep_parse_policies(a->per_core ? pc : a->policy_text ? a->policy_text : "compact",
				 &pols, err, sizeof(err));
	if (n < 0) {
		msg_error(PROG, "%s", err);
		goto out;
	}
	so.counts = counts;
	so.policies = pols;
	so.npolicies = n;
	if (pl_topology_init(&topo) < 0 || load_topology(topo, false, NULL, NULL, 0) < 0 ||
	    (a->allowed && pl_topology_restrict(topo, a->allowed) < 0)) {
		msg_error(PROG, "%s", topo ? pl_topology_get_error(topo) : "out of memory");
		goto out;
	}
	/* The largest count tells; the run says what is wrong with the
	 * launcher's environment, once. */
	for (i = 0; i < (unsigned)so.ncounts; i++)
		most = counts[i] > most ? counts[i] : most;
	if (launcher_detect(get_env, &id, err, sizeof(err)) == 1)
		warn_launcher_pus(&id, topo, most, NULL, NULL, 0);
	launcher_id_clear(&id);
	ret = sweep_run(topo, &so);
out:
	while (pols && n > 0)
		pl_policy_clear(&pols[--n]);
	free(pols);
	free(counts);
	pl_topology_destroy(topo);
	return ret;
}

/* One results file per run, and what can be counted: 0, or the exit status. */
static int prepare_outputs(struct args *a, struct outfile *of)
{
	const char *own;
	char err[512];
	int ret;

	/* One results file per run: a program of ours given its own -o makes
	 * that the run's file when threadrun has none (a %% in it would mean
	 * another file to threadrun, so that one only gets the note below).
	 * Without an answer (its arguments are bad) the run asks again and
	 * the program says why. */
	if (a->argc > 0 && !a->dry_run)
		(void)execute_ask_own(a->argv, &a->config, &a->own_results);
	own = a->own_results;
	/* Its own -o file would get the warm-ups' rows: nothing to redirect. */
	if (own && a->warmup) {
		msg_error(PROG, "--warmup %u: %s writes its rows to its own -o %s, where warm-ups would be recorded; give the file to threadrun's -o instead",
			  a->warmup, ESC(a->argv[0]), ESC(own));
		return 2;
	}
	if (own && !a->results && !strchr(own, '%'))
		a->results = own;
	/* -o's %h and %r, once: the program, FILE.log and the rest get the
	 * file this process writes. */
	ret = outfile_setup(of, a->results, err, sizeof(err));
	if (ret) {
		msg_error(PROG, "%s", err);
		return ret;
	}
	if (own && (!of->results || !outfile_same(own, of->results)) && !a->quiet)
		fprintf(stderr, "%s: note: %s's rows go to %s (its -o), threadrun's rows to %s\n",
			PROG, ESC(a->argv[0]), ESC(own), ESC(of->results ? of->results : "its default file"));
	/* What can be counted here: a named event that cannot, exit 3; the
	 * default set says once what it leaves out. */
	if (!a->counters)
		return 0;
	ret = counters_probe(&a->spec, err, sizeof(err));
	if (ret)
		msg_error(PROG, "%s", err);
	else if (a->spec.note[0])
		msg_error(PROG, "counters: %s", a->spec.note);
	return ret;
}

/* A single run's plan and what is said about it. */
struct single {
	struct pl_policy policy;
	pl_topology_t topo;
	struct pl_plan *plan;
	char *name;             /* the policy's canonical name */
	char *warns[3];         /* kept for the plan's machine forms */
	unsigned nwarn;
	struct launcher_id id;
	char *cpuset;
};

/* More workers than PUs: how they share them. */
static void warn_wrapped(struct single *s)
{
	const struct pl_plan *plan = s->plan;

	if (plan->wrapped && s->policy.kind == PL_POLICY_OPENMP)
		warn(s->warns, &s->nwarn, 3,
		     "%u workers on %u PU%s of policy %s: sharing them as libgomp shares places (--strict refuses)",
		     plan->nworkers, plan->distinct, plan->distinct == 1 ? "" : "s", s->name);
	else if (plan->wrapped)
		warn(s->warns, &s->nwarn, 3,
		     "%u workers on %u PU%s of policy %s: wrapping round-robin, up to %u per PU (--strict refuses)",
		     plan->nworkers, plan->distinct, plan->distinct == 1 ? "" : "s", s->name,
		     (plan->nworkers + plan->distinct - 1) / plan->distinct);
}

/* The policy, the machine, the plan and the rank: 0, or the exit status. */
static int plan_single(const struct args *a, struct single *s)
{
	char err[512], pc[32];

	if (a->per_core)
		snprintf(pc, sizeof(pc), "c%u", a->per_core);
	if (pl_policy_parse(a->per_core ? pc : a->policy_text ? a->policy_text : "compact",
			    &s->policy, err, sizeof(err)) < 0) {
		msg_error(PROG, "%s", err);
		return 2;
	}
	if (pl_topology_init(&s->topo) < 0 ||
	    (a->topology && pl_topology_set_source(s->topo, a->topology) < 0)) {
		msg_error(PROG, "out of memory");
		return 1;
	}
	if (load_topology(s->topo, a->topology != NULL, s->warns, &s->nwarn, 3) < 0 ||
	    (a->allowed && pl_topology_restrict(s->topo, a->allowed) < 0) ||
	    pl_plan_compute(s->topo, &s->policy, a->nthreads, a->strict ? PL_PLAN_STRICT : 0,
			    &s->plan) < 0) {
		msg_error(PROG, "%s", pl_topology_get_error(s->topo));
		return 2;
	}
	s->name = pl_policy_strdup(&s->policy);
	if (!s->name) {
		msg_error(PROG, "out of memory");
		return 1;
	}
	warn_wrapped(s);
	/* Which rank this is and the PUs it was given, before anything is bound. */
	if (run_env_identify(&s->id, &s->cpuset, false) < 0) {
		msg_error(PROG, "out of memory");
		return 1;
	}
	warn_launcher_pus(&s->id, s->topo, s->plan->nworkers, s->warns, &s->nwarn, 3);
	return 0;
}

static void single_clear(struct single *s)
{
	run_env_identity_free(&s->id, &s->cpuset);
	while (s->nwarn > 0)
		free(s->warns[--s->nwarn]);
	free(s->name);
	pl_plan_destroy(s->plan);
	pl_topology_destroy(s->topo);
	pl_policy_clear(&s->policy);
}

int main(int argc, char **argv)
{
	struct single s = { .id = { .rank = -1, .ranks = -1, .local_rank = -1 } };
	struct plan_who who = { &s.id, NULL };
	struct outfile of = { .rank = -1 };
	struct args a;
	int ret;

	datafile_stdio_init(PROG);
	launch_signals_init();
	ret = parse_args(argc, argv, &a);
	if (ret) {
		ret = ret < 0 ? 0 : ret;
		goto out;
	}
	ret = prepare_outputs(&a, &of);
	if (ret)
		goto out;
	if (a.sweep) {
		ret = sweep_main(&a, &of);
		goto out;
	}
	ret = plan_single(&a, &s);
	if (ret)
		goto out;
	if (a.dry_run && a.env) {
		ret = execute_plan_env(s.topo, s.plan, s.name,
				       of.results ? of.results : execute_results_name(), s.cpuset,
				       put_line, stdout) < 0 ? 1 : 0;
	} else if (a.dry_run) {
		who.cpuset = s.cpuset;
		plan_print(stdout, a.format < 0 ? PLAN_TEXT : (enum plan_format)a.format, s.topo,
			   s.plan, s.name, (const char *const *)s.warns, s.nwarn, &who);
	} else {
		ret = run_single(s.topo, s.plan, s.name, &a, &s.id, &s.cpuset, &of);
	}
out:
	single_clear(&s);
	outfile_clear(&of);
	metric_free(&a.metrics);
	free(a.units);
	free(a.config);
	free(a.own_results);
	return ret;
}
