/* threadreport --compare: ratios of medians, after / before, per configuration. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "compare.h"
#include "opt.h"
#include "results.h"

#define PROG "threadreport"

/* The columns --compare-by accepts: each names its field of an observation. */
struct by_column {
	const char *name;
	size_t field;
};

static const struct by_column by_columns[] = {
	{ "host", offsetof(struct obs, host) },
	{ "backend", offsetof(struct obs, backend) },
	{ "impl", offsetof(struct obs, impl) },
	{ "versions", offsetof(struct obs, versions) },
};

enum { BEFORE, AFTER };
static const char *const side_name[] = { "before", "after" };

/* One configuration: its cell on each side (NULL where not measured). */
struct entry {
	const struct series *s[2];
	const struct cell *c[2];
	size_t group;
	double ratio, lo, hi;   /* NAN where a side is missing or a median is 0 */
};

struct compare {
	struct dataset all, ds[2];
	const char *label[2];
	/* Host, backend and impl belong to a configuration only where a side
	 * holds several of them; otherwise they are what the sides differ in. */
	bool key_host, key_backend, key_impl;
	struct entry *e;
	size_t ne, ngroups, few, unverified[2], overlap;
};

static const char *field_of(const struct obs *o, const struct by_column *col)
{
	return *(char *const *)((const char *)o + col->field);
}

static const struct by_column *by_column_named(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(by_columns) / sizeof(by_columns[0]); i++)
		if (strlen(by_columns[i].name) == len && !strncmp(by_columns[i].name, name, len))
			return &by_columns[i];
	return NULL;
}

/* A text of the files (or of the command line) for a one-line message
 * (esc_line; an escape is at most 4 bytes for 1).  Freed by the caller;
 * NULL without memory, which the messages print as "". */
static char *one_line(const char *s)
{
	size_t len = 4 * strlen(s) + 1;
	char *copy = malloc(len);

	return copy ? (char *)esc_text(s, copy, len) : NULL;
}

static bool is_run_row(const struct obs *o)
{
	return !strcmp(o->algorithm, RESULTS_RUN_ALGORITHM);
}

/* Whether the files hold rows a program wrote itself (not threadrun's
 * whole-run rows). */
static bool has_own_rows(const struct dataset *all)
{
	for (size_t i = 0; i < all->nobs; i++)
		if (!is_run_row(&all->obs[i]))
			return true;
	return false;
}

/* Where programs wrote rows of their own, threadrun's whole-run rows stand
 * aside (as in dataset_build): their backend, "threadrun", names no side. */
static bool names_side(const struct obs *o, bool own)
{
	return !own || !is_run_row(o);
}

/*
 * The two values of --compare-by: "COL=A,COL=B", "COL=A,B", or "COL" with
 * exactly two values in the rows (the first seen is before).  VAL[] point
 * into *COPY (the caller frees it) or into the interned texts.  -1 with
 * the message said; -2 out of memory.
 */
static int parse_by(const struct dataset *all, bool own, const char *by, const struct by_column **col,
		    const char **val, char **copy, char *label_buf[2])
{
	const char *eq = strchr(by, '=');
	size_t len = eq ? (size_t)(eq - by) : strlen(by), i, nval = 0;
	char *sep, *second = NULL, *pat = NULL, *t[3] = { NULL, NULL, NULL };
	int ret = -1;

	*col = by_column_named(by, len);
	if (!*col) {
		char names[64] = "";

		for (i = 0; i < sizeof(by_columns) / sizeof(by_columns[0]); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? " " : "",
				 by_columns[i].name);
		t[0] = one_line(by);
		msg_error(PROG, "compare-by: column '%.*s' not known, choices are: %s", (int)len,
			  t[0] ? t[0] : "", names);
		goto out;
	}
	if (eq) {
		/* "COL=A,COL=B" splits at ",COL="; "COL=A,B" at its one comma. */
		*copy = strdup(eq + 1);
		if (!*copy || asprintf(&pat, ",%s=", (*col)->name) < 0) {
			pat = NULL;
			ret = -2;
			goto out;
		}
		sep = strstr(*copy, pat);
		if (sep)
			second = sep + strlen(pat);
		else if ((sep = strchr(*copy, ',')) && !strchr(sep + 1, ','))
			second = sep + 1;
		t[0] = one_line(by);
		if (!second) {
			msg_error(PROG, "compare-by: '%s' is not two values, allowed COL, COL=A,COL=B or COL=A,B",
				  t[0] ? t[0] : "");
			goto out;
		}
		*sep = '\0';
		val[BEFORE] = *copy;
		val[AFTER] = second;
		if (!strcmp(val[BEFORE], val[AFTER])) {
			msg_error(PROG, "compare-by: '%s' names one value twice, allowed two different values",
				  t[0] ? t[0] : "");
			goto out;
		}
		for (int s = 0; s < 2; s++) {
			for (i = 0; i < all->nobs; i++)
				if (names_side(&all->obs[i], own) &&
				    !strcmp(field_of(&all->obs[i], *col), val[s]))
					break;
			if (i == all->nobs) {
				t[1] = one_line(val[s]);
				msg_error(PROG, "compare-by: no row has %s '%s'", (*col)->name, t[1] ? t[1] : "");
				goto out;
			}
		}
	} else {
		for (i = 0; i < all->nobs; i++) {
			const char *v = field_of(&all->obs[i], *col);

			if (!names_side(&all->obs[i], own))
				continue;
			/* Interned: equal texts are one pointer. */
			if (nval && (v == val[0] || (nval > 1 && v == val[1])))
				continue;
			if (nval == 2) {
				for (int j = 0; j < 3; j++)
					t[j] = one_line(j < 2 ? val[j] : v);
				msg_error(PROG, "compare-by: column '%s' has more than two values ('%s', '%s', '%s', ...), "
					  "allowed exactly two: name them, %s=A,%s=B", (*col)->name,
					  t[0] ? t[0] : "", t[1] ? t[1] : "", t[2] ? t[2] : "", (*col)->name,
					  (*col)->name);
				goto out;
			}
			val[nval++] = v;
		}
		if (nval < 2) {
			msg_error(PROG, "compare-by: column '%s' has %s value in the rows, allowed exactly two",
				  (*col)->name, nval ? "only one" : "no");
			goto out;
		}
	}
	ret = -2;
	for (int s = 0; s < 2; s++)
		if (asprintf(&label_buf[s], "%s=%s", (*col)->name, val[s]) < 0) {
			label_buf[s] = NULL;
			goto out;
		}
	ret = 0;
out:
	free(pat);
	for (int j = 0; j < 3; j++)
		free(t[j]);
	return ret;
}

/* Each side's rows into a dataset of its own (pointing at ALL's interned
 * texts), so repeats and supersedes never cross sides. */
static int split(struct compare *k, bool own, const struct by_column *col, const char *const *val,
		 size_t boundary)
{
	size_t i;

	for (int s = 0; s < 2; s++) {
		k->ds[s].obs = malloc((k->all.nobs ? k->all.nobs : 1) * sizeof(struct obs));
		if (!k->ds[s].obs)
			return -1;
	}
	for (i = 0; i < k->all.nobs; i++) {
		const struct obs *o = &k->all.obs[i];
		int s;

		if (!col) {
			s = i < boundary ? BEFORE : AFTER;
		} else {
			const char *v = field_of(o, col);

			if (!names_side(o, own))
				continue;
			if (!strcmp(v, val[BEFORE]))
				s = BEFORE;
			else if (!strcmp(v, val[AFTER]))
				s = AFTER;
			else
				continue;
		}
		k->ds[s].obs[k->ds[s].nobs++] = *o;
	}
	for (int s = 0; s < 2; s++)
		if (dataset_build(&k->ds[s]) < 0)
			return -1;
	return 0;
}

static int cmp_num(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(b) - isnan(a);
	return a < b ? -1 : a > b;
}

/* The family of a configuration: all of its key but size, policy, threads. */
static int cmp_family(const struct compare *k, const struct obs *a, const struct obs *b)
{
	int c = strcmp(a->workload, b->workload);

	if (!c)
		c = strcmp(a->algorithm, b->algorithm);
	if (!c)
		c = strcmp(a->unit, b->unit);
	if (!c && k->key_host)
		c = strcmp(a->host, b->host);
	if (!c && k->key_backend)
		c = strcmp(a->backend, b->backend);
	if (!c && k->key_impl)
		c = strcmp(a->impl, b->impl);
	if (!c)
		c = strcmp(a->size_unit, b->size_unit);
	return c;
}

struct item {
	const struct series *s;
	const struct cell *c;
	int side;
};

static int cmp_config(const struct compare *k, const struct item *a, const struct item *b)
{
	int c = cmp_family(k, a->s->key, b->s->key);

	if (!c)
		c = cmp_num(a->s->key->size, b->s->key->size);
	if (!c)
		c = strcmp(a->c->policy, b->c->policy);
	if (!c)
		c = a->c->threads < b->c->threads ? -1 : a->c->threads > b->c->threads;
	return c;
}

static int by_config(const void *x, const void *y, void *arg)
{
	const struct item *a = x, *b = y;
	int c = cmp_config(arg, a, b);

	return c ? c : a->side - b->side;
}

/* Whether a side's series differ in host, or in backend. */
static bool varies(const struct dataset *ds, size_t field)
{
	for (size_t i = 1; i < ds->nseries; i++)
		if (*(char *const *)((const char *)ds->series[i].key + field) !=
		    *(char *const *)((const char *)ds->series[0].key + field))
			return true;
	return false;
}

static int by_backend_impl(const void *x, const void *y)
{
	const struct obs *const *a = x, *const *b = y;
	int c = strcmp((*a)->backend, (*b)->backend);

	return c ? c : strcmp((*a)->impl, (*b)->impl);
}

/* Whether a side ran one backend with several implementations: an evp
 * file holding two OpenSSL versions is matched version by version, while
 * a side of evp and pkcs11 (whose impls differ as a matter of course) is
 * not, so a library upgrade on both still compares.  -1: out of memory. */
static int impl_varies(const struct dataset *ds)
{
	const struct obs **k = malloc((ds->nseries ? ds->nseries : 1) * sizeof(*k));
	int ret = 0;

	if (!k)
		return -1;
	for (size_t i = 0; i < ds->nseries; i++)
		k[i] = ds->series[i].key;
	qsort(k, ds->nseries, sizeof(*k), by_backend_impl);
	for (size_t i = 1; i < ds->nseries && !ret; i++)
		ret = k[i]->backend == k[i - 1]->backend && k[i]->impl != k[i - 1]->impl;
	free(k);
	return ret;
}

static void ratios(struct entry *e)
{
	const struct cell *b = e->c[BEFORE], *a = e->c[AFTER];

	e->ratio = e->lo = e->hi = NAN;
	if (!a || !b || !(b->median > 0) || !(b->max > 0) || !(b->min > 0))
		return;
	e->ratio = a->median / b->median;
	/* The spread: the worst and the best pairing of the repeats' ranges. */
	e->lo = a->min / b->max;
	e->hi = a->max / b->min;
}

static const struct obs *entry_key(const struct entry *e)
{
	return e->s[BEFORE] ? e->s[BEFORE]->key : e->s[AFTER]->key;
}

static int match(struct compare *k)
{
	size_t n = 0, i, j, cap = 0;
	struct item *it;
	int ret = -1, v;

	for (int s = 0; s < 2; s++)
		for (i = 0; i < k->ds[s].nseries; i++)
			cap += k->ds[s].series[i].ncells;
	it = malloc((cap ? cap : 1) * sizeof(*it));
	k->e = calloc(cap ? cap : 1, sizeof(*k->e));
	if (!it || !k->e)
		goto out;
	for (int s = 0; s < 2; s++) {
		const struct dataset *ds = &k->ds[s];

		k->key_host |= varies(ds, offsetof(struct obs, host));
		k->key_backend |= varies(ds, offsetof(struct obs, backend));
		v = impl_varies(ds);
		if (v < 0)
			goto out;
		k->key_impl |= v;
		for (i = 0; i < ds->nseries; i++) {
			k->unverified[s] += ds->series[i].unverified;
			for (j = 0; j < ds->series[i].ncells; j++)
				it[n++] = (struct item){ &ds->series[i], &ds->series[i].cells[j], s };
		}
	}
	qsort_r(it, n, sizeof(*it), by_config, k);
	for (i = 0; i < n; i = j) {
		struct entry *e = &k->e[k->ne];

		/* Within a side a configuration is one cell: its key holds every
		 * field in which the side's series differ. */
		for (j = i; j < n && !cmp_config(k, &it[i], &it[j]); j++) {
			e->s[it[j].side] = it[j].s;
			e->c[it[j].side] = it[j].c;
		}
		if (k->ne && cmp_family(k, entry_key(&k->e[k->ne - 1]), it[i].s->key))
			k->ngroups++;
		e->group = k->ngroups;
		ratios(e);
		if (e->c[BEFORE] && e->c[AFTER]) {
			k->few += e->c[BEFORE]->n < 3 || e->c[AFTER]->n < 3;
			k->overlap += e->lo <= 1 && e->hi >= 1;
		}
		k->ne++;
	}
	if (k->ne)
		k->ngroups++;
	ret = 0;
out:
	free(it);
	return ret;
}

static bool both(const struct entry *e)
{
	return e->c[BEFORE] && e->c[AFTER];
}

/* Text or markdown inline text: markdown escapes what would break a line
 * or a table; text only what would break a line. */
static void put(FILE *out, const char *s, bool md)
{
	if (md)
		md_cell(out, s);
	else
		esc_line(out, s);
}

/* The smallest and largest ratio of a group, or NULL. */
static void extremes(const struct compare *k, size_t g, const struct entry **lo, const struct entry **hi,
		     size_t *count)
{
	*lo = *hi = NULL;
	*count = 0;
	for (size_t i = 0; i < k->ne; i++) {
		const struct entry *e = &k->e[i];

		if (e->group != g || !isfinite(e->ratio))
			continue;
		(*count)++;
		if (!*lo || e->ratio < (*lo)->ratio)
			*lo = e;
		if (!*hi || e->ratio > (*hi)->ratio)
			*hi = e;
	}
}

static void where(FILE *out, const struct entry *e, bool md)
{
	char size[64];

	fprintf(out, "%.2fx at %s (", e->ratio, ESC_MD(size_text(entry_key(e), size, sizeof(size)), md));
	put(out, e->c[BEFORE]->policy, md);
	fprintf(out, ", %u thread%s)", e->c[BEFORE]->threads, e->c[BEFORE]->threads == 1 ? "" : "s");
}

static void group_title(FILE *out, const struct compare *k, const struct entry *e, bool md)
{
	const struct obs *o = entry_key(e);

	put(out, o->workload, md);
	fputc(' ', out);
	put(out, *o->algorithm ? o->algorithm : "-", md);
	fputs(", ", out);
	put(out, *o->unit ? o->unit : "rate", md);
	if (k->key_host) {
		fputs(", host ", out);
		put(out, o->host, md);
	}
	if (k->key_backend) {
		fputs(", ", out);
		put(out, o->backend, md);
	}
	if (k->key_impl && *o->impl) {
		fputs(", ", out);
		put(out, o->impl, md);
	}
}

/* What the sides of a group ran, where they differ in it. */
static void group_sides(FILE *out, const struct entry *e, bool md)
{
	const struct obs *b = e->s[BEFORE]->key, *a = e->s[AFTER]->key;
	const bool hosts = b->host != a->host;

	if (b->backend == a->backend && b->impl == a->impl && !hosts)
		return;
	for (int s = 0; s < 2; s++) {
		const struct obs *o = s ? a : b;

		fprintf(out, "%s%s: ", md ? "- " : "   ", side_name[s]);
		put(out, *o->backend ? o->backend : "-", md);
		if (*o->impl) {
			fputs(" (", out);
			put(out, o->impl, md);
			fputc(')', out);
		}
		if (hosts) {
			fputs(", host ", out);
			put(out, o->host, md);
		}
		fputc('\n', out);
	}
	if (md)
		fputc('\n', out);
}

/* The comparison's warnings, each with a kind programs can test. */
enum { MAX_WARNINGS = 4 };
struct warning {
	const char *kind;
	char text[160];
};

static size_t warnings(const struct compare *k, struct warning *w)
{
	size_t n = 0;

	if (k->few) {
		w[n].kind = "few_repeats";
		snprintf(w[n++].text, sizeof(w[0].text),
			 "%zu configuration%s fewer than 3 repeats on a side: %s weak", k->few,
			 k->few == 1 ? " has" : "s have", k->few == 1 ? "its ratio is" : "their ratios are");
	}
	if (k->overlap) {
		w[n].kind = "no_difference";
		snprintf(w[n++].text, sizeof(w[0].text),
			 "%zu configuration%s a ratio range that includes 1.00: no difference measured there",
			 k->overlap, k->overlap == 1 ? " has" : "s have");
	}
	for (int s = 0; s < 2; s++)
		if (k->unverified[s]) {
			w[n].kind = "unverified";
			snprintf(w[n++].text, sizeof(w[0].text),
				 "%zu %s row(s) NOT VERIFIED: their rates are not to be trusted", k->unverified[s],
				 side_name[s]);
		}
	return n;
}

static void warnings_text(FILE *out, const struct compare *k, bool md)
{
	struct warning w[MAX_WARNINGS];
	size_t n = warnings(k, w);

	for (size_t i = 0; i < n; i++)
		fprintf(out, "%swarning: %s\n", md ? "- " : "  ", w[i].text);
}

static void emit_text(FILE *out, const struct compare *k, bool md)
{
	size_t g, i, count;
	const struct entry *lo, *hi;
	bool header = false;

	fputs(md ? "## Before and after\n\n- before: " : "== before: ", out);
	put(out, k->label[BEFORE], md);
	fputs(md ? "\n- after: " : "\n== after:  ", out);
	put(out, k->label[AFTER], md);
	fputs(md ? "\n- ratio = after / before, medians of the repeats; range = after min / before max .. after max / before min\n\n"
		 : "\n   ratio = after / before, medians of the repeats; range = after min / before max .. after max / before min\n\n",
	      out);
	for (g = 0; g < k->ngroups; g++) {
		const struct entry *first = NULL;

		for (i = 0; i < k->ne && !first; i++)
			if (k->e[i].group == g && both(&k->e[i]))
				first = &k->e[i];
		if (!first)
			continue;
		fputs(md ? "### " : "== ", out);
		group_title(out, k, first, md);
		fputs(md ? "\n\n" : "\n", out);
		group_sides(out, first, md);
		if (md)
			fputs("| size | policy | threads | before | after | ratio | range | n before | n after |\n"
			      "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n", out);
		else
			fprintf(out, "%-14s %-16s %7s %14s %14s %7s %15s %8s\n", "size", "policy", "threads",
				"before", "after", "ratio", "range", "n");
		for (i = 0; i < k->ne; i++) {
			const struct entry *e = &k->e[i];
			char size[64], bm[32], am[32], r[32], rl[32], rh[32], range[72];

			if (e->group != g || !both(e))
				continue;
			size_text(entry_key(e), size, sizeof(size));
			fmt_rate(e->c[BEFORE]->median, bm, sizeof(bm));
			fmt_rate(e->c[AFTER]->median, am, sizeof(am));
			fixed2(e->ratio, r, sizeof(r));
			fixed2(e->lo, rl, sizeof(rl));
			fixed2(e->hi, rh, sizeof(rh));
			snprintf(range, sizeof(range), "%s..%s", rl, rh);
			if (md) {
				fprintf(out, "| %s | ", ESC_MD(size, true));
				md_cell(out, e->c[BEFORE]->policy);
				fprintf(out, " | %u | %s | %s | %s | %s | %zu | %zu |\n", e->c[BEFORE]->threads, bm,
					am, r, range, e->c[BEFORE]->n, e->c[AFTER]->n);
			} else {
				fprintf(out, "%-14s ", ESC(size));
				fprintf(out, "%-16s %7u %14s %14s %7s %15s %4zu/%zu\n", ESC(e->c[BEFORE]->policy),
					e->c[BEFORE]->threads, bm, am, r, range, e->c[BEFORE]->n, e->c[AFTER]->n);
			}
		}
		if (md)
			fputc('\n', out);
		extremes(k, g, &lo, &hi, &count);
		fputs(md ? "- summary: " : "  summary: ", out);
		if (!lo) {
			fputs("no ratio (a median of 0 before)\n", out);
		} else if (lo == hi) {
			fputs("after / before ", out);
			where(out, lo, md);
			fputc('\n', out);
		} else {
			fputs("after / before from ", out);
			where(out, lo, md);
			fputs(" up to ", out);
			where(out, hi, md);
			fprintf(out, ", %zu configurations\n", count);
		}
		fputc('\n', out);
	}
	for (i = 0; i < k->ne; i++) {
		const struct entry *e = &k->e[i];
		const struct obs *o = entry_key(e);
		int s = e->c[BEFORE] ? BEFORE : AFTER;
		char size[64], med[32];

		if (both(e))
			continue;
		if (!header) {
			fputs(md ? "### Measured on one side only\n\n" : "== measured on one side only\n", out);
			header = true;
		}
		fprintf(out, "%s%s only: ", md ? "- " : "  ", side_name[s]);
		put(out, o->workload, md);
		fputc(' ', out);
		put(out, *o->algorithm ? o->algorithm : "-", md);
		if (k->key_host || k->key_backend || k->key_impl) {
			fputs(" / ", out);
			put(out, o->backend, md);
			if (k->key_host) {
				fputs(", host ", out);
				put(out, o->host, md);
			}
		}
		fprintf(out, ", %s, ", ESC_MD(size_text(o, size, sizeof(size)), md));
		put(out, e->c[s]->policy, md);
		fmt_rate(e->c[s]->median, med, sizeof(med));
		fprintf(out, ", %u thread%s: median %s ", e->c[s]->threads, e->c[s]->threads == 1 ? "" : "s", med);
		put(out, *o->unit ? o->unit : "", md);
		fprintf(out, ", n %zu\n", e->c[s]->n);
	}
	if (header)
		fputc('\n', out);
	warnings_text(out, k, md);
}

static const char *const csv_head[] = { "group", "measured", "workload", "algorithm", "unit", "size",
	"size_unit", "policy", "threads", "before_host", "before_backend", "before_impl", "after_host",
	"after_backend", "after_impl", "before_n", "before_median", "before_min", "before_max", "after_n",
	"after_median", "after_min", "after_max", "ratio", "ratio_min", "ratio_max", "smallest", "largest" };

static void emit_csv(FILE *out, const struct compare *k, char sep, bool raw)
{
	const struct entry *lo = NULL, *hi = NULL;
	size_t i, count, g = SIZE_MAX;

	for (i = 0; i < sizeof(csv_head) / sizeof(csv_head[0]); i++)
		fprintf(out, "%s%s", i ? (sep == '\t' ? "\t" : ",") : "", csv_head[i]);
	fputc('\n', out);
	for (i = 0; i < k->ne; i++) {
		const struct entry *e = &k->e[i];
		const struct obs *o = entry_key(e);
		const struct cell *c = e->c[BEFORE] ? e->c[BEFORE] : e->c[AFTER];
		const char *const text[] = { o->workload, o->algorithm, o->unit };

		if (e->group != g) {
			g = e->group;
			extremes(k, g, &lo, &hi, &count);
		}
		fprintf(out, "%zu%c%s", e->group, sep, both(e) ? "both" : e->c[BEFORE] ? "before" : "after");
		for (size_t j = 0; j < 3; j++) {
			fputc(sep, out);
			csv_field(out, text[j], sep, raw);
		}
		csv_num(out, sep, o->size);
		fputc(sep, out);
		csv_field(out, o->size_unit, sep, raw);
		fputc(sep, out);
		csv_field(out, c->policy, sep, raw);
		fprintf(out, "%c%u", sep, c->threads);
		for (int s = 0; s < 2; s++) {
			const struct obs *so = e->s[s] ? e->s[s]->key : NULL;
			const char *const side_text[] = { so ? so->host : "", so ? so->backend : "",
				so ? so->impl : "" };

			for (size_t j = 0; j < 3; j++) {
				fputc(sep, out);
				csv_field(out, side_text[j], sep, raw);
			}
		}
		for (int s = 0; s < 2; s++) {
			const struct cell *x = e->c[s];

			fputc(sep, out);
			if (x)
				fprintf(out, "%zu", x->n);
			csv_num(out, sep, x ? x->median : NAN);
			csv_num(out, sep, x ? x->min : NAN);
			csv_num(out, sep, x ? x->max : NAN);
		}
		csv_num(out, sep, e->ratio);
		csv_num(out, sep, e->lo);
		csv_num(out, sep, e->hi);
		fprintf(out, "%c%s%c%s\n", sep, e == lo ? "yes" : "no", sep, e == hi ? "yes" : "no");
	}
}

static void json_where(FILE *out, const struct entry *e)
{
	fputs("{\"ratio\": ", out);
	json_num(out, e->ratio);
	fputs(", \"size\": ", out);
	json_num(out, entry_key(e)->size);
	fputs(", \"policy\": ", out);
	json_str(out, e->c[BEFORE]->policy);
	fprintf(out, ", \"threads\": %u}", e->c[BEFORE]->threads);
}

static void json_side(FILE *out, const struct series *s, const struct cell *c)
{
	if (!c) {
		fputs("null", out);
		return;
	}
	fputs("{\"host\": ", out);
	json_str(out, s->key->host);
	fputs(", \"backend\": ", out);
	json_str(out, s->key->backend);
	fputs(", \"impl\": ", out);
	json_str(out, s->key->impl);
	fprintf(out, ", \"n\": %zu, \"median\": ", c->n);
	json_num(out, c->median);
	fputs(", \"min\": ", out);
	json_num(out, c->min);
	fputs(", \"max\": ", out);
	json_num(out, c->max);
	fputc('}', out);
}

static void json_warning(FILE *out, bool *any, const char *kind, const char *text)
{
	fprintf(out, "%s{\"kind\": ", *any ? ", " : "");
	json_str(out, kind);
	fputs(", \"text\": ", out);
	json_str(out, text);
	fputc('}', out);
	*any = true;
}

static void emit_json(FILE *out, const struct compare *k, const char *by)
{
	const struct entry *lo, *hi;
	struct warning w[MAX_WARNINGS];
	size_t g, i, count, nw;
	bool any = false;

	fputs("{\"before\": ", out);
	json_str(out, k->label[BEFORE]);
	fputs(", \"after\": ", out);
	json_str(out, k->label[AFTER]);
	fputs(", \"by\": ", out);
	if (by)
		json_str(out, by);
	else
		fputs("null", out);
	fputs(", \"groups\": [", out);
	for (g = 0; g < k->ngroups; g++) {
		const struct obs *o = NULL;
		bool first = true;

		for (i = 0; i < k->ne && !o; i++)
			if (k->e[i].group == g)
				o = entry_key(&k->e[i]);
		fprintf(out, "%s\n {\"workload\": ", g ? "," : "");
		json_str(out, o->workload);
		fputs(", \"algorithm\": ", out);
		json_str(out, o->algorithm);
		fputs(", \"unit\": ", out);
		json_str(out, o->unit);
		fputs(", \"size_unit\": ", out);
		json_str(out, o->size_unit);
		fputs(", \"configurations\": [", out);
		for (i = 0; i < k->ne; i++) {
			const struct entry *e = &k->e[i];
			const struct cell *c = e->c[BEFORE] ? e->c[BEFORE] : e->c[AFTER];

			if (e->group != g)
				continue;
			fprintf(out, "%s\n  {\"measured\": \"%s\", \"size\": ", first ? "" : ",",
				both(e) ? "both" : e->c[BEFORE] ? "before" : "after");
			first = false;
			json_num(out, entry_key(e)->size);
			fputs(", \"policy\": ", out);
			json_str(out, c->policy);
			fprintf(out, ", \"threads\": %u, \"before\": ", c->threads);
			json_side(out, e->s[BEFORE], e->c[BEFORE]);
			fputs(", \"after\": ", out);
			json_side(out, e->s[AFTER], e->c[AFTER]);
			fputs(", \"ratio\": ", out);
			json_num(out, e->ratio);
			fputs(", \"ratio_min\": ", out);
			json_num(out, e->lo);
			fputs(", \"ratio_max\": ", out);
			json_num(out, e->hi);
			fputc('}', out);
		}
		extremes(k, g, &lo, &hi, &count);
		fputs("], \"summary\": ", out);
		if (lo) {
			fprintf(out, "{\"configurations\": %zu, \"smallest\": ", count);
			json_where(out, lo);
			fputs(", \"largest\": ", out);
			json_where(out, hi);
			fputc('}', out);
		} else {
			fputs("null", out);
		}
		fputc('}', out);
	}
	fputs("\n], \"warnings\": [", out);
	nw = warnings(k, w);
	for (i = 0; i < nw; i++)
		json_warning(out, &any, w[i].kind, w[i].text);
	/* Last: every name above has been written, so the count is whole. */
	if (json_replaced_bytes()) {
		snprintf(w[0].text, sizeof(w[0].text),
			 "%zu byte(s) of the input were not UTF-8 and were replaced by U+FFFD", json_replaced_bytes());
		json_warning(out, &any, "encoding", w[0].text);
	}
	fputs("]}\n", out);
}

int compare_report(char **files, int nfiles, const char *by, enum format fmt, bool raw, FILE *out)
{
	struct compare k = { 0 };
	const struct by_column *col = NULL;
	const char *val[2] = { NULL, NULL };
	char *by_copy = NULL, *label_buf[2] = { NULL, NULL }, *notes_buf = NULL, err[1024];
	size_t notes_len = 0, boundary = 0;
	FILE *notes = NULL;
	bool own;
	int ret = 2, i;

	if (by && !by_column_named(by, strcspn(by, "="))) {
		/* Said before any file is read. */
		parse_by(&k.all, false, by, &col, val, &by_copy, label_buf);
		goto out;
	}
	if (!by && nfiles != 2) {
		msg_error(PROG, "compare: %d file%s given, allowed exactly two (BEFORE AFTER); "
			  "--compare-by COL selects the sides from any files", nfiles, nfiles == 1 ? "" : "s");
		goto out;
	}
	/* Notes on the files wait until the comparison stands: an error is
	 * then the only line. */
	notes = open_memstream(&notes_buf, &notes_len);
	if (!notes) {
		ret = 1;
		goto out;
	}
	for (i = 0; i < nfiles; i++) {
		if (dataset_read(&k.all, files[i], notes, err, sizeof(err)) < 0) {
			msg_error(PROG, "%s", err);
			goto out;
		}
		if (i == 0)
			boundary = k.all.nobs;
	}
	fclose(notes);
	notes = NULL;
	own = has_own_rows(&k.all);
	if (by) {
		i = parse_by(&k.all, own, by, &col, val, &by_copy, label_buf);
		if (i == -2) {
			msg_error(PROG, "out of memory");
			ret = 1;
		}
		if (i < 0)
			goto out;
		k.label[BEFORE] = label_buf[BEFORE];
		k.label[AFTER] = label_buf[AFTER];
	} else {
		k.label[BEFORE] = files[0];
		k.label[AFTER] = files[1];
	}
	if (split(&k, own, col, val, boundary) < 0 || match(&k) < 0) {
		msg_error(PROG, "out of memory");
		ret = 1;
		goto out;
	}
	/* Both sides' failed rows, said in one line with the notes. */
	k.all.failed = k.ds[BEFORE].failed + k.ds[AFTER].failed;
	k.all.first_failed = k.ds[BEFORE].failed ? k.ds[BEFORE].first_failed : k.ds[AFTER].first_failed;
	for (int s = 0; s < 2; s++)
		if (!k.ds[s].nseries) {
			char *l = one_line(k.label[s]);

			/* The notes say why its rows were not usable. */
			fputs(notes_buf, stderr);
			dataset_note_failed(&k.all, stderr, PROG);
			msg_error(PROG, "compare: %s '%s' has no usable rows", side_name[s], l ? l : "");
			free(l);
			goto out;
		}
	for (size_t j = 0; j < k.ne && ret; j++)
		if (both(&k.e[j]))
			ret = 0;
	if (ret) {
		char *b = one_line(k.label[BEFORE]), *a = one_line(k.label[AFTER]);

		msg_error(PROG, "compare: '%s' and '%s' share no configuration (same workload, algorithm, unit, "
			  "size, policy and threads): nothing to compare", b ? b : "", a ? a : "");
		free(b);
		free(a);
		goto out;
	}
	fputs(notes_buf, stderr);
	dataset_note_failed(&k.all, stderr, PROG);
	switch (fmt) {
	case FMT_TEXT: emit_text(out, &k, false); break;
	case FMT_MARKDOWN: emit_text(out, &k, true); break;
	case FMT_CSV: emit_csv(out, &k, ',', raw); break;
	case FMT_TSV: emit_csv(out, &k, '\t', raw); break;
	case FMT_JSON: emit_json(out, &k, by); break;
	}
	if (k.all.bad_lines)
		fprintf(stderr, "%s: %u malformed line(s) skipped, named above\n", PROG, k.all.bad_lines);
out:
	if (notes)
		fclose(notes);
	free(notes_buf);
	free(by_copy);
	free(label_buf[BEFORE]);
	free(label_buf[AFTER]);
	free(k.e);
	dataset_free(&k.ds[BEFORE]);
	dataset_free(&k.ds[AFTER]);
	dataset_free(&k.all);
	return ret;
}
