/* cpu.bpf.h - dom0 CPU per domain, from the kernel's own runtime accounting.
 *
 * At every sched_switch the task leaving is charged the growth of its
 * se.sum_exec_runtime since it arrived on this CPU (recorded then, per CPU): exactly
 * what /proc/<tid>/stat utime+stime add up to, unlike wall time between switches, which
 * misses the scheduler's own overhead on a virtual machine. A blkback thread's runtime
 * goes to its domain's backend, a device model's to device_model, anything else to
 * "unattributed".
 *
 * A kworker serves many domains in one run, so its runtime is split by event time:
 * the wall time inside loop work for a domain's loop device (workqueue_execute_start
 * to _end, cut at switches) goes to that domain, the time inside flusher work is
 * split by the bytes the item has written per domain so far, and the rest of the
 * run's runtime is unattributed.
 */
#ifndef XIOTOP_CPU_BPF_H
#define XIOTOP_CPU_BPF_H

#include "maps.bpf.h"

/* Addresses of work functions (from /proc/kallsyms), set before load. */
const volatile unsigned long long loop_rootcg_workfn_addr = 0;
const volatile unsigned long long loop_workfn_addr = 0;
const volatile unsigned long long wb_workfn_addr = 0;
/* Account on-CPU time per domain (sched_switch loaded). */
const volatile bool track_cpu = false;
/* Bumped by user space at every topology change: invalidates cached work owners. */
volatile unsigned int topology_gen = 0;

#define WORK_LOOP      1 /* loop work for a domain's loop device: loop_domid */
#define WORK_WRITEBACK 2 /* flusher work: CPU apportioned by bytes at its end */
#define WB_SLOTS       4 /* domains one writeback work item can split its CPU between */

/* What a kworker is doing right now, between workqueue_execute_start and _end. */
struct work_state {
	u32 kind; /* 0 between tracked work items */
	u32 loop_domid;
	u32 loop_dio; /* WORK_LOOP: the loop device does direct I/O (no page cache) */
	u32 cached_dio;
	u64 since; /* wall clock of the last accounting point inside the item */
	u32 wb_domid[WB_SLOTS];
	u64 wb_kib[WB_SLOTS]; /* KiB written back per domain: keeps the product in u64 */
	u64 wb_other_kib;     /* written back for no domain, or beyond the slots */
	/* the last loop work item seen and its domain, valid for cached_gen */
	u64 cached_work;
	u32 cached_domid;
	u32 cached_gen;
};

/* A kworker's current work, in its task storage: no hash lookups, and freed with the
 * task. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct work_state);
} work_now SEC(".maps");

/* Per CPU: the task now running, its runtime when it arrived, and (kworkers only) the
 * wall clock then and the wall time charged to domains since. */
struct cpu_run {
	u32 tid;
	u32 pad;
	u64 runtime_at_in;
	u64 kworker_in_ns;
	u64 charged_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct cpu_run);
} cpu_run SEC(".maps");

static __always_inline struct cpu_run *this_cpu_run(void)
{
	u32 zero = 0;
	return bpf_map_lookup_elem(&cpu_run, &zero);
}

/* The current task's work, if it is a workqueue worker inside a tracked work item. */
static __always_inline struct work_state *current_work(void)
{
	struct work_state *ws =
	    bpf_task_storage_get(&work_now, bpf_get_current_task_btf(), NULL, 0);
	return ws && ws->kind ? ws : NULL;
}

static __always_inline void charge_cpu(u32 domid, u32 role, u64 ns)
{
	if (!ns)
		return;
	if (domid == XIOTOP_DOM_NONE) {
		stat_add(XIOTOP_STAT_UNATTR_CPU_NS, ns); /* a per-CPU array slot */
		return;
	}
	struct xiotop_cpu_key key = {.domid = domid, .role = role};
	u64 zero = 0;
	u64 *v = lookup_or_init(&cpu_ns, &key, &zero);
	if (!v) {
		stat_inc(XIOTOP_STAT_LOST_CPU);
		return;
	}
	*v += ns;
}

/* A flusher's writes, by domain, so its CPU time can be apportioned at work end. */
static __always_inline void tally_writeback(struct work_state *ws, u32 domid, u64 bytes)
{
	u64 kib = bytes >> 10;
	if (domid != XIOTOP_DOM_NONE) {
#pragma unroll
		for (int i = 0; i < WB_SLOTS; i++) {
			if (ws->wb_domid[i] == domid || !ws->wb_kib[i]) {
				ws->wb_domid[i] = domid;
				ws->wb_kib[i] += kib;
				return;
			}
		}
	}
	ws->wb_other_kib += kib;
}

/* Flusher time, split by the bytes the item has written per domain so far (its bytes
 * are known only as it goes); what no domain wrote stays in the kworker's unattributed
 * remainder. Returns the ns given to domains. */
static __always_inline u64 apportion_writeback(struct work_state *ws, u64 ns)
{
	u64 total = ws->wb_other_kib, given = 0;
#pragma unroll
	for (int i = 0; i < WB_SLOTS; i++)
		total += ws->wb_kib[i];
	if (!total || !ns)
		return 0;
#pragma unroll
	for (int i = 0; i < WB_SLOTS; i++) {
		if (!ws->wb_kib[i])
			continue;
		u64 share = ns * ws->wb_kib[i] / total;
		charge_cpu(ws->wb_domid[i], XIOTOP_CPU_WRITEBACK, share);
		given += share;
	}
	return given;
}

/* Wall time of the current tracked item on this CPU since its last accounting point
 * (its start, the kworker's arrival, or a switch). */
static __always_inline u64 work_elapsed(struct work_state *ws, struct cpu_run *run, u64 now)
{
	u64 from = ws->since > run->kworker_in_ns ? ws->since : run->kworker_in_ns;
	ws->since = now;
	return now > from ? now - from : 0;
}

/* Time of a tracked item up to now, to its loop domain or split between the domains
 * the flusher wrote for. */
static __always_inline void work_account(struct work_state *ws, struct cpu_run *run, u64 now)
{
	u64 ns = work_elapsed(ws, run, now);
	if (ws->kind == WORK_WRITEBACK) {
		run->charged_ns += apportion_writeback(ws, ns);
		return;
	}
	charge_cpu(ws->loop_domid, XIOTOP_CPU_LOOP, ns);
	run->charged_ns += ns;
}

/* A kworker leaves the CPU after `ran` ns of runtime: close its open item's share, the
 * rest of its runtime served no domain. */
static __always_inline void kworker_leaves(struct cpu_run *run, u64 ran)
{
	struct work_state *ws = current_work();
	if (ws)
		work_account(ws, run, bpf_ktime_get_ns());
	if (ran > run->charged_ns)
		charge_cpu(XIOTOP_DOM_NONE, 0, ran - run->charged_ns);
}

/* The two tasks of a switch, read by the caller (directly in tp_btf, by probe reads in
 * raw_tp). prev is also `current`. */
struct switch_facts {
	u32 prev_tid, prev_tgid, prev_flags, next_tid, next_flags;
	u64 prev_runtime, next_runtime;
	char prev_comm[16];
};

/* Whom the non-kworker task leaving the CPU served: charge it `ran`. */
static __always_inline void task_leaves(const struct switch_facts *f, u64 ran)
{
	u32 domid = blkback_domid(f->prev_comm);
	if (domid != XIOTOP_DOM_NONE) {
		charge_cpu(domid, XIOTOP_CPU_BACKEND, ran);
		return;
	}
	u32 *dm_dom = device_model_domid(f->prev_tgid);
	if (dm_dom) {
		charge_cpu(*dm_dom, XIOTOP_CPU_DEVICE_MODEL, ran);
		return;
	}
	charge_cpu(XIOTOP_DOM_NONE, 0, ran);
}

static __always_inline int on_switch(const struct switch_facts *f)
{
	struct cpu_run *run = this_cpu_run();
	if (!run)
		return 0;
	/* runtime of the task leaving since it arrived here (0 if it arrived before
	 * xiotop was watching, and for the idle task, whose time is not busy) */
	u64 ran = 0;
	if (f->prev_tid && run->tid == f->prev_tid && f->prev_runtime > run->runtime_at_in)
		ran = f->prev_runtime - run->runtime_at_in;
	if (ran) {
		if (task_is_wq_worker(f->prev_flags))
			kworker_leaves(run, ran);
		else
			task_leaves(f, ran);
	}
	run->tid = f->next_tid;
	run->runtime_at_in = f->next_runtime;
	run->charged_ns = 0;
	if (task_is_wq_worker(f->next_flags))
		run->kworker_in_ns = bpf_ktime_get_ns();
	return 0;
}

/* Which loop device a loop work item belongs to. */
static __always_inline struct loop_device *loop_of_work(struct work_struct *work, u64 fn)
{
	if (fn == loop_rootcg_workfn_addr)
		return (void *)work - bpf_core_field_offset(struct loop_device, rootcg_work);
	struct loop_worker *w = (void *)work - bpf_core_field_offset(struct loop_worker, work);
	return BPF_CORE_READ(w, lo);
}

/* The domain a loop work item serves, cached per kworker and work item until the
 * topology changes: the same few work items come back at every I/O. */
static __always_inline u32 loop_work_domid(struct work_state *ws, struct work_struct *work, u64 fn)
{
	u32 gen = topology_gen;
	if (ws->cached_work == (u64)work && ws->cached_gen == gen)
		return ws->cached_domid;
	struct loop_device *lo = loop_of_work(work, fn);
	u32 loop_dev = gendisk_devt(BPF_CORE_READ(lo, lo_disk));
	struct xiotop_dev_owner *d = bpf_map_lookup_elem(&dev_dom, &loop_dev);
	ws->cached_work = (u64)work;
	ws->cached_gen = gen;
	ws->cached_domid = d ? d->domid : XIOTOP_DOM_NONE;
	ws->cached_dio = loop_uses_dio(lo);
	return ws->cached_domid;
}

/* Every work item in the system starts here: `fn` (work->func, read by the caller)
 * rejects all but loop and writeback work with three compares. */
static __always_inline int on_work_start(struct work_struct *work, u64 fn)
{
	bool is_wb = track_cpu && fn == wb_workfn_addr;
	if (!fn || (!is_wb && fn != loop_rootcg_workfn_addr && fn != loop_workfn_addr))
		return 0;
	struct work_state *ws = bpf_task_storage_get(&work_now, bpf_get_current_task_btf(), NULL,
	                                             BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ws) {
		stat_inc(XIOTOP_STAT_LOST_CPU);
		return 0;
	}
	u32 domid = is_wb ? XIOTOP_DOM_NONE : loop_work_domid(ws, work, fn);
	if (!is_wb && domid == XIOTOP_DOM_NONE)
		return 0; /* another loop device's work serves no domain: nothing to track */
	ws->kind = is_wb ? WORK_WRITEBACK : WORK_LOOP;
	ws->loop_domid = domid;
	ws->loop_dio = !is_wb && ws->cached_dio;
	ws->since = track_cpu ? bpf_ktime_get_ns() : 0;
	if (is_wb) {
		ws->wb_other_kib = 0;
		__builtin_memset(ws->wb_domid, 0, sizeof(ws->wb_domid));
		__builtin_memset(ws->wb_kib, 0, sizeof(ws->wb_kib));
	}
	return 0;
}

static __always_inline int on_work_end(void)
{
	/* every work item in the system ends here: one task-storage read for the others */
	struct work_state *ws = current_work();
	if (!ws)
		return 0;
	struct cpu_run *run = track_cpu ? this_cpu_run() : NULL;
	if (run)
		work_account(ws, run, bpf_ktime_get_ns());
	ws->kind = 0;
	return 0;
}

#endif
