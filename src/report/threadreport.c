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
#include "counts.h"
#include "compare.h"
#include "datafile.h"
#include "dataset.h"
#include "verdicts.h"
#include "opt.h"
#include "output.h"
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
	{ "json", FMT_JSON },
};

static const size_t nformats = sizeof(formats) / sizeof(formats[0]);

struct report_opts {
	const struct format_row *format;
	bool raw, cutoffs, compare, cluster, hosts;
	const char *compare_by;
};

static const struct opt_spec options[] = {
	{ OPT_CHOICE('f', "format", "FMT", offsetof(struct report_opts, format), formats, &nformats,
		     "text (default), markdown, csv, tsv (for shell tools) or json") },
	{ OPT_FLAG(0, "raw", offsetof(struct report_opts, raw),
		   "csv and tsv: text fields exactly as in the files, for programs "
		   "(no spreadsheet formula guard)") },
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
		   "before and after: BEFORE.csv AFTER.csv, the ratio of medians "
		   "(after / before) of every configuration both measured") },
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
	"A row of a failed run (its status not 0: a nonzero exit, a workload of ours\n"
	"that wrote no row, a --metric run without its figure) is never a measurement:\n"
	"it is in no table, verdict, comparison, cutoff or per-host rate, and one line\n"
	"on stderr says how many were skipped, naming the first; a cluster measurement\n"
	"with a failed rank has no rate (n/a, the rank named).  A later row of the same\n"
	"repeat from another run (a --resume) supersedes a failed one.\n"
	"\n"
	"Verdicts only from evidence: a best policy (or a sharing penalty) is named\n"
	"only where each side has at least 3 repeats and their ranges (min..max) do\n"
	"not overlap; otherwise \"no difference measured\" and why.  Policies that\n"
	"plan the same PUs (the cpus column) are one plan, never ranked against each\n"
	"other.  A verdict on points flagged busy, oversubscribed or unverified says\n"
	"so.  csv and tsv add per cell: cpus (the plan), flags (those words) and best\n"
	"(winner, beaten, no difference measured, or empty where one plan ran);\n"
	"json adds per series same_plan and verdicts (winner null where none).\n"
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
	"sides measured: the medians, the ratio after / before and its range (after\n"
	"min / before max .. after max / before min), n of each side, and a summary\n"
	"line: the smallest and the largest ratio and where.  Configurations measured\n"
	"on one side only are listed.  Host and backend are not part of a\n"
	"configuration unless a side holds several of them, impl unless a side has\n"
	"several for one backend (so evp against pkcs11, a new library, or one host\n"
	"against another compare); versions and notes never are.  In csv\n"
	"and tsv one row per configuration: group, measured (both, before, after),\n"
	"workload, algorithm, unit, size, size_unit, policy, threads, each side's\n"
	"host, backend, impl, n, median, min, max, then ratio, ratio_min, ratio_max,\n"
	"smallest and largest (yes on the group's extreme ratios).  threadplot\n"
	"--compare draws it.  Sides that share no configuration: exit 2.\n"
	"\n"
	"Exit status: 0; 2 usage or unreadable input.\n";

/* Per series, the facts every format prints. */
/* What the report says about a series: its title, and its warnings, each
 * with a kind that programs can test (JSON lists them as objects). */
enum { MAX_WARNINGS = 8 };
struct facts {
	char title[512];
	struct { const char *kind; char text[160]; } warning[MAX_WARNINGS];
	size_t nwarnings;
	char warnings[1024];    /* the same, joined for people */
};

static void series_facts(const struct dataset *ds, const struct series *s, struct facts *f)
{
	const struct obs *k = s->key;
	size_t used = 0, i, few = 0, wide = 0, over = 0;
	char size[64];

	char title[sizeof(f->title)];

	snprintf(title, sizeof(title), "%s %s%s%s, %s, %s%s%s%s%s%s%s", k->workload,
		 *k->algorithm ? k->algorithm : "-", *k->backend ? " / " : "", k->backend,
		 size_text(k, size, sizeof(size)), *k->unit ? k->unit : "rate",
		 ds->multi_host ? ", host " : "", ds->multi_host ? k->host : "",
		 ds->multi_config ? ", config " : "", ds->multi_config ? k->config : "",
		 ds->multi_job && *k->job ? ", job " : "", ds->multi_job ? k->job : "");
	/* A title is one line, whatever the files' names hold. */
	esc_text(title, f->title, sizeof(f->title));
	f->warnings[0] = '\0';
	f->nwarnings = 0;
	for (i = 0; i < s->ncells; i++) {
		few += s->cells[i].n < 3;
		wide += s->cells[i].median > 0 &&
			(s->cells[i].max - s->cells[i].min) / s->cells[i].median > 0.10;
		over += s->cells[i].oversubscribed;
	}
#define WARN(KIND, ...) do { \
		snprintf(f->warning[f->nwarnings].text, sizeof(f->warning[0].text), __VA_ARGS__); \
		f->warning[f->nwarnings++].kind = KIND; \
	} while (0)
	if (s->unverified)
		WARN("unverified", "%zu row%s NOT VERIFIED: %s not to be trusted", s->unverified,
		     s->unverified == 1 ? "" : "s", s->unverified == 1 ? "its rate is" : "their rates are");
	if (s->unchecked)
		WARN("unchecked", "%zu row%s UNCHECKED: a worker's output was never checked", s->unchecked,
		     s->unchecked == 1 ? "" : "s");
	if (s->misplaced)
		WARN("placement", "%zu row%s ran off %s planned PUs (placement not honoured)", s->misplaced,
		     s->misplaced == 1 ? "" : "s", s->misplaced == 1 ? "its" : "their");
	if (over)
		WARN("oversubscribed", "%zu point%s more threads than the %u PU%s (oversubscribed)", over,
		     over == 1 ? " has" : "s have", s->pus, s->pus == 1 ? "" : "s");
	if (s->busy)
		WARN("busy", "%zu point%s measured on a busy machine (steal or other work on %s PUs over %d%%): read %s with care",
		     s->busy, s->busy == 1 ? "" : "s", s->busy == 1 ? "its" : "their", DATASET_BUSY_PCT,
		     s->busy == 1 ? "it" : "them");
	if (few)
		WARN("few_repeats", "%zu point%s fewer than 3 repeats: %s weak", few,
		     few == 1 ? " has" : "s have", few == 1 ? "its median is" : "their medians are");
	if (wide)
		WARN("spread", "%zu point%s over 10%% of %s median (noisy machine?)", wide,
		     wide == 1 ? " spreads" : "s spread", wide == 1 ? "its" : "their");
	if (s->no_one_thread)
		WARN("no_one_thread", "no 1-thread point for some policy: no speedup or efficiency for it (n/a)");
#undef WARN
	for (i = 0; i < f->nwarnings && used < sizeof(f->warnings); i++)
		used += (size_t)snprintf(f->warnings + used, sizeof(f->warnings) - used, "%s%s",
					 i ? "; " : "", f->warning[i].text);
}

/* The policies of plan G at thread count TV, joined by " = ". */
static void plan_name(FILE *out, const struct verdicts *v, const struct tverdict *tv, size_t g, bool md)
{
	bool first = true;

	for (size_t i = tv->first; i < tv->end; i++)
		if (v->group[v->order[i]] == g) {
			if (!first)
				fputs(" = ", out);
			fputs(ESC_MD(v->s->cells[v->order[i]].policy, md), out);
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

/* "same plan", "best policy" and "sharing penalty" lines, for text and
 * markdown: a winner only where the repeats' ranges say so. */
static int print_comparisons(FILE *out, const struct series *s, const char *bullet)
{
	struct verdicts v;
	size_t i, p, q;
	bool any;

	if (series_verdicts(s, &v) < 0) {
		verdicts_free(&v);
		return -1;
	}
	for (p = 0; p < s->npolicies; p++) {
		if (v.same[p] != p)
			continue;
		any = false;
		for (q = p + 1; q < s->npolicies; q++)
			if (v.same[q] == p) {
				if (!any)
					fprintf(out, "%ssame plan: %s", bullet, ESC_MD(s->policies[p], *bullet == '-'));
				fprintf(out, " = %s", ESC_MD(s->policies[q], *bullet == '-'));
				any = true;
			}
		if (any)
			fputs(" (the same PUs at every thread count both ran: one plan, not ranked)\n", out);
	}
	if (s->npolicies > 1) {
		fprintf(out, "%sbest policy per thread count:", bullet);
		for (i = 0; i < v.nt; i++) {
			const struct tverdict *tv = &v.t[i];

			fprintf(out, " %u: ", tv->threads);
			if (tv->ngroups < 2) {
				plan_name(out, &v, tv, 0, *bullet == '-');
				fputs(tv->end - tv->first > 1 ? " (one plan)" : " (alone)", out);
			} else {
				if (tv->v == VERDICT_WINNER) {
					plan_name(out, &v, tv, tv->best, *bullet == '-');
					/* A worst median of 0 has no ratio. */
					if (isfinite(tv->ratio))
						fprintf(out, " (%.2fx ", tv->ratio);
					else
						fputs(" (no ratio to ", out);
					plan_name(out, &v, tv, tv->worst, *bullet == '-');
					fputc(')', out);
				} else {
					fprintf(out, "no difference measured (%s)", verdict_text(tv->v));
				}
				print_flags(out, tv->flags);
			}
			if (tv->disagree)
				fputs(" [one plan, rates apart beyond their spread: the machine changed, not the placement]", out);
			fputs(i + 1 < v.nt ? ";" : "", out);
		}
		fputc('\n', out);
	}
	for (i = 0; i < v.nshare; i++) {
		const struct share *x = &v.share[i];

		if (!i || x->ck->policy != v.share[i - 1].ck->policy)
			fprintf(out, "%ssharing penalty, per-worker rate %s / c1:", bullet,
				ESC_MD(x->ck->policy, *bullet == '-'));
		fprintf(out, " %u threads %.2f", x->ck->threads, x->ck->median / x->c1->median);
		if (x->v != VERDICT_WINNER)
			fprintf(out, " (no difference measured: %s)", verdict_text(x->v));
		print_flags(out, cell_flags(x->c1) | cell_flags(x->ck));
		fputc(';', out);
		if (i + 1 == v.nshare || v.share[i + 1].ck->policy != x->ck->policy)
			fputs(" (1.00 = no contention; 0.50 = strands share one unit)\n", out);
	}
	verdicts_free(&v);
	return 0;
}

static void print_usl(FILE *out, const struct series *s, const char *bullet)
{
	struct usl_fit fit;
	size_t p;

	for (p = 0; p < s->npolicies; p++) {
		series_usl(s, s->policies[p], &fit);
		if (!fit.ok)
			continue;
		char peak[64];

		if (isfinite(fit.n_peak))
			snprintf(peak, sizeof(peak), "throughput peaks at N = %.1f", fit.n_peak);
		else
			snprintf(peak, sizeof(peak), "no peak (k = 0)");
		fprintf(out, "%sUSL fit, %s: contention s = %.4f, coherency k = %.6f, %s, rms error %.1f%%%s\n",
			bullet, ESC_MD(s->policies[p], *bullet == '-'), fit.s, fit.k, peak, 100 * fit.rms_error,
			fit.poor ? " -- poor fit, read with care" : "");
	}
}

/* "busy (steal 1.2%, others 47%)" for a busy cell, "" otherwise. */
static void busy_text(const struct cell *x, char *buf, size_t len)
{
	char st[16] = "-", ot[16] = "-";

	buf[0] = '\0';
	if (!x->busy)
		return;
	if (isfinite(x->load_steal))
		snprintf(st, sizeof(st), "%.1f%%", x->load_steal);
	if (isfinite(x->load_others))
		snprintf(ot, sizeof(ot), "%.1f%%", x->load_others);
	snprintf(buf, len, "busy (steal %s, others %s)", st, ot);
}

/* "31.2 ns", "2.35 us", "1.20 ms", "1.50 s", or "-". */
static void lat_text(double v, char *buf, size_t len)
{
	static const struct { double scale; const char *unit; } units[] = {
		{ 1, "s" }, { 1e-3, "ms" }, { 1e-6, "us" }, { 1e-9, "ns" },
	};
	size_t i;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	for (i = 0; i + 1 < sizeof(units) / sizeof(units[0]) && v < units[i].scale; i++)
		;
	snprintf(buf, len, "%.3g %s", v / units[i].scale, units[i].unit);
}

/* The latency section of a series whose rows carry it: per policy and
 * threads, the median of the repeats' percentiles. */
static void print_latency(FILE *out, const struct series *s, bool markdown)
{
	char v[32];
	size_t c, k;

	if (!s->latency)
		return;
	if (markdown) {
		fprintf(out, "Latency per operation (median of the repeats' percentiles; batch > 1: each batch's time / batch):\n\n");
		fprintf(out, "| policy | threads | p50 | p90 | p99 | p99.9 | max | n | batch |\n");
		fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	} else {
		fprintf(out, "  latency per operation (median of the repeats' percentiles; batch > 1: each batch's time / batch)\n");
		fprintf(out, "  %-14s %7s", "policy", "threads");
		for (k = 0; k < DATASET_LAT_P; k++)
			fprintf(out, " %10s", dataset_lat_name[k]);
		fprintf(out, " %3s %7s\n", "n", "batch");
	}
	for (c = 0; c < s->ncells; c++) {
		const struct cell *x = &s->cells[c];

		if (!x->lat_rows)
			continue;
		if (markdown) {
			fputs("| ", out);
			md_cell(out, x->policy);
			fprintf(out, " | %u |", x->threads);
		} else {
			fprintf(out, "  %-14s %7u", x->policy, x->threads);
		}
		for (k = 0; k < DATASET_LAT_P; k++) {
			lat_text(x->lat[k], v, sizeof(v));
			fprintf(out, markdown ? " %s |" : " %10s", v);
		}
		fprintf(out, markdown ? " %zu | %.10g |\n" : " %3zu %7.10g\n", x->lat_rows,
			isfinite(x->lat_batch) ? x->lat_batch : 1);
	}
	if (markdown)
		fputc('\n', out);
}

/* threadrun --counters: the per-unit figure of a series (cycles per byte
 * for bytes/s, per operation for ops/s, FLOPs per cycle for MFLOPS) and
 * its name; NULL when the unit has none. */
static const char *counter_figure(const struct series *s, const struct cell *c, double *v)
{
	const char *unit = s->key->unit;

	if (!strcmp(unit, "bytes/s")) {
		*v = c ? c->cycles_per_byte : NAN;
		return "cycles per byte";
	}
	if (!strcmp(unit, "ops/s")) {
		*v = c ? c->cycles_per_op : NAN;
		return "cycles per op";
	}
	if (!strcmp(unit, "MFLOPS")) {
		*v = c ? c->flops_per_cycle : NAN;
		return "FLOPs per cycle";
	}
	*v = NAN;
	return NULL;
}

static const char *fig_text(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
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

static int emit_text(FILE *out, const struct dataset *ds, bool markdown)
{
	struct facts f;
	size_t i, c;

	for (i = 0; i < ds->nseries; i++) {
		const struct series *s = &ds->series[i];

		series_facts(ds, s, &f);
		if (markdown) {
			fputs("### ", out);
			md_cell(out, f.title);
			fputs("\n\n", out);
			if (*s->key->impl)
				fprintf(out, "Implementation: %s\n\n", ESC_MD(s->key->impl, true));
			fprintf(out, "| policy | threads | median | min | max | n | speedup | efficiency | note |\n");
			fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
		} else {
			fprintf(out, "== %s\n", f.title);
			if (*s->key->impl)
				fprintf(out, "   %s\n", ESC(s->key->impl));
			fprintf(out, "%-16s %7s %14s %14s %14s %3s %8s %10s", "policy", "threads",
				"median", "min", "max", "n", "speedup", "efficiency");
			if (s->monitored)
				fprintf(out, "  %6s %7s %6s %5s", "migr", "offplan", "steal%", "sys%");
			if (s->counted)
				fprintf(out, "  %9s %6s", !strcmp(s->key->unit, "bytes/s") ? "cyc/B"
							  : !strcmp(s->key->unit, "ops/s") ? "cyc/op"
							  : !strcmp(s->key->unit, "MFLOPS") ? "FLOP/cyc" : "-",
					"IPC");
			if (s->spread)
				fprintf(out, " %7s", "wkr+%");
			fputc('\n', out);
		}
		for (c = 0; c < s->ncells; c++) {
			const struct cell *x = &s->cells[c];
			char med[32], lo[32], hi[32], sp[32], ef[32], busy[64];

			fmt_rate(x->median, med, sizeof(med));
			fmt_rate(x->min, lo, sizeof(lo));
			fmt_rate(x->max, hi, sizeof(hi));
			fixed2(x->speedup, sp, sizeof(sp));
			fixed2(x->efficiency, ef, sizeof(ef));
			busy_text(x, busy, sizeof(busy));
			if (markdown) {
				fputs("| ", out);
				md_cell(out, x->policy);
				fprintf(out, " | %u | %s | %s | %s | %zu | %s | %s | %s%s%s |", x->threads, med,
					lo, hi, x->n, sp, ef, x->oversubscribed ? "oversubscribed" : "",
					x->oversubscribed && x->busy ? "; " : "", busy);
			} else {
				fprintf(out, "%-16s %7u %14s %14s %14s %3zu %8s %10s", ESC(x->policy), x->threads,
					med, lo, hi, x->n, sp, ef);
			}
			if (!markdown && s->monitored && x->monitored)
				fprintf(out, "  %6.0f %7.0f %6.1f %5.1f", x->migrations, x->off_plan,
					x->steal_pct, x->sys_share);
			else if (!markdown && s->monitored)
				fprintf(out, "  %6s %7s %6s %5s", "-", "-", "-", "-");
			if (!markdown && s->counted) {
				char f1[32], f2[32];
				double v;

				counter_figure(s, x, &v);
				fprintf(out, "  %9s %6s", x->counted ? fig_text(v, f1, sizeof(f1)) : "-",
					x->counted ? fig_text(x->ipc, f2, sizeof(f2)) : "-");
				if (s->spread && isnan(x->worker_spread))
					fprintf(out, " %7s", "-");
				else if (s->spread)
					fprintf(out, " %7.1f", x->worker_spread);
			}
			if (!markdown && x->oversubscribed)
				fputs("  (oversubscribed)", out);
			if (!markdown && x->busy)
				fprintf(out, "  %s", busy);
			fputc('\n', out);
		}
		if (markdown)
			fputc('\n', out);
		print_latency(out, s, markdown);
		if (print_comparisons(out, s, markdown ? "- " : "  ") < 0)
			return -1;
		print_usl(out, s, markdown ? "- " : "  ");
		print_counter_changes(out, s, markdown ? "- " : "  ");
		if (f.warnings[0])
			fprintf(out, "%swarning: %s\n", markdown ? "- " : "  ", f.warnings);
		fputc('\n', out);
	}
	return 0;
}

/* A cell's counted figures in csv, tsv and json, as the rows name them. */
static const char *const fig[] = {
	"cycles_per_byte", "cycles_per_op", "ipc", "flops_per_cycle", "worker_spread_pct",
};

static double cell_counter_figure(const struct cell *x, size_t k)
{
	const double v[] = { x->cycles_per_byte, x->cycles_per_op, x->ipc, x->flops_per_cycle,
			     x->worker_spread };

	return k < sizeof(v) / sizeof(v[0]) ? v[k] : NAN;
}

static int emit_csv(FILE *out, const struct dataset *ds, char sep, bool raw)
{
	static const char *const head[] = { "series", "host", "workload", "algorithm", "backend",
		"impl", "size", "size_unit", "unit", "policy", "threads", "n", "median", "min", "max",
		"speedup", "efficiency", "oversubscribed", "cores", "pus", "cpus", "flags", "best",
		"steal_pct", "others_pct", "busy",
		"lat_batch", "lat_p50_s", "lat_p90_s", "lat_p99_s", "lat_p999_s", "lat_max_s",
		"cycles_per_byte", "cycles_per_op", "ipc", "flops_per_cycle", "worker_spread_pct" };
	struct verdicts v;
	char flags[64];
	size_t i, c;

	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		fprintf(out, "%s%s", i ? (sep == '\t' ? "\t" : ",") : "", head[i]);
	fputc('\n', out);
	for (i = 0; i < ds->nseries; i++) {
		const struct series *s = &ds->series[i];
		const struct obs *k = s->key;

		if (series_verdicts(s, &v) < 0) {
			verdicts_free(&v);
			return -1;
		}
		for (c = 0; c < s->ncells; c++) {
			const struct cell *x = &s->cells[c];
			const char *f[] = { k->host, k->workload, k->algorithm, k->backend, k->impl };

			fprintf(out, "%zu", i);
			for (size_t j = 0; j < 5; j++) {
				fputc(sep, out);
				csv_field(out, f[j], sep, raw);
			}
			csv_num(out, sep, k->size);
			fputc(sep, out);
			csv_field(out, k->size_unit, sep, raw);
			fputc(sep, out);
			csv_field(out, k->unit, sep, raw);
			fputc(sep, out);
			csv_field(out, x->policy, sep, raw);
			fprintf(out, "%c%u%c%zu%c%.10g%c%.10g%c%.10g%c", sep, x->threads, sep, x->n, sep,
				x->median, sep, x->min, sep, x->max, sep);
			/* No measured 1-thread point: the cells stay empty. */
			if (isfinite(x->speedup))
				fprintf(out, "%.6g%c%.6g", x->speedup, sep, x->efficiency);
			else
				fputc(sep, out);
			fprintf(out, "%c%s%c%u%c%u%c", sep, x->oversubscribed ? "yes" : "no", sep,
				s->cores, sep, s->pus, sep);
			csv_field(out, x->cpus ? x->cpus : "", sep, raw);
			flags_text(cell_flags(x), " ", flags, sizeof(flags));
			fprintf(out, "%c%s%c%s%c", sep, flags, sep, cell_verdict(&v, c), sep);
			/* The busiest row's figures; empty where no row said. */
			if (isfinite(x->load_steal))
				fprintf(out, "%.6g", x->load_steal);
			fputc(sep, out);
			if (isfinite(x->load_others))
				fprintf(out, "%.6g", x->load_others);
			fprintf(out, "%c%s", sep, x->busy ? "yes" : "no");
			/* Latency: the medians of the rows that carry it, else empty. */
			fputc(sep, out);
			if (x->lat_rows && isfinite(x->lat_batch))
				fprintf(out, "%.10g", x->lat_batch);
			for (size_t k = 0; k < DATASET_LAT_P; k++) {
				fputc(sep, out);
				if (x->lat_rows)
					fprintf(out, "%.6g", x->lat[k]);
			}
			/* Counters: the rows' medians; empty where n/a or not counted. */
			for (size_t k = 0; k < sizeof(fig) / sizeof(fig[0]); k++) {
				double v = x->counted ? cell_counter_figure(x, k) : NAN;

				fputc(sep, out);
				if (isfinite(v))
					fprintf(out, "%.6g", v);
			}
			fputc('\n', out);
		}
		verdicts_free(&v);
	}
	return 0;
}

static int emit_cutoffs(FILE *out, const struct dataset *ds, enum format fmt, bool raw);

static void json_flags(FILE *out, unsigned flags)
{
	size_t i, n = 0;

	fputc('[', out);
	for (i = 1; i <= FLAG_LAST; i <<= 1)
		if (flags & i)
			fprintf(out, "%s\"%s\"", n++ ? ", " : "", flag_name((unsigned)i));
	fputc(']', out);
}

/* A plan's policies as a JSON list. */
static void json_plan(FILE *out, const struct verdicts *v, const struct tverdict *tv, size_t g)
{
	size_t i, n = 0;

	fputc('[', out);
	for (i = tv->first; i < tv->end; i++)
		if (v->group[v->order[i]] == g) {
			fputs(n++ ? ", " : "", out);
			json_str(out, v->s->cells[v->order[i]].policy);
		}
	fputc(']', out);
}

/* "same_plan" (lists of policies planning the same PUs wherever both ran),
 * "verdicts" (per thread count: the plans, and a winner or null) and
 * "sharing" (the sharing penalty cK / c1, with its verdict). */
static int json_verdicts(FILE *out, const struct series *s)
{
	struct verdicts v;
	size_t i, p, q, g, n = 0;

	if (series_verdicts(s, &v) < 0) {
		verdicts_free(&v);
		return -1;
	}
	fputs("], \"same_plan\": [", out);
	for (p = 0; p < s->npolicies; p++) {
		bool any = false;

		for (q = p + 1; q < s->npolicies; q++)
			if (v.same[q] == p && v.same[p] == p) {
				if (!any) {
					fprintf(out, "%s[", n++ ? ", " : "");
					json_str(out, s->policies[p]);
				}
				fputs(", ", out);
				json_str(out, s->policies[q]);
				any = true;
			}
		if (any)
			fputc(']', out);
	}
	fputs("], \"verdicts\": [", out);
	for (i = 0; i < v.nt; i++) {
		const struct tverdict *tv = &v.t[i];
		bool win = tv->ngroups >= 2 && tv->v == VERDICT_WINNER;

		fprintf(out, "%s{\"threads\": %u, \"plans\": [", i ? ", " : "", tv->threads);
		for (g = 0; g < tv->ngroups; g++) {
			fputs(g ? ", " : "", out);
			json_plan(out, &v, tv, g);
		}
		fprintf(out, "], \"verdict\": \"%s\", \"reason\": ",
			tv->ngroups < 2 ? "one plan" : win ? "winner" : "no difference measured");
		if (tv->ngroups >= 2 && !win)
			fprintf(out, "\"%s\"", verdict_text(tv->v));
		else
			fputs("null", out);
		fputs(", \"winner\": ", out);
		if (win)
			json_plan(out, &v, tv, tv->best);
		else
			fputs("null", out);
		fputs(", \"against\": ", out);
		if (win)
			json_plan(out, &v, tv, tv->worst);
		else
			fputs("null", out);
		fputs(", \"ratio\": ", out);
		json_num(out, win ? tv->ratio : NAN);
		fputs(", \"flags\": ", out);
		json_flags(out, tv->ngroups >= 2 ? tv->flags : 0);
		fprintf(out, ", \"plan_disagrees\": %s}", tv->disagree ? "true" : "false");
	}
	fputs("], \"sharing\": [", out);
	for (i = 0; i < v.nshare; i++) {
		const struct share *x = &v.share[i];

		fprintf(out, "%s{\"policy\": ", i ? ", " : "");
		json_str(out, x->ck->policy);
		fprintf(out, ", \"threads\": %u, \"ratio\": ", x->ck->threads);
		json_num(out, x->ck->median / x->c1->median);
		fprintf(out, ", \"verdict\": \"%s\", \"reason\": ",
			x->v == VERDICT_WINNER ? "difference" : "no difference measured");
		if (x->v == VERDICT_WINNER)
			fputs("null", out);
		else
			fprintf(out, "\"%s\"", verdict_text(x->v));
		fputs(", \"flags\": ", out);
		json_flags(out, cell_flags(x->c1) | cell_flags(x->ck));
		fputc('}', out);
	}
	verdicts_free(&v);
	return 0;
}

/* The names of the latency figures in csv, tsv and json, as the rows'. */
static const char *const lat_keys[DATASET_LAT_P] = {
	"lat_p50_s", "lat_p90_s", "lat_p99_s", "lat_p999_s", "lat_max_s",
};

/* A cell's "latency": null, or its figures (seconds per operation). */
static void json_latency(FILE *out, const struct cell *x)
{
	size_t k;

	fputs(", \"latency\": ", out);
	if (!x->lat_rows) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"rows\": %zu, \"lat_batch\": ", x->lat_rows);
	json_num(out, x->lat_batch);
	for (k = 0; k < DATASET_LAT_P; k++) {
		fprintf(out, ", \"%s\": ", lat_keys[k]);
		json_num(out, x->lat[k]);
	}
	fputc('}', out);
}

/* A cell's "counters": null where no row was counted, else its figures
 * (null each where n/a). */
static void json_counters(FILE *out, const struct cell *x)
{
	size_t k;

	fputs(", \"counters\": ", out);
	if (!x->counted) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"rows\": %zu", x->counted);
	for (k = 0; k < sizeof(fig) / sizeof(fig[0]); k++) {
		fprintf(out, ", \"%s\": ", fig[k]);
		json_num(out, cell_counter_figure(x, k));
	}
	fputc('}', out);
}

static int emit_json(FILE *out, const struct dataset *ds, const struct cluster *cl)
{
	int ret;

	struct usl_fit fit;
	struct facts f;
	size_t i, c, p;

	fputs("{\"series\": [", out);
	for (i = 0; i < ds->nseries; i++) {
		const struct series *s = &ds->series[i];
		const struct obs *k = s->key;

		series_facts(ds, s, &f);
		fprintf(out, "%s\n {\"title\": ", i ? "," : "");
		json_str(out, f.title);
		fputs(", \"workload\": ", out);
		json_str(out, k->workload);
		fputs(", \"algorithm\": ", out);
		json_str(out, k->algorithm);
		fputs(", \"backend\": ", out);
		json_str(out, k->backend);
		fputs(", \"impl\": ", out);
		json_str(out, k->impl);
		fputs(", \"host\": ", out);
		json_str(out, k->host);
		fputs(", \"size\": ", out);
		json_num(out, k->size);
		fputs(", \"size_unit\": ", out);
		json_str(out, k->size_unit);
		fputs(", \"unit\": ", out);
		json_str(out, k->unit);
		fprintf(out, ", \"cores\": %u, \"pus\": %u, \"cells\": [", s->cores, s->pus);
		for (c = 0; c < s->ncells; c++) {
			const struct cell *x = &s->cells[c];

			fprintf(out, "%s{\"policy\": ", c ? ", " : "");
			json_str(out, x->policy);
			fprintf(out, ", \"threads\": %u, \"n\": %zu, \"median\": ", x->threads, x->n);
			json_num(out, x->median);
			fputs(", \"min\": ", out);
			json_num(out, x->min);
			fputs(", \"max\": ", out);
			json_num(out, x->max);
			fputs(", \"speedup\": ", out);
			json_num(out, x->speedup);
			fputs(", \"efficiency\": ", out);
			json_num(out, x->efficiency);
			fprintf(out, ", \"oversubscribed\": %s, \"cpus\": ", x->oversubscribed ? "true" : "false");
			json_str(out, x->cpus ? x->cpus : "");
			fputs(", \"flags\": ", out);
			json_flags(out, cell_flags(x));
						fputs(", \"steal_pct\": ", out);
			json_num(out, x->load_steal);
			fputs(", \"others_pct\": ", out);
			json_num(out, x->load_others);
			fprintf(out, ", \"busy\": %s", x->busy ? "true" : "false");
			json_latency(out, x);
			json_counters(out, x);
			fputc('}', out);
		}
		if (json_verdicts(out, s) < 0)
			return -1;
		fputs("], \"usl\": [", out);
		for (p = 0, c = 0; p < s->npolicies; p++) {
			series_usl(s, s->policies[p], &fit);
			if (!fit.ok)
				continue;
			fprintf(out, "%s{\"policy\": ", c++ ? ", " : "");
			json_str(out, s->policies[p]);
			fputs(", \"s\": ", out);
			json_num(out, fit.s);
			fputs(", \"k\": ", out);
			json_num(out, fit.k);
			fputs(", \"n_peak\": ", out);
			json_num(out, fit.n_peak);
			fputs(", \"rms_error\": ", out);
			json_num(out, fit.rms_error);
			fprintf(out, ", \"poor\": %s}", fit.poor ? "true" : "false");
		}
		fputs("], \"warnings\": [", out);
		for (c = 0; c < f.nwarnings; c++) {
			fprintf(out, "%s{\"kind\": ", c ? ", " : "");
			json_str(out, f.warning[c].kind);
			fputs(", \"text\": ", out);
			json_str(out, f.warning[c].text);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	/* The cluster measurements, by series. */
	fputs("\n], \"cluster\": [", out);
	cluster_emit(out, cl, FMT_JSON, false, false);
	/* Where two backends ran the same algorithm: the cutoffs. */
	fputs("\n], \"cutoffs\": [", out);
	ret = emit_cutoffs(out, ds, FMT_JSON, false);
	/* Bytes of the files that were not UTF-8 were replaced: said once. */
	fputs("\n], \"warnings\": [", out);
	if (json_replaced_bytes())
		fprintf(out, "{\"kind\": \"encoding\", \"text\": \"%zu byte(s) of the input were not UTF-8 and were replaced by U+FFFD\"}",
			json_replaced_bytes());
	fputs("]}\n", out);
	return ret;
}

/* The columns of --cutoffs -f csv|tsv, one row per backend pair, policy
 * and thread count. */
static const char *const cutoff_head[] = { "workload", "algorithm", "host", "unit", "backend_a",
	"backend_b", "policy", "threads", "cutoff", "size_unit", "faster_below", "faster_above",
	"sizes", "min_size", "max_size" };

static void cutoff_row(FILE *out, char sep, bool raw, const struct obs *ka, const struct obs *kb,
		       const struct cell *x, bool found, double cut, const char *below,
		       const char *above, size_t m, double lo, double hi)
{
	const char *const text[] = { ka->workload, ka->algorithm, ka->host, ka->unit, ka->backend,
		kb->backend, x->policy };
	size_t i;

	for (i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		if (i)
			fputc(sep, out);
		csv_field(out, text[i], sep, raw);
	}
	fprintf(out, "%c%u%c", sep, x->threads, sep);
	if (found)
		fprintf(out, "%.10g", cut);
	fputc(sep, out);
	csv_field(out, ka->size_unit, sep, raw);
	fputc(sep, out);
	csv_field(out, below, sep, raw);
	fputc(sep, out);
	csv_field(out, above, sep, raw);
	fprintf(out, "%c%zu%c%.10g%c%.10g\n", sep, m, sep, lo, sep, hi);
}

/* A key for numbering things in first-seen order (number_groups). */
enum { IDKEY_WORDS = 5 };
struct idkey {
	uintptr_t k[IDKEY_WORDS];
	size_t i;
};

static int by_idkey(const void *x, const void *y)
{
	const struct idkey *a = x, *b = y;

	for (int j = 0; j < IDKEY_WORDS; j++)
		if (a->k[j] != b->k[j])
			return a->k[j] < b->k[j] ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* ID[k[x].i] = the number of k[x]'s group (equal keys), groups numbered in
 * the order of their first index.  K is sorted in the process. */
static int number_groups(struct idkey *k, size_t n, size_t *id)
{
	struct idkey *first = malloc((n ? n : 1) * sizeof(*first));
	size_t i, j, g = 0, x;

	if (!first)
		return -1;
	qsort(k, n, sizeof(*k), by_idkey);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && !memcmp(k[j].k, k[i].k, sizeof(k[i].k)); j++)
			;
		first[g++] = (struct idkey){ { k[i].i, i, j }, 0 };
	}
	qsort(first, g, sizeof(*first), by_idkey);
	for (x = 0; x < g; x++)
		for (i = first[x].k[1]; i < first[x].k[2]; i++)
			id[k[i].i] = x;
	free(first);
	return 0;
}

/* Where each point came from: its tag indexes these. */
struct cutoff_ref {
	const struct series *s;
	const struct cell *c;
};

static int by_backend(const void *x, const void *y, void *arg)
{
	const struct cutoff_ref *ref = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return strcmp(ref[a].s->key->backend, ref[b].s->key->backend);
}

/* Every cell as a point for cutoffs_compute: family (workload, algorithm,
 * host, unit, size unit; interned, so compared as pointers), config
 * (policy, threads), backend (rank in byte order).  Tag x is (*REF)[x]. */
static int cutoff_points(const struct dataset *ds, struct cutoff_point **pts, size_t *npts,
			 struct cutoff_ref **ref)
{
	size_t n = 0, i, c, x, rank, *fam = NULL, *cfg = NULL, *order = NULL;
	struct idkey *k = NULL;
	int ret = -1;

	for (i = 0; i < ds->nseries; i++)
		n += ds->series[i].ncells;
	*npts = n;
	*pts = malloc((n ? n : 1) * sizeof(**pts));
	*ref = malloc((n ? n : 1) * sizeof(**ref));
	k = malloc((n ? n : 1) * sizeof(*k));
	fam = malloc((n ? n : 1) * sizeof(*fam));
	cfg = malloc((n ? n : 1) * sizeof(*cfg));
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!*pts || !*ref || !k || !fam || !cfg || !order)
		goto out;
	for (i = 0, x = 0; i < ds->nseries; i++)
		for (c = 0; c < ds->series[i].ncells; c++, x++)
			(*ref)[x] = (struct cutoff_ref){ &ds->series[i], &ds->series[i].cells[c] };
	for (x = 0; x < n; x++) {
		const struct obs *o = (*ref)[x].s->key;

		k[x] = (struct idkey){ { (uintptr_t)o->workload, (uintptr_t)o->algorithm,
					 (uintptr_t)o->host, (uintptr_t)o->unit,
					 (uintptr_t)o->size_unit }, x };
	}
	if (number_groups(k, n, fam) < 0)
		goto out;
	for (x = 0; x < n; x++)
		k[x] = (struct idkey){ { (uintptr_t)(*ref)[x].c->policy, (*ref)[x].c->threads }, x };
	if (number_groups(k, n, cfg) < 0)
		goto out;
	/* Backends ranked by name, so that a pair is named a before b. */
	for (x = 0; x < n; x++)
		order[x] = x;
	qsort_r(order, n, sizeof(*order), by_backend, *ref);
	for (x = 0, rank = 0; x < n; x++) {
		const struct obs *o = (*ref)[order[x]].s->key;

		rank += x > 0 && strcmp(o->backend, (*ref)[order[x - 1]].s->key->backend);
		(*pts)[order[x]] = (struct cutoff_point){ .family = fam[order[x]],
			.config = cfg[order[x]], .backend = rank, .tag = order[x], .size = o->size,
			.rate = (*ref)[order[x]].c->median };
	}
	ret = 0;
out:
	free(k);
	free(fam);
	free(cfg);
	free(order);
	return ret;
}

/* Where two backends ran the same algorithm at several sizes: for each
 * policy and thread count, the size where one overtakes the other
 * (cutoffs_compute: per host and unit, every size). */
static int emit_cutoffs(FILE *out, const struct dataset *ds, enum format fmt, bool raw)
{
	const char sep = fmt == FMT_TSV ? '\t' : ',';
	struct cutoff_point *pts = NULL;
	struct cutoff_ref *ref = NULL;
	struct cutoff *cut = NULL;
	size_t i, npts, ncut = 0;
	bool header = false, md = fmt == FMT_MARKDOWN;
	int ret = -1;

	if (fmt == FMT_CSV || fmt == FMT_TSV) {
		for (i = 0; i < sizeof(cutoff_head) / sizeof(cutoff_head[0]); i++)
			fprintf(out, "%s%s", i ? (sep == '\t' ? "\t" : ",") : "", cutoff_head[i]);
		fputc('\n', out);
	}
	if (cutoff_points(ds, &pts, &npts, &ref) < 0 || cutoffs_compute(pts, npts, &cut, &ncut) < 0)
		goto out;
	for (i = 0; i < ncut; i++) {
		const struct cutoff *y = &cut[i];
		const struct obs *ka = ref[y->tag_a].s->key, *kb = ref[y->tag_b].s->key;
		const struct cell *x = ref[y->tag_a].c;
		const char *faster = y->ratio_min > 1 ? ka->backend : kb->backend;
		const char *above = y->found ? (y->a_wins_above ? ka->backend : kb->backend) : faster;
		const char *below = y->found ? (y->a_wins_above ? kb->backend : ka->backend) : faster;

		if (fmt == FMT_CSV || fmt == FMT_TSV) {
			cutoff_row(out, sep, raw, ka, kb, x, y->found, y->cut, below, above, y->sizes,
				   y->min_size, y->max_size);
			continue;
		}
		if (fmt == FMT_JSON) {
			fprintf(out, "%s\n {\"workload\": ", header ? "," : "");
			json_str(out, ka->workload);
			fputs(", \"algorithm\": ", out);
			json_str(out, ka->algorithm);
			fputs(", \"host\": ", out);
			json_str(out, ka->host);
			fputs(", \"backend_a\": ", out);
			json_str(out, ka->backend);
			fputs(", \"backend_b\": ", out);
			json_str(out, kb->backend);
			fputs(", \"policy\": ", out);
			json_str(out, x->policy);
			fprintf(out, ", \"threads\": %u, \"winner_above\": ", x->threads);
			json_str(out, above);
			fputs(", \"cutoff\": ", out);
			json_num(out, y->found ? y->cut : NAN);
			fputs(", \"size_unit\": ", out);
			json_str(out, ka->size_unit);
			fputs(", \"unit\": ", out);
			json_str(out, ka->unit);
			fprintf(out, ", \"sizes\": %zu, \"min_size\": ", y->sizes);
			json_num(out, y->min_size);
			fputs(", \"max_size\": ", out);
			json_num(out, y->max_size);
			fputc('}', out);
			header = true;
			continue;
		}
		if (!header) {
			fprintf(out, fmt == FMT_MARKDOWN ? "### Cutoffs between backends\n\n"
							 : "== cutoffs between backends\n");
			header = true;
		}
		fprintf(out, "%s%s %s, %s, %u thread%s%s%s: ", md ? "- " : "  ", ESC_MD(ka->workload, md),
			ESC_MD(ka->algorithm, md), ESC_MD(x->policy, md), x->threads, x->threads == 1 ? "" : "s",
			ds->multi_host ? ", host " : "", ds->multi_host ? ESC_MD(ka->host, md) : "");
		if (y->found)
			fprintf(out, "%s overtakes %s above ~%.0f %s\n", ESC_MD(above, md), ESC_MD(below, md),
				y->cut, ESC_MD(ka->size_unit, md));
		else
			fprintf(out, "%s is faster at every size measured (%zu sizes, %.0f..%.0f %s, %.2fx..%.2fx)\n",
				ESC_MD(faster, md), y->sizes, y->min_size, y->max_size, ESC_MD(ka->size_unit, md),
				y->ratio_min > 1 ? y->ratio_min : 1 / y->ratio_min,
				y->ratio_max > 1 ? y->ratio_max : 1 / y->ratio_max);
	}
	if (header && (fmt == FMT_TEXT || fmt == FMT_MARKDOWN))
		fputc('\n', out);
	ret = 0;
out:
	free(pts);
	free(ref);
	free(cut);
	return ret;
}

int main(int argc, char **argv)
{
	struct dataset ds = { 0 };
	struct cluster cl = { 0 };
	enum format fmt;
	bool raw, cutoffs, cluster;
	char *notes_buf = NULL;
	size_t notes_len = 0;
	FILE *notes = NULL;
	struct report_opts ro = { .format = &formats[0] };
	struct opt_parser p;
	char err[1024];
	size_t i;
	int c, rc = 0, ret = 2;

	datafile_stdio_init(PROG);
	if (opt_init(&p, PROG, options, sizeof(options) / sizeof(options[0]), 0) < 0)
		return 1;
	c = opt_parse(&p, argc, argv, &ro);
	if (c == 'h') {
		opt_help(&p, stdout, "[-f FORMAT] [--raw] [--cutoffs|--cluster|--hosts] FILE...\n"
			 "   or: threadreport [-f FORMAT] [--raw] --compare BEFORE.csv AFTER.csv\n"
			 "   or: threadreport [-f FORMAT] [--raw] --compare-by COL[=A,B] FILE...", help_after);
		ret = 0;
	} else if (c == 'V') {
		version_print(stdout, PROG);
		ret = 0;
	}
	if (c != OPT_END)
		goto out;
	fmt = ro.format->fmt;
	raw = ro.raw;
	cutoffs = ro.cutoffs;
	cluster = ro.cluster || ro.hosts;
	if (cutoffs + ro.cluster + ro.hosts + (ro.compare || ro.compare_by) > 1) {
		msg_error(PROG, "--cutoffs, --cluster, --hosts and --compare: give one of them");
		goto out;
	}
	if (ro.compare || ro.compare_by) {
		ret = compare_report(argv + optind, argc - optind, ro.compare_by, fmt, raw, stdout);
		goto out;
	}
	if (optind >= argc) {
		msg_error(PROG, "FILE: missing, usage: %s [-f FORMAT] FILE...", PROG);
		goto out;
	}
	/* Notes on the files (missing columns, malformed lines) wait until every
	 * file has read: a file that cannot be read is then the only line. */
	notes = open_memstream(&notes_buf, &notes_len);
	if (!notes) {
		ret = 1;
		goto out;
	}
	for (i = (size_t)optind; i < (size_t)argc; i++)
		if (dataset_read(&ds, argv[i], notes, err, sizeof(err)) < 0) {
			msg_error(PROG, "%s", err);
			goto out;
		}
	fclose(notes);
	notes = NULL;
	fputs(notes_buf, stderr);
	if (dataset_build(&ds) < 0) {
		msg_error(PROG, "out of memory");
		ret = 1;
		goto out;
	}
	if (!ds.nseries) {
		/* One line: the failed runs are the reason. */
		dataset_failed_text(&ds, err, sizeof(err));
		msg_error(PROG, "no usable rows in the input%s%s", err[0] ? "; " : "", err);
		goto out;
	}
	dataset_note_failed(&ds, stderr, PROG);
	if (cluster_build(&ds, &cl, stderr) < 0) {
		msg_error(PROG, "out of memory");
		ret = 1;
		goto out;
	}
	if (cluster && !cl.nseries)
		fprintf(stderr, "%s: note: no cluster measurements (rows with a job) in the input\n", PROG);
	if (cluster && fmt == FMT_JSON) {
		fputs("{\"cluster\": [", stdout);
		cluster_emit(stdout, &cl, fmt, raw, ro.hosts);
		fputs("\n]}\n", stdout);
	} else if (cluster) {
		cluster_emit(stdout, &cl, fmt, raw, ro.hosts);
	} else if (cutoffs && fmt == FMT_JSON) {
		fputs("{\"cutoffs\": [", stdout);
		rc = emit_cutoffs(stdout, &ds, fmt, raw);
		fputs("\n]}\n", stdout);
	} else if (cutoffs) {
		rc = emit_cutoffs(stdout, &ds, fmt, raw);
	} else {
		switch (fmt) {
		case FMT_TEXT:
		case FMT_MARKDOWN:
			rc = emit_text(stdout, &ds, fmt == FMT_MARKDOWN);
			if (!rc)
				cluster_emit(stdout, &cl, fmt, raw, false);
			if (!rc)
				rc = emit_cutoffs(stdout, &ds, fmt, raw);
			break;
		case FMT_CSV: rc = emit_csv(stdout, &ds, ',', raw); break;
		case FMT_TSV: rc = emit_csv(stdout, &ds, '\t', raw); break;
		case FMT_JSON: rc = emit_json(stdout, &ds, &cl); break;
		}
	}
	if (rc < 0) {
		msg_error(PROG, "out of memory");
		ret = 1;
		goto out;
	}
	if (ds.bad_lines)
		fprintf(stderr, "%s: %u malformed line%s skipped, named above\n", PROG, ds.bad_lines,
			ds.bad_lines == 1 ? "" : "s");
	ret = 0;
out:
	if (notes)
		fclose(notes);
	free(notes_buf);
	opt_fini(&p);
	cluster_free(&cl);
	dataset_free(&ds);
	return ret;
}
