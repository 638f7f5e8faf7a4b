/* The cluster section of threadreport, in every format. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "cluster.h"
#include "table.h"

/* "t2accel sha256 / evp, 1024 bytes, bytes/s": one line whatever the
 * files' names hold; the config where several are, unless SAID (by the
 * series before). */
static void title(const struct cluster *cl, const struct cseries *s, bool said, char *buf, size_t len)
{
	series_title(s->key, cl->multi_config && !said ? TITLE_CONFIG : 0, buf, len);
}

/* What a cell's note says: why measurements have no rate, and rows that
 * were not synchronised. */
static const char *cell_note(const struct ccell *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (c->na && c->n)
		used = (size_t)snprintf(buf, len, "%zu of %zu n/a: %s", c->na, c->n + c->na, c->reason);
	else if (c->na)
		used = (size_t)snprintf(buf, len, "%s", c->reason);
	if (c->unsynced && used < len)
		snprintf(buf + used, len - used, "%s%zu row%s start_sync no", used ? "; " : "",
			 c->unsynced, c->unsynced == 1 ? "" : "s");
	return buf;
}

/* The warnings of a series for people: incomplete measurements, rows not
 * synchronised (named: host, rank, file and line), no 1-rank point. */
static void warnings(FILE *out, const struct cluster *cl, const struct cseries *s, const char *bullet)
{
	size_t i, x, j, named = 0;

	if (s->incomplete)
		fprintf(out, "%swarning: %zu cluster measurement%s incomplete (ranks missing or out of place): no cluster rate for %s\n",
			bullet, s->incomplete, s->incomplete == 1 ? "" : "s", s->incomplete == 1 ? "it" : "them");
	if (s->apart)
		fprintf(out, "%swarning: %zu cluster measurement%s whose ranks did not run together (overlap under %.0f%%, the least %.0f%%): no cluster rate for %s; run under threadrun-mpi\n",
			bullet, s->apart, s->apart == 1 ? "" : "s", 100 * CLUSTER_MIN_OVERLAP, floor(100 * fmax(s->least_overlap, 0)),
			s->apart == 1 ? "it" : "them");
	if (s->unsynced) {
		fprintf(out, "%swarning: %zu row%s not synchronised (start_sync no: threadrun-mpi could not release %s start with the other ranks'):",
			bullet, s->unsynced, s->unsynced == 1 ? "" : "s", s->unsynced == 1 ? "its" : "their");
		for (i = s->first; i < s->first + s->n; i++)
			for (x = cl->cells[i].mfirst; x < cl->cells[i].mfirst + cl->cells[i].mn; x++)
				for (j = 0; j < cl->m[x].n; j++) {
					const struct obs *o = &cl->ds->obs[cl->rows[cl->m[x].first + j]];

					if (o->sync != 0)
						continue;
					if (named++ < 4)
						fprintf(out, "%s host %s rank %ld, %s %u thread%s (%s:%u)",
							named > 1 ? ";" : "", ESC_MD(o->host, *bullet == '-'), o->rank,
							ESC_MD(o->policy, *bullet == '-'), o->threads, o->threads == 1 ? "" : "s",
							ESC_MD(o->file, *bullet == '-'), o->line);
				}
		fprintf(out, "%s\n", named > 4 ? "; ..." : "");
	}
	if (s->no_one_rank)
		fprintf(out, "%swarning: no 1-rank point for some policy and thread count: no speedup or efficiency for it (n/a)\n",
			bullet);
}

/* A row of the section's tables: a cell, or a cell's host. */
struct crow {
	const struct cseries *s;
	size_t series;
	const struct ccell *x;
	const struct chost *h;
};

#define ROW(name, expr) COLUMN_GET(name, struct crow, expr)
ROW(get_series, VAL_I(r->series))
ROW(get_workload, VAL_S(r->s->key->workload))
ROW(get_algorithm, VAL_S(r->s->key->algorithm))
ROW(get_backend, VAL_S(r->s->key->backend))
ROW(get_impl, VAL_S(r->s->key->impl))
ROW(get_size, VAL_N(r->s->key->size))
ROW(get_size_unit, VAL_S(r->s->key->size_unit))
ROW(get_unit, VAL_S(r->s->key->unit))
ROW(get_policy, VAL_S(r->x->policy))
ROW(get_threads, VAL_I(r->x->threads))
ROW(get_ranks, VAL_I(r->x->ranks))
ROW(get_n, VAL_I(r->x->n))
ROW(get_na, VAL_I(r->x->na))
ROW(get_rate, VAL_N(r->x->median))
ROW(get_min, VAL_N(r->x->min))
ROW(get_max, VAL_N(r->x->max))
ROW(get_speedup, VAL_N(r->x->speedup))
ROW(get_efficiency, VAL_N(r->x->efficiency))
ROW(get_overlap, VAL_N(r->x->overlap_min))
ROW(get_unsynced, VAL_I(r->x->unsynced))
ROW(get_reason, VAL_S(r->x->reason))
ROW(get_slowest_host, VAL_S(r->x->slowest < r->x->nhosts ? r->x->hosts[r->x->slowest].host : NULL))
ROW(get_host, VAL_S(r->h->host))
ROW(get_host_n, VAL_I(r->h->n))
ROW(get_host_min, VAL_N(r->h->min))
ROW(get_host_median, VAL_N(r->h->median))
ROW(get_host_max, VAL_N(r->h->max))
ROW(get_host_slowest, VAL_B(r->h == r->x->hosts + r->x->slowest))

/* "94%", or "-" where no measurement had windows. */
static const char *overlap_text(const void *row, const void *ctx, char *buf, size_t len)
{
	double v = ((const struct crow *)row)->x->overlap_min;

	(void)ctx;
	if (isnan(v))
		return "-";
	snprintf(buf, len, "%.0f%%", floor(100 * fmax(v, 0)));
	return buf;
}

static const char *note_text(const void *row, const void *ctx, char *buf, size_t len)
{
	(void)ctx;
	return cell_note(((const struct crow *)row)->x, buf, len);
}

static const char *slowest_text(const void *row, const void *ctx, char *buf, size_t len)
{
	(void)ctx, (void)buf, (void)len;
	return get_host_slowest(row, ctx).i ? "  slowest" : "";
}

#define CSV (IN(FMT_CSV) | IN(FMT_TSV))
/* The columns csv and tsv rows of both tables start with. */
#define KEY_COLUMNS \
	{ "series", .in = CSV, .get = get_series }, \
	{ "workload", .in = CSV, .get = get_workload }, \
	{ "algorithm", .in = CSV, .get = get_algorithm }, \
	{ "backend", .in = CSV, .get = get_backend }, \
	{ "impl", .in = CSV, .get = get_impl }, \
	{ "size", .in = CSV, .get = get_size }, \
	{ "size_unit", .in = CSV, .get = get_size_unit }, \
	{ "unit", .in = CSV, .get = get_unit }, \
	{ "policy", .in = CSV, .get = get_policy }, \
	{ "threads", .in = CSV, .get = get_threads }, \
	{ "ranks", .in = CSV, .get = get_ranks }

/* A cell: policy x threads x ranks. */
static const struct column cell_cols[] = {
	KEY_COLUMNS,
	{ "policy", "policy", -16, .left = true, .in = IN_HUMAN | IN(FMT_JSON), .get = get_policy },
	{ "threads", "threads", 7, .in = IN_HUMAN | IN(FMT_JSON), .get = get_threads },
	{ "ranks", "ranks", 5, .in = IN_HUMAN | IN(FMT_JSON), .get = get_ranks },
	{ "n", .in = IN_DATA, .get = get_n },
	{ "na", .in = IN_DATA, .get = get_na },
	{ "rate", "rate", 14, .show = SHOW_RATE, .get = get_rate },
	{ "min", "min", 14, .show = SHOW_RATE, .get = get_min },
	{ "max", "max", 14, .show = SHOW_RATE, .get = get_max },
	{ NULL, "n", 3, .get = get_n },
	{ NULL, "overlap", 7, .text = overlap_text },
	{ "speedup", "speedup", 8, .show = SHOW_RATIO, .get = get_speedup },
	{ "efficiency", "efficiency", 10, .show = SHOW_RATIO, .get = get_efficiency },
	{ "overlap_min", .get = get_overlap },
	{ "unsynced", .get = get_unsynced },
	{ "reason", .get = get_reason },
	{ "slowest_host", .get = get_slowest_host },
	{ NULL, "note", .left = true, .lead = "  ", .text = note_text },
};

/* A host of a cell: per-rank rates, never added up. */
static const struct column host_cols[] = {
	KEY_COLUMNS,
	{ "host", "host", -24, .left = true, .lead = "  ", .get = get_host },
	{ "n", "n", 3, .get = get_host_n },
	{ "min", "min", 14, .show = SHOW_RATE, .get = get_host_min },
	{ "median", "median", 14, .show = SHOW_RATE, .get = get_host_median },
	{ "max", "max", 14, .show = SHOW_RATE, .get = get_host_max },
	{ "slowest", .in = CSV, .get = get_host_slowest },
	{ NULL, "", .lead = "", .in = IN(FMT_TEXT), .text = slowest_text },
};

/* The per-host table of a series: per-rank rates at its biggest cell,
 * then the slowest host. */
static void hosts_text(const struct table *t, const struct cluster *cl, const struct cseries *s)
{
	const struct ccell *c = &cl->cells[s->big];
	bool md = t->fmt == FMT_MARKDOWN;
	struct crow r = { s, 0, c, NULL };
	char med[32];
	size_t h;

	fprintf(t->out, md ? "Per host, per-rank rates at %s" : "  per host, per-rank rates at %s",
		ESC_MD(c->policy, md));
	fprintf(t->out, ", %u thread%s, %ld rank%s (each rank's own rate: never added up):\n%s", c->threads,
		c->threads == 1 ? "" : "s", c->ranks, c->ranks == 1 ? "" : "s", md ? "\n" : "");
	table_head(t);
	for (h = 0; h < c->nhosts; h++) {
		r.h = &c->hosts[h];
		table_row(t, &r);
	}
	if (md)
		fputc('\n', t->out);
	if (c->slowest < c->nhosts) {
		const struct chost *x = &c->hosts[c->slowest];
		double best = 0;

		for (h = 0; h < c->nhosts; h++)
			best = fmax(best, c->hosts[h].median);
		fprintf(t->out, "%sslowest host: %s (median per-rank rate %s", md ? "- " : "  ",
			ESC_MD(x->host, md), rate_text(x->median, s->key->unit, med, sizeof(med)));
		if (best > 0)
			fprintf(t->out, ", %.2fx the fastest host's", x->median / best);
		fputs(")\n", t->out);
	}
}

static void emit_text(FILE *out, const struct cluster *cl, enum format fmt)
{
	struct table cells = { out, fmt, false, cell_cols, NCOLS(cell_cols), cl, NULL };
	struct table hosts = { out, fmt, false, host_cols, NCOLS(host_cols), cl, NULL };
	bool md = fmt == FMT_MARKDOWN;
	char t[512];

	for (size_t i = 0; i < cl->nseries; i++) {
		const struct cseries *s = &cl->series[i];
		struct crow r = { s, i, NULL, NULL };

		title(cl, s, i && !strcmp(cl->series[i - 1].key->config, s->key->config), t, sizeof(t));
		cells.unit = hosts.unit = s->key->unit;
		fprintf(out, md ? "### Cluster: %s\n\n" : "== cluster: %s\n", ESC_MD(t, md));
		fputs(md ? "Cluster rate: all ranks' work over the longest rank's wall time, shown where the ranks' measurements overlapped at least 90%.\n\n"
			 : "   rate = all ranks' work / the longest rank's wall time, where the ranks' measurements overlapped >= 90%\n",
		      out);
		table_head(&cells);
		for (r.x = &cl->cells[s->first]; r.x < &cl->cells[s->first + s->n]; r.x++)
			table_row(&cells, &r);
		if (md)
			fputc('\n', out);
		hosts_text(&hosts, cl, s);
		warnings(out, cl, s, md ? "- " : "  ");
		fputc('\n', out);
	}
}

static void emit_csv(FILE *out, const struct cluster *cl, enum format fmt, bool raw, bool by_host)
{
	struct table t = { out, fmt, raw, by_host ? host_cols : cell_cols,
			   by_host ? NCOLS(host_cols) : NCOLS(cell_cols), cl, NULL };

	table_head(&t);
	for (size_t i = 0; i < cl->nseries; i++) {
		const struct cseries *s = &cl->series[i];
		struct crow r = { s, i, NULL, NULL };

		for (r.x = &cl->cells[s->first]; r.x < &cl->cells[s->first + s->n]; r.x++) {
			if (!by_host) {
				table_row(&t, &r);
				continue;
			}
			for (r.h = r.x->hosts; r.h < r.x->hosts + r.x->nhosts; r.h++)
				table_row(&t, &r);
		}
	}
}

/* A series of the section in json: its names, its figures, its cells. */
static void json_series(struct json *j, const struct cluster *cl, const struct cseries *s, size_t i)
{
	static const struct column series_cols[] = {
		{ "workload", .get = get_workload }, { "algorithm", .get = get_algorithm },
		{ "backend", .get = get_backend }, { "impl", .get = get_impl },
		{ "size", .get = get_size }, { "size_unit", .get = get_size_unit },
		{ "unit", .get = get_unit },
	};
	struct table t = { j->out, FMT_JSON, false, series_cols, NCOLS(series_cols), cl, j };
	struct table cells = { j->out, FMT_JSON, false, cell_cols, NCOLS(cell_cols), cl, j };
	struct table hosts = { j->out, FMT_JSON, false, host_cols, NCOLS(host_cols), cl, j };
	struct crow r = { s, i, NULL, NULL };
	char title_buf[512];

	title(cl, s, false, title_buf, sizeof(title_buf));
	json_nl(j);
	json_open(j, '{');
	json_key(j, "title");
	json_string(j, title_buf);
	table_fields(&t, &r);
	json_key(j, "incomplete");
	json_int(j, (long long)s->incomplete);
	json_key(j, "unsynced");
	json_int(j, (long long)s->unsynced);
	json_key(j, "apart");
	json_int(j, (long long)s->apart);
	json_key(j, "least_overlap");
	json_number(j, s->least_overlap);
	json_key(j, "cells");
	json_open(j, '[');
	for (r.x = &cl->cells[s->first]; r.x < &cl->cells[s->first + s->n]; r.x++) {
		json_open(j, '{');
		table_fields(&cells, &r);
		json_key(j, "hosts");
		json_open(j, '[');
		for (r.h = r.x->hosts; r.h < r.x->hosts + r.x->nhosts; r.h++)
			table_row(&hosts, &r);
		json_close(j, ']');
		json_close(j, '{');
	}
	json_close(j, '[');
	json_close(j, '{');
}

void cluster_emit(FILE *out, const struct cluster *cl, enum format fmt, bool raw, bool hosts)
{
	struct json j;

	if (fmt == FMT_TEXT || fmt == FMT_MARKDOWN) {
		emit_text(out, cl, fmt);
	} else if (fmt == FMT_JSON) {
		json_init(&j, out);
		for (size_t i = 0; i < cl->nseries; i++)
			json_series(&j, cl, &cl->series[i], i);
	} else {
		emit_csv(out, cl, fmt, raw, hosts);
	}
}
