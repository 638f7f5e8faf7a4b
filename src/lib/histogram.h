/*
 * A fixed-memory log-linear latency histogram (HDR-style): values are
 * nanoseconds; 0..255 ns are counted exactly, above that each power of two
 * is split into 128 equal buckets, so a bucket is at most 1/128 of its
 * lower bound wide and a percentile reported at the bucket's middle is
 * within 0.4% (HISTOGRAM_REL_ERR) of a recorded value, up to
 * HISTOGRAM_MAX_NS (2^37 - 1 ns, 137 s).  Larger values count in the top
 * bucket (and in over); the maximum is kept exactly.  3968 buckets, 31 KiB,
 * allocated by the caller: histogram_record does no allocation, no
 * division and no branch beyond the bucket's.
 */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_SUB_BITS 7                            /* 128 buckets per octave */
#define HISTOGRAM_SUB (1u << HISTOGRAM_SUB_BITS)
#define HISTOGRAM_TOP_BIT 37                            /* values below 2^37 ns */
#define HISTOGRAM_MAX_NS ((UINT64_C(1) << HISTOGRAM_TOP_BIT) - 1)
#define HISTOGRAM_BUCKETS (2 * HISTOGRAM_SUB + (HISTOGRAM_TOP_BIT - HISTOGRAM_SUB_BITS - 1) * HISTOGRAM_SUB)
/* The largest relative error of a reported percentile: half a bucket. */
#define HISTOGRAM_REL_ERR (0.5 / HISTOGRAM_SUB)

struct histogram {
	uint64_t count;         /* values recorded */
	uint64_t over;          /* of them, above HISTOGRAM_MAX_NS */
	uint64_t min, max;      /* exact; min is UINT64_MAX when empty */
	double sum;             /* of the values, for the mean */
	uint64_t bucket[HISTOGRAM_BUCKETS];
};

void histogram_init(struct histogram *h);

/* The bucket of V: V itself below 256, else 128 per octave. */
static inline unsigned histogram_index(uint64_t v)
{
	unsigned shift;

	if (v > HISTOGRAM_MAX_NS)
		v = HISTOGRAM_MAX_NS;
	if (v < 2 * HISTOGRAM_SUB)
		return (unsigned)v;
	shift = (unsigned)(63 - __builtin_clzll(v)) - HISTOGRAM_SUB_BITS;
	return (shift + 1) * HISTOGRAM_SUB + (unsigned)(v >> shift) - HISTOGRAM_SUB;
}

static inline void histogram_record(struct histogram *h, uint64_t ns)
{
	h->bucket[histogram_index(ns)]++;
	h->count++;
	h->sum += (double)ns;
	h->over += ns > HISTOGRAM_MAX_NS;
	if (ns > h->max)
		h->max = ns;
	if (ns < h->min)
		h->min = ns;
}

/* The smallest and the largest value bucket I holds. */
uint64_t histogram_bucket_low(unsigned i);
uint64_t histogram_bucket_high(unsigned i);

/* Add SRC's counts to DST: the histogram of both data sets. */
void histogram_merge(struct histogram *dst, const struct histogram *src);

/*
 * The P-th percentile (0 < P <= 100) in nanoseconds: the middle of the
 * bucket holding the value of rank ceil(P/100 * count), clamped to the
 * exact min and max; 0 when empty.  P = 100 is the exact maximum.
 */
double histogram_percentile(const struct histogram *h, double p);
double histogram_max(const struct histogram *h);
double histogram_mean(const struct histogram *h);

#endif
