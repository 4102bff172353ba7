/* latency.c - log2 histogram bounds, deltas and quantiles; see latency.h. */
#include "core/latency.h"

#include <sched.h>
#include <string.h>

int latency_bucket_of(uint64_t ns)
{
	int b = 0;
	while (ns >= 2 && b < XIOTOP_LAT_BUCKETS - 1) {
		ns >>= 1;
		b++;
	}
	return b;
}

uint64_t latency_bucket_low_ns(int i)
{
	return i <= 0 ? 0 : 1ull << i;
}

uint64_t latency_bucket_high_ns(int i)
{
	if (i >= XIOTOP_LAT_BUCKETS - 1)
		return UINT64_MAX;
	return 2ull << (i < 0 ? 0 : i);
}

double latency_quantile_ns(const struct xiotop_lat *h, double q)
{
	uint64_t total = 0;
	for (int i = 0; i < XIOTOP_LAT_BUCKETS; i++)
		total += h->buckets[i];
	if (!total)
		return -1;
	if (q <= 0)
		q = 0;
	if (q > 1)
		q = 1;
	double rank = q * (double)total, below = 0;
	for (int i = 0; i < XIOTOP_LAT_BUCKETS; i++) {
		double n = (double)h->buckets[i];
		if (!h->buckets[i] || below + n < rank) {
			below += n;
			continue;
		}
		double low = (double)latency_bucket_low_ns(i);
		if (i == XIOTOP_LAT_BUCKETS - 1)
			return low; /* no upper bound to interpolate to */
		double high = (double)latency_bucket_high_ns(i);
		return low + (high - low) * ((rank - below) / n);
	}
	return (double)latency_bucket_low_ns(XIOTOP_LAT_BUCKETS - 1);
}

void latency_delta(const struct xiotop_lat *cur, const struct xiotop_lat *prev,
                   struct xiotop_lat *out)
{
	*out = *cur;
	if (!prev || cur->count < prev->count || cur->sum_ns < prev->sum_ns)
		return;
	for (int i = 0; i < XIOTOP_LAT_BUCKETS; i++)
		if (cur->buckets[i] < prev->buckets[i])
			return;
	out->count = cur->count - prev->count;
	out->sum_ns = cur->sum_ns - prev->sum_ns;
	for (int i = 0; i < XIOTOP_LAT_BUCKETS; i++)
		out->buckets[i] = cur->buckets[i] - prev->buckets[i];
}

void latency_merge(struct xiotop_lat *into, const struct xiotop_lat *add)
{
	into->count += add->count;
	into->sum_ns += add->sum_ns;
	for (int i = 0; i < XIOTOP_LAT_BUCKETS; i++)
		into->buckets[i] += add->buckets[i];
}

void latency_count_buckets(struct xiotop_lat *h)
{
	h->count = 0;
	for (int b = 0; b < XIOTOP_LAT_BUCKETS; b++)
		h->count += h->buckets[b];
}

bool latency_copy_whole(const struct xiotop_lat *src, struct xiotop_lat *out)
{
	bool whole = false;
	for (int i = 0; i < LATENCY_COPY_TRIES && !whole; i++) {
		if (i >= 8)
			sched_yield();
		unsigned long long before = __atomic_load_n(&src->seq, __ATOMIC_ACQUIRE);
		memcpy(out, src, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		whole = !(before & 1) && __atomic_load_n(&src->seq, __ATOMIC_RELAXED) == before;
	}
	latency_count_buckets(out);
	return whole;
}
