/* threadreport: speedup, efficiency, best placement, contention, cutoffs. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "cluster.h"
#include "html.h"
#include "counts.h"
#include "compare.h"
#include "datafile.h"
#include "dataset.h"
#include "verdicts.h"
#include "opt.h"
#include "summary.h"
#include "output.h"
#include "table.h"
#include "units.h"
#include "version.h"

#define PROG "threadreport"
#define STRINGIFY(x) #x
#define TEXT_OF(x) STRINGIFY(x)
#define BUSY_PCT_TEXT TEXT_OF(DATASET_BUSY_PCT)

struct format_row {
	const char *name;
	enum format fmt;
};

static const struct format_row formats[] = {
	{ "text", FMT_TEXT }, { "markdown", FMT_MARKDOWN }, { "csv", FMT_CSV }, { "tsv", FMT_TSV },
	{ "json", FMT_JSON }, { "html", FMT_HTML },
};

static const size_t nformats = NCOLS(formats);

struct report_opts {
	const struct format_row *format;
	bool raw, summary, cutoffs, compare, cluster, hosts, exact;
	const char *compare_by;
};

static const struct opt_spec options[] = {
	{ OPT_CHOICE('f', "format", "FMT", offsetof(struct report_opts, format), formats, &nformats,
		     "text (default), markdown, csv, tsv (for shell tools), json or "
		     "html (one self-contained page: tables, figures, warnings)") },
	{ OPT_FLAG(0, "raw", offsetof(struct report_opts, raw),
		   "csv and tsv: text fields exactly as in the files, for programs "
		   "(no spreadsheet formula guard)") },
	{ OPT_FLAG(0, "summary", offsetof(struct report_opts, summary),
		   "the answer first: per workload one table (speedup/efficiency of "
		   "each plan per series and thread count) and the findings the "
		   "evidence supports; csv and tsv one row per cell of the tables") },
	{ OPT_FLAG(0, "exact", offsetof(struct report_opts, exact),
		   "text and markdown: rates with all their digits, no SI prefix or "
		   "unit (as csv, tsv and json always give them)") },
	{ OPT_FLAG(0, "cutoffs", offsetof(struct report_opts, cutoffs),
		   "only the cutoffs between backends; with csv and tsv one row "
		   "per backend pair, policy and thread count, columns named") },
	{ OPT_FLAG(0, "cluster", offsetof(struct report_opts, cluster),
		   "only the cluster section: with csv and tsv one row per series, "
		   "policy, threads and ranks, columns named") },
	{ OPT_FLAG(0, "hosts", offsetof(struct report_opts, hosts),
		   "only the cluster section's per-host figures: with csv and tsv one "
		   "row per cell and host (per-rank rates), columns named") },
	{ OPT_FLAG(0, "compare", offsetof(struct report_opts, compare),
		   "before and after: BEFORE.csv AFTER.csv, in benchstat's shape: each "
		   "median with its 95% interval, the ratio (after / before), the "
		   "Mann-Whitney p-value and ~ where p >= 0.05") },
	{ OPT_STRING(0, "compare-by", "COL[=A,B]", offsetof(struct report_opts, compare_by),
		     "compare two groups of rows of any files, told apart by COL "
		     "(host, backend, impl or versions): COL with exactly two values, "
		     "or COL=A,COL=B (also COL=A,B) naming before and after") },
	{ OPT_VERSION('V') },
	{ OPT_ACTION('h', 'h', "help", "show this help") },
};

static const char help_after[] =
	"Reads result files (several merge: machines, sweeps) and prints per workload,\n"
	"algorithm, backend and size: the median rate of the repeats per policy and\n"
	"thread count (min..max), speedup against 1 thread of the same policy and\n"
	"efficiency, the best policy per thread count, the sharing penalty (per-worker\n"
	"rate with cK over c1), a Universal Scalability Law fit\n"
	"  C(N) = N / (1 + s (N-1) + k N (N-1))\n"
	"and, where two backends ran the same algorithm at several sizes, the size at\n"
	"which one overtakes the other.  Warnings name rows to distrust.\n"
	"\n"
	"Statistics (results/README.md): speedup and efficiency are paired, the\n"
	"median over the repeats of each repeat's rate over the same repeat's 1-thread\n"
	"rate (of the same file), so that a machine drifting between repeats does not\n"
	"bend them; where no repeat pairs, the ratio of medians, and the header says\n"
	"so.  Each point's median has a 95% interval from order statistics (exact,\n"
	"no normality assumed; up to 5 repeats it is min..max, covering less).  csv,\n"
	"tsv and json add median_lo, median_hi, ci_coverage, speedup_of_medians,\n"
	"speedup_lo, speedup_hi and speedup_pairs.  Drift: Kendall's S of each\n"
	"point's rates against t_start, summed over the points; where p < 0.05 and the\n"
	"last repeat's rates over the first's moved more than 3%, one warning (json\n"
	"kind \"drift\") gives the change and the sweep's duration, and csv, tsv and\n"
	"json give the change in % as drift_pct.\n"
	"\n"
	"A row of a failed run (its status not 0: a nonzero exit, a workload of ours\n"
	"that wrote no row, a --metric run without its figure) is never a measurement:\n"
	"it is in no table, verdict, comparison, cutoff or per-host rate, and one line\n"
	"on stderr says how many were skipped, naming the first; a cluster measurement\n"
	"with a failed rank has no rate (n/a, the rank named).  A later row of the same\n"
	"repeat from another run (a --resume) supersedes a failed one, or one of a\n"
	"run that lost a row to damage.  A row read twice (a file named twice, or\n"
	"copied into another: the same run, seq, time, t_start and rate) counts once,\n"
	"said in one line.\n"
	"\n"
	"Verdicts only from evidence: a best policy (or a sharing penalty) is named\n"
	"only where each side has at least 3 repeats and a two-sided Mann-Whitney U\n"
	"test of their rates gives p < 0.05, with the ratio and its interval (paired\n"
	"by repeat where rows pair); otherwise \"no difference measured\", the p-value\n"
	"and, where p < 0.2, the repeats that would settle it.  Policies that\n"
	"plan the same PUs (the cpus column) are one plan, never ranked against each\n"
	"other; policies come in the sweep's -p order (the policies column).  A verdict\n"
	"on points flagged busy, oversubscribed or unverified says\n"
	"so.  csv and tsv add per cell: cpus (the plan), flags (those words, and\n"
	"superlinear where its speedup is over 1.15x the PUs it had) and best\n"
	"(winner, beaten, no difference measured, or empty where one plan ran);\n"
	"json adds per series same_plan and verdicts (winner null where none; p,\n"
	"ratio_lo, ratio_hi, ratio_paired, settle_repeats).\n"
	"A point is marked busy when one of its rows says the machine was taken\n"
	"away (steal_pct) or other work ran on its PUs (others_pct) for more than\n"
	BUSY_PCT_TEXT " % of the measurement: text and markdown say \"busy\" with the larger\n"
	"figures of its rows, JSON gives each cell \"busy\", \"steal_pct\" and\n"
	"\"others_pct\", csv and tsv the columns steal_pct, others_pct and busy.\n"
	"\n"
	"Latency: where rows carry it (t2accel --latency), a table per series gives\n"
	"per policy and thread count the median over the repeats of each row's p50,\n"
	"p90, p99, p99.9 and max per operation, the rows and the batch (more than 1:\n"
	"batch times / batch); csv and tsv add the columns lat_batch, lat_p50_s,\n"
	"lat_p90_s, lat_p99_s, lat_p999_s and lat_max_s, json a latency object per\n"
	"cell (null without).\n"
	"\n"
	"Counters: where rows were counted (threadrun --counters), the text table adds\n"
	"the medians of the rows' cycles per byte (cyc/B; cyc/op, FLOP/cyc by unit)\n"
	"and IPC, and wkr+% where rows say each worker's (ctr_workers): how far the\n"
	"worker with the highest per-unit figure is above the lowest, the median\n"
	"over the repeats (a strand that shares a core's unit shows here first);\n"
	"each point is compared with the first policy at its thread count.  csv and\n"
	"tsv add cycles_per_byte, cycles_per_op, ipc, flops_per_cycle and\n"
	"worker_spread_pct (empty where n/a), json a counters object per cell.\n"
	"\n"
	"In csv and tsv a text field that begins with = + - @, a tab or a carriage\n"
	"return and is not a number gets a leading ' so that a spreadsheet shows it\n"
	"as text instead of running it as a formula; --raw leaves it out for\n"
	"programs that read the table (threadplot does).  Numbers are never changed.\n"
	"\n"
	"--summary prints the answer first: per workload one table (a row per\n"
	"series, a column per thread count, in each cell speedup/efficiency% of each\n"
	"plan, marked b, o, u, s where busy, oversubscribed, unverified, superlinear:\n"
	"a speedup over 1.15x the PUs it had), then at most 6\n"
	"findings naming their evidence: scales linearly to N (every paired\n"
	"efficiency interval >= 0.95 up to N), efficiency falls below 0.8 from N (every\n"
	"plan's interval below), placement mattered (the best-policy verdict) or made\n"
	"no measured difference, sharing a core's strands costs x% (the sharing\n"
	"verdict), the backend cutoff; never from under 3 repeats or from a\n"
	"Mann-Whitney p >= 0.05.  csv and tsv: one row per cell (series ... threads,\n"
	"plan, policy, n, speedup, speedup_lo, speedup_hi, efficiency, speedup_pairs,\n"
	"flags).\n"
	"\n"
	"--cutoffs prints only the cutoffs.  In csv and tsv its columns are: workload,\n"
	"algorithm, host, unit, backend_a, backend_b (the pair, a before b in byte\n"
	"order), policy, threads, cutoff (the size where one overtakes the other,\n"
	"interpolated on log size; empty when one is faster at every size), size_unit,\n"
	"faster_below, faster_above (the faster backend below and above it, both the\n"
	"same when there is no cutoff), sizes (sizes both measured), min_size, max_size.\n"
	"threadplot marks the size figure with it:\n"
	"  threadreport --raw -f tsv --cutoffs FILE...\n"
	"\n"
	"Cluster measurements: rows of one job (the job column, under mpirun or\n"
	"srun) at the same measurement (series but host, policy, threads, repeat)\n"
	"and different ranks are one measurement, complete when every rank\n"
	"0..ranks-1 is there once (a rank twice or out of range is named on stderr).\n"
	"Its cluster rate is all ranks' work (bytes, ops, or flops by unit) over the\n"
	"longest rank's wall time, shown only when the ranks' windows (t_start,\n"
	"t_end) overlapped at least 90%: (min end - max start) / (max end - min\n"
	"start); otherwise n/a and why.  The sum of per-rank rates is never shown as\n"
	"a throughput.  The cluster section gives the rate per policy x threads x\n"
	"ranks (median and min..max of the repeats), speedup and efficiency against\n"
	"1 rank (n/a without a 1-rank point), and per host the min, median and max\n"
	"of per-rank rates, naming the slowest host.  --cluster prints only it (csv\n"
	"and tsv: series, workload, algorithm, backend, impl, size, size_unit, unit,\n"
	"policy, threads, ranks, n, na (measurements without a rate), rate, min,\n"
	"max, speedup, efficiency, overlap_min, unsynced (rows with start_sync no),\n"
	"reason (why a measurement has no rate), slowest_host); --hosts its per-host\n"
	"rows (the same first 11 columns, then host, n, min, median, max, slowest).\n"
	"threadplot draws the cluster rate against ranks from --cluster.\n"
	"\n"
	"--compare BEFORE.csv AFTER.csv (or --compare-by COL over any files) prints,\n"
	"per workload, algorithm and unit, for every size x policy x threads both\n"
	"sides measured, in the shape of Go's benchstat: each side's median with\n"
	"its 95% interval (order statistics, no normality assumed), the ratio after\n"
	"/ before and its range (after min / before max .. after max / before min),\n"
	"the ratio paired by repeat where both sides ran the same repeats, and the\n"
	"Mann-Whitney U test of the two sides' rates: its p-value and n, and \"~\"\n"
	"where p >= 0.05 (no significant change); a summary line counts the\n"
	"significant changes, the smallest and the largest ratio and where.\n"
	"Configurations measured on one side only are listed.  Host and backend are\n"
	"not part of a configuration unless a side holds several of them, impl\n"
	"unless a side has several for one backend (so evp against pkcs11, a new\n"
	"library, or one host against another compare); versions and notes never\n"
	"are.  In csv and tsv one row per configuration: group, measured (both,\n"
	"before, after), workload, algorithm, unit, size, size_unit, policy,\n"
	"threads, each side's host, backend, impl, n, median, min, max, then ratio,\n"
	"ratio_min, ratio_max, smallest and largest (yes on the group's extreme\n"
	"ratios), and the columns of the test and intervals.  threadplot\n"
	"--compare draws it.  Sides that share no configuration: exit 2.\n"
	"\n"
	"-f html writes the whole report as one page that needs nothing else (no\n"
	"script, no link to anything outside it, the style inline): the summary, an\n"
	"overview of efficiency (series x thread count, a heat map per plan), each\n"
	"series' table (each number's exact value in its cell's data-value), its\n"
	"verdicts and warnings and its speedup figure (inline SVG), then the cluster\n"
	"section and the cutoffs as text, every warning, and the machines and\n"
	"versions the rows name.  It is the report's view only: --cutoffs, --cluster,\n"
	"--hosts and --compare take the other formats.\n"
	"\n"
	"Exit status: 0; 2 usage or unreadable input.\n";

/* What the report says about a series: its title, and its warnings, each
 * with a kind that programs can test (JSON lists them as objects). */
enum { MAX_WARNINGS = 10 };
struct warning {
	const char *kind;
	char text[160];
};

struct facts {
	char title[512];
	struct warning warning[MAX_WARNINGS];
	size_t nwarnings;
	char warnings[1536];    /* the same, joined for people */
};

/* A series as its tables see it (their CTX). */
struct sctx {
	const struct dataset *ds;
	const struct series *s;
	size_t i;
	struct facts f;
	struct verdicts v;
	bool heading; /* text: the header is being written (see spread) */
};

/* A row of the series' tables: one of its cells. */
struct srow {
	const struct sctx *c;
	const struct cell *x;
	size_t ci;
	char flags[64];
};

#define WARN(f, KIND, ...) do { \
		snprintf((f)->warning[(f)->nwarnings].text, sizeof((f)->warning[0].text), __VA_ARGS__); \
		(f)->warning[(f)->nwarnings++].kind = KIND; \
	} while (0)

/* What a series' title says beside its names: what tells its files apart. */
static unsigned title_with(const struct dataset *ds)
{
	return (ds->multi_host ? TITLE_HOST : 0) | (ds->multi_config ? TITLE_CONFIG : 0) |
	       (ds->multi_job ? TITLE_JOB : 0);
}

/* A series' title, and what it says about how far it can be trusted. */
static void series_facts(const struct dataset *ds, const struct series *s, struct facts *f)
{
	size_t used = 0, i, few = 0, wide = 0, over = 0, above = 0;

	series_title(s->key, title_with(ds), f->title, sizeof(f->title));
	f->warnings[0] = '\0';
	f->nwarnings = 0;
	if (s->unverified)
		WARN(f, "unverified", "%zu row%s NOT VERIFIED: %s not to be trusted", s->unverified,
		     s->unverified == 1 ? "" : "s", s->unverified == 1 ? "its rate is" : "their rates are");
	if (s->unchecked)
		WARN(f, "unchecked", "%zu row%s UNCHECKED: a worker's output was never checked", s->unchecked,
		     s->unchecked == 1 ? "" : "s");
	if (s->misplaced)
		WARN(f, "placement", "%zu row%s ran off %s planned PUs (placement not honoured)", s->misplaced,
		     s->misplaced == 1 ? "" : "s", s->misplaced == 1 ? "its" : "their");
	for (i = 0; i < s->ncells; i++) {
		few += s->cells[i].n < 3;
		wide += s->cells[i].median > 0 &&
			(s->cells[i].max - s->cells[i].min) / s->cells[i].median > 0.10;
		over += s->cells[i].oversubscribed;
		above += s->cells[i].superlinear;
	}
	if (over)
		WARN(f, "oversubscribed", "%zu point%s more threads than the %u PU%s (oversubscribed)", over,
		     over == 1 ? " has" : "s have", s->pus, s->pus == 1 ? "" : "s");
	if (s->busy)
		WARN(f, "busy", "%zu point%s measured on a busy machine (steal or other work on %s PUs over %d%%): read %s with care",
		     s->busy, s->busy == 1 ? "" : "s", s->busy == 1 ? "its" : "their", DATASET_BUSY_PCT,
		     s->busy == 1 ? "it" : "them");
	if (few)
		WARN(f, "few_repeats", "%zu point%s fewer than 3 repeats: %s weak", few,
		     few == 1 ? " has" : "s have", few == 1 ? "its median is" : "their medians are");
	if (wide)
		WARN(f, "spread", "%zu point%s over 10%% of %s median (noisy machine?)", wide,
		     wide == 1 ? " spreads" : "s spread", wide == 1 ? "its" : "their");
	if (above)
		WARN(f, "superlinear", "%zu point%s above linear (speedup over %.2fx the PUs %s had): a slow 1-thread point (noise) or caches adding up, not the units",
		     above, above == 1 ? " scales" : "s scale", DATASET_SUPERLINEAR, above == 1 ? "it" : "they");
	if (s->drifted)
		WARN(f, "drift", "the machine's speed changed by %+.0f%% over the sweep's %.*f %s (Kendall tau %.2f within points, p %.2g)",
		     100 * s->drift, s->drift_span_s >= 120 ? 0 : 1,
		     s->drift_span_s >= 120 ? s->drift_span_s / 60 : s->drift_span_s,
		     s->drift_span_s >= 120 ? "minutes" : "s", s->drift_tau, s->drift_p);
	if (s->no_one_thread)
		WARN(f, "no_one_thread", "no 1-thread point for some policy: no speedup or efficiency for it (n/a)");
	for (i = 0; i < f->nwarnings && used < sizeof(f->warnings); i++)
		used += (size_t)snprintf(f->warnings + used, sizeof(f->warnings) - used, "%s%s",
					 i ? "; " : "", f->warning[i].text);
}

/* Series I of DS into C: its facts and verdicts (series_close frees). */
static int series_open(struct sctx *c, const struct dataset *ds, size_t i)
{
	*c = (struct sctx){ ds, &ds->series[i], i };
	series_facts(ds, c->s, &c->f);
	if (series_verdicts(c->s, &c->v) < 0) {
		verdicts_free(&c->v);
		return -1;
	}
	return 0;
}

static void series_close(struct sctx *c)
{
	verdicts_free(&c->v);
}

/* Each cell of C as a row of T; LATENCY: only those whose rows carry it. */
static void series_rows(const struct table *t, const struct sctx *c, bool latency)
{
	struct srow r = { c };

	for (r.ci = 0; r.ci < c->s->ncells; r.ci++) {
		r.x = &c->s->cells[r.ci];
		if (latency && !r.x->lat_rows)
			continue;
		flags_text(cell_marks(r.x), " ", r.flags, sizeof(r.flags));
		table_row(t, &r);
	}
}

/* threadrun --counters: the per-unit figure of a series (cycles per byte
 * for bytes/s, per operation for ops/s, FLOPs per cycle for MFLOPS) and
 * its name; NULL when the unit has none. */
static const char *counter_figure(const struct series *s, const struct cell *c, double *v)
{
	static const size_t at[UNIT_COUNT] = {
		[UNIT_BYTES_S] = offsetof(struct cell, cycles_per_byte),
		[UNIT_OPS_S] = offsetof(struct cell, cycles_per_op),
		[UNIT_SIGN_S] = offsetof(struct cell, cycles_per_op),
		[UNIT_VERIFY_S] = offsetof(struct cell, cycles_per_op),
		[UNIT_DERIVE_S] = offsetof(struct cell, cycles_per_op),
		[UNIT_MFLOPS] = offsetof(struct cell, flops_per_cycle),
	};
	const struct unit_props *u = unit_find(s->key->unit);

	*v = NAN;
	if (!u || !u->per_cycle)
		return NULL;
	if (c)
		*v = *(const double *)((const char *)c + at[u - units]);
	return u->per_cycle;
}

#define ROW(name, expr) COLUMN_GET(name, struct srow, expr)
ROW(get_title, VAL_S(r->c->f.title))
ROW(get_series, VAL_I(r->c->i))
ROW(get_host, VAL_S(r->c->s->key->host))
ROW(get_workload, VAL_S(r->c->s->key->workload))
ROW(get_algorithm, VAL_S(r->c->s->key->algorithm))
ROW(get_backend, VAL_S(r->c->s->key->backend))
ROW(get_impl, VAL_S(r->c->s->key->impl))
ROW(get_size, VAL_N(r->c->s->key->size))
ROW(get_size_unit, VAL_S(r->c->s->key->size_unit))
ROW(get_unit, VAL_S(r->c->s->key->unit))
ROW(get_cores, VAL_I(r->c->s->cores))
ROW(get_pus, VAL_I(r->c->s->pus))
ROW(get_policy, VAL_S(r->x->policy))
ROW(get_threads, VAL_I(r->x->threads))
ROW(get_n, VAL_I(r->x->n))
ROW(get_median, VAL_N(r->x->median))
ROW(get_min, VAL_N(r->x->min))
ROW(get_max, VAL_N(r->x->max))
ROW(get_speedup, VAL_N(r->x->speedup))
ROW(get_speedup_of_medians, VAL_N(r->x->speedup_of_medians))
ROW(get_speedup_lo, VAL_N(r->x->speedup_lo))
ROW(get_speedup_hi, VAL_N(r->x->speedup_hi))
ROW(get_pairs, VAL_I(r->x->pairs))
ROW(get_median_lo, VAL_N(r->x->median_lo))
ROW(get_median_hi, VAL_N(r->x->median_hi))
ROW(get_ci_coverage, VAL_N(r->x->ci_coverage))
ROW(get_efficiency, VAL_N(r->x->efficiency))
ROW(get_oversubscribed, VAL_B(r->x->oversubscribed))
ROW(get_cpus, VAL_S(r->x->cpus ? r->x->cpus : ""))
ROW(get_flags, VAL_W(r->flags))
ROW(get_best, VAL_W(cell_verdict(&r->c->v, r->ci)))
ROW(get_steal, VAL_N(r->x->load_steal))
ROW(get_others, VAL_N(r->x->load_others))
ROW(get_busy, VAL_B(r->x->busy))
/* The series' drift over its sweep where it is beyond noise (the warning's). */
ROW(get_drift, VAL_N(r->c->s->drifted ? 100 * r->c->s->drift : NAN))
/* Latency: the medians of the rows that carry it. */
ROW(get_lat_rows, VAL_I(r->x->lat_rows))
ROW(get_lat_batch, VAL_N(r->x->lat_rows ? r->x->lat_batch : NAN))
ROW(get_p50, VAL_N(r->x->lat_rows ? r->x->lat[0] : NAN))
ROW(get_p90, VAL_N(r->x->lat_rows ? r->x->lat[1] : NAN))
ROW(get_p99, VAL_N(r->x->lat_rows ? r->x->lat[2] : NAN))
ROW(get_p999, VAL_N(r->x->lat_rows ? r->x->lat[3] : NAN))
ROW(get_lat_max, VAL_N(r->x->lat_rows ? r->x->lat[4] : NAN))
/* Counters: the rows' medians, where rows were counted. */
ROW(get_counted, VAL_I(r->x->counted))
ROW(get_cpb, VAL_N(r->x->counted ? r->x->cycles_per_byte : NAN))
ROW(get_cpo, VAL_N(r->x->counted ? r->x->cycles_per_op : NAN))
ROW(get_ipc, VAL_N(r->x->counted ? r->x->ipc : NAN))
ROW(get_fpc, VAL_N(r->x->counted ? r->x->flops_per_cycle : NAN))
ROW(get_spread, VAL_N(r->x->counted ? r->x->worker_spread : NAN))

/* What text shows of a cell (R) where the value is not enough. */
#define TEXT(name, expr) \
	static const char *name(const void *row, const void *ctx, char *buf, size_t len) \
	{ \
		const struct srow *r = row; \
		(void)ctx; \
		return expr; \
	}

/* F of V, or "-" where the rows did not say. */
static const char *or_dash(char *buf, size_t len, const char *f, double v, bool have)
{
	if (!have)
		return "-";
	snprintf(buf, len, f, v);
	return buf;
}

/* "31.2 ns", "2.35 µs", "1.20 ms", "1.50 s", or "-". */
static const char *lat_text(double v, char *buf, size_t len)
{
	return isfinite(v) ? units_human(buf, len, v, UNITS_SECONDS) : "-";
}

/* "busy (steal 1.2%, others 47%)" for a busy cell, "" otherwise. */
static const char *busy_text(const struct cell *x, char *buf, size_t len)
{
	char st[16], ot[16];

	buf[0] = '\0';
	if (x->busy)
		snprintf(buf, len, "busy (steal %s, others %s)",
			 or_dash(st, sizeof(st), "%.1f%%", x->load_steal, isfinite(x->load_steal)),
			 or_dash(ot, sizeof(ot), "%.1f%%", x->load_others, isfinite(x->load_others)));
	return buf;
}

static const char *note(const struct srow *r, char *buf, size_t len, bool md)
{
	char busy[64];

	busy_text(r->x, busy, sizeof(busy));
	if (md)
		snprintf(buf, len, "%s%s%s", r->x->oversubscribed ? "oversubscribed" : "",
			 r->x->oversubscribed && r->x->busy ? "; " : "", busy);
	else
		snprintf(buf, len, "%s%s%s", r->x->oversubscribed ? "  (oversubscribed)" : "",
			 r->x->busy ? "  " : "", busy);
	return buf;
}

/* A counted figure: "-" where the cell was not counted, "n/a" where its
 * rows had none. */
static const char *counted_text(const struct srow *r, double v, char *buf, size_t len)
{
	if (!r->x->counted)
		return "-";
	if (isnan(v))
		return "n/a";
	snprintf(buf, len, "%.4g", v);
	return buf;
}

static double figure(const struct srow *r)
{
	double v;

	counter_figure(r->c->s, r->x, &v);
	return v;
}

TEXT(median_ci_text, rate_range_text(r->x->median_lo, r->x->median_hi, r->c->s->key->unit, buf, len))
TEXT(migr_text, or_dash(buf, len, "%.0f", r->x->migrations, r->x->monitored))
TEXT(offplan_text, or_dash(buf, len, "%.0f", r->x->off_plan, r->x->monitored))
TEXT(steal_text, or_dash(buf, len, "%.1f", r->x->steal_pct, r->x->monitored))
TEXT(sys_text, or_dash(buf, len, "%.1f", r->x->sys_share, r->x->monitored))
TEXT(fig_text, counted_text(r, figure(r), buf, len))
TEXT(ipc_text, counted_text(r, r->x->ipc, buf, len))
TEXT(spread_text, or_dash(buf, len, "%.1f", r->x->worker_spread, !isnan(r->x->worker_spread)))
TEXT(note_text, note(r, buf, len, false))
TEXT(md_note_text, note(r, buf, len, true))
TEXT(p50_text, lat_text(r->x->lat[0], buf, len))
TEXT(p90_text, lat_text(r->x->lat[1], buf, len))
TEXT(p99_text, lat_text(r->x->lat[2], buf, len))
TEXT(p999_text, lat_text(r->x->lat[3], buf, len))
TEXT(lat_max_text, lat_text(r->x->lat[4], buf, len))
TEXT(batch_text, or_dash(buf, len, "%.10g", isfinite(r->x->lat_batch) ? r->x->lat_batch : 1, true))

/* Which columns a series' text table has. */
#define SHOWN(name, expr) \
	static bool name(const void *ctx) \
	{ \
		const struct series *s = ((const struct sctx *)ctx)->s; \
		return expr; \
	}
SHOWN(monitored, s->monitored)
SHOWN(counted, s->counted)

/* The counted figure's head: the unit's ("cyc/B"), "-" where it has none. */
static const char *figure_head(const void *ctx)
{
	const struct unit_props *u = unit_find(((const struct sctx *)ctx)->s->key->unit);

	return u && u->per_cycle_head ? u->per_cycle_head : "-";
}
/* wkr+% heads the table wherever a cell has it; rows have it where counted. */
SHOWN(spread, s->spread && (s->counted || ((const struct sctx *)ctx)->heading))

static void put_flags(struct json *j, const void *row, const void *ctx)
{
	(void)ctx;
	json_flags(j, cell_marks(((const struct srow *)row)->x));
}

#define CSV (IN(FMT_CSV) | IN(FMT_TSV))
/* What a series measured, and in what. */
#define NAME_COLUMNS(in_) \
	{ "workload", .in = in_, .get = get_workload }, { "algorithm", .in = in_, .get = get_algorithm }, \
	{ "backend", .in = in_, .get = get_backend }, { "impl", .in = in_, .get = get_impl }
#define SIZE_COLUMNS(in_) \
	{ "size", .in = in_, .get = get_size }, { "size_unit", .in = in_, .get = get_size_unit }, \
	{ "unit", .in = in_, .get = get_unit }
#define LAT_COLUMNS(in_) \
	{ "lat_p50_s", "p50", 10, .in = in_, .digits = 6, .get = get_p50, .text = p50_text }, \
	{ "lat_p90_s", "p90", 10, .in = in_, .digits = 6, .get = get_p90, .text = p90_text }, \
	{ "lat_p99_s", "p99", 10, .in = in_, .digits = 6, .get = get_p99, .text = p99_text }, \
	{ "lat_p999_s", "p99.9", 10, .in = in_, .digits = 6, .get = get_p999, .text = p999_text }, \
	{ "lat_max_s", "max", 10, .in = in_, .digits = 6, .get = get_lat_max, .text = lat_max_text }
#define COUNTER_COLUMNS(in_) \
	{ "cycles_per_byte", .in = in_, .digits = 6, .get = get_cpb }, \
	{ "cycles_per_op", .in = in_, .digits = 6, .get = get_cpo }, \
	{ "ipc", .in = in_, .digits = 6, .get = get_ipc }, \
	{ "flops_per_cycle", .in = in_, .digits = 6, .get = get_fpc }, \
	{ "worker_spread_pct", .in = in_, .digits = 6, .get = get_spread }

/* The latency table of text and markdown, and a cell's "latency" in json. */
static const struct column lat_cols[] = {
	{ NULL, "policy", -14, .left = true, .lead = "  ", .as_is = true, .get = get_policy },
	{ NULL, "threads", 7, .get = get_threads },
	{ "rows", .get = get_lat_rows },
	{ "lat_batch", .get = get_lat_batch },
	LAT_COLUMNS(0),
	{ NULL, "n", 3, .get = get_lat_rows },
	{ NULL, "batch", 7, .text = batch_text },
};

/* A cell's "counters" in json: its figures (null each where n/a). */
static const struct column counter_cols[] = {
	{ "rows", .get = get_counted }, COUNTER_COLUMNS(0),
};

/* A cell's object of COLS, or null where its rows had none. */
#define PUT_OBJECT(name, cols, have) \
	static void name(struct json *j, const void *row, const void *ctx) \
	{ \
		struct table t = { j->out, FMT_JSON, false, cols, NCOLS(cols), ctx, j }; \
		if (((const struct srow *)row)->x->have) \
			table_row(&t, row); \
		else \
			json_null(j); \
	}
PUT_OBJECT(put_latency, lat_cols, lat_rows)
PUT_OBJECT(put_counters, counter_cols, counted)

/* Columns of text and html, too wide for markdown. */
#define WIDE (IN(FMT_TEXT) | IN(FMT_HTML))

/* A cell: the main table of every format (json: a series' "cells"). */
static const struct column cell_cols[] = {
	{ "series", .in = CSV, .get = get_series }, { "host", .in = CSV, .get = get_host },
	NAME_COLUMNS(CSV),
	SIZE_COLUMNS(CSV),
	{ "policy", "policy", -16, .left = true, .get = get_policy },
	{ "threads", "threads", 7, .get = get_threads },
	{ "n", .get = get_n },
	{ "median", "median", 14, .show = SHOW_RATE, .get = get_median },
	{ "min", "min", 14, .show = SHOW_RATE, .get = get_min },
	{ "max", "max", 14, .show = SHOW_RATE, .get = get_max },
	{ NULL, "n", 3, .get = get_n },
	{ "speedup", "speedup", 8, .digits = 6, .show = SHOW_RATIO, .get = get_speedup },
	{ "efficiency", "efficiency", 10, .digits = 6, .show = SHOW_RATIO, .get = get_efficiency },
	{ NULL, "migr", 6, .lead = "  ", .in = WIDE, .text = migr_text, .shown = monitored },
	{ NULL, "offplan", 7, .in = WIDE, .text = offplan_text, .shown = monitored },
	{ NULL, "steal%", 6, .in = WIDE, .text = steal_text, .shown = monitored },
	{ NULL, "sys%", 5, .in = WIDE, .text = sys_text, .shown = monitored },
	{ NULL, "-", 9, .lead = "  ", .in = WIDE, .text = fig_text, .shown = counted, .heading = figure_head },
	{ NULL, "IPC", 6, .in = WIDE, .text = ipc_text, .shown = counted },
	{ NULL, "wkr+%", 7, .in = WIDE, .text = spread_text, .shown = spread },
	{ NULL, "median 95% CI", 17, .in = IN_HUMAN, .show = SHOW_RATE, .rate_more = 7, .text = median_ci_text },
	{ NULL, "", .lead = "", .in = IN(FMT_TEXT), .text = note_text },
	{ NULL, "note", .left = true, .in = IN(FMT_MARKDOWN) | IN(FMT_HTML), .text = md_note_text },
	{ "oversubscribed", .get = get_oversubscribed },
	{ "cores", .in = CSV, .get = get_cores }, { "pus", .in = CSV, .get = get_pus },
	{ "cpus", .get = get_cpus },
	{ "flags", .get = get_flags, .put = put_flags },
	{ "best", .in = CSV, .get = get_best },
	{ "steal_pct", .digits = 6, .get = get_steal }, { "others_pct", .digits = 6, .get = get_others },
	{ "busy", .get = get_busy },
	{ "lat_batch", .in = CSV, .get = get_lat_batch },
	LAT_COLUMNS(CSV),
	{ "latency", .in = IN(FMT_JSON), .put = put_latency },
	COUNTER_COLUMNS(CSV),
	{ "counters", .in = IN(FMT_JSON), .put = put_counters },
	/* New columns go last: readers of csv and tsv by position keep theirs. */
	{ "median_lo", .in = IN_DATA, .get = get_median_lo },
	{ "median_hi", .in = IN_DATA, .get = get_median_hi },
	{ "ci_coverage", .in = IN_DATA, .digits = 6, .get = get_ci_coverage },
	{ "speedup_of_medians", .in = IN_DATA, .digits = 6, .get = get_speedup_of_medians },
	{ "speedup_lo", .in = IN_DATA, .digits = 6, .get = get_speedup_lo },
	{ "speedup_hi", .in = IN_DATA, .digits = 6, .get = get_speedup_hi },
	{ "speedup_pairs", .in = IN_DATA, .get = get_pairs },
	{ "drift_pct", .in = IN_DATA, .digits = 3, .get = get_drift },
};

/* A series in json, before its cells. */
static const struct column series_cols[] = {
	{ "title", .get = get_title }, NAME_COLUMNS(0), { "host", .get = get_host }, SIZE_COLUMNS(0),
	{ "cores", .get = get_cores }, { "pus", .get = get_pus },
};

/* The policies of plan G at thread count TV, joined by " = ". */
static void plan_name(FILE *out, const struct verdicts *v, const struct tverdict *tv, size_t g, bool md)
{
	bool first = true;

	for (size_t i = tv->first; i < tv->end; i++)
		if (v->group[v->order[i]] == g) {
			fprintf(out, "%s%s", first ? "" : " = ", ESC_MD(v->s->cells[v->order[i]].policy, md));
			first = false;
		}
}

static void print_flags(FILE *out, unsigned flags)
{
	char text[64];

	if (!flags)
		return;
	flags_text(flags, ", ", text, sizeof(text));
	fprintf(out, " [on flagged points: %s]", text);
}

/* The policy after Q that plans the same PUs as P (the first of its plan)
 * wherever both ran, or npolicies. */
static size_t same_next(const struct sctx *c, size_t p, size_t q)
{
	while (++q < c->s->npolicies && !(c->v.same[p] == p && c->v.same[q] == p))
		;
	return q;
}

/* "same plan": policies planning the same PUs, never ranked. */
static void print_same_plan(FILE *out, const struct sctx *c, const char *bullet)
{
	const struct series *s = c->s;
	bool md = *bullet == '-';

	for (size_t p = 0, q; p < s->npolicies; p++) {
		if ((q = same_next(c, p, p)) == s->npolicies)
			continue;
		fprintf(out, "%ssame plan: %s", bullet, ESC_MD(s->policies[p], md));
		for (; q < s->npolicies; q = same_next(c, p, q))
			fprintf(out, " = %s", ESC_MD(s->policies[q], md));
		fputs(" (the same PUs at every thread count both ran: one plan, not ranked)\n", out);
	}
}

/* The best policy at one thread count: a winner only where the
 * Mann-Whitney test says so; the ratio to the worst plan and its interval
 * either way. */
static void print_best_at(FILE *out, const struct verdicts *v, const struct tverdict *tv, bool md)
{
	char why[128], ci[64];

	fprintf(out, " %u: ", tv->threads);
	if (tv->ngroups < 2) {
		plan_name(out, v, tv, 0, md);
		fputs(tv->end - tv->first > 1 ? " (one plan)" : " (alone)", out);
	} else if (tv->v == VERDICT_WINNER) {
		plan_name(out, v, tv, tv->best, md);
		/* A worst median of 0 has no ratio. */
		if (isfinite(tv->ratio))
			fprintf(out, " (%.2fx ", tv->ratio);
		else
			fputs(" (no ratio to ", out);
		plan_name(out, v, tv, tv->worst, md);
		vtest_interval_text(&tv->test, ci, sizeof(ci));
		fprintf(out, "%s%s; Mann-Whitney p %.3f)", *ci ? ", " : "", ci, tv->test.p);
	} else {
		verdict_why(tv->v, &tv->test, why, sizeof(why));
		fprintf(out, "no difference measured (%s", why);
		vtest_interval_text(&tv->test, ci, sizeof(ci));
		if (tv->v == VERDICT_NOT_SIGNIFICANT && isfinite(tv->ratio)) {
			fputs("; ", out);
			plan_name(out, v, tv, tv->best, md);
			fprintf(out, " %.2fx ", tv->ratio);
			plan_name(out, v, tv, tv->worst, md);
			fprintf(out, "%s%s", *ci ? ", " : "", ci);
		}
		fputc(')', out);
	}
	if (tv->ngroups >= 2)
		print_flags(out, tv->flags);
	if (tv->disagree)
		fputs(" [one plan, rates apart beyond their spread: the machine changed, not the placement]", out);
}

/* "same plan", "best policy" and "sharing penalty" lines, for text and
 * markdown. */
static void print_comparisons(FILE *out, const struct sctx *c, const char *bullet)
{
	const struct verdicts *v = &c->v;
	char why[128], ci[64];
	size_t i;

	print_same_plan(out, c, bullet);
	if (c->s->npolicies > 1) {
		fprintf(out, "%sbest policy per thread count:", bullet);
		for (i = 0; i < v->nt; i++) {
			print_best_at(out, v, &v->t[i], *bullet == '-');
			fputs(i + 1 < v->nt ? ";" : "", out);
		}
		fputc('\n', out);
	}
	for (i = 0; i < v->nshare; i++) {
		const struct share *x = &v->share[i];

		if (!i || x->ck->policy != v->share[i - 1].ck->policy)
			fprintf(out, "%ssharing penalty, per-worker rate %s / c1:", bullet,
				ESC_MD(x->ck->policy, *bullet == '-'));
		vtest_interval_text(&x->test, ci, sizeof(ci));
		verdict_why(x->v, &x->test, why, sizeof(why));
		fprintf(out, " %u threads %.2f", x->ck->threads, x->test.ratio);
		if (x->v != VERDICT_WINNER)
			fprintf(out, " (no difference measured: %s%s%s)", why, *ci ? "; " : "", ci);
		else
			fprintf(out, " (%s, Mann-Whitney p %.3f)", ci, x->test.p);
		print_flags(out, cell_flags(x->c1) | cell_flags(x->ck));
		fputc(';', out);
		if (i + 1 == v->nshare || v->share[i + 1].ck->policy != x->ck->policy)
			fputs(" (1.00 = no contention; 0.50 = strands share one unit)\n", out);
	}
}

static void print_usl(FILE *out, const struct series *s, const char *bullet)
{
	struct usl_fit fit;
	char peak[64];

	for (size_t p = 0; p < s->npolicies; p++) {
		series_usl(s, s->policies[p], &fit);
		if (!fit.ok)
			continue;
		if (isfinite(fit.n_peak))
			snprintf(peak, sizeof(peak), "throughput peaks at N = %.1f", fit.n_peak);
		else
			snprintf(peak, sizeof(peak), "no peak (k = 0)");
		fprintf(out, "%sUSL fit, %s: contention s = %.4f, coherency k = %.6f, %s, rms error %.1f%%%s\n",
			bullet, ESC_MD(s->policies[p], *bullet == '-'), fit.s, fit.k, peak, 100 * fit.rms_error,
			fit.poor ? " -- poor fit, read with care" : "");
	}
}

/* The latency section of a series whose rows carry it: per policy and
 * threads, the median of the repeats' percentiles. */
static void print_latency(FILE *out, const struct sctx *c, bool md)
{
	struct table t = { out, md ? FMT_MARKDOWN : FMT_TEXT, false, lat_cols, NCOLS(lat_cols), c, NULL };

	if (!c->s->latency)
		return;
	fprintf(out, md ? "Latency per operation (median of the repeats' percentiles; batch > 1: each batch's time / batch):\n\n"
			: "  latency per operation (median of the repeats' percentiles; batch > 1: each batch's time / batch)\n");
	table_head(&t);
	series_rows(&t, c, true);
	if (md)
		fputc('\n', out);
}

/*
 * The counted figures per placement: at each thread count, every policy
 * against the first one (in the table's order) that has the figure:
 * "at 2 threads: c2 vs c1: cycles per byte +38%, IPC -20%".  Where no cell
 * has one (no cycles were counted: a machine without a PMU), one line says
 * they are n/a and why.
 */
static void print_counter_changes(FILE *out, const struct series *s, const char *bullet)
{
	const char *name;
	double v, bv;
	size_t a, b;
	bool any = false;

	if (!s->counted)
		return;
	for (a = 0; a < s->ncells; a++) {
		const struct cell *x = &s->cells[a], *base = NULL;

		name = counter_figure(s, x, &v);
		if (isnan(v) && isnan(x->ipc))
			continue;
		/* The first policy with the figure at this thread count. */
		for (b = 0; b < s->ncells && !base; b++) {
			double w;

			counter_figure(s, &s->cells[b], &w);
			if (s->cells[b].threads == x->threads && (!isnan(w) || !isnan(s->cells[b].ipc)))
				base = &s->cells[b];
		}
		any = true;
		if (base == x)
			continue;
		counter_figure(s, base, &bv);
		fprintf(out, "%sat %u thread%s: %s vs %s:", bullet, x->threads, x->threads == 1 ? "" : "s",
			ESC_MD(x->policy, *bullet == '-'), ESC_MD(base->policy, *bullet == '-'));
		if (name && !isnan(v) && !isnan(bv))
			fprintf(out, " %s %+.0f%%", name, counts_change_pct(bv, v));
		if (!isnan(x->ipc) && !isnan(base->ipc))
			fprintf(out, "%s IPC %+.0f%%", name && !isnan(v) && !isnan(bv) ? "," : "",
				counts_change_pct(base->ipc, x->ipc));
		fputc('\n', out);
	}
	if (!any) {
		name = counter_figure(s, NULL, &v);
		fprintf(out, "%scounters: %s%sIPC n/a (no cycles counted where these ran: no hardware PMU, a virtual machine?)\n",
			bullet, name ? name : "", name ? " and " : "");
	}
}

/* A series' title for people: the config only where it changes, not again
 * in each series of one run. */
static const char *text_title(const struct sctx *c, char *buf, size_t len)
{
	const struct series *prev = c->i ? &c->ds->series[c->i - 1] : NULL;

	if (!prev || strcmp(prev->key->config, c->s->key->config))
		return c->f.title;
	return series_title(c->s->key, title_with(c->ds) & ~TITLE_CONFIG, buf, len);
}

/* A series for people: its title, its table, then what it says. */
static void text_series(FILE *out, struct sctx *c, bool md)
{
	struct table t = { out, md ? FMT_MARKDOWN : FMT_TEXT, false, cell_cols, NCOLS(cell_cols), c, NULL,
			   c->s->key->unit };
	const char *bullet = md ? "- " : "  ";
	char title[sizeof(c->f.title)];

	fputs(md ? "### " : "== ", out);
	if (md)
		md_cell(out, text_title(c, title, sizeof(title)));
	else
		fputs(text_title(c, title, sizeof(title)), out);
	fputs(md ? "\n\n" : "\n", out);
	if (*c->s->key->impl)
		fprintf(out, md ? "Implementation: %s\n\n" : "   %s\n", ESC_MD(c->s->key->impl, md));
	c->heading = true;
	table_head(&t);
	c->heading = false;
	series_rows(&t, c, false);
	if (md)
		fputc('\n', out);
	fprintf(out, "%sspeedup: the median over the repeats of each repeat's ratio to its 1-thread rate (paired)%s; "
		"95%% CI of the median from order statistics (up to 5 repeats: min..max, covering less)\n", bullet,
		c->s->unpaired ? ", or where no repeat pairs the ratio of medians" : "");
	print_latency(out, c, md);
	print_comparisons(out, c, bullet);
	print_usl(out, c->s, bullet);
	print_counter_changes(out, c->s, bullet);
	if (c->f.warnings[0])
		fprintf(out, "%swarning: %s\n", bullet, c->f.warnings);
	fputc('\n', out);
}

/* A plan's policies as a JSON list (null where G is none). */
static void json_plan(struct json *j, const struct verdicts *v, const struct tverdict *tv, size_t g)
{
	if (g == SIZE_MAX) {
		json_null(j);
		return;
	}
	json_open(j, '[');
	for (size_t i = tv->first; i < tv->end; i++)
		if (v->group[v->order[i]] == g)
			json_string(j, v->s->cells[v->order[i]].policy);
	json_close(j, '[');
}

/* A verdict's test (null where none ran): p, the ratio's interval and
 * whether it is paired, the repeats a side that would settle it. */
static void json_test(struct json *j, const struct vtest *t)
{
	const struct vtest none = { NAN, NAN, NAN, NAN, false, 0 };

	t = t ? t : &none;
	json_field(j, "p", VAL_N(t->p));
	json_field(j, "ratio_lo", VAL_N(t->lo));
	json_field(j, "ratio_hi", VAL_N(t->hi));
	json_field(j, "ratio_paired", VAL_B(t->paired));
	json_field(j, "settle_repeats", t->settle ? VAL_I(t->settle) : VAL_NULL);
}

/* A best-policy verdict at one thread count: the plans, and a winner or
 * null. */
static void json_verdict(struct json *j, const struct verdicts *v, const struct tverdict *tv)
{
	bool win = tv->ngroups >= 2 && tv->v == VERDICT_WINNER;

	json_open(j, '{');
	json_field(j, "threads", VAL_I(tv->threads));
	json_open_key(j, "plans", '[');
	for (size_t g = 0; g < tv->ngroups; g++)
		json_plan(j, v, tv, g);
	json_close(j, '[');
	json_field(j, "verdict", VAL_W(tv->ngroups < 2 ? "one plan" : win ? "winner" : "no difference measured"));
	json_field(j, "reason", tv->ngroups >= 2 && !win ? VAL_W(verdict_text(tv->v)) : VAL_NULL);
	json_test(j, tv->ngroups >= 2 ? &tv->test : NULL);
	json_key(j, "winner");
	json_plan(j, v, tv, win ? tv->best : SIZE_MAX);
	json_key(j, "against");
	json_plan(j, v, tv, win ? tv->worst : SIZE_MAX);
	json_field(j, "ratio", VAL_N(tv->ngroups >= 2 && !isnan(tv->test.p) ? tv->ratio : NAN));
	json_key(j, "flags");
	json_flags(j, tv->ngroups >= 2 ? tv->flags : 0);
	json_field(j, "plan_disagrees", VAL_B(tv->disagree));
	json_close(j, '{');
}

/* The sharing penalty cK / c1, with its verdict. */
static void json_share(struct json *j, const struct share *x)
{
	json_open(j, '{');
	json_field(j, "policy", VAL_S(x->ck->policy));
	json_field(j, "threads", VAL_I(x->ck->threads));
	json_field(j, "ratio", VAL_N(x->test.ratio));
	json_field(j, "verdict", VAL_W(x->v == VERDICT_WINNER ? "difference" : "no difference measured"));
	json_field(j, "reason", x->v == VERDICT_WINNER ? VAL_NULL : VAL_W(verdict_text(x->v)));
	json_test(j, &x->test);
	json_key(j, "flags");
	json_flags(j, cell_flags(x->c1) | cell_flags(x->ck));
	json_close(j, '{');
}

static void json_usl(struct json *j, const struct series *s)
{
	struct usl_fit fit;

	json_open_key(j, "usl", '[');
	for (size_t p = 0; p < s->npolicies; p++) {
		series_usl(s, s->policies[p], &fit);
		if (!fit.ok)
			continue;
		json_open(j, '{');
		json_field(j, "policy", VAL_S(s->policies[p]));
		json_field(j, "s", VAL_N(fit.s));
		json_field(j, "k", VAL_N(fit.k));
		json_field(j, "n_peak", VAL_N(fit.n_peak));
		json_field(j, "rms_error", VAL_N(fit.rms_error));
		json_field(j, "poor", VAL_B(fit.poor));
		json_close(j, '{');
	}
	json_close(j, '[');
}

/* Warnings as objects: their kind (for programs), their text. */
static void json_warnings(struct json *j, const struct warning *w, size_t n)
{
	json_open_key(j, "warnings", '[');
	for (size_t i = 0; i < n; i++) {
		json_open(j, '{');
		json_field(j, "kind", VAL_S(w[i].kind));
		json_field(j, "text", VAL_S(w[i].text));
		json_close(j, '{');
	}
	json_close(j, '[');
}

/* "same_plan": lists of policies planning the same PUs wherever both ran. */
static void json_same_plan(struct json *j, const struct sctx *c)
{
	const struct series *s = c->s;

	json_open_key(j, "same_plan", '[');
	for (size_t p = 0, q; p < s->npolicies; p++) {
		if ((q = same_next(c, p, p)) == s->npolicies)
			continue;
		json_open(j, '[');
		json_string(j, s->policies[p]);
		for (; q < s->npolicies; q = same_next(c, p, q))
			json_string(j, s->policies[q]);
		json_close(j, '[');
	}
	json_close(j, '[');
}

/* A series in json: its names, its cells, what it says. */
static void json_series(struct json *j, const struct sctx *c)
{
	struct table cells = { j->out, FMT_JSON, false, cell_cols, NCOLS(cell_cols), c, j };
	struct table head = { j->out, FMT_JSON, false, series_cols, NCOLS(series_cols), c, j };
	struct srow r = { c };
	size_t i;

	json_nl(j);
	json_open(j, '{');
	table_fields(&head, &r);
	json_open_key(j, "cells", '[');
	series_rows(&cells, c, false);
	json_close(j, '[');
	json_same_plan(j, c);
	json_open_key(j, "verdicts", '[');
	for (i = 0; i < c->v.nt; i++)
		json_verdict(j, &c->v, &c->v.t[i]);
	json_close(j, '[');
	json_open_key(j, "sharing", '[');
	for (i = 0; i < c->v.nshare; i++)
		json_share(j, &c->v.share[i]);
	json_close(j, '[');
	json_usl(j, c->s);
	json_warnings(j, c->f.warning, c->f.nwarnings);
	json_close(j, '{');
}

/* A cutoff between backends a and b at a policy and thread count. */
struct cut_row {
	const struct obs *ka, *kb;
	const struct cell *x;
	const struct cutoff *y;
	const char *faster, *below, *above;
};

COLUMN_GET(get_c_workload, struct cut_row, VAL_S(r->ka->workload))
COLUMN_GET(get_c_algorithm, struct cut_row, VAL_S(r->ka->algorithm))
COLUMN_GET(get_c_host, struct cut_row, VAL_S(r->ka->host))
COLUMN_GET(get_c_unit, struct cut_row, VAL_S(r->ka->unit))
COLUMN_GET(get_c_backend_a, struct cut_row, VAL_S(r->ka->backend))
COLUMN_GET(get_c_backend_b, struct cut_row, VAL_S(r->kb->backend))
COLUMN_GET(get_c_policy, struct cut_row, VAL_S(r->x->policy))
COLUMN_GET(get_c_threads, struct cut_row, VAL_I(r->x->threads))
COLUMN_GET(get_c_cutoff, struct cut_row, VAL_N(r->y->found ? r->y->cut : NAN))
COLUMN_GET(get_c_size_unit, struct cut_row, VAL_S(r->ka->size_unit))
COLUMN_GET(get_c_below, struct cut_row, VAL_S(r->below))
COLUMN_GET(get_c_above, struct cut_row, VAL_S(r->above))
COLUMN_GET(get_c_sizes, struct cut_row, VAL_I(r->y->sizes))
COLUMN_GET(get_c_min_size, struct cut_row, VAL_N(r->y->min_size))
COLUMN_GET(get_c_max_size, struct cut_row, VAL_N(r->y->max_size))

/* --cutoffs in csv and tsv (one row per backend pair, policy and thread
 * count), and the report's "cutoffs" in json. */
static const struct column cutoff_cols[] = {
	{ "workload", .get = get_c_workload }, { "algorithm", .get = get_c_algorithm },
	{ "host", .get = get_c_host }, { "unit", .in = CSV, .get = get_c_unit },
	{ "backend_a", .get = get_c_backend_a }, { "backend_b", .get = get_c_backend_b },
	{ "policy", .get = get_c_policy }, { "threads", .get = get_c_threads },
	{ "winner_above", .in = IN(FMT_JSON), .get = get_c_above }, { "cutoff", .get = get_c_cutoff },
	{ "size_unit", .get = get_c_size_unit }, { "unit", .in = IN(FMT_JSON), .get = get_c_unit },
	{ "faster_below", .in = CSV, .get = get_c_below }, { "faster_above", .in = CSV, .get = get_c_above },
	{ "sizes", .get = get_c_sizes }, { "min_size", .get = get_c_min_size }, { "max_size", .get = get_c_max_size },
};

/* A cutoff for people: which backend overtakes which, and where. */
static void print_cutoff(FILE *out, const struct dataset *ds, const struct cut_row *r, bool md)
{
	const struct cutoff *y = r->y;

	fprintf(out, "%s%s %s, %s, %u thread%s%s%s: ", md ? "- " : "  ", ESC_MD(r->ka->workload, md),
		ESC_MD(r->ka->algorithm, md), ESC_MD(r->x->policy, md), r->x->threads, r->x->threads == 1 ? "" : "s",
		ds->multi_host ? ", host " : "", ds->multi_host ? ESC_MD(r->ka->host, md) : "");
	if (y->found)
		fprintf(out, "%s overtakes %s above ~%.0f %s\n", ESC_MD(r->above, md), ESC_MD(r->below, md), y->cut,
			ESC_MD(r->ka->size_unit, md));
	else
		fprintf(out, "%s is faster at every size measured (%zu sizes, %.0f..%.0f %s, %.2fx..%.2fx)\n",
			ESC_MD(r->faster, md), y->sizes, y->min_size, y->max_size, ESC_MD(r->ka->size_unit, md),
			y->ratio_min > 1 ? y->ratio_min : 1 / y->ratio_min,
			y->ratio_max > 1 ? y->ratio_max : 1 / y->ratio_max);
}

/* What threadreport prints from: the options, the files, what they hold. */
struct report {
	struct report_opts o;
	enum format fmt;
	char **files;
	int nfiles;
	FILE *out;
	struct dataset ds;
	struct cluster cl;
};

/* Where two backends ran the same algorithm at several sizes: for each
 * policy and thread count, the size where one overtakes the other
 * (cutoffs_compute: per host and unit, every size). */
static int emit_cutoffs(struct report *rp, struct json *j)
{
	struct table t = { rp->out, rp->fmt, rp->o.raw, cutoff_cols, NCOLS(cutoff_cols), NULL, j };
	bool human = rp->fmt == FMT_TEXT || rp->fmt == FMT_MARKDOWN, md = rp->fmt == FMT_MARKDOWN;
	struct backend_cutoffs bc;
	size_t i;
	int ret = -1;

	if (!human)
		table_head(&t);
	if (backend_cutoffs_find(&rp->ds, &bc) < 0)
		goto out;
	for (i = 0; i < bc.n; i++) {
		const struct cutoff *y = &bc.cut[i];
		struct cut_row r = { bc.ref[y->tag_a].s->key, bc.ref[y->tag_b].s->key, bc.ref[y->tag_a].c, y };

		r.faster = y->ratio_min > 1 ? r.ka->backend : r.kb->backend;
		r.above = y->found ? (y->a_wins_above ? r.ka->backend : r.kb->backend) : r.faster;
		r.below = y->found ? (y->a_wins_above ? r.kb->backend : r.ka->backend) : r.faster;
		if (human && !i)
			fputs(md ? "### Cutoffs between backends\n\n" : "== cutoffs between backends\n", rp->out);
		if (human)
			print_cutoff(rp->out, &rp->ds, &r, md);
		else if (rp->fmt == FMT_JSON)
			json_nl(j);
		if (!human)
			table_row(&t, &r);
	}
	if (bc.n && human)
		fputc('\n', rp->out);
	ret = 0;
out:
	backend_cutoffs_free(&bc);
	return ret;
}

/* After the series in json: the cluster section, the cutoffs and the
 * warnings about the input. */
static int json_end(struct report *rp, struct json *j)
{
	struct warning w = { "encoding", "" };
	int ret;

	json_close_nl(j, '[');
	json_open_key(j, "cluster", '[');
	cluster_emit(rp->out, &rp->cl, FMT_JSON, false, false);
	json_close_nl(j, '[');
	json_open_key(j, "cutoffs", '[');
	ret = emit_cutoffs(rp, j);
	json_close_nl(j, '[');
	/* Bytes of the files that were not UTF-8 were replaced: said once. */
	if (json_replaced_bytes())
		snprintf(w.text, sizeof(w.text), "%zu byte(s) of the input were not UTF-8 and were replaced by U+FFFD",
			 json_replaced_bytes());
	json_warnings(j, &w, json_replaced_bytes() ? 1 : 0);
	json_close(j, '{');
	fputc('\n', rp->out);
	return ret;
}

/* Text and markdown: that the prefixes are decimal, once, above the rates. */
static void note_rates(const struct report *rp)
{
	if ((rp->fmt == FMT_TEXT || rp->fmt == FMT_MARKDOWN) && rates_note())
		fprintf(rp->out, "%s\n\n", rates_note());
}

/* After the series, for people: the cluster section and the cutoffs. */
static int cluster_and_cutoffs(struct report *rp, struct json *j)
{
	cluster_emit(rp->out, &rp->cl, rp->fmt, rp->o.raw, false);
	return emit_cutoffs(rp, j);
}

/* VIEW of RP as text, into *TEXT (the caller frees it). */
static int as_text(struct report *rp, int (*view)(struct report *rp, struct json *j), char **text)
{
	FILE *page = rp->out;
	enum format fmt = rp->fmt;
	size_t len;
	int ret;

	*text = NULL;
	rp->out = open_memstream(text, &len);
	if (!rp->out) {
		rp->out = page;
		return -1;
	}
	rp->fmt = FMT_TEXT;
	ret = view(rp, NULL);
	fclose(rp->out);
	rp->out = page;
	rp->fmt = fmt;
	return ret;
}

/* What a series says beyond its table (its verdicts, fits and counters;
 * its warnings) as lines on the page. */
static void html_notes(FILE *out, const struct sctx *c)
{
	char *text = NULL;
	size_t len;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	print_comparisons(m, c, "");
	print_usl(m, c->s, "");
	print_counter_changes(m, c->s, "");
	fflush(m);
	html_lines(out, text, "notes");
	rewind(m);
	for (size_t i = 0; i < c->f.nwarnings; i++)
		fprintf(m, "warning: %s\n", c->f.warning[i].text);
	fputc('\0', m);
	fclose(m);
	html_lines(out, text, "warn");
	free(text);
}

/* A series on the page: its figure, its tables, what it says; its
 * warnings also into WARN, the page's list of them. */
static void html_one_series(FILE *out, struct sctx *c, FILE *warn)
{
	struct table t = { out, FMT_HTML, false, cell_cols, NCOLS(cell_cols), c, NULL, c->s->key->unit };
	struct table lat = { out, FMT_HTML, false, lat_cols, NCOLS(lat_cols), c, NULL };

	html_series(out, c->i, c->f.title, c->s->key->impl);
	html_speedup(out, c->s, c->f.title);
	c->heading = true;
	table_head(&t);
	c->heading = false;
	series_rows(&t, c, false);
	table_end(&t);
	if (c->s->latency) {
		fputs("<p>Latency per operation (median of the repeats' percentiles; batch &gt; 1: each batch's time / batch)</p>\n", out);
		table_head(&lat);
		series_rows(&lat, c, true);
		table_end(&lat);
	}
	html_notes(out, c);
	for (size_t i = 0; i < c->f.nwarnings; i++)
		html_warning(warn, c->i, c->f.title, c->f.warning[i].text);
	fputs(HTML_SERIES_END, out);
}

/* -f html: the whole report as one page. */
static int emit_html(struct report *rp, struct json *j)
{
	char *text = NULL, *warns = NULL;
	size_t len;
	FILE *warn = open_memstream(&warns, &len);
	struct sctx c;
	int ret = -1;

	(void)j;
	if (!warn)
		return -1;
	html_begin(rp->out, &rp->ds);
	html_section(rp->out, "summary", "Summary");
	if (summary_emit(rp->out, &rp->ds, FMT_HTML, false, NULL) < 0)
		goto out;
	html_section_end(rp->out);
	html_section(rp->out, "overview", "Efficiency overview");
	if (html_overview(rp->out, &rp->ds, title_with(&rp->ds)) < 0)
		goto out;
	html_section_end(rp->out);
	html_section(rp->out, "series", "Series");
	for (size_t i = 0; i < rp->ds.nseries; i++) {
		if (series_open(&c, &rp->ds, i) < 0)
			goto out;
		html_one_series(rp->out, &c, warn);
		series_close(&c);
	}
	html_section_end(rp->out);
	free(text);
	if (as_text(rp, cluster_and_cutoffs, &text) < 0)
		goto out;
	if (*text) {
		html_section(rp->out, "more", "Cluster measurements and cutoffs");
		html_pre(rp->out, text);
		html_section_end(rp->out);
	}
	fclose(warn);
	warn = NULL;
	html_section(rp->out, "warnings", "Warnings");
	fprintf(rp->out, *warns ? "<ul class=\"warn\">\n%s</ul>\n" : "<p>None.</p>\n", warns);
	html_section_end(rp->out);
	if (html_machine(rp->out, &rp->ds) < 0)
		goto out;
	html_end(rp->out);
	ret = 0;
out:
	if (warn)
		fclose(warn);
	free(warns);
	free(text);
	return ret;
}

/* The normal report: per series, then the cluster section and the
 * cutoffs. */
static int emit_report(struct report *rp, struct json *j)
{
	struct table t = { rp->out, rp->fmt, rp->o.raw, cell_cols, NCOLS(cell_cols), NULL, j };
	bool human = rp->fmt == FMT_TEXT || rp->fmt == FMT_MARKDOWN;
	struct sctx c;

	if (rp->fmt == FMT_HTML)
		return emit_html(rp, j);
	if (rp->fmt == FMT_JSON) {
		json_open(j, '{');
		json_open_key(j, "series", '[');
	} else if (!human) {
		table_head(&t);
	}
	note_rates(rp);
	for (size_t i = 0; i < rp->ds.nseries; i++) {
		if (series_open(&c, &rp->ds, i) < 0)
			return -1;
		t.ctx = &c;
		if (human)
			text_series(rp->out, &c, rp->fmt == FMT_MARKDOWN);
		else if (rp->fmt == FMT_JSON)
			json_series(j, &c);
		else
			series_rows(&t, &c, false);
		series_close(&c);
	}
	if (human)
		return cluster_and_cutoffs(rp, j);
	return rp->fmt == FMT_JSON ? json_end(rp, j) : 0;
}

static int emit_summary(struct report *rp, struct json *j)
{
	return summary_emit(rp->out, &rp->ds, rp->fmt, rp->o.raw, j);
}

static int emit_cluster(struct report *rp, struct json *j)
{
	(void)j;
	if (!rp->cl.nseries)
		fprintf(stderr, "%s: note: no cluster measurements (rows with a job) in the input\n", PROG);
	else
		note_rates(rp);
	cluster_emit(rp->out, &rp->cl, rp->fmt, rp->o.raw, rp->o.hosts);
	return 0;
}

/* What threadreport can print: one view per run, chosen by its option. */
struct view {
	size_t opt;        /* its bool in struct report_opts */
	const char *wrap;  /* json: {"WRAP": [the view's items]} */
	/* What it prints (< 0: out of memory); NULL: --compare, which reads
	 * its files itself. */
	int (*emit)(struct report *rp, struct json *j);
};

static const struct view views[] = {
	{ offsetof(struct report_opts, compare), NULL, NULL },
	{ offsetof(struct report_opts, cluster), "cluster", emit_cluster },
	{ offsetof(struct report_opts, hosts), "cluster", emit_cluster },
	{ offsetof(struct report_opts, cutoffs), "cutoffs", emit_cutoffs },
	{ offsetof(struct report_opts, summary), "summary", emit_summary },
	{ 0, NULL, emit_report }, /* none of them */
};

static const struct view *pick_view(struct report_opts *o)
{
	const struct view *v = &views[NCOLS(views) - 1];
	size_t i, n = 0;

	o->compare |= o->compare_by != NULL;
	for (i = 0; i + 1 < NCOLS(views); i++)
		if (*(const bool *)((const char *)o + views[i].opt)) {
			v = &views[i];
			n++;
		}
	if (n <= 1)
		return v;
	msg_error(PROG, "--summary, --cutoffs, --cluster, --hosts and --compare: give one of them");
	return NULL;
}

/* The files into RP's dataset and cluster section: 0, or the exit status. */
static int report_read(struct report *rp)
{
	char *notes_buf = NULL, err[1024];
	size_t notes_len = 0;
	FILE *notes;
	int ret = 2;

	if (!rp->nfiles) {
		msg_error(PROG, "FILE: missing, usage: %s [-f FORMAT] FILE...", PROG);
		return 2;
	}
	/* Notes on the files (missing columns, damaged rows) wait until every
	 * file has read: a file that cannot be read is then the only line. */
	notes = open_memstream(&notes_buf, &notes_len);
	if (!notes)
		return 1;
	for (int i = 0; i < rp->nfiles; i++)
		if (dataset_read(&rp->ds, rp->files[i], notes, err, sizeof(err)) < 0) {
			msg_error(PROG, "%s", err);
			goto out;
		}
	fclose(notes);
	notes = NULL;
	fputs(notes_buf, stderr);
	ret = 1;
	if (dataset_build(&rp->ds) < 0)
		goto oom;
	if (!rp->ds.nseries) {
		/* One line: the failed runs are the reason. */
		dataset_failed_text(&rp->ds, err, sizeof(err));
		msg_error(PROG, "no usable rows in the input%s%s", err[0] ? "; " : "", err);
		ret = 2;
		goto out;
	}
	dataset_note_skipped(&rp->ds, stderr, PROG);
	if (cluster_build(&rp->ds, &rp->cl, stderr) < 0)
		goto oom;
	ret = 0;
	goto out;
oom:
	msg_error(PROG, "out of memory");
out:
	if (notes)
		fclose(notes);
	free(notes_buf);
	return ret;
}

/* View V of RP: read, print, say what was skipped; the exit status. */
static int run_view(const struct view *v, struct report *rp)
{
	struct json j;
	int ret, rc;

	if (rp->fmt == FMT_HTML && v->emit != emit_report) {
		msg_error(PROG, "-f html is the whole report's page; --cutoffs, --cluster, --hosts and --compare "
			  "take text, markdown, csv, tsv or json");
		return 2;
	}
	if (!v->emit)
		return compare_report(rp->files, rp->nfiles, rp->o.compare_by, rp->fmt, rp->o.raw, rp->out);
	ret = report_read(rp);
	if (ret)
		return ret;
	json_init(&j, rp->out);
	if (v->wrap && rp->fmt == FMT_JSON) {
		json_open(&j, '{');
		json_open_key(&j, v->wrap, '[');
	}
	rc = v->emit(rp, &j);
	if (v->wrap && rp->fmt == FMT_JSON) {
		json_close_nl(&j, '[');
		json_close(&j, '{');
		fputc('\n', rp->out);
	}
	if (rc < 0) {
		msg_error(PROG, "out of memory");
		return 1;
	}
	dataset_note_damaged(&rp->ds, stderr, PROG);
	return 0;
}

int main(int argc, char **argv)
{
	struct report rp = { .o = { .format = &formats[0] }, .out = stdout };
	const struct view *v;
	struct opt_parser p;
	int c, ret = 2;

	datafile_stdio_init(PROG);
	if (opt_init(&p, PROG, options, NCOLS(options), 0) < 0)
		return 1;
	c = opt_parse(&p, argc, argv, &rp.o);
	if (c == 'h') {
		opt_help(&p, stdout, "[-f FORMAT] [--raw] [--exact] [--summary|--cutoffs|--cluster|--hosts] FILE...\n"
			 "   or: threadreport [-f FORMAT] [--raw] [--exact] --compare BEFORE.csv AFTER.csv\n"
			 "   or: threadreport [-f FORMAT] [--raw] [--exact] --compare-by COL[=A,B] FILE...", help_after);
		ret = 0;
	} else if (c == 'V') {
		version_print(stdout, PROG);
		ret = 0;
	} else if (c == OPT_END && (v = pick_view(&rp.o))) {
		rp.fmt = rp.o.format->fmt;
		output_set_exact(rp.o.exact);
		rp.files = argv + optind;
		rp.nfiles = argc - optind;
		ret = run_view(v, &rp);
	}
	opt_fini(&p);
	cluster_free(&rp.cl);
	dataset_free(&rp.ds);
	return ret;
}
