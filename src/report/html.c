/* threadreport -f html: the page around the tables, and its figures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "html.h"
#include "output.h"
#include "svg.h"
#include "table.h"
#include "verdicts.h"

/* Readable at 1280 px and on a phone (tables and figures scroll or
 * shrink in their wrapper), and on paper. */
static const char style[] =
	"body{font:15px/1.45 system-ui,sans-serif;color:#1b1b1b;background:#fff;margin:0 auto;max-width:1240px;padding:0 14px 40px}\n"
	"h1{font-size:1.45em;margin:.8em 0 .2em}h2{font-size:1.2em;border-bottom:2px solid #d0d0d0;margin-top:2em}\n"
	"h3{font-size:1.02em;margin:1.8em 0 .4em;overflow-wrap:anywhere}p.impl{margin:0;color:#555}\n"
	".scroll{overflow-x:auto;max-width:100%}\n"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.88em;margin:.4em 0}\n"
	"th,td{padding:3px 9px;text-align:right;white-space:nowrap;border-bottom:1px solid #e4e4e4}\n"
	"th{background:#f0f0f0;font-weight:600}.l{text-align:left}td.l{white-space:normal;overflow-wrap:anywhere}tbody tr:nth-child(even){background:#fafafa}\n"
	"figure{margin:1em 0}figcaption{font-size:.88em;color:#444;max-width:60em}\n"
	"svg{max-width:100%;height:auto;font:12px system-ui,sans-serif}\n"
	"svg .grid{stroke:#e2e2e2}svg .frame{fill:none;stroke:#777}svg .ideal{stroke:#888;stroke-dasharray:6 4}\n"
	"svg .bar{stroke-width:1.5}svg .mark{stroke:#2a7a2a;stroke-dasharray:2 3}svg .flag{font-weight:700;fill:#b00;stroke:none}\n"
	"svg .dark{fill:#fff}svg .head{font-weight:600}\n"
	"ul.notes li,ul.warn li{overflow-wrap:anywhere}ul.warn li{color:#8a3000}\n"
	"pre{overflow-x:auto;background:#f6f6f6;padding:8px;font-size:.82em}\n"
	"@media (max-width:600px){body{font-size:14px;padding:0 8px}th,td{padding:2px 6px}}\n"
	"@media print{body{max-width:none;font-size:9.5pt;padding:0}.scroll{overflow:visible}"
	"figure,table,tr{break-inside:avoid}h2,h3{break-after:avoid}a{color:inherit;text-decoration:none}}\n";

/* The lines of a figure: the Okabe-Ito colours, told apart by most readers. */
static const char *const colours[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442",
};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

void html_begin(FILE *out, const struct dataset *ds)
{
	const char *first = ds->nseries ? ds->series[0].key->workload : "";
	size_t used = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>threadreport: ", out);
	esc_html(out, first);
	if (ds->nseries > 1 && ds->series[ds->nseries - 1].key->workload != first)
		fputs(" and more", out);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>threadreport: ", style);
	esc_html(out, first);
	for (size_t i = 0; i < ds->nobs; i++)
		used += !ds->obs[i].failed && !ds->obs[i].dropped;
	fprintf(out, "%s</h1>\n<p>%zu series from %zu rows", ds->nseries > 1 &&
		ds->series[ds->nseries - 1].key->workload != first ? " and more" : "", ds->nseries, used);
	/* The rows the tables below count, and why the others are not. */
	if (used < ds->nobs)
		fprintf(out, " (of %zu read: threadrun's whole-run rows where the program wrote its own, "
			"rows superseded by a rerun or read twice, and failed runs' rows left out)", ds->nobs);
	fputs(". Rates are the median of the repeats; speedup and efficiency are against 1 thread of "
	      "the same policy.</p>\n", out);
}

void html_end(FILE *out)
{
	fputs("</main>\n</body>\n</html>\n", out);
}

void html_section(FILE *out, const char *id, const char *heading)
{
	fprintf(out, "<section id=\"%s\">\n<h2>%s</h2>\n", id, heading);
}

void html_section_end(FILE *out)
{
	fputs("</section>\n", out);
}

void html_series(FILE *out, size_t i, const char *title, const char *impl)
{
	fprintf(out, "<section id=\"series-%zu\">\n<h3>", i);
	esc_html(out, title);
	fputs("</h3>\n", out);
	if (*impl) {
		fputs("<p class=\"impl\">", out);
		esc_html(out, impl);
		fputs("</p>\n", out);
	}
}

void html_lines(FILE *out, char *text, const char *cls)
{
	bool any = false, last;

	for (char *p = text, *e; *p; p = last ? e : e + 1) {
		e = p + strcspn(p, "\n");
		last = !*e;
		*e = '\0';
		p += strspn(p, " ");
		if (!*p)
			continue;
		fprintf(out, any ? "<li>" : "<ul class=\"%s\">\n<li>", cls);
		esc_html(out, p);
		fputs("</li>\n", out);
		any = true;
	}
	if (any)
		fputs("</ul>\n", out);
}

void html_pre(FILE *out, const char *text)
{
	fputs("<div class=\"scroll\"><pre>", out);
	esc_html(out, text);
	fputs("</pre></div>\n", out);
}

void html_warning(FILE *out, size_t i, const char *title, const char *text)
{
	fprintf(out, "<li><a href=\"#series-%zu\">", i);
	esc_html(out, title);
	fputs("</a>: ", out);
	esc_html(out, text);
	fputs("</li>\n", out);
}

/* Efficiency V as a colour: 0 red, 0.6 white, 1.2 and above blue (the
 * scale of threadplot's heat map); grey where there is none.  Returns
 * whether the colour is dark (white text on it). */
static bool heat(double v, char buf[8])
{
	static const double stop[3][3] = { { 0xb2, 0x18, 0x2b }, { 0xf7, 0xf7, 0xf7 }, { 0x21, 0x66, 0xac } };
	double t = fmin(fmax(v / 1.2, 0), 1), u = t < 0.5 ? t * 2 : t * 2 - 1;
	const double *a = stop[t < 0.5 ? 0 : 1], *b = stop[t < 0.5 ? 1 : 2];

	if (!isfinite(v)) {
		snprintf(buf, 8, "#dddddd");
		return false;
	}
	snprintf(buf, 8, "#%02x%02x%02x", (unsigned)(a[0] + u * (b[0] - a[0])), (unsigned)(a[1] + u * (b[1] - a[1])),
		 (unsigned)(a[2] + u * (b[2] - a[2])));
	return fabs(t - 0.5) > 0.33;
}

/* The overview's plans: the policies of every series, POLICY[i] folded
 * into LEAD[i] where it planned the same PUs as that one in every series
 * it ran in; THREADS, every thread count measured, ascending. */
struct plans {
	const char **policy;
	size_t *lead, n;
	unsigned *threads;
	size_t nthreads;
	unsigned with;          /* series_title's: what the rows differ in */
};

static size_t policy_index(const struct plans *pl, const char *p)
{
	size_t i;

	for (i = 0; i < pl->n && pl->policy[i] != p; i++)
		;
	return i;
}

static int by_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Series S's thread counts into PL's, once each. */
static void add_threads(struct plans *pl, const struct series *s)
{
	for (size_t c = 0; c < s->ncells; c++) {
		size_t t;

		for (t = 0; t < pl->nthreads && pl->threads[t] != s->cells[c].threads; t++)
			;
		if (t == pl->nthreads)
			pl->threads[pl->nthreads++] = s->cells[c].threads;
	}
}

/* Series S's policies into PL, and what its verdicts say of their plans:
 * a policy is folded only where every series folds it the same way. */
static int add_series(struct plans *pl, const struct series *s)
{
	struct verdicts v;
	int ret = -1;

	if (series_verdicts(s, &v) < 0)
		goto out;
	for (size_t p = 0; p < s->npolicies; p++) {
		size_t i = policy_index(pl, s->policies[p]), q;
		bool fresh = i == pl->n;

		if (fresh)
			pl->policy[pl->n++] = s->policies[p];
		/* same[p] <= p: its policy is in PL by now. */
		q = policy_index(pl, s->policies[v.same[p]]);
		if (fresh || pl->lead[i] != q)
			pl->lead[i] = fresh ? q : i;
	}
	add_threads(pl, s);
	ret = 0;
out:
	verdicts_free(&v);
	return ret;
}

static void plans_free(struct plans *pl)
{
	free(pl->policy);
	free(pl->lead);
	free(pl->threads);
}

static int plans_make(struct plans *pl, const struct dataset *ds)
{
	size_t n = 0, i;

	for (i = 0; i < ds->nseries; i++)
		n += ds->series[i].ncells;
	*pl = (struct plans){ calloc(n + 1, sizeof(*pl->policy)), calloc(n + 1, sizeof(*pl->lead)), 0,
			      calloc(n + 1, sizeof(*pl->threads)), 0 };
	if (!pl->policy || !pl->lead || !pl->threads)
		return -1;
	for (i = 0; i < ds->nseries; i++)
		if (add_series(pl, &ds->series[i]) < 0)
			return -1;
	/* A lead that is itself folded would hide both: such chains stay apart. */
	for (i = 0; i < pl->n; i++)
		if (pl->lead[pl->lead[i]] != pl->lead[i])
			pl->lead[i] = i;
	qsort(pl->threads, pl->nthreads, sizeof(*pl->threads), by_uint);
	return 0;
}

/* The cell of plan LEAD in S at THREADS: its lead's, else a folded one's. */
static const struct cell *plan_cell(const struct plans *pl, size_t lead, const struct series *s, unsigned threads)
{
	const struct cell *c = series_cell(s, pl->policy[lead], threads);

	for (size_t i = 0; !c && i < pl->n; i++)
		if (i != lead && pl->lead[i] == lead)
			c = series_cell(s, pl->policy[i], threads);
	return c;
}

/* How many thread counts plan LEAD has in S. */
static size_t plan_cells(const struct plans *pl, size_t lead, const struct series *s)
{
	size_t n = 0;

	for (size_t t = 0; t < pl->nthreads; t++)
		n += plan_cell(pl, lead, s, pl->threads[t]) != NULL;
	return n;
}

/* Heat map geometry: the series' names, then a column per thread count. */
enum { HM_LABEL = 360, HM_W = 52, HM_H = 24, HM_TOP = 26 };

/* One square of the heat map: the efficiency, "!" where flagged. */
static void heat_cell(FILE *out, const struct plans *pl, const struct series *s, const struct cell *c, double x,
		      double y)
{
	char fill[8], text[16], tip[800], title[512];
	bool dark = heat(c ? c->efficiency : NAN, fill);

	series_title(s->key, pl->with, title, sizeof(title));
	if (c)
		snprintf(tip, sizeof(tip), "%s, %s, %u threads: efficiency %.3g, speedup %.3g", title, c->policy,
			 c->threads, c->efficiency, c->speedup);
	else
		snprintf(tip, sizeof(tip), "%s: not measured", title);
	svg_rect(out, x, y, HM_W - 2, HM_H - 2, fill, tip);
	if (!c)
		snprintf(text, sizeof(text), "-");
	else if (!isfinite(c->efficiency))
		snprintf(text, sizeof(text), "n/a%s", cell_marks(c) ? "!" : "");
	else
		snprintf(text, sizeof(text), "%.2f%s", c->efficiency, cell_marks(c) ? "!" : "");
	svg_text(out, x + HM_W / 2 - 1, y + HM_H / 2 + 3, "middle", dark ? "dark" : NULL, text);
}

/* The heat map of plan LEAD (NAME, its policies): a row per series it ran in. */
static void heat_map(FILE *out, const struct dataset *ds, const struct plans *pl, size_t lead, const char *name)
{
	size_t rows = 0, t;
	char label[64], fig[640], title[512];

	for (size_t i = 0; i < ds->nseries; i++)
		rows += plan_cells(pl, lead, &ds->series[i]) > 0;
	snprintf(fig, sizeof(fig), "Efficiency of %s, series x threads", name);
	fputs("<figure><div class=\"scroll\">", out);
	svg_open(out, HM_LABEL + (int)pl->nthreads * HM_W + 8, HM_TOP + (int)rows * HM_H + 8, fig,
		 "Each row a series, each column a thread count; the number is the efficiency (speedup / threads), "
		 "! a flagged point, - not measured.");
	svg_text(out, HM_LABEL - 8, HM_TOP - 8, "end", "head", "threads");
	for (t = 0; t < pl->nthreads; t++) {
		snprintf(label, sizeof(label), "%u", pl->threads[t]);
		svg_text(out, HM_LABEL + t * HM_W + HM_W / 2, HM_TOP - 8, "middle", "head", label);
	}
	for (size_t i = 0, y = HM_TOP; i < ds->nseries; i++) {
		const struct series *s = &ds->series[i];

		if (!plan_cells(pl, lead, s))
			continue;
		svg_text(out, HM_LABEL - 8, y + HM_H / 2 + 3, "end", NULL,
			 esc_text(series_title(s->key, pl->with, title, sizeof(title)), label, 56));
		for (t = 0; t < pl->nthreads; t++)
			heat_cell(out, pl, s, plan_cell(pl, lead, s, pl->threads[t]), HM_LABEL + t * HM_W, y);
		y += HM_H;
	}
	svg_close(out);
	fputs("</div><figcaption>", out);
	esc_html(out, fig);
	fputs(": blue at 1 and above (linear), white at 0.6, red towards 0; ! marks a point flagged busy, "
	      "oversubscribed or unverified.</figcaption></figure>\n", out);
}

int html_overview(FILE *out, const struct dataset *ds, unsigned with)
{
	struct plans pl;
	char name[512];

	if (plans_make(&pl, ds) < 0) {
		plans_free(&pl);
		return -1;
	}
	pl.with = with;
	for (size_t i = 0; i < pl.n; i++) {
		size_t used = 0;

		if (pl.lead[i] != i)
			continue;
		for (size_t j = 0; j < pl.n && used < sizeof(name); j++)
			if (pl.lead[j] == i)
				used += (size_t)snprintf(name + used, sizeof(name) - used, "%s%s", used ? " = " : "",
							 ESC(pl.policy[j]));
		heat_map(out, ds, &pl, i, name);
	}
	plans_free(&pl);
	return 0;
}

/* A point of the speedup figure and its bar, as threadplot draws them:
 * the paired speedup's 95% interval, or without pairs the repeats' range
 * as speedups (min and max over the same 1-thread median); false where it
 * has none to draw. */
static bool speedup_point(const struct cell *c, double *sp, double *lo, double *hi)
{
	*sp = c->speedup;
	if (!isfinite(*sp) || *sp <= 0)
		return false;
	*lo = *hi = *sp;
	if (isfinite(c->speedup_lo) && isfinite(c->speedup_hi) && c->speedup_lo > 0) {
		*lo = c->speedup_lo;
		*hi = c->speedup_hi;
	} else if (c->median > 0 && c->min > 0 && isfinite(c->max)) {
		*lo = *sp * c->min / c->median;
		*hi = *sp * c->max / c->median;
	}
	return true;
}

/* The figure's ranges: threads, and speedups with the ideal's; false
 * where no point has a speedup. */
static bool speedup_axes(const struct series *s, struct svg_axis *x, struct svg_axis *y)
{
	double sp, lo, hi;
	bool any = false;

	*x = (struct svg_axis){ INFINITY, 0, 64, 540, true };
	*y = (struct svg_axis){ INFINITY, 0, 300, 16, true };
	for (size_t c = 0; c < s->ncells; c++) {
		x->lo = fmin(x->lo, s->cells[c].threads);
		x->hi = fmax(x->hi, s->cells[c].threads);
		if (speedup_point(&s->cells[c], &sp, &lo, &hi)) {
			any = true;
			y->lo = fmin(y->lo, lo);
			y->hi = fmax(y->hi, hi);
		}
	}
	if (x->hi <= x->lo)
		x->hi = x->lo * 2;
	/* From a power of two to a power of two: both ends have a tick. */
	y->lo = exp2(floor(log2(fmin(y->lo, x->lo)) + 1e-9));
	y->hi = exp2(ceil(log2(fmax(y->hi, x->hi)) - 1e-9));
	return any;
}

/* The legend under the plot, three entries a row: entry K's place. */
#define LEGEND_X(k) (64.0 + 170 * (double)((k) % 3))
#define LEGEND_Y(k) (360.0 + 18 * (double)((k) / 3))

/* One policy's line: cells [FROM, TO) of S, in COLOUR, with its bars, its
 * flagged points and its legend entry at row K. */
static void speedup_line(FILE *out, const struct series *s, size_t from, size_t to, const struct svg_axis *x,
			 const struct svg_axis *y, const char *colour, size_t k)
{
	double px[64], py[64], sp, lo, hi;
	size_t n = 0;
	char name[48];

	fprintf(out, "<g stroke=\"%s\">\n", colour);
	for (size_t c = from; c < to; c++) {
		if (!speedup_point(&s->cells[c], &sp, &lo, &hi))
			continue;
		if (n < 64) {
			px[n] = svg_map(x, s->cells[c].threads);
			py[n++] = svg_map(y, sp);
		}
		svg_line(out, svg_map(x, s->cells[c].threads), svg_map(y, lo), svg_map(x, s->cells[c].threads),
			 svg_map(y, hi), "bar");
		if (cell_marks(&s->cells[c]))
			svg_text(out, svg_map(x, s->cells[c].threads) + 6, svg_map(y, sp) - 6, "start", "flag", "!");
	}
	fputs("</g>\n", out);
	svg_polyline(out, px, py, n, colour);
	svg_rect(out, LEGEND_X(k), LEGEND_Y(k) - 2, 22, 4, colour, NULL);
	svg_text(out, LEGEND_X(k) + 28, LEGEND_Y(k) + 4, "start", NULL, esc_text(s->cells[from].policy, name, 24));
}

void html_speedup(FILE *out, const struct series *s, const char *title)
{
	struct svg_axis x, y;
	char tt[640], label[32];
	size_t k = 1;

	if (!speedup_axes(s, &x, &y)) {
		fputs("<p>No speedup figure: no point has a speedup (no 1-thread point).</p>\n", out);
		return;
	}
	snprintf(tt, sizeof(tt), "Speedup against threads: %s", title);
	fputs("<figure><div class=\"scroll\">", out);
	svg_open(out, 560, LEGEND_Y(s->npolicies) + 14, tt,
		 "A line per policy: the median speedup at each thread count, bars its 95% interval (paired repeats; "
		 "without pairs the repeats' min to max); "
		 "the dashed line is the ideal (linear); the table below holds every figure.");
	svg_axes(out, &x, &y, "threads", "speedup (x one thread)");
	svg_line(out, svg_map(&x, x.lo), svg_map(&y, x.lo), svg_map(&x, x.hi), svg_map(&y, x.hi), "ideal");
	svg_line(out, LEGEND_X(0), LEGEND_Y(0), LEGEND_X(0) + 22, LEGEND_Y(0), "ideal");
	svg_text(out, LEGEND_X(0) + 28, LEGEND_Y(0) + 4, "start", NULL, "ideal (linear)");
	if (s->cores >= x.lo && s->cores <= x.hi) {
		snprintf(label, sizeof(label), "%s %u", s->cores == s->pus ? "cores = PUs" : "cores", s->cores);
		svg_line(out, svg_map(&x, s->cores), y.px0, svg_map(&x, s->cores), y.px1, "mark");
		svg_text(out, svg_map(&x, s->cores) + (s->cores > x.lo ? -4 : 4), y.px1 + 14,
			 s->cores > x.lo ? "end" : "start", NULL, label);
	}
	for (size_t from = 0, to; from < s->ncells; from = to, k++) {
		for (to = from + 1; to < s->ncells && s->cells[to].policy == s->cells[from].policy; to++)
			;
		speedup_line(out, s, from, to, &x, &y, colours[(k - 1) % NCOLOURS], k);
	}
	svg_close(out);
	fputs("</div><figcaption>", out);
	esc_html(out, tt);
	fputs(" (log scales; median of the repeats, bars: the paired speedup's 95% interval, else min..max; "
	      "! a flagged point).</figcaption></figure>\n", out);
}

/* A machine the rows ran on, or a version string, and its rows. */
struct seen {
	const struct obs *o;
	size_t rows;
};

COLUMN_GET(get_host, struct seen, VAL_S(r->o->host))
COLUMN_GET(get_model, struct seen, VAL_S(r->o->cpu_model))
COLUMN_GET(get_topology, struct seen, VAL_S(r->o->topology))
COLUMN_GET(get_cores, struct seen, VAL_I(r->o->cores))
COLUMN_GET(get_pus, struct seen, VAL_I(r->o->pus))
COLUMN_GET(get_versions, struct seen, VAL_S(r->o->versions))
COLUMN_GET(get_rows, struct seen, VAL_I(r->rows))

static const struct column machine_cols[] = {
	{ NULL, "host", .left = true, .get = get_host }, { NULL, "CPU model", .left = true, .get = get_model },
	{ NULL, "topology", .left = true, .get = get_topology }, { NULL, "cores", .get = get_cores },
	{ NULL, "PUs", .get = get_pus }, { NULL, "rows", .get = get_rows },
};

static const struct column version_cols[] = {
	{ NULL, "versions", .left = true, .get = get_versions }, { NULL, "rows", .get = get_rows },
};

static bool same_machine(const struct obs *a, const struct obs *b)
{
	return a->host == b->host && a->cpu_model == b->cpu_model && a->topology == b->topology &&
	       a->cores == b->cores && a->pus == b->pus;
}

static bool same_versions(const struct obs *a, const struct obs *b)
{
	return a->versions == b->versions;
}

/* The distinct rows of DS by SAME (interned texts: pointers), as table
 * COLS of CTX. */
static int distinct(FILE *out, const struct dataset *ds, bool (*same)(const struct obs *, const struct obs *),
		    const struct column *cols, size_t ncols)
{
	struct table t = { out, FMT_HTML, false, cols, ncols, NULL, NULL };
	struct seen *v = calloc(ds->nobs + 1, sizeof(*v));
	size_t n = 0, i, k;

	if (!v)
		return -1;
	for (i = 0; i < ds->nobs; i++) {
		if (ds->obs[i].failed || ds->obs[i].dropped)
			continue;
		for (k = 0; k < n && !same(v[k].o, &ds->obs[i]); k++)
			;
		if (k == n)
			v[n++].o = &ds->obs[i];
		v[k].rows++;
	}
	table_head(&t);
	for (k = 0; k < n; k++)
		table_row(&t, &v[k]);
	table_end(&t);
	free(v);
	return 0;
}

int html_machine(FILE *out, const struct dataset *ds)
{
	html_section(out, "machine", "Machine and versions");
	if (distinct(out, ds, same_machine, machine_cols, NCOLS(machine_cols)) < 0 ||
	    distinct(out, ds, same_versions, version_cols, NCOLS(version_cols)) < 0)
		return -1;
	html_section_end(out);
	return 0;
}
