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
	bool raw;
};

static const struct opt_spec options[] = {
	{ OPT_CHOICE('f', "format", "FMT", offsetof(struct report_opts, format), formats, &nformats,
		     "text (default), markdown, csv, tsv (for shell tools) or json") },
	{ OPT_FLAG(0, "raw", offsetof(struct report_opts, raw),
		   "csv and tsv: text fields exactly as in the files, for programs "
		   "(no spreadsheet formula guard)") },
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
	"Exit status: 0; 2 usage or unreadable input.\n";

/* Per series, the facts every format prints. */
struct facts {
	char title[512];
	char warnings[1024];
};

static const char *size_text(const struct obs *k, char *buf, size_t len)
{
	if (isnan(k->size))
		snprintf(buf, len, "-");
	else if (!strcmp(k->size_unit, "bits"))
		snprintf(buf, len, "%.0f bits", k->size);
	else if (!strcmp(k->size_unit, "n"))
		snprintf(buf, len, "N=%.0f", k->size);
	else
		snprintf(buf, len, "%.0f bytes", k->size);
	return buf;
}

static void series_facts(const struct dataset *ds, const struct series *s, struct facts *f)
{
	const struct obs *k = s->key;
	size_t used = 0, i, few = 0, wide = 0, over = 0;
	char size[64];

	snprintf(f->title, sizeof(f->title), "%s %s%s%s, %s, %s%s%s", k->workload,
		 *k->algorithm ? k->algorithm : "-", *k->backend ? " / " : "", k->backend,
		 size_text(k, size, sizeof(size)), *k->unit ? k->unit : "rate",
		 ds->multi_host ? ", host " : "", ds->multi_host ? k->host : "");
	f->warnings[0] = '\0';
	for (i = 0; i < s->ncells; i++) {
		few += s->cells[i].n < 3;
		wide += s->cells[i].median > 0 &&
			(s->cells[i].max - s->cells[i].min) / s->cells[i].median > 0.10;
		over += s->cells[i].oversubscribed;
	}
#define WARN(...) \
	used += (size_t)snprintf(f->warnings + used, used < sizeof(f->warnings) ? sizeof(f->warnings) - used : 0, __VA_ARGS__)
	if (s->unverified)
		WARN("%zu row(s) NOT VERIFIED: their rates are not to be trusted; ", s->unverified);
	if (s->unchecked)
		WARN("%zu row(s) UNCHECKED: a worker's output was never checked; ", s->unchecked);
	if (s->misplaced)
		WARN("%zu row(s) ran off their planned PUs (placement not honoured); ", s->misplaced);
	if (over)
		WARN("%zu point(s) have more threads than the %u PUs (oversubscribed); ", over, s->pus);
	if (few)
		WARN("%zu point(s) have fewer than 3 repeats: medians are weak; ", few);
	if (wide)
		WARN("%zu point(s) spread over 10%% of their median (noisy machine?); ", wide);
	if (s->speedup_from_smallest)
		WARN("no 1-thread point for some policy: speedup is against the smallest count, scaled; ");
#undef WARN
	if (used >= 2 && used < sizeof(f->warnings))
		f->warnings[used - 2] = '\0';
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
			fprintf(out, "| policy | threads | median | min | max | n | speedup | efficiency |\n");
			fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
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
			char med[32], lo[32], hi[32];

			fmt_rate(x->median, med, sizeof(med));
			fmt_rate(x->min, lo, sizeof(lo));
			fmt_rate(x->max, hi, sizeof(hi));
			fprintf(out, markdown ? "| %s | %u | %s | %s | %s | %zu | %.2f | %.2f |"
					      : "%-16s %7u %14s %14s %14s %3zu %8.2f %10.2f",
				x->policy, x->threads, med, lo, hi, x->n, x->speedup, x->efficiency);
			if (!markdown && s->monitored && x->monitored)
				fprintf(out, "  %6.0f %7.0f %6.1f %5.1f", x->migrations, x->off_plan,
					x->steal_pct, x->sys_share);
			else if (!markdown && s->monitored)
				fprintf(out, "  %6s %7s %6s %5s", "-", "-", "-", "-");
			fprintf(out, "%s\n", x->oversubscribed ? (markdown ? " oversubscribed" : "  (oversubscribed)") : "");
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

/* A plain decimal number (-1.5e3): a spreadsheet takes it as a number,
 * never as a formula, so it needs no guard. */
static bool is_decimal(const char *s)
{
	bool digits = false;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits = true;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits = true;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return !*s;
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
			fprintf(out, "%c%u%c%zu%c%.10g%c%.10g%c%.10g%c%.6g%c%.6g%c%s%c%u%c%u\n", sep,
				x->threads, sep, x->n, sep, x->median, sep, x->min, sep, x->max, sep,
				x->speedup, sep, x->efficiency, sep, x->oversubscribed ? "yes" : "no", sep,
				s->cores, sep, s->pus);
		}
	}
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
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

static void emit_cutoffs(FILE *out, const struct dataset *ds, enum format fmt);

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
		fputs("], \"warnings\": ", out);
		json_str(out, f.warnings);
		fputc('}', out);
	}
	/* Where two backends ran the same algorithm: the cutoffs. */
	fputs("\n], \"cutoffs\": [", out);
	emit_cutoffs(out, ds, FMT_JSON);
	fputs("\n]}\n", out);
}

/* Where two backends ran the same algorithm at several sizes. */
static void emit_cutoffs(FILE *out, const struct dataset *ds, enum format fmt)
{
	size_t i, j, a, b, m;
	bool header = false;

	for (i = 0; i < ds->nseries; i++)
		for (j = 0; j < ds->nseries; j++) {
			const struct obs *ki = ds->series[i].key, *kj = ds->series[j].key;
			double size[64], ra[64], rb[64], cut;
			bool a_above;

			/* One line per backend pair: the first series of each family. */
			if (strcmp(ki->workload, kj->workload) || strcmp(ki->algorithm, kj->algorithm) ||
			    strcmp(ki->host, kj->host) || strcmp(ki->unit, kj->unit) ||
			    strcmp(ki->backend, kj->backend) >= 0)
				continue;
			for (a = 0; a < i; a++)
				if (!strcmp(ds->series[a].key->workload, ki->workload) &&
				    !strcmp(ds->series[a].key->algorithm, ki->algorithm) &&
				    !strcmp(ds->series[a].key->backend, ki->backend))
					break;
			for (b = 0; b < j; b++)
				if (!strcmp(ds->series[b].key->workload, kj->workload) &&
				    !strcmp(ds->series[b].key->algorithm, kj->algorithm) &&
				    !strcmp(ds->series[b].key->backend, kj->backend))
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

					if (strcmp(sa->key->workload, ki->workload) ||
					    strcmp(sa->key->algorithm, ki->algorithm) ||
					    strcmp(sa->key->backend, ki->backend))
						continue;
					ca = series_cell(sa, x->policy, x->threads);
					for (b = 0; b < ds->nseries; b++) {
						const struct series *sb = &ds->series[b];

						if (strcmp(sb->key->workload, kj->workload) ||
						    strcmp(sb->key->algorithm, kj->algorithm) ||
						    strcmp(sb->key->backend, kj->backend) ||
						    sb->key->size != sa->key->size)
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

				if (fmt == FMT_JSON) {
					fprintf(out, "%s\n {\"workload\": ", header ? "," : "");
					json_str(out, ki->workload);
					fputs(", \"algorithm\": ", out);
					json_str(out, ki->algorithm);
					fputs(", \"policy\": ", out);
					json_str(out, x->policy);
					fprintf(out, ", \"threads\": %u, \"winner_above\": ", x->threads);
					json_str(out, found ? (a_above ? ki->backend : kj->backend) : faster);
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
				fprintf(out, "%s%s %s, %s, %u threads: ", fmt == FMT_MARKDOWN ? "- " : "  ",
					ki->workload, ki->algorithm, x->policy, x->threads);
				if (found)
					fprintf(out, "%s overtakes %s above ~%.0f %s\n",
						a_above ? ki->backend : kj->backend,
						a_above ? kj->backend : ki->backend, cut, ki->size_unit);
				else
					fprintf(out, "%s is faster at every size measured (%.0f..%.0f %s, %.2fx..%.2fx)\n",
						faster, size[0], size[m - 1],
						ki->size_unit, ra[0] > rb[0] ? ra[0] / rb[0] : rb[0] / ra[0],
						ra[m - 1] > rb[m - 1] ? ra[m - 1] / rb[m - 1] : rb[m - 1] / ra[m - 1]);
			}
		}
	if (header && fmt != FMT_JSON)
		fputc('\n', out);
}

int main(int argc, char **argv)
{
	struct dataset ds = { 0 };
	enum format fmt;
	bool raw;
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
		opt_help(&p, stdout, "[-f FORMAT] FILE...", help_after);
		ret = 0;
	}
	if (c != OPT_END)
		goto out;
	fmt = ro.format->fmt;
	raw = ro.raw;
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
	switch (fmt) {
	case FMT_TEXT: emit_text(stdout, &ds, false); emit_cutoffs(stdout, &ds, fmt); break;
	case FMT_MARKDOWN: emit_text(stdout, &ds, true); emit_cutoffs(stdout, &ds, fmt); break;
	case FMT_CSV: emit_csv(stdout, &ds, ',', raw); break;
	case FMT_TSV: emit_csv(stdout, &ds, '\t', raw); break;
	case FMT_JSON: emit_json(stdout, &ds); break;
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
