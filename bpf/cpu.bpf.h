/* cpu.bpf.h - dom0 CPU per domain, from the kernel's own runtime accounting.
 *
 * Threads that serve one domain (blkback threads, a device model's threads) are charged
 * the growth of their se.sum_exec_runtime: what /proc/<tid>/stat utime+stime, top and
 * pidstat add up to. It is read by a task iterator once per interval (user space runs a
 * pass before each sample) and once more when a thread's task_struct is freed
 * (sched_process_free: after its last run, so its runtime is final; sched_process_exit
 * comes before the thread has released its files and run for the last time), so it costs
 * nothing per I/O or per context switch. Wall time between switches is not that
 * figure on a virtual machine (every dom0 is one): it missed ~7 us per sleep/wakeup.
 *
 * Every other task's growth is summed as shared runtime. Kworkers serve many domains in
 * one run, so their domain shares are measured per work item and taken out of the shared
 * runtime by user space: loop work for a domain's loop device goes to that domain; a
 * flusher item's time is split by the bytes it has written per domain so far. An item
 * that ran without leaving the CPU is charged its wall time (its runtime is not updated
 * within such a run); one that slept or was preempted its runtime growth across it.
 */
#ifndef XIOTOP_CPU_BPF_H
#define XIOTOP_CPU_BPF_H

#include "maps.bpf.h"

/* Addresses of work functions (from /proc/kallsyms), set before load. */
const volatile unsigned long long loop_rootcg_workfn_addr = 0;
const volatile unsigned long long loop_workfn_addr = 0;
const volatile unsigned long long wb_workfn_addr = 0;
/* Account on-CPU time per domain (the task iterator loaded). */
const volatile bool track_cpu = false;
/* Bumped by user space at every topology change: invalidates cached work owners. */
volatile unsigned int topology_gen = 0;
/* When the first iterator pass began: tasks born later have no uncharged past. */
unsigned long long first_pass_ns = 0;

#define WORK_LOOP      1          /* loop work for a domain's loop device: loop_domid */
#define WORK_WRITEBACK 2          /* flusher work: CPU apportioned by bytes written */
#define WB_SLOTS       4          /* domains one writeback work item can split its CPU between */
#define WB_ACCOUNT_NS  4000000ull /* a long flusher item is accounted every 4 ms of it */

/* What a kworker is doing right now, between workqueue_execute_start and _end. */
struct work_state {
	u32 kind; /* 0 between tracked work items */
	u32 loop_domid;
	u32 loop_dio; /* WORK_LOOP: the loop device does direct I/O (no page cache) */
	u32 cached_dio;
	/* the last accounting point inside the item: wall clock, context switches, runtime */
	u64 since_ns;
	u64 since_switches;
	u64 since_runtime;
	/* loop time not yet in cpu_ns, and its domain: added here (no hash update per item),
	 * moved to cpu_ns by the task pass, at the task's end or when the domain changes */
	u64 loop_pending_ns;
	u32 loop_pending_domid;
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

/* The runtime of a task already charged (0: not seen yet), freed with the task. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, u64);
} runtime_seen SEC(".maps");

/* The current task's work, if it is a workqueue worker inside a tracked work item. */
static __always_inline struct work_state *current_work(void)
{
	struct work_state *ws =
	    bpf_task_storage_get(&work_now, bpf_get_current_task_btf(), NULL, 0);
	return ws && ws->kind ? ws : NULL;
}

static __always_inline void charge_cpu(u32 domid, u32 role, u64 ns)
{
	if (!ns || domid == XIOTOP_DOM_NONE)
		return; /* a kworker's time for no domain stays in the shared runtime */
	struct xiotop_cpu_key key = {.domid = domid, .role = role};
	u64 zero = 0;
	u64 *v = lookup_or_init(&cpu_ns, &key, &zero);
	if (!v) {
		stat_inc(XIOTOP_STAT_LOST_CPU);
		return;
	}
	*v += ns;
}

/* ---- threads: runtime growth, per iterator pass and at exit ---- */

/* Whom a thread serves as a whole: its domain and role, else XIOTOP_DOM_NONE. */
static __always_inline u32 task_domain(struct task_struct *task, u32 *role)
{
	char comm[16];
	__builtin_memcpy(comm, task->comm, sizeof(comm));
	u32 domid = blkback_domid(comm);
	if (domid != XIOTOP_DOM_NONE) {
		*role = XIOTOP_CPU_BACKEND;
		return domid;
	}
	u32 *dm_dom = device_model_of(task, task->tgid);
	if (dm_dom) {
		*role = XIOTOP_CPU_DEVICE_MODEL;
		return *dm_dom;
	}
	return XIOTOP_DOM_NONE;
}

/* Charge a task its runtime growth since it was last seen. A task seen for the first
 * time is charged from birth if it was born after the first pass, else (the baseline)
 * not at all. The compare-and-swap keeps an exit and a pass racing on the same task from
 * charging the same growth twice. */
static __always_inline void task_account(struct task_struct *task)
{
	u64 *seen = bpf_task_storage_get(&runtime_seen, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!seen) {
		stat_inc(XIOTOP_STAT_LOST_CPU);
		return;
	}
	u64 now = task->se.sum_exec_runtime, old = *seen, from = old;
	if (!old && task->start_time <= first_pass_ns)
		from = now; /* ran before xiotop looked: its past is in no interval */
	if (now <= old || __sync_val_compare_and_swap(seen, old, now) != old || now <= from)
		return; /* nothing new, another CPU charged it, or the baseline was just taken */
	u32 role = 0;
	u32 domid = task_domain(task, &role);
	if (domid != XIOTOP_DOM_NONE)
		charge_cpu(domid, role, now - from);
	else
		stat_add(XIOTOP_STAT_SHARED_RUNTIME_NS, now - from);
}

/* ---- kworkers: domain shares of their runtime, per work item ---- */

/* A flusher's writes, by domain, so its CPU time can be apportioned. */
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
 * are known only as it goes); what no domain wrote stays in the shared runtime. */
static __always_inline void apportion_writeback(struct work_state *ws, u64 ns)
{
	u64 total = ws->wb_other_kib;
#pragma unroll
	for (int i = 0; i < WB_SLOTS; i++)
		total += ws->wb_kib[i];
	if (!total || !ns)
		return;
#pragma unroll
	for (int i = 0; i < WB_SLOTS; i++)
		if (ws->wb_kib[i])
			charge_cpu(ws->wb_domid[i], XIOTOP_CPU_WRITEBACK,
			           ns * ws->wb_kib[i] / total);
}

static __always_inline u64 task_switches(struct task_struct *task)
{
	return task->nvcsw + task->nivcsw;
}

/* Start an accounting point of the current kworker's item. */
static __always_inline void work_mark(struct work_state *ws, struct task_struct *task, u64 now)
{
	ws->since_ns = now;
	ws->since_switches = task_switches(task);
	ws->since_runtime = task->se.sum_exec_runtime;
}

/* CPU time of the item since its last accounting point: wall time if the kworker never
 * left the CPU meanwhile, else its runtime growth (the scheduler updated it when it left). */
static __always_inline u64 work_elapsed(struct work_state *ws, u64 now)
{
	struct task_struct *task = bpf_get_current_task_btf();
	u64 runtime = task->se.sum_exec_runtime;
	u64 ns = now > ws->since_ns ? now - ws->since_ns : 0;
	if (task_switches(task) != ws->since_switches)
		ns = runtime > ws->since_runtime ? runtime - ws->since_runtime : 0;
	work_mark(ws, task, now);
	return ns;
}

/* Move a kworker's pending loop time to cpu_ns (the pass on another CPU may race the
 * kworker: the exchange hands each nanosecond to one of them). */
static __always_inline void loop_flush(struct work_state *ws)
{
	if (!ws->loop_pending_ns)
		return;
	u64 ns = __sync_lock_test_and_set(&ws->loop_pending_ns, 0);
	charge_cpu(ws->loop_pending_domid, XIOTOP_CPU_LOOP, ns);
}

static __always_inline void loop_charge(struct work_state *ws, u64 ns)
{
	if (ws->loop_pending_domid != ws->loop_domid) {
		loop_flush(ws);
		ws->loop_pending_domid = ws->loop_domid;
	}
	__sync_fetch_and_add(&ws->loop_pending_ns, ns);
}

/* Time of a tracked item up to now, to its loop domain or split between the domains
 * the flusher wrote for. */
static __always_inline void work_account(struct work_state *ws, u64 now)
{
	u64 ns = work_elapsed(ws, now);
	if (ws->kind == WORK_WRITEBACK)
		apportion_writeback(ws, ns);
	else if (ns)
		loop_charge(ws, ns);
}

/* A flusher item can run for seconds: account it as it goes, not only at its end. */
static __always_inline void writeback_progress(struct work_state *ws)
{
	u64 now = bpf_ktime_get_ns();
	if (now - ws->since_ns >= WB_ACCOUNT_NS)
		work_account(ws, now);
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
	struct xiotop_dev_owner *d = dev_owner(loop_dev);
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
	if (track_cpu)
		work_mark(ws, bpf_get_current_task_btf(), bpf_ktime_get_ns());
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
	if (track_cpu)
		work_account(ws, bpf_ktime_get_ns());
	ws->kind = 0;
	return 0;
}

/* ---- the pass and the end of a task ---- */

/* A kworker's pending loop time, moved to cpu_ns by the pass or at its end. */
static __always_inline void kworker_flush(struct task_struct *task)
{
	if (!task_is_wq_worker(task->flags))
		return;
	struct work_state *ws = bpf_task_storage_get(&work_now, task, NULL, 0);
	if (ws)
		loop_flush(ws);
}

static __always_inline int on_task_pass(struct bpf_iter_meta *meta, struct task_struct *task)
{
	if (!track_cpu)
		return 0;
	if (meta->seq_num == 0 && !first_pass_ns)
		first_pass_ns = bpf_ktime_get_ns();
	if (task) {
		task_account(task);
		kworker_flush(task);
	}
	return 0;
}

static __always_inline int on_task_exit(struct task_struct *task)
{
	if (track_cpu && first_pass_ns) {
		task_account(task);
		kworker_flush(task);
	}
	return 0;
}

#endif
