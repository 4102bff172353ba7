/* tracer_hooks.h - the BPF hooks as a table of named entries, loaded and attached one by one.
 *
 * Contract: hooks_load() opens the skeleton and loads one program set (tp_btf or raw_tp)
 * with every hook the kernel takes. block_bio_queue is required; any other hook that
 * will not load, or is named in XIOTOP_FAIL_HOOKS (comma-separated event names, for
 * tests), is left out on its own and reported by name with what is lost; the rest stay.
 * hooks_attach() attaches the loaded hooks the same way (one failing attach drops only
 * itself). The syscall hooks are attached on demand (hooks_want_syscalls()) because
 * they put every syscall of every task on a slower path; block_bio_complete too
 * (hooks_start_stamping()), because it runs at every completion of every bio-based
 * device, leaves under image files included, and times only bio-based backends; and
 * workqueue_execute_start (hooks_start_work_items()), because it runs at every work item of
 * the host and serves only a domain's loop devices and its data in dom0's page cache (the
 * flusher's); no program runs at an item's end (bpf/cpu.bpf.h: the next item's start ends
 * it).
 * block_bio_complete and block_rq_complete are loaded only when hook_config.latency asks
 * for them (the default; not with --no-latency); not asked for, they are not reported as
 * missing either. Latency is timed when either loads (track_latency in the object):
 * bio-based devices complete at the first, request-based ones at the second.
 */
#ifndef XIOTOP_TRACER_HOOKS_H
#define XIOTOP_TRACER_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

enum hook_id {
	HOOK_BIO_QUEUE,
	HOOK_BIO_REMAP,
	HOOK_BIO_SPLIT,
	HOOK_BIO_COMPLETE,
	HOOK_RQ_COMPLETE,
	HOOK_WORK_START,
	HOOK_TASK_PASS,
	HOOK_TASK_EXIT,
	HOOK_DIRTY_FOLIO,
	HOOK_SYS_ENTER,
	HOOK_SYS_EXIT,
	HOOK_URING_COMPLETE,
	HOOK_COUNT
};

/* Values set in the BPF object before it is loaded. */
struct hook_config {
	unsigned long long loop_rootcg_workfn, loop_workfn, wb_workfn;
	unsigned long long bio_chain_endio; /* a split-off bio's end_io (latency.bpf.h) */
	unsigned int page_size;
	bool latency; /* time I/O (latency.bpf.h): the default, not with --no-latency */
};

struct xiotop_bpf;
struct bpf_link;

struct hook_set {
	struct xiotop_bpf *skel;
	bool btf;               /* tp_btf programs, else raw_tp */
	bool asked[HOOK_COUNT]; /* wanted by the options (opt-in hooks may not be) */
	bool loaded[HOOK_COUNT];
	bool attached[HOOK_COUNT]; /* on-demand hooks: loaded and ready to attach */
	char why_not[HOOK_COUNT][288];
	struct bpf_link *links[HOOK_COUNT];
};

/* The hook's event name, as the user and XIOTOP_FAIL_HOOKS name it. */
const char *hook_event(enum hook_id id);
/* 0, or -1 with err (XERR_PREREQ) when even block_bio_queue will not load. */
int hooks_load(struct hook_set *h, bool btf, const struct hook_config *cfg, struct xerr *err);
/* 0, or -1 with err (XERR_PREREQ) when block_bio_queue will not attach. */
int hooks_attach(struct hook_set *h, struct xerr *err);
/* Attach or detach sys_enter/sys_exit. */
void hooks_want_syscalls(struct hook_set *h, bool want);
/* Attach block_bio_complete (the caller: once a bio-based backend exists), and only then
 * stamp bios; once attached it stays. Whether bios are stamped now (false: it cannot be, or
 * would not attach, said on stderr: bio-based backends untimed). */
bool hooks_start_stamping(struct hook_set *h);
/* Are bios stamped now (block_bio_complete attached)? A stamp never taken is then an
 * untimed request, counted lost. */
bool hooks_stamping(const struct hook_set *h);
/* Attach workqueue_execute_start (the caller: once a loop device, an image file or a device
 * model backs a domain); once attached it stays. False when it would not attach just now
 * (said on stderr; it is reported missing from then on and not tried again: the caller
 * redescribes the hooks). */
bool hooks_start_work_items(struct hook_set *h);
/* "block_bio_queue ... sched_switch ... without: block_bio_remap" into out. */
void hooks_describe(const struct hook_set *h, char *out, size_t outlen);
/* Is I/O latency timed (asked for, and a completion hook attached)? */
bool hooks_latency(const struct hook_set *h);
/* Can bio-based backends be timed (latency on, block_bio_complete loaded and attachable on
 * demand)? */
bool hooks_can_stamp(const struct hook_set *h);
/* Runs of the latency completion programs the kernel skipped because one was already
 * running on that CPU (recursion_misses): completions not timed. 0 without them. */
unsigned long long hooks_latency_misses(const struct hook_set *h);
/* Detach the latency completion hooks (said on stderr, one line each, with why): the
 * run goes on without latency, as when they do not load. */
void hooks_drop_latency(struct hook_set *h, const char *why);
/* Say on stderr, one line each, which hooks are not active and what is lost. */
void hooks_report_missing(const struct hook_set *h);
void hooks_close(struct hook_set *h);

#endif
