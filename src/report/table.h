/*
 * A report view as a table: each view declares its columns once (header,
 * width, key, how to get the value) and one renderer writes them in every
 * format.  A new format is one more case in table.c, not a copy per view;
 * a new column is one row of a view's column table.
 */
#ifndef TABLE_H
#define TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "output.h"

/* A JSON document written as it goes: keys, values and nesting, with the
 * separators and the escaping done here.  JSON_NL before a value puts it on
 * a line of its own (" " indented), as the report's top-level items are. */
#define JSON_DEPTH 16
struct json {
	FILE *out;
	int depth;
	bool more[JSON_DEPTH]; /* a value was written at this depth */
	bool keyed;            /* a key is waiting for its value */
	bool nl;               /* the next value starts a line */
};

void json_init(struct json *j, FILE *out);
void json_nl(struct json *j);
void json_open(struct json *j, char bracket); /* '{' or '[' */
void json_close(struct json *j, char bracket);
/* "\n]" or "\n}": a list whose items stood on their own lines. */
void json_close_nl(struct json *j, char bracket);
void json_key(struct json *j, const char *key);
/* KEY, and its value opened: '{' or '['. */
void json_open_key(struct json *j, const char *key, char bracket);
void json_string(struct json *j, const char *s); /* NULL: null */
void json_number(struct json *j, double v);      /* not finite: null */
void json_int(struct json *j, long long v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* What a cell holds for csv, tsv and json. */
enum val_kind {
	VAL_NONE, /* csv and tsv: an empty field; json: null */
	VAL_STR,  /* a text from the files: escaped (and guarded) per format */
	VAL_NUM,  /* not finite: as VAL_NONE */
	VAL_INT,
	VAL_BOOL, /* csv and tsv: yes or no; json: true or false */
	VAL_WORD, /* a word of ours: csv and tsv as it is, json a string */
};

struct val {
	enum val_kind kind;
	const char *str;
	double num;
	long long i;
};

#define VAL_S(s) ((struct val){ .kind = VAL_STR, .str = (s) })
#define VAL_W(s) ((struct val){ .kind = VAL_WORD, .str = (s) })
#define VAL_N(v) ((struct val){ .kind = VAL_NUM, .num = (v) })
#define VAL_I(v) ((struct val){ .kind = VAL_INT, .i = (long long)(v) })
#define VAL_B(v) ((struct val){ .kind = VAL_BOOL, .i = (v) })
#define VAL_NULL ((struct val){ .kind = VAL_NONE })

/* How text and markdown show a value (the machine formats keep it exact). */
enum show {
	SHOW_PLAIN, /* a text as it is, a whole number, a number as a rate */
	SHOW_RATE,  /* rate_text() in the table's unit, "n/a" where there is none;
		     * text: as wide as rate_width() needs */
	SHOW_RATIO, /* two decimals, "n/a" where there is none */
};

/* The formats a column is in, where not all: a bit per enum format. */
#define IN(f) (1u << (f))
#define IN_HUMAN (IN(FMT_TEXT) | IN(FMT_MARKDOWN) | IN(FMT_HTML))
#define IN_DATA (IN(FMT_CSV) | IN(FMT_TSV) | IN(FMT_JSON))

struct column {
	const char *key;      /* csv and tsv header, json key */
	const char *head;     /* text, markdown and html header */
	int width;            /* text: at least this wide (0: as wide as it is) */
	bool left;            /* text and markdown: left-aligned */
	const char *lead;     /* text: what goes before it (NULL: one space, none first) */
	bool as_is;           /* text: not escaped (kept where a table never was) */
	unsigned in;          /* IN() bits; 0: every format */
	unsigned char digits; /* csv and tsv: significant digits of a number (0: 10) */
	unsigned char rate_more; /* text, SHOW_RATE: columns beyond one rate ("..hi", " ±2%") */
	enum show show;
	/* The value of ROW; CTX is the table's. */
	struct val (*get)(const void *row, const void *ctx);
	/* Text and markdown, where the value is not enough: the text shown. */
	const char *(*text)(const void *row, const void *ctx, char *buf, size_t len);
	/* json, where the value is not one: writes it (a list, an object). */
	void (*put)(struct json *j, const void *row, const void *ctx);
	/* Text and markdown: the header for CTX, where it depends on it. */
	const char *(*heading)(const void *ctx);
	/* Whether the column is there at all for CTX (NULL: always). */
	bool (*shown)(const void *ctx);
};

struct table {
	FILE *out;
	enum format fmt;
	bool raw;               /* csv and tsv: no formula guard */
	const struct column *cols;
	size_t ncols;
	const void *ctx;
	struct json *json;      /* FMT_JSON: where the rows go, as objects */
	const char *unit;       /* text and markdown: the unit of its rates */
};

/* A column's get: NAME returns EXPR, where R is the row as a const TYPE *
 * and CTX the table's context. */
#define COLUMN_GET(name, type, expr) \
	static struct val name(const void *row, const void *ctx) \
	{ \
		const type *r = row; \
		(void)ctx; \
		return expr; \
	}

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* The header: text's line, markdown's two lines, csv's and tsv's line of
 * keys, html's <table> and <thead> (in a wrapper that scrolls); nothing
 * in json. */
void table_head(const struct table *t);
/* After the last row: html closes its table; nothing in the others. */
void table_end(const struct table *t);
/* One row: a line, or in json one object of the columns' keys. */
void table_row(const struct table *t, const void *row);
/* json: KEY and V, as a column's key and value. */
void json_field(struct json *j, const char *key, struct val v);
/* json: ROW's columns as keys of the object open now. */
void table_fields(const struct table *t, const void *row);

#endif
