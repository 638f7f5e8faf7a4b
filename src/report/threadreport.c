/* threadreport: speedup, efficiency, best placement, contention, cutoffs. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
#include "dataset.h"
#include "opt.h"

#define PROG "threadreport"

enum format { FMT_TEXT, FMT_MARKDOWN, FMT_CSV, FMT_TSV, FMT_JSON };

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
	bool raw, cutoffs;
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

static const char *size_text(const struct obs *k, char *buf, size_t len)
{
	if (isnan(k->size))
		snprintf(buf, len, "-");
	else if (!strcmp(k->size_unit, "bits"))
		snprintf(buf, len, "%.0f bits", k->size);
	else if (!strcmp(k->size_unit, "n"))
		snprintf(buf, len, "N=%.0f", k->size);
	else if (*k->size_unit && strcmp(k->size_unit, "bytes"))
		snprintf(buf, len, "%.0f %s", k->size, k->size_unit);
	else
		snprintf(buf, len, "%.0f bytes", k->size);
	return buf;
}

static void series_facts(const struct dataset *ds, const struct series *s, struct facts *f)
{
	const struct obs *k = s->key;
	size_t used = 0, i, few = 0, wide = 0, over = 0;
	char size[64];

	snprintf(f->title, sizeof(f->title), "%s %s%s%s, %s, %s%s%s%s%s", k->workload,
		 *k->algorithm ? k->algorithm : "-", *k->backend ? " / " : "", k->backend,
		 size_text(k, size, sizeof(size)), *k->unit ? k->unit : "rate",
		 ds->multi_host ? ", host " : "", ds->multi_host ? k->host : "",
		 ds->multi_config ? ", config " : "", ds->multi_config ? k->config : "");
	/* A title is one line, whatever the files' names hold. */
	for (char *t = f->title; *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7f)
			*t = ' ';
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
		WARN("unverified", "%zu row(s) NOT VERIFIED: their rates are not to be trusted", s->unverified);
	if (s->unchecked)
		WARN("unchecked", "%zu row(s) UNCHECKED: a worker's output was never checked", s->unchecked);
	if (s->misplaced)
		WARN("placement", "%zu row(s) ran off their planned PUs (placement not honoured)", s->misplaced);
	if (over)
		WARN("oversubscribed", "%zu point(s) have more threads than the %u PUs (oversubscribed)", over, s->pus);
	if (few)
		WARN("few_repeats", "%zu point(s) have fewer than 3 repeats: medians are weak", few);
	if (wide)
		WARN("spread", "%zu point(s) spread over 10%% of their median (noisy machine?)", wide);
	if (s->no_one_thread)
		WARN("no_one_thread", "no 1-thread point for some policy: no speedup or efficiency for it (n/a)");
#undef WARN
	for (i = 0; i < f->nwarnings && used < sizeof(f->warnings); i++)
		used += (size_t)snprintf(f->warnings + used, sizeof(f->warnings) - used, "%s%s",
					 i ? "; " : "", f->warning[i].text);
}

static unsigned *thread_counts(const struct series *s, size_t *n)
{
	unsigned *t = calloc(s->ncells ? s->ncells : 1, sizeof(*t));
	size_t i, j;

	*n = 0;
	for (i = 0; t && i < s->ncells; i++) {
		for (j = 0; j < *n && t[j] != s->cells[i].threads; j++)
			;
		if (j == *n)
			t[(*n)++] = s->cells[i].threads;
	}
	for (i = 1; t && i < *n; i++)
		for (j = i; j > 0 && t[j - 1] > t[j]; j--) {
			unsigned x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	return t;
}

/* "best policy" and "sharing penalty" lines, for text and markdown. */
static void print_comparisons(FILE *out, const struct series *s, const char *bullet)
{
	size_t nt, i, p;
	unsigned *t = thread_counts(s, &nt);
	const struct cell *c1, *ck;
	bool any;

	if (!t)
		return;
	if (s->npolicies > 1) {
		fprintf(out, "%sbest policy per thread count:", bullet);
		for (i = 0; i < nt; i++) {
			const struct cell *best = NULL, *worst = NULL;

			for (p = 0; p < s->npolicies; p++) {
				const struct cell *c = series_cell(s, s->policies[p], t[i]);

				if (!c)
					continue;
				if (!best || c->median > best->median)
					best = c;
				if (!worst || c->median < worst->median)
					worst = c;
			}
			if (best && worst && best != worst)
				fprintf(out, " %u: %s (%.2fx %s)%s", t[i], best->policy,
					best->median / worst->median, worst->policy, i + 1 < nt ? ";" : "");
			else if (best)
				fprintf(out, " %u: %s (alone)%s", t[i], best->policy, i + 1 < nt ? ";" : "");
		}
		fputc('\n', out);
	}
	for (p = 0; p < s->npolicies; p++) {
		unsigned k;

		if (sscanf(s->policies[p], "c%u", &k) != 1 || k < 2)
			continue;
		any = false;
		for (i = 0; i < nt; i++) {
			c1 = series_cell(s, "c1", t[i]);
			ck = series_cell(s, s->policies[p], t[i]);
			if (!c1 || !ck || !(c1->median > 0))
				continue;
			if (!any)
				fprintf(out, "%ssharing penalty, per-worker rate %s / c1:", bullet, ck->policy);
			fprintf(out, " %u threads %.2f;", t[i], ck->median / c1->median);
			any = true;
		}
		if (any)
			fputs(" (1.00 = no contention; 0.50 = strands share one unit)\n", out);
	}
	free(t);
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
			bullet, s->policies[p], fit.s, fit.k, peak, 100 * fit.rms_error,
			fit.poor ? " -- poor fit, read with care" : "");
	}
}

/* Rates span 1e-1 (runs/s) to 1e10 (bytes/s): whole numbers where they
 * are large, three significant digits where small. */
/* A markdown table cell: a pipe would end it and a line break the table. */
static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', out);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
	}
}

/* A ratio with two decimals, or n/a where there is none. */
static void fixed2(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "n/a");
}

static void fmt_rate(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static void emit_text(FILE *out, const struct dataset *ds, bool markdown)
{
	struct facts f;
	size_t i, c;

	for (i = 0; i < ds->nseries; i++) {
		const struct series *s = &ds->series[i];

		series_facts(ds, s, &f);
		if (markdown) {
			fprintf(out, "### %s\n\n", f.title);
			if (*s->key->impl)
				fprintf(out, "Implementation: %s\n\n", s->key->impl);
			fprintf(out, "| policy | threads | median | min | max | n | speedup | efficiency | note |\n");
			fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
		} else {
			fprintf(out, "== %s\n", f.title);
			if (*s->key->impl)
				fprintf(out, "   %s\n", s->key->impl);
			fprintf(out, "%-16s %7s %14s %14s %14s %3s %8s %10s", "policy", "threads",
				"median", "min", "max", "n", "speedup", "efficiency");
			if (s->monitored)
				fprintf(out, "  %6s %7s %6s %5s", "migr", "offplan", "steal%", "sys%");
			fputc('\n', out);
		}
		for (c = 0; c < s->ncells; c++) {
			const struct cell *x = &s->cells[c];
			char med[32], lo[32], hi[32], sp[32], ef[32];

			fmt_rate(x->median, med, sizeof(med));
			fmt_rate(x->min, lo, sizeof(lo));
			fmt_rate(x->max, hi, sizeof(hi));
			fixed2(x->speedup, sp, sizeof(sp));
			fixed2(x->efficiency, ef, sizeof(ef));
			if (markdown) {
				fputs("| ", out);
				md_cell(out, x->policy);
				fprintf(out, " | %u | %s | %s | %s | %zu | %s | %s | %s |", x->threads, med, lo,
					hi, x->n, sp, ef, x->oversubscribed ? "oversubscribed" : "");
			} else {
				fprintf(out, "%-16s %7u %14s %14s %14s %3zu %8s %10s", x->policy, x->threads,
					med, lo, hi, x->n, sp, ef);
			}
			if (!markdown && s->monitored && x->monitored)
				fprintf(out, "  %6.0f %7.0f %6.1f %5.1f", x->migrations, x->off_plan,
					x->steal_pct, x->sys_share);
			else if (!markdown && s->monitored)
				fprintf(out, "  %6s %7s %6s %5s", "-", "-", "-", "-");
			fprintf(out, "%s\n", !markdown && x->oversubscribed ? "  (oversubscribed)" : "");
		}
		if (markdown)
			fputc('\n', out);
		print_comparisons(out, s, markdown ? "- " : "  ");
		print_usl(out, s, markdown ? "- " : "  ");
		if (f.warnings[0])
			fprintf(out, "%swarning: %s\n", markdown ? "- " : "  ", f.warnings);
		fputc('\n', out);
	}
}

/* A number a spreadsheet reads as one (-1.5e3): signed decimals stay as
 * they are, never guarded as formulas. */
static bool is_decimal(const char *s)
{
	return num_is_decimal(s + (*s == '+' || *s == '-'));
}

/* A field of the cell table: CSV quoting, or for TSV (SEP a tab) tabs
 * and newlines turned to spaces.  Unless RAW, a text that a spreadsheet
 * would run as a formula (OWASP's CSV injection list) is prefixed with '. */
static void csv_field(FILE *out, const char *s, char sep, bool raw)
{
	bool guard = !raw && *s && strchr("=+-@\t\r", *s) && !is_decimal(s);

	if (sep == '\t') {
		if (guard)
			fputc('\'', out);
		for (; *s; s++)
			fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
		return;
	}
	if (!strpbrk(s, ",\"\n\r")) {
		if (guard)
			fputc('\'', out);
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (guard)
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
	fputc('"', out);
}

static void emit_csv(FILE *out, const struct dataset *ds, char sep, bool raw)
{
	static const char *const head[] = { "series", "host", "workload", "algorithm", "backend",
		"impl", "size", "size_unit", "unit", "policy", "threads", "n", "median", "min", "max",
		"speedup", "efficiency", "oversubscribed", "cores", "pus" };
	size_t i, c;

	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		fprintf(out, "%s%s", i ? (sep == '\t' ? "\t" : ",") : "", head[i]);
	fputc('\n', out);
	for (i = 0; i < ds->nseries; i++) {
		const struct series *s = &ds->series[i];
		const struct obs *k = s->key;

		for (c = 0; c < s->ncells; c++) {
			const struct cell *x = &s->cells[c];
			const char *f[] = { k->host, k->workload, k->algorithm, k->backend, k->impl };

			fprintf(out, "%zu", i);
			for (size_t j = 0; j < 5; j++) {
				fputc(sep, out);
				csv_field(out, f[j], sep, raw);
			}
			fprintf(out, "%c%.10g%c", sep, k->size, sep);
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
			fprintf(out, "%c%s%c%u%c%u\n", sep, x->oversubscribed ? "yes" : "no", sep,
				s->cores, sep, s->pus);
		}
	}
}

/* Bytes of input text that were not UTF-8 (replaced in the JSON). */
static size_t json_bad_bytes;

/* The length of the well-formed UTF-8 sequence at S (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* A JSON string: escaped, and valid UTF-8 whatever the files held (a bad
 * byte becomes U+FFFD and is counted). */
static void json_str(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n;

	fputc('"', out);
	while (*s) {
		n = utf8_len(s);
		if (!n) {
			fputs("\\ufffd", out);
			json_bad_bytes++;
			s++;
		} else if (*s == '"' || *s == '\\') {
			fprintf(out, "\\%c", *s++);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, out);
			s += n;
		}
	}
	fputc('"', out);
}

static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	else
		fputs("null", out);
}

static void emit_cutoffs(FILE *out, const struct dataset *ds, enum format fmt, bool raw);

static void emit_json(FILE *out, const struct dataset *ds)
{
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
			fprintf(out, ", \"oversubscribed\": %s}", x->oversubscribed ? "true" : "false");
		}
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
	/* Where two backends ran the same algorithm: the cutoffs. */
	fputs("\n], \"cutoffs\": [", out);
	emit_cutoffs(out, ds, FMT_JSON, false);
	/* Bytes of the files that were not UTF-8 were replaced: said once. */
	fputs("\n], \"warnings\": [", out);
	if (json_bad_bytes)
		fprintf(out, "{\"kind\": \"encoding\", \"text\": \"%zu byte(s) of the input were not UTF-8 and were replaced by U+FFFD\"}",
			json_bad_bytes);
	fputs("]}\n", out);
}

/* Same workload, algorithm, host and unit: two backends of one family can
 * be compared; rows of another host never mix in. */
static bool same_family(const struct obs *a, const struct obs *b)
{
	return !strcmp(a->workload, b->workload) && !strcmp(a->algorithm, b->algorithm) &&
	       !strcmp(a->host, b->host) && !strcmp(a->unit, b->unit);
}

static bool same_backend(const struct obs *a, const struct obs *b)
{
	return same_family(a, b) && !strcmp(a->backend, b->backend);
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

/* Where two backends ran the same algorithm at several sizes: for each
 * policy and thread count, the size where one overtakes the other. */
static void emit_cutoffs(FILE *out, const struct dataset *ds, enum format fmt, bool raw)
{
	const char sep = fmt == FMT_TSV ? '\t' : ',';
	size_t i, j, a, b, m;
	bool header = false;

	if (fmt == FMT_CSV || fmt == FMT_TSV) {
		for (i = 0; i < sizeof(cutoff_head) / sizeof(cutoff_head[0]); i++)
			fprintf(out, "%s%s", i ? (sep == '\t' ? "\t" : ",") : "", cutoff_head[i]);
		fputc('\n', out);
	}
	for (i = 0; i < ds->nseries; i++)
		for (j = 0; j < ds->nseries; j++) {
			const struct obs *ki = ds->series[i].key, *kj = ds->series[j].key;
			double size[64], ra[64], rb[64], cut;
			bool a_above;

			/* One line per backend pair: the first series of each family. */
			if (!same_family(ki, kj) || strcmp(ki->backend, kj->backend) >= 0)
				continue;
			for (a = 0; a < i; a++)
				if (same_backend(ds->series[a].key, ki))
					break;
			for (b = 0; b < j; b++)
				if (same_backend(ds->series[b].key, kj))
					break;
			if (a < i || b < j)
				continue;
			/* For each policy x threads: the rate of each backend by size. */
			for (size_t c = 0; c < ds->series[i].ncells; c++) {
				const struct cell *x = &ds->series[i].cells[c];

				m = 0;
				for (a = 0; a < ds->nseries && m < 64; a++) {
					const struct series *sa = &ds->series[a];
					const struct cell *ca, *cb;

					if (!same_backend(sa->key, ki))
						continue;
					ca = series_cell(sa, x->policy, x->threads);
					for (b = 0; b < ds->nseries && m < 64; b++) {
						const struct series *sb = &ds->series[b];

						if (!same_backend(sb->key, kj) || sb->key->size != sa->key->size)
							continue;
						cb = series_cell(sb, x->policy, x->threads);
						if (ca && cb) {
							size[m] = sa->key->size;
							ra[m] = ca->median;
							rb[m++] = cb->median;
						}
					}
				}
				if (m < 2)
					continue;
				for (a = 1; a < m; a++)
					for (b = a; b > 0 && size[b - 1] > size[b]; b--) {
						double t = size[b]; size[b] = size[b - 1]; size[b - 1] = t;
						t = ra[b]; ra[b] = ra[b - 1]; ra[b - 1] = t;
						t = rb[b]; rb[b] = rb[b - 1]; rb[b - 1] = t;
					}
				bool found = cutoff_find(size, ra, rb, m, &cut, &a_above);
				const char *faster = ra[0] > rb[0] ? ki->backend : kj->backend;
				const char *above = found ? (a_above ? ki->backend : kj->backend) : faster;
				const char *below = found ? (a_above ? kj->backend : ki->backend) : faster;

				if (fmt == FMT_CSV || fmt == FMT_TSV) {
					cutoff_row(out, sep, raw, ki, kj, x, found, cut, below, above, m,
						   size[0], size[m - 1]);
					continue;
				}
				if (fmt == FMT_JSON) {
					fprintf(out, "%s\n {\"workload\": ", header ? "," : "");
					json_str(out, ki->workload);
					fputs(", \"algorithm\": ", out);
					json_str(out, ki->algorithm);
					fputs(", \"host\": ", out);
					json_str(out, ki->host);
					fputs(", \"backend_a\": ", out);
					json_str(out, ki->backend);
					fputs(", \"backend_b\": ", out);
					json_str(out, kj->backend);
					fputs(", \"policy\": ", out);
					json_str(out, x->policy);
					fprintf(out, ", \"threads\": %u, \"winner_above\": ", x->threads);
					json_str(out, above);
					fputs(", \"cutoff\": ", out);
					json_num(out, found ? cut : NAN);
					fputs(", \"size_unit\": ", out);
					json_str(out, ki->size_unit);
					fputc('}', out);
					header = true;
					continue;
				}
				if (!header) {
					fprintf(out, fmt == FMT_MARKDOWN ? "### Cutoffs between backends\n\n"
									 : "== cutoffs between backends\n");
					header = true;
				}
				fprintf(out, "%s%s %s, %s, %u threads%s%s: ", fmt == FMT_MARKDOWN ? "- " : "  ",
					ki->workload, ki->algorithm, x->policy, x->threads,
					ds->multi_host ? ", host " : "", ds->multi_host ? ki->host : "");
				if (found)
					fprintf(out, "%s overtakes %s above ~%.0f %s\n", above, below, cut,
						ki->size_unit);
				else
					fprintf(out, "%s is faster at every size measured (%.0f..%.0f %s, %.2fx..%.2fx)\n",
						faster, size[0], size[m - 1],
						ki->size_unit, ra[0] > rb[0] ? ra[0] / rb[0] : rb[0] / ra[0],
						ra[m - 1] > rb[m - 1] ? ra[m - 1] / rb[m - 1] : rb[m - 1] / ra[m - 1]);
			}
		}
	if (header && (fmt == FMT_TEXT || fmt == FMT_MARKDOWN))
		fputc('\n', out);
}

int main(int argc, char **argv)
{
	struct dataset ds = { 0 };
	enum format fmt;
	bool raw, cutoffs;
	char *notes_buf = NULL;
	size_t notes_len = 0;
	FILE *notes = NULL;
	struct report_opts ro = { .format = &formats[0] };
	struct opt_parser p;
	char err[1024];
	size_t i;
	int c, ret = 2;

	datafile_stdio_init(PROG);
	if (opt_init(&p, PROG, options, sizeof(options) / sizeof(options[0]), 0) < 0)
		return 1;
	c = opt_parse(&p, argc, argv, &ro);
	if (c == 'h') {
		opt_help(&p, stdout, "[-f FORMAT] [--raw] [--cutoffs] FILE...", help_after);
		ret = 0;
	}
	if (c != OPT_END)
		goto out;
	fmt = ro.format->fmt;
	raw = ro.raw;
	cutoffs = ro.cutoffs;
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
		msg_error(PROG, "no usable rows in the input");
		goto out;
	}
	if (cutoffs && fmt == FMT_JSON) {
		fputs("{\"cutoffs\": [", stdout);
		emit_cutoffs(stdout, &ds, fmt, raw);
		fputs("\n]}\n", stdout);
	} else if (cutoffs) {
		emit_cutoffs(stdout, &ds, fmt, raw);
	} else {
		switch (fmt) {
		case FMT_TEXT: emit_text(stdout, &ds, false); emit_cutoffs(stdout, &ds, fmt, raw); break;
		case FMT_MARKDOWN: emit_text(stdout, &ds, true); emit_cutoffs(stdout, &ds, fmt, raw); break;
		case FMT_CSV: emit_csv(stdout, &ds, ',', raw); break;
		case FMT_TSV: emit_csv(stdout, &ds, '\t', raw); break;
		case FMT_JSON: emit_json(stdout, &ds); break;
		}
	}
	if (ds.bad_lines)
		fprintf(stderr, "%s: %u malformed line(s) skipped, named above\n", PROG, ds.bad_lines);
	ret = 0;
out:
	if (notes)
		fclose(notes);
	free(notes_buf);
	opt_fini(&p);
	dataset_free(&ds);
	return ret;
}
