/*
 * The check on linpack --peak (make bench): one core's FMA rate from 16
 * independent chains, written apart from linpack's loops (intrinsics, not
 * vector extensions) and built with linpack's flags.  Prints GFLOPS and
 * the width: "112.9 512-bit".  The best of 20 ms slices of the thread's
 * CPU time over about 0.5 s, as --peak measures.
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 16
#define READS_EVERY 60000 /* loop turns between two reads of the clock */

static double thread_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#ifdef __AVX512F__
typedef __m512d vec;
#define VW 8
#define WIDTH "512-bit"
#define SET1 _mm512_set1_pd
#define FMA _mm512_fmadd_pd
#define FIRST(v) _mm512_cvtsd_f64(v)
#else
typedef __m256d vec;
#define VW 4
#define WIDTH "256-bit"
#define SET1 _mm256_set1_pd
#define FMA _mm256_fmadd_pd
#define FIRST(v) _mm256_cvtsd_f64(v)
#endif

int main(void)
{
	vec x[CHAINS], m = SET1(1.0000001), a = SET1(1e-9);
	double start = thread_s(), t0 = start, now, best = 0, sum = 0;
	long turns = 0;

	for (int j = 0; j < CHAINS; j++)
		x[j] = SET1(j);
	do {
		for (int i = 0; i < READS_EVERY; i++)
#pragma GCC unroll 16
			for (int j = 0; j < CHAINS; j++)
				x[j] = FMA(x[j], m, a);
		turns += READS_EVERY;
		now = thread_s();
		if (now - t0 >= 0.02) {
			double rate = (double)turns * CHAINS * VW * 2 / (now - t0) / 1e9;

			best = rate > best ? rate : best;
			turns = 0;
			t0 = now;
		}
	} while (now - start < 0.5);
	for (int j = 0; j < CHAINS; j++)
		sum += FIRST(x[j]);
	printf("%.1f %s%s\n", best, WIDTH, sum == 42.4242 ? " " : "");
	return 0;
}
