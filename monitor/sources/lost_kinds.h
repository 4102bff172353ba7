/* lost_kinds.h - the tracer's lost events by kind (their sum is a sample's lost_events).
 *
 * Contract: struct tracer_lost holds each kind's count as the tracer last summed them;
 * tracer_lost_words() puts the nonzero ones in words, in the struct's order, into out
 * (cut to outlen, always terminated; "" when none). No BPF here: the tracer fills it,
 * the commands say it when they end (a sample keeps only the sum).
 */
#ifndef XIOTOP_LOST_KINDS_H
#define XIOTOP_LOST_KINDS_H

#include <stddef.h>
#include <stdint.h>

struct tracer_lost {
	uint64_t layer_map;         /* layer counter map full: an event not counted */
	uint64_t remap_map;         /* remap map full: a clone may be charged wrong */
	uint64_t cpu_map;           /* cpu or work-state map full */
	uint64_t latency_map;       /* latency histogram map full: an I/O not timed */
	uint64_t latency_nested;    /* a latency program the kernel skipped as nested */
	uint64_t latency_displaced; /* a bio stamp displaced before its completion */
	uint64_t latency_unstamped; /* a request without the kernel's start time */
	uint64_t latency_unseen;    /* backends' completions no program saw (diskstats) */
	uint64_t map_refused;       /* topology entries the maps refused */
};

void tracer_lost_words(const struct tracer_lost *l, char *out, size_t outlen);

#endif
