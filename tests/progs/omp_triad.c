/*
 * A small OpenMP triad (a = b + s * c) that knows nothing of threadrun and
 * prints its own figure, as McCalpin's STREAM does: the program
 * threadrun --metric reads in tests/sh/metric.sh.  Arrays that fit in the
 * caches and a fixed amount of work keep it short (well under 0.3 s).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 15)
#define PASSES 2000

int main(void)
{
	double *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b)),
	       *c = malloc(N * sizeof(*c)), t0, t;
	const double s = 3.0;
	int i, k, threads = 1, ret;

	if (!a || !b || !c)
		return 1;
#pragma omp parallel for
	for (i = 0; i < N; i++) {
		a[i] = 0;
		b[i] = 1;
		c[i] = 2;
	}
	t0 = omp_get_wtime();
#pragma omp parallel private(k)
	{
#pragma omp single
		threads = omp_get_num_threads();
		for (k = 0; k < PASSES; k++) {
#pragma omp for
			for (i = 0; i < N; i++)
				a[i] = b[i] + s * c[i];
		}
	}
	t = omp_get_wtime() - t0;
	printf("Threads: %d\n", threads);
	printf("Triad: %.1f MB/s\n", 3.0 * sizeof(double) * N * PASSES / (t > 0 ? t : 1e-9) / 1e6);
	ret = a[0] == 7.0 ? 0 : 1;
	free(a);
	free(b);
	free(c);
	return ret;
}
