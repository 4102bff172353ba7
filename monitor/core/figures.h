/* figures.h - every figure of an interval, defined once.
 *
 * Contract: one table (figures.c) gives each figure its meaning, unit, when it is known,
 * its screen header, its CSV/JSON key and its OpenMetrics family. The console, batch
 * text, CSV and JSON and the /metrics exposition take names and "known" from it, so a
 * figure is named in one place and no sink tests XIO_ABSENT_* bits of its own.
 * A figure is unknown (figure_known) when the interval lacks what it is made of: a
 * counter the samples do not hold (its `absent` bits, an imported recording), one not
 * collected (CPU, dirty pages, blkback's counters, latency), a domain's vCPU time where
 * the hypervisor gave none, a domain's latency where a kind of its backends was not
 * timed (its completion hook not attached: model_domain.lat_untimed). Unknown prints
 * null or "-", never 0.
 * Per-domain figures are in the JSON contract's order (README "JSON and CSV output"); the
 * screen-only ones follow, then the host's. Adding a per-domain counter or gauge is one
 * entry at the table's end, its value the member that holds it (or a function of the
 * interval for a derived one) and no name in enum figure_id: the
 * console and `-b` text show it as a column after the named ones, JSON as a key after the
 * others, CSV as a column after all named ones (the host's too, so none moves), /metrics
 * as a family (with a metric name). A host count or gauge added so is in JSON at its json
 * place, in CSV and in /metrics; the host lines of the console and `-b` text name theirs one by
 * one, so one with a screen header fails test_figures until they show it. Pure: no I/O, no globals
 * but the constant table.
 */
#ifndef XIOTOP_FIGURES_H
#define XIOTOP_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

enum figure_id {
	/* per domain, in the JSON contract's order */
	FIG_DOMID,
	FIG_NAME,
	FIG_KIND,
	FIG_MISSING,
	FIG_GUEST_RD_BYTES,
	FIG_GUEST_WR_BYTES,
	FIG_GUEST_RD_IOS,
	FIG_GUEST_WR_IOS,
	FIG_PHYS_RD_BYTES,
	FIG_PHYS_WR_BYTES,
	FIG_DOUBLE_COUNTED_BYTES,
	FIG_DOM0_CPU_NS,
	FIG_DOM0_CPU_NS_BY_ROLE,
	FIG_GUEST_CPU_NS,
	FIG_DIRTY_BACKLOG_BYTES,
	FIG_DIRTIED_BYTES,
	FIG_WRITTEN_BACK_BYTES,
	FIG_LAYERS,
	FIG_VBD_STATS,
	FIG_IO_LATENCY,
	/* per domain, on screen only */
	FIG_AMPLIFICATION,
	FIG_DOM0_CPU_SINCE_START,
	FIG_LATENCY_P50,
	FIG_LATENCY_P99,
	/* the host */
	FIG_VMSTAT_PGPGOUT_BYTES,
	FIG_VMSTAT_PGPGIN_BYTES,
	FIG_DISKS,
	FIG_DISKS_RD_BYTES,
	FIG_DISKS_WR_BYTES,
	FIG_DOUBLE_COUNTED_TOTAL,
	FIG_HOST_BUSY_NS,
	FIG_UNATTRIBUTED_RD_BYTES,
	FIG_UNATTRIBUTED_WR_BYTES,
	FIG_UNATTRIBUTED_CPU_NS,
	FIG_DOM0_OWN_CPU_NS,
	FIG_LOST_EVENTS,
	/* after the others, so that CSV columns that were there keep their places */
	FIG_HOST_IRQ_NS,
	FIG_HOST_STEAL_NS,
	FIGURE_NAMED /* the figures code names; the table may hold more after them */
};

/* What a person reads is binary, said in every header: sizes in MiB (GiB), rates in
 * MiB/s, in the console, `-b` text, explain and its report alike; JSON, CSV and /metrics
 * keep bytes. */
#define FIGURE_MIB 1048576.0

/* The most figures the table may hold (sinks size their arrays by it). */
#define FIGURE_MAX 64

enum figure_scope { FIGURE_DOMAIN, FIGURE_HOST };

enum figure_form {
	FORM_COUNT,  /* a count over the interval (bytes, ns, requests): a counter in /metrics */
	FORM_GAUGE,  /* a level at the interval's end */
	FORM_TEXT,   /* a name; the id and a flag are shaped by the sink too */
	FORM_RECORD, /* an object or a list each sink writes in its own shape */
	FORM_SCREEN, /* derived for the screen (a ratio, a total since the start, a quantile) */
};

/* What the interval must have collected for the figure to be known. */
enum figure_need {
	NEED_CPU = 1u << 0,       /* model_interval.has_cpu */
	NEED_DIRTY = 1u << 1,     /* has_dirty */
	NEED_VBD = 1u << 2,       /* has_vbd_stats: the key is absent without it */
	NEED_LATENCY = 1u << 3,   /* has_latency: the key is absent without it */
	NEED_GUEST_CPU = 1u << 4, /* the domain's guest_cpu_ns >= 0 */
	NEED_TIMED = 1u << 5,     /* the domain's latency was timed (no lat_untimed bit) */
	NEED_HOST_BUSY = 1u << 6, /* host_busy_ns > 0: /proc/stat was read (0 is unknown) */
};

enum figure_flag {
	/* one of CSV's first columns, its place kept: every figure with a key is a CSV column
	 * (ui/batch_keys.h), these first, those CSV had before the others joined them */
	FIGURE_CSV_FIRST = 1u << 0,
};

/* An OpenMetrics family (without _total), its help, and the label telling figures of one
 * family apart (layer="guest"); help is given by the family's first figure. */
struct figure_metric {
	const char *family;
	const char *help;
	const char *label, *label_value;
};

/* Where a figure's value is: a member of the domain or of the interval, or, for one no
 * member holds, a function of them. */
enum figure_from {
	FIGURE_FROM_NONE,     /* no value: text, a record, a screen-only figure */
	FIGURE_FROM_DOMAIN,   /* a member of struct model_domain */
	FIGURE_FROM_INTERVAL, /* a member of struct model_interval */
	FIGURE_FROM_FUNCTION, /* derived: fn */
};
struct figure_source {
	enum figure_from from;
	size_t offset, size; /* the member's: an unsigned integer of size bytes (4 or 8) */
	uint64_t (*fn)(const struct model_interval *m, const struct model_domain *d);
};

/* figures.c's table gives its members positionally, one figure a row: keep it in this
 * order. */
struct figure {
	enum figure_scope scope;
	enum figure_form form;
	const char *unit;   /* "bytes", "ns", "requests", "events"; NULL for text */
	uint32_t absent;    /* enum xio_absent: any of these bits absent makes it unknown */
	unsigned needs;     /* enum figure_need */
	unsigned flags;     /* enum figure_flag */
	const char *header; /* screen header; NULL when no table column shows it */
	const char *key;    /* CSV/JSON key; NULL when only the screen shows it */
	/* a host figure's place in the JSON object ("host.dom0_cpu_busy_ns",
	 * "unattributed.rd_bytes"), NULL when JSON does not hold it; a domain figure is at
	 * its key in each of domains[] */
	const char *json;
	/* its value in the interval (d NULL for a host figure); none for text and records */
	struct figure_source value;
	const char *meaning; /* one line: what it counts (the console's and --help's help) */
	struct figure_metric metric;
};

/* How many figures the table holds (FIGURE_NAMED and those after them). */
int figure_count(void);
const struct figure *figure_get(enum figure_id id);
/* Is the figure known in this interval (for this domain: d may be NULL for the host)? */
bool figure_known(enum figure_id id, const struct model_interval *m, const struct model_domain *d);
/* The same from what an interval lacks (its absent bits) and what it collected
 * (figure_collected's NEED_* bits): for a sink that keeps no interval (the exporter). */
bool figure_known_with(enum figure_id id, uint32_t absent, unsigned collected,
                       const struct model_domain *d);
unsigned figure_collected(const struct model_interval *m);
/* Is its key present at all (vbd_stats only on a Xen dom0, io_latency only timed)? */
bool figure_present(enum figure_id id, const struct model_interval *m);
/* Its value, 0 when it has none (check figure_known first). */
uint64_t figure_value(enum figure_id id, const struct model_interval *m,
                      const struct model_domain *d);
/* The member name a JSON object holds it under: the json path's last part. */
const char *figure_json_name(const struct figure *f);
/* Do samples lacking `absent` (enum xio_absent) hold what the figure is made of? For a
 * reader of a window's absent bits (explain), before its own collection is asked. */
bool figure_held(enum figure_id id, uint32_t absent);
/* A dom0 CPU role's key (JSON, CSV, /metrics labels, explain's figures: "device_model")
 * and its words on screen ("device model"); "?" for no role. */
const char *figure_cpu_role_key(enum xio_cpu_role r);
const char *figure_cpu_role_text(enum xio_cpu_role r);
/* Is the figure a plain count or gauge (not text, a record or a screen-only figure)? */
bool figure_is_scalar(const struct figure *f);

#endif
