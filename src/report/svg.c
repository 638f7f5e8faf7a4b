/* The html page's SVG shapes (svg.h). */
#include <math.h>

#include "escape.h"
#include "svg.h"

double svg_map(const struct svg_axis *a, double v)
{
	double lo = a->log2 ? log2(a->lo) : a->lo, hi = a->log2 ? log2(a->hi) : a->hi;
	double x = a->log2 ? log2(v) : v;

	return hi > lo ? a->px0 + (x - lo) / (hi - lo) * (a->px1 - a->px0) : (a->px0 + a->px1) / 2;
}

void svg_open(FILE *out, int w, int h, const char *title, const char *desc)
{
	fprintf(out, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
		w, h, w, h);
	fputs("<title>", out);
	esc_html(out, title);
	fputs("</title><desc>", out);
	esc_html(out, desc);
	fputs("</desc>\n", out);
}

void svg_close(FILE *out)
{
	fputs("</svg>\n", out);
}

void svg_text(FILE *out, double x, double y, const char *anchor, const char *cls, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s%s>", x, y, anchor, cls ? " class=\"" : "",
		cls ? cls : "", cls ? "\"" : "");
	esc_html(out, s);
	fputs("</text>\n", out);
}

void svg_line(FILE *out, double x1, double y1, double x2, double y2, const char *cls)
{
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>\n", x1, y1, x2, y2, cls);
}

void svg_rect(FILE *out, double x, double y, double w, double h, const char *fill, const char *tip)
{
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", x, y, w, h, fill);
	if (tip) {
		fputs("<title>", out);
		esc_html(out, tip);
		fputs("</title>", out);
	}
	fputs("</rect>\n", out);
}

void svg_polyline(FILE *out, const double *x, const double *y, size_t n, const char *colour)
{
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%.1f,%.1f", i ? " " : "", x[i], y[i]);
	fputs("\"/>\n", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x[i], y[i], colour);
}

/* The ticks of A, each with a grid line across the plot from OTHER's
 * PX0 to its PX1; VERTICAL: A is the x axis. */
static void ticks(FILE *out, const struct svg_axis *a, const struct svg_axis *other, bool vertical)
{
	double v = a->log2 ? exp2(ceil(log2(a->lo) - 1e-9)) : a->lo, p;
	char label[32];

	for (; v <= a->hi * (1 + 1e-9); v = a->log2 ? 2 * v : v + (a->hi > a->lo ? a->hi - a->lo : INFINITY)) {
		p = svg_map(a, v);
		snprintf(label, sizeof(label), "%g", v);
		if (vertical) {
			svg_line(out, p, other->px0, p, other->px1, "grid");
			svg_text(out, p, other->px0 + 16, "middle", NULL, label);
		} else {
			svg_line(out, other->px0, p, other->px1, p, "grid");
			svg_text(out, other->px0 - 6, p + 4, "end", NULL, label);
		}
	}
}

void svg_axes(FILE *out, const struct svg_axis *x, const struct svg_axis *y, const char *xlabel,
	      const char *ylabel)
{
	ticks(out, x, y, true);
	ticks(out, y, x, false);
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n", x->px0, y->px1,
		x->px1 - x->px0, y->px0 - y->px1);
	svg_text(out, (x->px0 + x->px1) / 2, y->px0 + 34, "middle", NULL, xlabel);
	fprintf(out, "<g transform=\"translate(%.1f %.1f) rotate(-90)\">", x->px0 - 40, (y->px0 + y->px1) / 2);
	svg_text(out, 0, 0, "middle", NULL, ylabel);
	fputs("</g>\n", out);
}
