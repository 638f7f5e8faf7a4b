/*
 * How threadreport writes its tables, whatever the report: the same
 * quoting, the same formula guard and the same number formats for the
 * normal report and for --compare.
 */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dataset.h"

enum format { FMT_TEXT, FMT_MARKDOWN, FMT_CSV, FMT_TSV, FMT_JSON, FMT_HTML };

/* "16 bytes", "2048 bits", "N=500", "-" where the rows have no size. */
const char *size_text(const struct obs *k, char *buf, size_t len);

/* A series' title as one line (esc_text): "t2accel sha256 / evp, 1024
 * bytes, bytes/s", then host, config and job where WITH asks (job only
 * where the rows have one). */
enum { TITLE_HOST = 1, TITLE_CONFIG = 2, TITLE_JOB = 4 };
const char *series_title(const struct obs *k, unsigned with, char *buf, size_t len);

/* A markdown table cell (esc_md): the row keeps its cell count and no
 * HTML reaches the page. */
void md_cell(FILE *out, const char *s);

/* A ratio with two decimals, or "n/a" where V is not finite. */
void fixed2(double v, char *buf, size_t len);

/* A rate: whole numbers from 1000 up, four significant digits below. */
void fmt_rate(double v, char *buf, size_t len);

/* Text and markdown show rates with SI prefixes and their unit
 * (units_human: "1.97 GB/s"); --exact (ON) asks for fmt_rate()'s digits,
 * as before units were shown.  Set once, before anything is written. */
void output_set_exact(bool on);
bool output_exact(void);
/* A rate V in UNIT (a row's unit column) for people: "1.97 GB/s", or
 * under --exact fmt_rate()'s "1966550000" without the unit.  Returns BUF. */
const char *rate_text(double v, const char *unit, char *buf, size_t len);
/* An interval of rates: "1.90..2.10 GB/s" (--exact "1900..2100"). */
const char *rate_range_text(double lo, double hi, const char *unit, char *buf, size_t len);
/* The columns rate_text() takes at most for UNIT; 0 under --exact. */
int rate_width(const char *unit);
/* The line that says the prefixes are decimal, said once at the top of a
 * report; NULL under --exact. */
const char *rates_note(void);

/* A text field of a CSV (SEP ',', on one line) or TSV (SEP '\t') table
 * (esc_csv, esc_tsv); unless RAW, with the formula guard. */
void csv_field(FILE *out, const char *s, char sep, bool raw);

/* A JSON string (esc_json), valid UTF-8 whatever S holds: bad bytes
 * become U+FFFD and are counted (json_replaced_bytes). */
void json_str(FILE *out, const char *s);
size_t json_replaced_bytes(void);

/* A JSON number, or null where V is not finite. */
void json_num(FILE *out, double v);

#endif
