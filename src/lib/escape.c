/* The escaping rules (escape.h), each once, for every writer of the project. */
#include <string.h>

#include "escape.h"
#include "opt.h"

size_t esc_utf8_len(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
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

size_t esc_json(FILE *out, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n, bad = 0;

	fputc('"', out);
	while (*s) {
		n = esc_utf8_len((const char *)s);
		if (!n) {
			fputs("\\ufffd", out);
			bad++;
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
	return bad;
}

/* Whether a spreadsheet would run S as a formula (OWASP's CSV injection
 * list); a signed decimal (-1.5e3) is a number, not a formula. */
static bool formula(const char *s)
{
	return *s && strchr("=+-@\t\r", *s) && !num_is_decimal(s + (*s == '+' || *s == '-'));
}

int esc_csv(FILE *out, const char *s, unsigned flags)
{
	bool guard = (flags & ESC_GUARD) && formula(s);
	bool quote = strpbrk(s, ",\"\n\r") || (*s && (s[0] == ' ' || s[strlen(s) - 1] == ' '));

	if (quote)
		fputc('"', out);
	if (guard)
		fputc('\'', out);
	if (!quote)
		return fputs(s, out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc((flags & ESC_ONE_LINE) && (*s == '\n' || *s == '\r') ? ' ' : *s, out);
	}
	return fputc('"', out);
}

void esc_tsv(FILE *out, const char *s, unsigned flags)
{
	if ((flags & ESC_GUARD) && formula(s))
		fputc('\'', out);
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

/* The next character of S on one line: into BUF (8 bytes) its bytes as
 * they are or its escape; *LEN is what BUF holds, and the return how many
 * bytes of S it took. */
static size_t line_char(const char *s, char buf[8], size_t *len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = esc_utf8_len(s);

	if (!n || (n == 1 && (u[0] < 0x20 || u[0] == 0x7f))) {
		if (u[0] == '\n' || u[0] == '\r' || u[0] == '\t')
			*len = (size_t)snprintf(buf, 8, "\\%c", u[0] == '\n' ? 'n' : u[0] == '\r' ? 'r' : 't');
		else
			*len = (size_t)snprintf(buf, 8, "\\x%02x", u[0]);
		return 1;
	}
	if (n == 2 && u[0] == 0xc2 && u[1] < 0xa0) { /* C1: a terminal may obey U+009B as ESC [ */
		*len = (size_t)snprintf(buf, 8, "\\u%04x", u[1]);
		return 2;
	}
	memcpy(buf, s, n);
	*len = n;
	return n;
}

/* A character that a format writes otherwise, and how. */
struct subst {
	char c;
	const char *as;
};

/* The next character of S: its substitute from T (N of them), or as on
 * one line (line_char's contract). */
static size_t subst_char(const char *s, char buf[8], size_t *len, const struct subst *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].c == *s) {
			*len = strlen(t[i].as);
			memcpy(buf, t[i].as, *len);
			return 1;
		}
	return line_char(s, buf, len);
}

/* Markdown: the table's and HTML's characters escaped. */
static size_t md_char(const char *s, char buf[8], size_t *len)
{
	static const struct subst md[] = {
		{ '|', "\\|" }, { '\\', "\\\\" }, { '<', "&lt;" }, { '>', "&gt;" }, { '&', "&amp;" },
	};

	return subst_char(s, buf, len, md, sizeof(md) / sizeof(md[0]));
}

/* HTML text and attribute values alike. */
static size_t html_char(const char *s, char buf[8], size_t *len)
{
	static const struct subst html[] = {
		{ '&', "&amp;" }, { '<', "&lt;" }, { '>', "&gt;" }, { '"', "&quot;" }, { '\'', "&#39;" },
	};

	return subst_char(s, buf, len, html, sizeof(html) / sizeof(html[0]));
}

typedef size_t (*char_fn)(const char *s, char buf[8], size_t *len);

static void put_chars(FILE *out, const char *s, char_fn next)
{
	char buf[8];
	size_t len;

	while (*s) {
		s += next(s, buf, &len);
		fwrite(buf, 1, len, out);
	}
}

/* S through NEXT into BUF of LEN bytes, cut on a whole character with
 * "..." when it does not fit. */
static const char *put_text(const char *s, char *buf, size_t len, char_fn next)
{
	char c[8];
	size_t at = 0, fit = 0, n, took;

	if (!len)
		return buf;
	while (*s) {
		took = next(s, c, &n);
		if (at + n > len - 1)
			break;
		memcpy(buf + at, c, n);
		at += n;
		s += took;
		if (at + 3 <= len - 1) /* the last whole character that leaves room for "..." */
			fit = at;
	}
	if (*s) {
		at = len < 4 ? 0 : fit;
		if (len >= 4) {
			memcpy(buf + at, "...", 3);
			at += 3;
		}
	}
	buf[at] = '\0';
	return buf;
}

void esc_line(FILE *out, const char *s)
{
	put_chars(out, s, line_char);
}

const char *esc_text(const char *s, char *buf, size_t len)
{
	return put_text(s, buf, len, line_char);
}

void esc_md(FILE *out, const char *s)
{
	put_chars(out, s, md_char);
}

const char *esc_md_text(const char *s, char *buf, size_t len)
{
	return put_text(s, buf, len, md_char);
}

void esc_html(FILE *out, const char *s)
{
	put_chars(out, s, html_char);
}
