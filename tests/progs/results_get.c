/*
 * Test helper: print chosen columns of a results file, tab-separated, one
 * line per row, through the project's own reader (so quoting is honoured).
 * Exits 1 when the file has malformed lines or cannot be read.
 *   results_get FILE COLUMN...
 */
#include <stdio.h>
#include <string.h>

#include "results.h"

struct want {
	int cols[32];
	int n;
};

static int print_row(const struct results_row *row, unsigned line, void *arg)
{
	const struct want *w = arg;
	int i;

	(void)line;
	for (i = 0; i < w->n; i++)
		printf("%s%s", i ? "\t" : "", results_row_get(row, (enum results_col)w->cols[i]));
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	struct results_info info;
	struct want w = { .n = 0 };
	char err[512];
	int i;

	if (argc < 3 || argc - 2 > 32) {
		fprintf(stderr, "usage: results_get FILE COLUMN...\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		w.cols[w.n] = results_col_find(argv[i]);
		if (w.cols[w.n++] < 0) {
			fprintf(stderr, "results_get: no column '%s'\n", argv[i]);
			return 2;
		}
	}
	if (results_read(argv[1], print_row, &w, stderr, &info, err, sizeof(err)) < 0) {
		fprintf(stderr, "results_get: %s\n", err);
		return 1;
	}
	return info.bad_lines ? 1 : 0;
}
