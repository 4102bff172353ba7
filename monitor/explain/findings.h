/* findings.h - what a verdict returns: which verdict, about which domain, the share of the
 * discrepancy it accounts for, its figures (the JSON "figures": numbers, null where the
 * inputs do not hold them, a few names), its reason codes and the counters it used. No
 * words: report/ writes them from these and the window (report/prose.h).
 *
 * Contract: a verdict and a figure key are numbered here and named in one table each,
 * verdicts/verdict_table.c (its name, rank, where it applies, its judges) and
 * verdicts/verdict_keys.c (the figure's JSON key: the contract docs/explaining.md lists,
 * checked by tests/check_json_keys.py). A reason code says which way a judge decided
 * where the words differ (a claim inflated, or matching the disks, or too short to
 * time); numbers the words need are figures or the window's own.
 */
#ifndef XIOTOP_EXPLAIN_FINDINGS_H
#define XIOTOP_EXPLAIN_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EX_MAX_FIGURES  28
#define EX_MAX_EVIDENCE 8
#define EX_NO_CLAIM     ((size_t)-1)

/* Which verdict (verdicts/verdict_table.c names it). */
enum ex_verdict_id {
	EXV_PAGE_CACHE_INFLATION,
	EXV_DOUBLE_COUNTING,
	EXV_DOM0_CPU_COST,
	EXV_READ_CACHE,
	EXV_TEST_SIZE_VS_MEMORY,
	EXV_REQUEST_SIZE,
	EXV_PATH,
	EXV_CLAIM,
	EXV_QUEUE_DEPTH,
	EXV_DIRECT_BUFFERED,
	EXV_COUNT
};

/* Which figure (verdicts/verdict_keys.c names it: the JSON key). */
enum ex_key {
	/* bytes and rates of the window */
	EXK_GUEST_WR_BYTES,
	EXK_GUEST_RD_BYTES,
	EXK_PHYS_WR_BYTES,
	EXK_PHYS_RD_BYTES,
	EXK_WINDOW_SECONDS,
	EXK_GUEST_WR_RATE,
	EXK_PHYS_WR_RATE,
	EXK_END_TO_END_RATE,
	EXK_INFLATION_FACTOR,
	EXK_DIRTY_BACKLOG_END,
	EXK_DIRTY_BACKLOG_PEAK,
	EXK_DRAIN_SECONDS,
	EXK_DRAINED,
	/* dom0's own run's drain */
	EXK_DRAIN_FROM,
	EXK_RUN_DATA_BYTES,
	EXK_DATA_TAKEN_BYTES,
	EXK_AFTER_DATA_WR_BYTES,
	EXK_AFTER_DATA_LAST_SECONDS,
	/* double counting */
	EXK_VMSTAT_WR_BYTES,
	EXK_DOUBLE_COUNTED_BYTES,
	EXK_DOUBLE_COUNTED_IN_WINDOW,
	EXK_VMSTAT_TIMES,
	EXK_IOSTAT_TIMES,
	EXK_VIA_LOOP_BYTES,
	EXK_VIA_PARTITION_BYTES,
	EXK_VIA_DM_BYTES,
	EXK_PATH,
	EXK_HOST_DISK_WR_BYTES,
	EXK_HOST_DISK_RD_BYTES,
	EXK_GUESTS_WR_BYTES,
	/* reads */
	EXK_CACHED_RD_BYTES,
	EXK_GUEST_RD_RATE,
	EXK_PHYS_RD_RATE,
	/* an import's cache verdicts */
	EXK_GUEST_RATE,
	EXK_DISK_RATE,
	EXK_ACTIVE_DOMAINS,
	EXK_DISK_BYTES_FROM,
	/* dom0 CPU */
	EXK_DOM0_CPU_S,
	EXK_DOM0_CPU_S_DRAIN,
	EXK_DOM0_CPUS_BUSY,
	EXK_GUESTS_VCPU_S,
	EXK_DOM0_SHARE_OF_CPU,
	EXK_GUEST_GIB,
	EXK_DOM0_CPU_S_PER_GIB,
	EXK_ROLE_S_PER_GIB, /* one per CPU role, in enum xio_cpu_role's order: */
	EXK_ROLE_S_PER_GIB_END = EXK_ROLE_S_PER_GIB + 4, /* XIO_CPU_ROLES (verdict_keys.c) */
	EXK_CHEAPEST_DOMID = EXK_ROLE_S_PER_GIB_END,
	EXK_CHEAPEST_S_PER_GIB,
	EXK_RATIO_TO_CHEAPEST,
	EXK_BUSY_SOURCE,
	/* test size */
	EXK_TEST_BYTES,
	EXK_TEST_BYTES_FROM,
	EXK_GUEST_MEM_BYTES,
	EXK_DOM0_MEM_BYTES,
	EXK_DOM0_CACHES_PATH,
	EXK_DOM0_CACHE_BYTES,
	EXK_CACHE_BYTES,
	EXK_TEST_TO_CACHE,
	EXK_RULE_TIMES_CACHE,
	EXK_DIRTY_LIMIT_BYTES,
	EXK_DIRTY_BACKGROUND_BYTES,
	/* request size */
	EXK_GUEST_BYTES,
	EXK_GUEST_REQUESTS,
	EXK_GUEST_AVG_REQUEST,
	EXK_DISK_BYTES,
	EXK_DISK_REQUESTS,
	EXK_DISK_AVG_REQUEST,
	EXK_MERGE_RATIO,
	EXK_DIRECTION,
	/* path */
	EXK_LAYERS,
	EXK_BUFFERED_IN_DOM0,
	EXK_DIRTIED_BYTES,
	EXK_VIA_QEMU_FILE_BYTES,
	/* claim */
	EXK_TOOL,
	EXK_RUN,
	EXK_DIRECTION_FROM,
	EXK_CLAIMED_BYTES,
	EXK_CLAIMED_SECONDS,
	EXK_CLAIMED_RATE,
	EXK_OBSERVED_GUEST_BYTES,
	EXK_OBSERVED_PHYS_BYTES,
	EXK_OBSERVED_PHYS_RATE,
	EXK_INFLATION,
	EXK_LOCATED_FROM_S,
	EXK_LOCATED_TO_S,
	EXK_PLACED,
	EXK_PLACED_BY,
	EXK_STRETCHES,
	/* what a claim says of itself (claims/claim_post.h struct claim_said) */
	EXK_SAID_DIRECT,
	EXK_SAID_SYNC,
	EXK_SAID_FLUSH_END,
	EXK_BLOCK_BYTES,
	EXK_QUEUE_DEPTH,
	/* queue depth 1 against the latency */
	EXK_CLAIMED_IOPS,
	EXK_LATENCY_MEAN_US,
	EXK_LATENCY_REQUESTS,
	EXK_LATENCY_IOPS,
	EXK_IOPS_TO_LATENCY,
	EXK_REQUESTS_PER_IO,
	EXK_COUNT
};

/* Reason codes (bits of ex_verdict.reasons): which way a judge decided where its words
 * differ. Each verdict uses its own. */
enum ex_reason {
	/* double_counting on an import: bo against iostat's leaf devices (else against the
	 * guests' own writes, xentop VBD) */
	EXR_DC_AGAINST_LEAVES = 1u << 0,
	/* double_counting on an import: iostat's disks sit under md (a mirror's members take
	 * each byte more than once): set against the guests' own writes */
	EXR_DC_MD_STACKED = 1u << 1,
	/* request_size: the disks' requests at least EX_REQ_MERGE_RATIO the guest's (else
	 * small and taken about as issued) */
	EXR_REQ_MERGED = 1u << 2,
	/* test_size_vs_memory: dom0's page cache is on the path */
	EXR_SIZE_DOM0_CACHES = 1u << 3,
	/* claim: the tool's rate above the disks' by EX_CLAIM_INFLATION_MIN */
	EXR_CLAIM_INFLATED = 1u << 4,
	/* claim: the run shorter than the recording's intervals can time */
	EXR_CLAIM_BELOW_RESOLUTION = 1u << 5,
	/* claim: no stretch holds the run, and it fits in the guest's memory: its own cache */
	EXR_CLAIM_GUEST_CACHE = 1u << 6,
	/* claim: the guest's layer moved the run slower than the tool's rate, timed */
	EXR_CLAIM_CACHE_ABOVE = 1u << 7,
	/* queue_depth_latency: the claimed IOPS within EX_QD_LATENCY_MARGIN of 1 / latency
	 * (the round trip is the limit); else below it (time outside the device xiotop
	 * timed: the guest, the ring, blkback's work around the device) or above it (a
	 * cache above dom0) */
	/* claim on an import: set against the host's disks (iostat), all domains' bytes */
	EXR_CLAIM_HOST_DISKS = 1u << 11,
	EXR_QD_ROUND_TRIP = 1u << 8,
	EXR_QD_BELOW = 1u << 9,
	EXR_QD_ABOVE = 1u << 10,
};

struct ex_figure {
	enum ex_key key;
	double value;
	bool null;
	char str[64]; /* a text figure ("path": "file via loop") when not "" */
};

struct ex_verdict {
	enum ex_verdict_id id;
	uint32_t domid;   /* EX_NO_DOMAIN: the host */
	double share;     /* of the discrepancy it accounts for, 0..1 (see verdicts.h) */
	unsigned reasons; /* enum ex_reason bits */
	size_t claim; /* the claims[] row it is about (claim, a claim's test file) or EX_NO_CLAIM */
	struct ex_figure figures[EX_MAX_FIGURES];
	size_t n_figures;
	const char *evidence[EX_MAX_EVIDENCE]; /* the counters it used */
	size_t n_evidence;
};

#endif
