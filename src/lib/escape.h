/*
 * Every escaping rule of the project, each written once: a JSON string,
 * a CSV field, a TSV field, a markdown cell, HTML text and one line of a
 * message.
 * Whatever a name, a path or a field holds (control characters, bytes
 * that are not UTF-8, markup), what these write stays one field, one
 * cell or one line, and the terminal shows it rather than obeys it.
 */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Flags of esc_csv() and esc_tsv(). */
enum {
	ESC_GUARD = 1,    /* a text a spreadsheet would run as a formula gets a leading ' */
	ESC_ONE_LINE = 2, /* CSV: a line break in a quoted field becomes a space */
};

/* The length of the well-formed UTF-8 sequence at S (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
size_t esc_utf8_len(const char *s);

/* S as a JSON string with its quotes: '"', '\\' and control characters
 * escaped, a byte that is not UTF-8 written as U+FFFD.  Returns how many
 * bytes were replaced. */
size_t esc_json(FILE *out, const char *s);

/* S as one CSV field (RFC 4180): quoted when it holds a comma, a quote, a
 * line break or an edge space, quotes doubled; FLAGS from ESC_GUARD and
 * ESC_ONE_LINE.  Returns fputc()'s or fputs()'s result (EOF on error). */
int esc_csv(FILE *out, const char *s, unsigned flags);

/* S as one TSV field: tabs and line breaks become spaces; FLAGS may hold
 * ESC_GUARD. */
void esc_tsv(FILE *out, const char *s, unsigned flags);

/* S as a markdown table cell or inline text: '|' and '\\' escaped, '<',
 * '>' and '&' written as entities (no HTML reaches the page), control
 * characters and bytes that are not UTF-8 as in esc_line(). */
void esc_md(FILE *out, const char *s);

/* S as HTML text or a quoted attribute value: '&', '<', '>', '"' and '\''
 * as entities, control characters and bytes that are not UTF-8 as in
 * esc_line() (shown, never obeyed). */
void esc_html(FILE *out, const char *s);

/* S on one line of a message: "\n", "\r", "\t", other control characters
 * and bytes that are not UTF-8 as "\xNN", C1 controls as "\u0080".."\u009f";
 * everything else as it is. */
void esc_line(FILE *out, const char *s);

/* esc_line() into BUF of LEN bytes (cut on a whole character, ending in
 * "..." when S did not fit); returns BUF. */
const char *esc_text(const char *s, char *buf, size_t len);

/* esc_md() into BUF, as esc_text() does it. */
const char *esc_md_text(const char *s, char *buf, size_t len);

/* S escaped for a message, in a buffer that lives until the end of the
 * enclosing block: snprintf(err, len, "'%s' ...", ESC(name)).  Longer
 * texts are cut to ESC_MAX - 1 bytes, ending in "...". */
#define ESC_MAX 512
#define ESC(s) esc_text((s), (char[ESC_MAX]){ "" }, ESC_MAX)
/* The same for markdown (MD true) or one line of text. */
#define ESC_MD(s, md) \
	((md) ? esc_md_text((s), (char[ESC_MAX]){ "" }, ESC_MAX) : ESC(s))

#endif
