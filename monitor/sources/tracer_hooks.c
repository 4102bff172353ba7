/* tracer_hooks.c - the hook table, per-hook load and attach, and their report. */
#include "sources/tracer_hooks.h"

#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/xiotop.h" /* the types the skeleton names */
#include "sources/verifier_log.h"
#include "xiotop.skel.h"

static const struct hook_def {
	const char *event; /* what the user and XIOTOP_FAIL_HOOKS call it */
	const char *loss;  /* what is lost without it */
	bool on_demand;    /* attached only while needed */
	bool opt_in;       /* loaded only when asked for (hook_config.latency) */
} hook_defs[HOOK_COUNT] = {
    [HOOK_BIO_QUEUE] = {"block_bio_queue", "nothing can be attributed", false},
    [HOOK_BIO_REMAP] = {"block_bio_remap", "dm/md clones are unattributed", false},
    /* fires only where a bio is split; without it blk-mq backends are counted bio by bio
     * by block_bio_queue's program, not read from diskstats (sources/dev_counts.h) */
    [HOOK_BIO_SPLIT] = {"block_split",
                        "blk-mq backends counted by the programs (more BPF time per I/O)", false},
    /* on demand: it runs at every bio-based device's completions, leaves under
     * file-backed images included, so only while a bio-based backend exists */
    [HOOK_BIO_COMPLETE] = {"block_bio_complete",
                           "no I/O latency of bio-based backends (zram, dm, md)", true, true},
    [HOOK_RQ_COMPLETE] = {"block_rq_complete",
                          "no I/O latency of request-based backends (loop, disks)", false, true},
    /* on demand: it runs at every work item of the host, and serves only loop devices'
     * work items and the flusher's for a domain's data in dom0's page cache, so only once
     * a loop device, an image file or a device model backs a domain */
    [HOOK_WORK_START] = {"workqueue_execute_start",
                         "loop direct I/O and loop/flusher CPU unattributed", true},
    [HOOK_TASK_PASS] = {"iter/task", "no dom0 CPU per domain", false},
    [HOOK_TASK_EXIT] = {"sched_process_free",
                        "CPU of threads that end between two intervals is lost", false},
    [HOOK_DIRTY_FOLIO] = {"writeback_dirty_folio", "no dirty backlog", false},
    [HOOK_SYS_ENTER] = {"sys_enter", "device-model file reads/writes not counted", true},
    [HOOK_SYS_EXIT] = {"sys_exit", "device-model file reads/writes not counted", true},
    [HOOK_URING_COMPLETE] = {"io_uring_complete", "device-model io_uring I/O not counted", false},
};

/* The skeleton's program of each hook in one set. */
static void hook_progs(const struct xiotop_bpf *s, bool btf, struct bpf_program *p[HOOK_COUNT])
{
	p[HOOK_BIO_QUEUE] = btf ? s->progs.btf_bio_queue : s->progs.raw_bio_queue;
	p[HOOK_BIO_REMAP] = btf ? s->progs.btf_bio_remap : s->progs.raw_bio_remap;
	p[HOOK_BIO_SPLIT] = btf ? s->progs.btf_bio_split : s->progs.raw_bio_split;
	p[HOOK_BIO_COMPLETE] = btf ? s->progs.btf_bio_complete : s->progs.raw_bio_complete;
	p[HOOK_RQ_COMPLETE] = btf ? s->progs.btf_rq_complete : s->progs.raw_rq_complete;
	p[HOOK_WORK_START] = btf ? s->progs.btf_work_start : s->progs.raw_work_start;
	p[HOOK_TASK_PASS] = s->progs.cpu_pass;      /* one program in both sets */
	p[HOOK_TASK_EXIT] = s->progs.btf_task_exit; /* as is this: see xiotop.bpf.c */
	p[HOOK_DIRTY_FOLIO] = btf ? s->progs.btf_dirty_folio : s->progs.raw_dirty_folio;
	p[HOOK_SYS_ENTER] = btf ? s->progs.btf_sys_enter : s->progs.raw_sys_enter;
	p[HOOK_SYS_EXIT] = btf ? s->progs.btf_sys_exit : s->progs.raw_sys_exit;
	p[HOOK_URING_COMPLETE] = btf ? s->progs.btf_uring_complete : s->progs.raw_uring_complete;
}

const char *hook_event(enum hook_id id)
{
	return id < HOOK_COUNT ? hook_defs[id].event : "?";
}

/* libbpf speaks while probing; keep its last words for the reasons only, except that a
 * verifier's verdict on a refused program, once heard, is the reason (libbpf's later
 * "failed to load BPF skeleton ...: -13" says less). */
static char libbpf_last_error[240];
static bool libbpf_have_verdict;
static int libbpf_quiet_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level != LIBBPF_WARN || libbpf_have_verdict)
		return 0;
	static char msg[64 * 1024]; /* a whole load log: libbpf prints it as one message */
	vsnprintf(msg, sizeof(msg), fmt, args);
	if (verifier_reason(msg, libbpf_last_error, sizeof(libbpf_last_error))) {
		libbpf_have_verdict = true;
		return 0;
	}
	size_t first_line = strcspn(msg, "\n");
	if (first_line)
		snprintf(libbpf_last_error, sizeof(libbpf_last_error), "%.*s", (int)first_line,
		         msg);
	return 0;
}

static void libbpf_error_reset(void)
{
	libbpf_last_error[0] = '\0';
	libbpf_have_verdict = false;
}

/* Is the hook named in the comma-separated list of environment variable `var`? */
static bool named_in(const char *var, enum hook_id id)
{
	const char *list = getenv(var);
	size_t len = strlen(hook_defs[id].event);
	for (const char *p = list; p && *p; p += strcspn(p, ",")) {
		p += *p == ',';
		if (!strncmp(p, hook_defs[id].event, len) && (p[len] == ',' || !p[len]))
			return true;
	}
	return false;
}

static bool forced_to_fail(enum hook_id id)
{
	return named_in("XIOTOP_FAIL_HOOKS", id);
}

/* Does `want` hold every hook named in XIOTOP_FAIL_TOGETHER (tests: two hooks that load
 * alone but not together, as a hook that switches on another's paths can make them)? */
static bool forced_to_fail_together(const bool want[HOOK_COUNT])
{
	int named = 0;
	for (int i = 0; i < HOOK_COUNT; i++) {
		if (!named_in("XIOTOP_FAIL_TOGETHER", i))
			continue;
		if (!want[i])
			return false;
		named++;
	}
	return named >= 2;
}

/* Say which names in XIOTOP_FAIL_HOOKS are no optional hook (a typo must not pass for a
 * test that forced nothing). */
static void check_fail_list(void)
{
	const char *list = getenv("XIOTOP_FAIL_HOOKS");
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		int found = -1;
		for (int i = 0; i < HOOK_COUNT; i++)
			if (strlen(hook_defs[i].event) == len &&
			    !strncmp(p, hook_defs[i].event, len))
				found = i;
		if (found == HOOK_BIO_QUEUE)
			xnote("XIOTOP_FAIL_HOOKS: block_bio_queue is required, "
			      "not forced to fail");
		else if (found < 0 && len)
			xnote("XIOTOP_FAIL_HOOKS: no hook named '%.*s'", (int)len, p);
		p += len + (p[len] == ',');
	}
}

/* The object loaded with exactly the hooks in `want`, or NULL. */
static struct xiotop_bpf *load_with(bool btf, const bool want[HOOK_COUNT],
                                    const struct hook_config *cfg)
{
	if (forced_to_fail_together(want)) {
		snprintf(libbpf_last_error, sizeof(libbpf_last_error),
		         "forced by XIOTOP_FAIL_TOGETHER");
		return NULL;
	}
	struct xiotop_bpf *s = xiotop_bpf__open();
	if (!s)
		return NULL;
	s->rodata->loop_rootcg_workfn_addr = cfg->loop_rootcg_workfn;
	s->rodata->loop_workfn_addr = cfg->loop_workfn;
	s->rodata->wb_workfn_addr = cfg->wb_workfn;
	s->rodata->bio_chain_endio_addr = cfg->bio_chain_endio;
	s->rodata->kernel_page_size = cfg->page_size;
	s->rodata->track_cpu = want[HOOK_TASK_PASS];
	/* no completion, no latency: stamps nothing would consume are not taken */
	s->rodata->track_latency =
	    cfg->latency && (want[HOOK_BIO_COMPLETE] || want[HOOK_RQ_COMPLETE]);
	/* bio-based backends' bios are stamped at queue only for the program that takes
	 * the stamps (lat_stamp_bios, set while it is attached: hooks_start_stamping);
	 * blk-mq requests need none (the kernel's own start time). The maps' memory only
	 * when used: */
	if (!s->rodata->track_latency || !want[HOOK_BIO_COMPLETE]) {
		bpf_map__set_max_entries(s->maps.lat_inflight, 1);
		s->rodata->lat_slot_mask = 0;
	}
	if (!s->rodata->track_latency)
		bpf_map__set_max_entries(s->maps.lat_hist, 1);
	int ncpus = libbpf_num_possible_cpus();
	if (ncpus > 0) { /* else the one-CPU default: CPUs beyond it use the hashes */
		bpf_map__set_max_entries(s->maps.layer_slots,
		                         (unsigned int)ncpus * XIOTOP_LAYER_SLOTS);
		if (s->rodata->track_latency)
			bpf_map__set_max_entries(s->maps.lat_slots,
			                         (unsigned int)ncpus * XIOTOP_LAT_DOM_SLOTS);
	}
	struct bpf_program *mine[HOOK_COUNT], *other[HOOK_COUNT];
	hook_progs(s, btf, mine);
	hook_progs(s, !btf, other);
	for (int i = 0; i < HOOK_COUNT; i++) /* the other set first: some programs are in both */
		bpf_program__set_autoload(other[i], false);
	for (int i = 0; i < HOOK_COUNT; i++)
		bpf_program__set_autoload(mine[i], want[i]);
	if (xiotop_bpf__load(s)) {
		xiotop_bpf__destroy(s);
		return NULL;
	}
	return s;
}

/* After a failed load with everything: which optional hooks fail on their own (each
 * tried alone with the required one), so that only they are left out. */
static void find_failing(struct hook_set *h, bool want[HOOK_COUNT], const struct hook_config *cfg)
{
	for (int i = HOOK_BIO_QUEUE + 1; i < HOOK_COUNT; i++) {
		if (!want[i])
			continue;
		bool alone[HOOK_COUNT] = {[HOOK_BIO_QUEUE] = true};
		alone[i] = true;
		libbpf_error_reset();
		struct xiotop_bpf *s = load_with(h->btf, alone, cfg);
		if (s) {
			xiotop_bpf__destroy(s);
			continue;
		}
		want[i] = false;
		snprintf(h->why_not[i], sizeof(h->why_not[i]), "does not load: %s",
		         libbpf_last_error[0] ? libbpf_last_error : "unknown libbpf error");
	}
}

/* Hooks that load alone can still fail together: a hook's presence switches on paths in
 * the others (the task pass sets track_cpu, which the work programs then take). Take each
 * optional hook out in turn; the first whose absence lets the rest load is left out,
 * with the verdict on the set as its reason. */
static struct xiotop_bpf *load_without_one(struct hook_set *h, bool want[HOOK_COUNT],
                                           const struct hook_config *cfg)
{
	char verdict[sizeof(libbpf_last_error)];
	snprintf(verdict, sizeof(verdict), "%s",
	         libbpf_last_error[0] ? libbpf_last_error : "unknown libbpf error");
	for (int i = HOOK_BIO_QUEUE + 1; i < HOOK_COUNT; i++) {
		if (!want[i])
			continue;
		want[i] = false;
		struct xiotop_bpf *s = load_with(h->btf, want, cfg);
		if (s) {
			snprintf(h->why_not[i], sizeof(h->why_not[i]),
			         "does not load with the others: %s", verdict);
			return s;
		}
		want[i] = true;
	}
	libbpf_error_reset(); /* the set's own verdict, for the caller's message */
	snprintf(libbpf_last_error, sizeof(libbpf_last_error), "%s", verdict);
	return NULL;
}

int hooks_load(struct hook_set *h, bool btf, const struct hook_config *cfg, struct xerr *err)
{
	memset(h, 0, sizeof(*h));
	h->btf = btf;
	libbpf_set_print(libbpf_quiet_print);
	static bool list_checked; /* once, not again for the fallback set */
	if (!list_checked)
		check_fail_list();
	list_checked = true;
	bool want[HOOK_COUNT];
	for (int i = 0; i < HOOK_COUNT; i++) {
		h->asked[i] = !hook_defs[i].opt_in || cfg->latency;
		want[i] = i == HOOK_BIO_QUEUE || (h->asked[i] && !forced_to_fail(i));
		if (h->asked[i] && !want[i])
			snprintf(h->why_not[i], sizeof(h->why_not[i]),
			         "forced by XIOTOP_FAIL_HOOKS");
	}
	libbpf_error_reset();
	h->skel = load_with(btf, want, cfg);
	if (!h->skel) {
		find_failing(h, want, cfg);
		libbpf_error_reset();
		h->skel = load_with(btf, want, cfg);
	}
	if (!h->skel)
		h->skel = load_without_one(h, want, cfg);
	if (!h->skel) {
		xerr_set(err, XERR_PREREQ, "%s programs cannot load: %s", btf ? "tp_btf" : "raw_tp",
		         libbpf_last_error[0] ? libbpf_last_error : "unknown libbpf error");
		return -1;
	}
	memcpy(h->loaded, want, sizeof(want));
	return 0;
}

/* An on-demand hook attached now: 0, or the errno, said on stderr with what is lost. */
static int attach_now(struct hook_set *h, enum hook_id id)
{
	struct bpf_program *progs[HOOK_COUNT];
	hook_progs(h->skel, h->btf, progs);
	h->links[id] = bpf_program__attach(progs[id]);
	if (h->links[id])
		return 0;
	int e = errno;
	xnote("cannot attach %s: %s: %s", hook_defs[id].event, strerror(e), hook_defs[id].loss);
	return e;
}

int hooks_attach(struct hook_set *h, struct xerr *err)
{
	struct bpf_program *progs[HOOK_COUNT];
	hook_progs(h->skel, h->btf, progs);
	for (int i = 0; i < HOOK_COUNT; i++) {
		if (!h->loaded[i])
			continue;
		if (hook_defs[i].on_demand) {
			h->attached[i] = true;
			continue;
		}
		h->links[i] = bpf_program__attach(progs[i]);
		if (h->links[i]) {
			h->attached[i] = true;
			continue;
		}
		if (i == HOOK_BIO_QUEUE) {
			xerr_set(err, XERR_PREREQ, "cannot attach %s: %s", hook_defs[i].event,
			         strerror(errno));
			return -1;
		}
		snprintf(h->why_not[i], sizeof(h->why_not[i]), "does not attach: %s",
		         strerror(errno));
	}
	return 0;
}

void hooks_want_syscalls(struct hook_set *h, bool want)
{
	const enum hook_id sys[2] = {HOOK_SYS_ENTER, HOOK_SYS_EXIT};
	if (!h->skel || !h->attached[HOOK_SYS_ENTER] || !h->attached[HOOK_SYS_EXIT] ||
	    want == (h->links[HOOK_SYS_ENTER] != NULL))
		return;
	for (int i = 0; i < 2; i++) {
		if (want) {
			attach_now(h, sys[i]);
		} else {
			bpf_link__destroy(h->links[sys[i]]);
			h->links[sys[i]] = NULL;
		}
	}
}

bool hooks_start_stamping(struct hook_set *h)
{
	/* never detached once attached: stamps in flight at a detach would stay in their
	 * slots and be counted as displaced by the next stamps there */
	if (!hooks_can_stamp(h) || h->links[HOOK_BIO_COMPLETE])
		return hooks_stamping(h);
	if (attach_now(h, HOOK_BIO_COMPLETE))
		return false; /* tried again at the next topology change */
	/* after the attach: a stamp is taken only with its taker there */
	__atomic_store_n(&h->skel->bss->lat_stamp_bios, 1, __ATOMIC_RELEASE);
	return true;
}

bool hooks_stamping(const struct hook_set *h)
{
	return h->links[HOOK_BIO_COMPLETE] != NULL;
}

bool hooks_start_work_items(struct hook_set *h)
{
	/* never detached once attached: only the attach edge has to be right. A work item
	 * already running as it attaches is not tracked; the next is. On failure it is
	 * reported missing from now on and not tried again. */
	if (!h->skel || !h->attached[HOOK_WORK_START] || h->links[HOOK_WORK_START])
		return true;
	int e = attach_now(h, HOOK_WORK_START);
	if (!e)
		return true;
	h->attached[HOOK_WORK_START] = false;
	snprintf(h->why_not[HOOK_WORK_START], sizeof(h->why_not[HOOK_WORK_START]),
	         "does not attach: %s", strerror(e));
	return false;
}

static void append(char *out, size_t outlen, const char *word)
{
	size_t len = strlen(out);
	if (len < outlen)
		snprintf(out + len, outlen - len, "%s%s", len ? " " : "", word);
}

void hooks_describe(const struct hook_set *h, char *out, size_t outlen)
{
	out[0] = '\0';
	for (int i = 0; i < HOOK_COUNT; i++)
		if (h->attached[i] && !hook_defs[i].on_demand)
			append(out, outlen, hook_defs[i].event);
	if (h->attached[HOOK_BIO_COMPLETE])
		append(out, outlen, "block_bio_complete(while bio-based backends exist)");
	if (h->attached[HOOK_WORK_START])
		append(out, outlen,
		       "workqueue_execute_start(while loop devices, image files or device models "
		       "serve domains)");
	if (h->attached[HOOK_SYS_ENTER] && h->attached[HOOK_SYS_EXIT])
		append(out, outlen, "sys_enter/sys_exit(while device models run)");
	/* how each kind of backend is timed (latency.bpf.h); no hook's name in it, as the
	 * names are the line's words */
	bool rq = hooks_latency(h) && h->attached[HOOK_RQ_COMPLETE];
	bool bio = hooks_can_stamp(h);
	if (rq || bio)
		append(out, outlen,
		       rq && bio
		           ? "(latency: blk-mq requests from the kernel's start time, bio-based "
		             "devices' bios stamped at queue)"
		       : rq ? "(latency: blk-mq requests from the kernel's start time)"
		            : "(latency: bio-based devices' bios stamped at queue)");
	bool first_missing = true;
	for (int i = 0; i < HOOK_COUNT; i++) {
		if (h->attached[i] || !h->asked[i])
			continue;
		if (first_missing)
			append(out, outlen, "without:");
		first_missing = false;
		append(out, outlen, hook_defs[i].event);
	}
}

bool hooks_latency(const struct hook_set *h)
{
	return h->skel && h->skel->rodata->track_latency &&
	       (h->attached[HOOK_BIO_COMPLETE] || h->attached[HOOK_RQ_COMPLETE]);
}

bool hooks_can_stamp(const struct hook_set *h)
{
	return hooks_latency(h) && h->attached[HOOK_BIO_COMPLETE];
}

unsigned long long hooks_latency_misses(const struct hook_set *h)
{
	const enum hook_id ids[2] = {HOOK_BIO_COMPLETE, HOOK_RQ_COMPLETE};
	struct bpf_program *progs[HOOK_COUNT];
	unsigned long long misses = 0;
	if (!h->skel)
		return 0;
	hook_progs(h->skel, h->btf, progs);
	for (int i = 0; i < 2; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (h->attached[ids[i]] &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(progs[ids[i]]), &info, &len))
			misses += info.recursion_misses;
	}
	return misses;
}

void hooks_drop_latency(struct hook_set *h, const char *why)
{
	const enum hook_id ids[2] = {HOOK_BIO_COMPLETE, HOOK_RQ_COMPLETE};
	for (int i = 0; i < 2; i++) {
		if (!h->attached[ids[i]])
			continue;
		if (ids[i] == HOOK_BIO_COMPLETE && h->skel) /* no stamps without their taker */
			__atomic_store_n(&h->skel->bss->lat_stamp_bios, 0, __ATOMIC_RELEASE);
		bpf_link__destroy(h->links[ids[i]]);
		h->links[ids[i]] = NULL;
		h->attached[ids[i]] = false;
		snprintf(h->why_not[ids[i]], sizeof(h->why_not[ids[i]]), "%s", why);
		xnote("hook %s not active (%s): %s", hook_defs[ids[i]].event, why,
		      hook_defs[ids[i]].loss);
	}
}

void hooks_report_missing(const struct hook_set *h)
{
	for (int i = 0; i < HOOK_COUNT; i++)
		if (!h->attached[i] && h->asked[i])
			xnote("hook %s not active (%s): %s", hook_defs[i].event,
			      h->why_not[i][0] ? h->why_not[i] : "not loaded", hook_defs[i].loss);
}

void hooks_close(struct hook_set *h)
{
	for (int i = 0; i < HOOK_COUNT; i++) {
		bpf_link__destroy(h->links[i]);
		h->links[i] = NULL;
	}
	xiotop_bpf__destroy(h->skel);
	h->skel = NULL;
}
