/* The report's output helpers, shared by every table threadreport prints
 * (the normal report and --compare): cells, quoting, number formats. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opt.h"
#include "output.h"

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

/* A markdown table cell: a pipe would end it and a line break the table. */
void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', out);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
	}
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

/* A number a spreadsheet reads as one (-1.5e3): signed decimals stay as
 * they are, never guarded as formulas. */
static bool is_decimal(const char *s)
{
	return num_is_decimal(s + (*s == '+' || *s == '-'));
}

/* A field of the cell table: CSV quoting, or for TSV (SEP a tab) tabs
 * and newlines turned to spaces.  Unless RAW, a text that a spreadsheet
 * would run as a formula (OWASP's CSV injection list) is prefixed with '. */
void csv_field(FILE *out, const char *s, char sep, bool raw)
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

/* Bytes of input text that were not UTF-8 (replaced in the JSON). */
static size_t json_bad_bytes;

size_t json_replaced_bytes(void)
{
	return json_bad_bytes;
}

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
void json_str(FILE *out, const char *text)
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

void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	else
		fputs("null", out);
}
