/*
 * threadreport -f html: one self-contained page (no script, no resource
 * from elsewhere, the style inline, the figures inline SVG drawn from the
 * same cells as the tables).  threadreport.c writes the series' tables
 * through the one renderer (FMT_HTML); these write the rest.  Every text
 * from the files goes through esc_html.
 */
#ifndef HTML_H
#define HTML_H

#include <stddef.h>
#include <stdio.h>

#include "dataset.h"

/* The page up to its <main>, titled after DS's workloads; and its end. */
void html_begin(FILE *out, const struct dataset *ds);
void html_end(FILE *out);

/* <section id="ID"><h2>HEADING</h2> (ID and HEADING are ours); its end. */
void html_section(FILE *out, const char *id, const char *heading);
void html_section_end(FILE *out);

/* Series I's heading (TITLE, and IMPL where not ""), anchored as
 * "series-I" for the warnings' links; HTML_SERIES_END closes it. */
void html_series(FILE *out, size_t i, const char *title, const char *impl);
#define HTML_SERIES_END "</section>\n"

/* Each line of TEXT that is not blank, as an item of a list of class CLS
 * (ours), its leading spaces left out; TEXT is cut into its lines. */
void html_lines(FILE *out, char *text, const char *cls);

/* TEXT as it is, preformatted (a view written for the terminal). */
void html_pre(FILE *out, const char *text);

/* A warning of series I (its TITLE) in the page's list of all warnings:
 * a link to the series, then TEXT. */
void html_warning(FILE *out, size_t i, const char *title, const char *text);

/* The overview: efficiency, series x thread count, a heat map per plan
 * (policies that plan the same PUs in every series are one), the series
 * named by series_title(WITH).  -1: out of memory. */
int html_overview(FILE *out, const struct dataset *ds, unsigned with);

/* Series S's speedup against threads, TITLE its name: a line per policy
 * with the repeats' min..max as bars, and the ideal. */
void html_speedup(FILE *out, const struct series *s, const char *title);

/* Where the rows ran (host, CPU model, topology, cores, PUs) and with
 * which versions, each with its count of rows. -1: out of memory. */
int html_machine(FILE *out, const struct dataset *ds);

#endif
