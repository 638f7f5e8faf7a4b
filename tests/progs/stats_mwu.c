/* Reads lines "A1,A2,...;B1,B2,..." and prints stats_mann_whitney's p-value
 * of each (and whether it was exact), for tests/sh/stats_scipy.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* The numbers of the comma-separated list S into X; how many. */
static size_t parse(char *s, double *x, size_t max)
{
	size_t n = 0;

	for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ","))
		x[n++] = strtod(t, NULL);
	return n;
}

int main(void)
{
	char line[4096], *semi;
	double a[64], b[64];
	int exact;

	while (fgets(line, sizeof(line), stdin) && (semi = strchr(line, ';'))) {
		size_t nb, na;

		*semi = '\0';
		na = parse(line, a, 64);
		nb = parse(semi + 1, b, 64);
		printf("%.12g %d\n", stats_mann_whitney(a, na, b, nb, NULL, &exact), exact);
	}
	return 0;
}
