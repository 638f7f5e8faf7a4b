/*
 * The few SVG shapes the html page's figures are drawn with, written
 * inline: every text goes through esc_html, and the attributes that are
 * not numbers (classes, colours) are the callers' constants, never data.
 */
#ifndef SVG_H
#define SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One axis: data LO..HI (on a log2 scale where LOG2) onto pixels
 * PX0..PX1 (PX1 < PX0 for a y axis, which grows upwards). */
struct svg_axis {
	double lo, hi, px0, px1;
	bool log2;
};

/* V's pixel on A. */
double svg_map(const struct svg_axis *a, double v);

/* An <svg> of W x H pixels (it shrinks to the page's width), its <title>
 * and its description for readers of the page without the picture. */
void svg_open(FILE *out, int w, int h, const char *title, const char *desc);
void svg_close(FILE *out);

/* S at X, Y; ANCHOR "start", "middle" or "end"; CLS a class of the page's
 * style (NULL: none). */
void svg_text(FILE *out, double x, double y, const char *anchor, const char *cls, const char *s);
void svg_line(FILE *out, double x1, double y1, double x2, double y2, const char *cls);
/* A rectangle filled with FILL ("#rrggbb"), its TIP shown on hover (NULL:
 * none). */
void svg_rect(FILE *out, double x, double y, double w, double h, const char *fill, const char *tip);
/* Points X[i], Y[i] (pixels) joined in COLOUR, each marked with a dot. */
void svg_polyline(FILE *out, const double *x, const double *y, size_t n, const char *colour);
/* The frame of the plot area of X and Y, their ticks (the powers of two
 * on a log2 axis, the ends otherwise) with grid lines, and their labels. */
void svg_axes(FILE *out, const struct svg_axis *x, const struct svg_axis *y, const char *xlabel,
	      const char *ylabel);

#endif
