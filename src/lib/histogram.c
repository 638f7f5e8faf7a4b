/* The log-linear latency histogram (histogram.h). */
#include <math.h>
#include <string.h>

#include "histogram.h"

void histogram_init(struct histogram *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t histogram_bucket_low(unsigned i)
{
	unsigned shift;

	if (i < 2 * HISTOGRAM_SUB)
		return i;
	shift = i / HISTOGRAM_SUB - 1;
	return (uint64_t)(i % HISTOGRAM_SUB + HISTOGRAM_SUB) << shift;
}

uint64_t histogram_bucket_high(unsigned i)
{
	unsigned shift;

	if (i < 2 * HISTOGRAM_SUB)
		return i;
	shift = i / HISTOGRAM_SUB - 1;
	return histogram_bucket_low(i) + (UINT64_C(1) << shift) - 1;
}

void histogram_merge(struct histogram *dst, const struct histogram *src)
{
	unsigned i;

	for (i = 0; i < HISTOGRAM_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->over += src->over;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	if (src->min < dst->min)
		dst->min = src->min;
}

double histogram_percentile(const struct histogram *h, double p)
{
	uint64_t rank, seen = 0;
	double mid;
	unsigned i;

	if (!h->count || !(p > 0))
		return 0;
	if (p >= 100)
		return (double)h->max;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HISTOGRAM_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			break;
	}
	if (i == HISTOGRAM_BUCKETS)
		return (double)h->max;
	/* The middle of the bucket (exact below 256 ns), never outside what
	 * was recorded. */
	mid = ((double)histogram_bucket_low(i) + (double)histogram_bucket_high(i)) / 2;
	if (mid > (double)h->max)
		mid = (double)h->max;
	if (mid < (double)h->min)
		mid = (double)h->min;
	return mid;
}

double histogram_max(const struct histogram *h)
{
	return (double)h->max;
}

double histogram_mean(const struct histogram *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}
