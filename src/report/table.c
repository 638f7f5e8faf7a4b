/* The one renderer of the report's tables, and its JSON writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "escape.h"
#include "table.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

void json_init(struct json *j, FILE *out)
{
	*j = (struct json){ .out = out };
}

void json_nl(struct json *j)
{
	j->nl = true;
}

/* Before a value: the separator from the one before, unless a key is
 * waiting for it. */
static void json_before(struct json *j)
{
	if (j->keyed)
		j->keyed = false;
	else if (j->more[j->depth])
		fputs(j->nl ? "," : ", ", j->out);
	if (j->nl)
		fputs("\n ", j->out);
	j->nl = false;
	j->more[j->depth] = true;
}

void json_open(struct json *j, char bracket)
{
	json_before(j);
	fputc(bracket, j->out);
	if (j->depth + 1 < JSON_DEPTH)
		j->more[++j->depth] = false;
}

void json_close(struct json *j, char bracket)
{
	if (j->depth > 0)
		j->depth--;
	fputc(bracket == '{' ? '}' : bracket == '[' ? ']' : bracket, j->out);
}

void json_close_nl(struct json *j, char bracket)
{
	fputc('\n', j->out);
	json_close(j, bracket);
}

void json_key(struct json *j, const char *key)
{
	json_before(j);
	esc_json(j->out, key);
	fputs(": ", j->out);
	j->keyed = true;
}

void json_open_key(struct json *j, const char *key, char bracket)
{
	json_key(j, key);
	json_open(j, bracket);
}

void json_string(struct json *j, const char *s)
{
	json_before(j);
	if (s)
		json_str(j->out, s);
	else
		fputs("null", j->out);
}

void json_number(struct json *j, double v)
{
	json_before(j);
	json_num(j->out, v);
}

void json_int(struct json *j, long long v)
{
	json_before(j);
	fprintf(j->out, "%lld", v);
}

void json_bool(struct json *j, bool v)
{
	json_before(j);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
	json_before(j);
	fputs("null", j->out);
}

/* Text, markdown and html: the columns with a head, shown for people. */
static bool for_people(enum format f)
{
	return f == FMT_TEXT || f == FMT_MARKDOWN || f == FMT_HTML;
}

static bool column_in(const struct table *t, const struct column *c)
{
	if (c->in && !(c->in & IN(t->fmt)))
		return false;
	if (for_people(t->fmt) ? !c->head : !c->key)
		return false;
	return !c->shown || c->shown(t->ctx);
}

/* What text and markdown show of a cell. */
static const char *shown_text(const struct table *t, const struct column *c, const void *row, char *buf,
			      size_t len)
{
	struct val v;

	if (c->text)
		return c->text(row, t->ctx, buf, len);
	v = c->get(row, t->ctx);
	if (c->show == SHOW_RATIO || (c->show == SHOW_RATE && !isfinite(v.num)))
		fixed2(v.kind == VAL_NUM ? v.num : NAN, buf, len);
	else if (v.kind == VAL_NUM)
		rate_text(v.num, t->unit, buf, len);
	else if (v.kind == VAL_INT)
		snprintf(buf, len, "%lld", v.i);
	else if (v.kind == VAL_BOOL)
		snprintf(buf, len, "%s", v.i ? "yes" : "no");
	else
		return v.str ? v.str : "";
	return buf;
}

/* The columns S takes on a terminal: its characters (S is UTF-8). */
static int columns(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void text_cell(const struct table *t, const struct column *c, const char *s, bool first)
{
	int width = abs(c->width), fill;
	bool left = c->left || c->width < 0;

	if (t->fmt == FMT_MARKDOWN) {
		fputs(first ? "| " : " | ", t->out);
		esc_md(t->out, s);
		return;
	}
	/* Rates with units take as many columns as the unit needs, and two
	 * more to set apart figures that hold spaces. */
	if (c->show == SHOW_RATE && rate_width(t->unit))
		width = MAX(rate_width(t->unit) + c->rate_more + 2, c->head ? columns(c->head) : 0);
	s = c->as_is ? s : ESC(s);
	fill = width > columns(s) ? width - columns(s) : 0;
	fputs(c->lead ? c->lead : first ? "" : " ", t->out);
	if (left)
		fprintf(t->out, "%s%*s", s, fill, "");
	else
		fprintf(t->out, "%*s%s", fill, "", s);
}

static void data_cell(const struct table *t, const struct column *c, struct val v, bool first)
{
	char sep = t->fmt == FMT_TSV ? '\t' : ',';

	if (!first)
		fputc(sep, t->out);
	switch (v.kind) {
	case VAL_STR:
		csv_field(t->out, v.str ? v.str : "", sep, t->raw);
		break;
	case VAL_NUM:
		if (isfinite(v.num))
			fprintf(t->out, "%.*g", c->digits ? c->digits : 10, v.num);
		break;
	case VAL_INT:
		fprintf(t->out, "%lld", v.i);
		break;
	case VAL_BOOL:
		fputs(v.i ? "yes" : "no", t->out);
		break;
	case VAL_WORD:
		fputs(v.str, t->out);
		break;
	case VAL_NONE:
		break;
	}
}

static void json_cell(struct json *j, struct val v)
{
	switch (v.kind) {
	case VAL_STR:
	case VAL_WORD:
		json_string(j, v.str);
		break;
	case VAL_NUM:
		json_number(j, v.num);
		break;
	case VAL_INT:
		json_int(j, v.i);
		break;
	case VAL_BOOL:
		json_bool(j, v.i);
		break;
	case VAL_NONE:
		json_null(j);
		break;
	}
}

void json_field(struct json *j, const char *key, struct val v)
{
	json_key(j, key);
	json_cell(j, v);
}

/* html: a cell as people read it (text's), and its exact value, as csv
 * writes it, in data-value where it is a number. */
static void html_cell(const struct table *t, const struct column *c, const void *row)
{
	struct val v = c->get ? c->get(row, t->ctx) : VAL_NULL;
	char buf[256];

	fputs(c->left ? "<td class=\"l\"" : "<td", t->out);
	if (v.kind == VAL_NUM && isfinite(v.num))
		fprintf(t->out, " data-value=\"%.*g\"", c->digits ? c->digits : 10, v.num);
	else if (v.kind == VAL_INT)
		fprintf(t->out, " data-value=\"%lld\"", v.i);
	fputc('>', t->out);
	esc_html(t->out, shown_text(t, c, row, buf, sizeof(buf)));
	fputs("</td>", t->out);
}

/* html: the table in a wrapper that scrolls sideways on a narrow screen. */
static void html_head(const struct table *t)
{
	fputs("<div class=\"scroll\"><table>\n<thead><tr>", t->out);
	for (size_t i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];

		if (!column_in(t, c))
			continue;
		fputs(c->left ? "<th scope=\"col\" class=\"l\">" : "<th scope=\"col\">", t->out);
		esc_html(t->out, c->heading ? c->heading(t->ctx) : c->head);
		fputs("</th>", t->out);
	}
	fputs("</tr></thead>\n<tbody>\n", t->out);
}

void table_end(const struct table *t)
{
	if (t->fmt == FMT_HTML)
		fputs("</tbody></table></div>\n", t->out);
}

void table_head(const struct table *t)
{
	bool first = true;
	size_t i;

	if (t->fmt == FMT_JSON)
		return;
	if (t->fmt == FMT_HTML) {
		html_head(t);
		return;
	}
	for (i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];

		if (!column_in(t, c))
			continue;
		if (t->fmt == FMT_TEXT || t->fmt == FMT_MARKDOWN)
			text_cell(t, c, c->heading ? c->heading(t->ctx) : c->head, first);
		else
			fprintf(t->out, "%s%s", first ? "" : t->fmt == FMT_TSV ? "\t" : ",", c->key);
		first = false;
	}
	if (t->fmt == FMT_MARKDOWN) {
		fputs(" |\n|", t->out);
		for (i = 0; i < t->ncols; i++)
			if (column_in(t, &t->cols[i]))
				fputs(t->cols[i].left ? "---|" : "---:|", t->out);
	}
	fputc('\n', t->out);
}

void table_fields(const struct table *t, const void *row)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (column_in(t, &t->cols[i])) {
			json_key(t->json, t->cols[i].key);
			if (t->cols[i].put)
				t->cols[i].put(t->json, row, t->ctx);
			else
				json_cell(t->json, t->cols[i].get(row, t->ctx));
		}
}

void table_row(const struct table *t, const void *row)
{
	bool first = true;
	char buf[256];

	if (t->fmt == FMT_JSON) {
		json_open(t->json, '{');
		table_fields(t, row);
		json_close(t->json, '}');
		return;
	}
	if (t->fmt == FMT_HTML)
		fputs("<tr>", t->out);
	for (size_t i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];

		if (!column_in(t, c))
			continue;
		if (t->fmt == FMT_HTML)
			html_cell(t, c, row);
		else if (t->fmt == FMT_TEXT || t->fmt == FMT_MARKDOWN)
			text_cell(t, c, shown_text(t, c, row, buf, sizeof(buf)), first);
		else
			data_cell(t, c, c->get(row, t->ctx), first);
		first = false;
	}
	fputs(t->fmt == FMT_MARKDOWN ? " |\n" : t->fmt == FMT_HTML ? "</tr>\n" : "\n", t->out);
}
