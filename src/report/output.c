/* The report's output helpers, shared by every table threadreport prints
 * (the normal report and --compare): cells, quoting, number formats. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "output.h"
#include "units.h"

const char *size_text(const struct obs *k, char *buf, size_t len)
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

const char *series_title(const struct obs *k, unsigned with, char *buf, size_t len)
{
	bool job = (with & TITLE_JOB) && *k->job;
	char size[64], raw[512];

	snprintf(raw, sizeof(raw), "%s %s%s%s, %s, %s%s%s%s%s%s%s", k->workload, *k->algorithm ? k->algorithm : "-",
		 *k->backend ? " / " : "", k->backend, size_text(k, size, sizeof(size)), *k->unit ? k->unit : "rate",
		 with & TITLE_HOST ? ", host " : "", with & TITLE_HOST ? k->host : "",
		 with & TITLE_CONFIG ? ", config " : "", with & TITLE_CONFIG ? k->config : "",
		 job ? ", job " : "", job ? k->job : "");
	return esc_text(raw, buf, len);
}

void md_cell(FILE *out, const char *s)
{
	esc_md(out, s);
}

/* A ratio with two decimals, or n/a where there is none. */
void fixed2(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "n/a");
}

/* Rates span 1e-1 (runs/s) to 1e10 (bytes/s): whole numbers where they
 * are large, three significant digits where small. */
void fmt_rate(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* --exact: all of a rate's digits in text and markdown, as the files hold
 * them; set once by main, before anything is written. */
static bool exact;

void output_set_exact(bool on)
{
	exact = on;
}

bool output_exact(void)
{
	return exact;
}

const char *rate_text(double v, const char *unit, char *buf, size_t len)
{
	if (!exact)
		return units_human(buf, len, v, unit);
	fmt_rate(v, buf, len);
	return buf;
}

const char *rate_range_text(double lo, double hi, const char *unit, char *buf, size_t len)
{
	char a[32], b[32];

	if (!exact)
		return units_human_range(buf, len, lo, hi, unit);
	fmt_rate(lo, a, sizeof(a));
	fmt_rate(hi, b, sizeof(b));
	snprintf(buf, len, "%s..%s", a, b);
	return buf;
}

int rate_width(const char *unit)
{
	return exact ? 0 : units_human_width(unit);
}

const char *rates_note(void)
{
	return exact ? NULL
		     : "rates in decimal SI units: k = 10^3, M = 10^6, G = 10^9 (1 GB/s = 10^9 bytes/s); "
		       "--exact for all digits";
}

/* The report's CSV keeps a row on one line; the formula guard is off
 * for --raw. */
void csv_field(FILE *out, const char *s, char sep, bool raw)
{
	unsigned flags = raw ? 0 : ESC_GUARD;

	if (sep == '\t')
		esc_tsv(out, s, flags);
	else
		esc_csv(out, s, flags | ESC_ONE_LINE);
}


/* Bytes of input text that were not UTF-8 (replaced in the JSON). */
static size_t json_bad_bytes;

size_t json_replaced_bytes(void)
{
	return json_bad_bytes;
}

void json_str(FILE *out, const char *text)
{
	json_bad_bytes += esc_json(out, text);
}

void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	else
		fputs("null", out);
}
