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
 * Every other task's growth is summed as shared runtime. Kworkers serve many domains, so
 * their domain shares are taken out of the shared runtime by user space, again from the
 * scheduler's runtime and without a clock read. Only workqueue_execute_start runs, at every
 * work item of the host (no program at their end): a tracked item (loop work for a domain's
 * loop device, flusher work) owns the kworker from its start, or, when the kworker slept
 * since its last item, from the start of the run it started in (se.prev_sum_exec_runtime,
 * set by CFS at every pick, where kworkers run: worker wakeup included; a preemption is no
 * new run) up to the start of the kworker's next item, where the scheduler last updated
 * the runtime (ticks, wakeups). Between two items a kworker does no work of its own but
 * going idle and waking up, and every item passes workqueue_execute_start, so nothing of
 * another item is charged: the runs of an item that slept are its own, and a run with no
 * item in it (a wakeup that found no work) is charged to the item before it. Loop work is
 * charged to the loop device's domain; a flusher item's runtime is split by the bytes it
 * has written per domain so far. The pass settles what is open up to the runtime it reads.
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
#define WORK_SETTLE_NS 4000000ull /* a long item is settled every 4 ms of its runtime */

/* What a kworker is doing: the tracked item it started last and has started no other item
 * since, and whose its runs are. */
struct work_state {
	u32 kind; /* 0 when its last item (or none) was not tracked */
	u32 loop_domid;
	u32 loop_dio; /* WORK_LOOP: the loop device does direct I/O (no page cache) */
	u32 cached_dio;
	/* The open owner: the kworker's runs from the run a tracked item started in up to its
	 * next item, owned by that item's kind and domain (0: none open). */
	u32 run_kind;
	u32 run_domid;
	u64 run_sleeps;      /* sleeps (voluntary switches) when the owning item started */
	u64 charged_runtime; /* runtime up to which the kworker has been charged or passed */
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

/* A task's runtime growth to its domain and role, else to the shared runtime. */
static __always_inline void charge_growth(struct task_struct *task, u64 ns)
{
	u32 role = 0;
	u32 domid = task_domain(task, &role);
	if (domid != XIOTOP_DOM_NONE)
		charge_cpu(domid, role, ns);
	else
		stat_add(XIOTOP_STAT_SHARED_RUNTIME_NS, ns);
}

/* Charge a task its runtime growth since it was last seen. A task seen for the first
 * time is charged from birth if it was born after the first pass, else (the baseline)
 * not at all. The compare-and-swap keeps an exit and a pass racing on the same task from
 * charging the same growth twice. `freed`: the task's last call (sched_process_free). */
static __always_inline void task_account(struct task_struct *task, bool freed)
{
	u64 *seen = bpf_task_storage_get(&runtime_seen, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	u64 now = task->se.sum_exec_runtime;
	if (!seen) {
		/* The kernel creates no task storage while another task-storage call is in
		 * progress on this CPU (a free in an RCU callback over the pass, or the pass
		 * preempted): a lookup only. A task freed with none was never charged, and no
		 * pass can see it any more: charged as seen for the first time. */
		if (!freed) {
			stat_inc(XIOTOP_STAT_LOST_CPU);
			return;
		}
		if (task->start_time > first_pass_ns && now)
			charge_growth(task, now);
		return;
	}
	u64 old = *seen, from = old;
	if (!old && task->start_time <= first_pass_ns)
		from = now; /* ran before xiotop looked: its past is in no interval */
	if (now <= old || __sync_val_compare_and_swap(seen, old, now) != old || now <= from)
		return; /* nothing new, another CPU charged it, or the baseline was just taken */
	charge_growth(task, now - from);
}

/* ---- kworkers: domain shares of their runtime, per run ---- */

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

/* A task's sleeps: its voluntary context switches. A preemption (an involuntary one) is
 * no new run: the kworker resumes inside the item it was running, and a run start taken
 * after it would charge that item's tail to the next one. */
static __always_inline u64 task_sleeps(struct task_struct *task)
{
	return task->nvcsw;
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

static __always_inline void loop_charge(struct work_state *ws, u32 domid, u64 ns)
{
	if (ws->loop_pending_domid != domid) {
		loop_flush(ws);
		ws->loop_pending_domid = domid;
	}
	__sync_fetch_and_add(&ws->loop_pending_ns, ns);
}

/* Charge the open run's owner the kworker's runtime from the mark up to `upto`. The mark
 * only moves forward, by compare-and-swap: the pass on another CPU may settle the same
 * run as the kworker, and each nanosecond goes to one of them. */
static __always_inline void run_settle(struct work_state *ws, u64 upto)
{
	u64 from = ws->charged_runtime;
	if (!ws->run_kind || upto <= from ||
	    __sync_val_compare_and_swap(&ws->charged_runtime, from, upto) != from)
		return;
	if (ws->run_kind == WORK_WRITEBACK)
		apportion_writeback(ws, upto - from);
	else
		loop_charge(ws, ws->run_domid, upto - from);
}

/* A work item starts on the current kworker: the open owner's time ends now (the
 * runtime the scheduler last updated: between two items a kworker only goes idle and wakes
 * up, which stays with the item before); the item (kind 0: not tracked, no owner) takes the
 * kworker's time from there, or, with no owner open, from the start of this run if the
 * kworker slept since its last item (worker wakeup included; after a preemption, the pick
 * it resumed at: the item before it ran on there). */
static __always_inline void run_enter(struct work_state *ws, u32 kind, u32 domid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	u64 sleeps = task_sleeps(task);
	/* two loads, kept apart: the verifier refuses one load from a task or a map value */
	u64 run_start = task->se.prev_sum_exec_runtime, runtime = task->se.sum_exec_runtime;
	barrier_var(run_start);
	barrier_var(runtime);
	u64 from = runtime;
	if (ws->run_kind)
		run_settle(ws, runtime);
	else if (sleeps != ws->run_sleeps)
		from = run_start;
	if (from > ws->charged_runtime)
		ws->charged_runtime = from;
	ws->run_kind = kind;
	ws->run_domid = domid;
	ws->run_sleeps = sleeps;
}

/* A long item (a flusher's can run for seconds) is settled as it goes, at the bios it
 * submits, once the scheduler has accounted WORK_SETTLE_NS of it. */
static __always_inline void run_progress(struct work_state *ws)
{
	u64 runtime = bpf_get_current_task_btf()->se.sum_exec_runtime;
	if (runtime - ws->charged_runtime >= WORK_SETTLE_NS)
		run_settle(ws, runtime);
}

/* Which loop device a loop work item belongs to. */
static __always_inline struct loop_device *loop_of_work(struct work_struct *work, u64 fn)
{
	if (fn == loop_rootcg_workfn_addr)
		return (void *)work - bpf_core_field_offset(struct loop_device, rootcg_work);
	struct loop_worker *w = (void *)work - bpf_core_field_offset(struct loop_worker, work);
	return BPF_CORE_READ(w, lo);
}

/* The domain a loop work item serves and its direct-I/O mode, cached per kworker and work
 * item until the topology changes: the same few work items come back at every I/O. A
 * mode switched by `losetup --direct-io` is a change (live_rules_fingerprint). */
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

/* A work item that is not tracked starts on the current kworker: the tracked item before
 * it (if any) is over, unless the item is not the kworker's own (a BH workqueue's, run in
 * a softirq over it: worker_runs). */
static __always_inline int untracked_start(struct work_state *ws, struct work_struct *work)
{
	if (!ws)
		ws = current_work();
	if (!ws)
		return 0; /* the common case: a kworker whose last item was not tracked either */
	if (!worker_runs(bpf_get_current_task_btf(), work))
		return 0;
	if (track_cpu)
		run_enter(ws, 0, XIOTOP_DOM_NONE);
	ws->kind = 0;
	return 0;
}

/* Every work item in the system starts here, once attached: user space attaches it when a
 * loop device, an image file or a device model first backs a domain (never on a host whose
 * domains are all on block devices) and never detaches it. `fn` (work->func, read by the
 * caller) tells loop and flusher work from the rest with three compares; the rest ends the
 * kworker's tracked item, if it has one (one task-storage read). */
static __always_inline int on_work_start(struct work_struct *work, u64 fn)
{
	bool is_wb = track_cpu && fn == wb_workfn_addr;
	if (!fn || (!is_wb && fn != loop_rootcg_workfn_addr && fn != loop_workfn_addr))
		return untracked_start(NULL, work);
	struct work_state *ws = bpf_task_storage_get(&work_now, bpf_get_current_task_btf(), NULL,
	                                             BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ws) {
		stat_inc(XIOTOP_STAT_LOST_CPU);
		return 0;
	}
	u32 domid = is_wb ? XIOTOP_DOM_NONE : loop_work_domid(ws, work, fn);
	if (!is_wb && domid == XIOTOP_DOM_NONE)
		return untracked_start(ws, work); /* another loop device's work serves no domain */
	ws->kind = is_wb ? WORK_WRITEBACK : WORK_LOOP;
	ws->loop_domid = domid;
	ws->loop_dio = !is_wb && ws->cached_dio;
	if (track_cpu)
		run_enter(ws, ws->kind, domid); /* settles the previous owner with its tallies */
	if (is_wb) {
		ws->wb_other_kib = 0;
		__builtin_memset(ws->wb_domid, 0, sizeof(ws->wb_domid));
		__builtin_memset(ws->wb_kib, 0, sizeof(ws->wb_kib));
	}
	return 0;
}

/* ---- the pass and the end of a task ---- */

/* A kworker seen by the pass or at its end: its open owner settled up to its runtime (the
 * owner's until its next item starts), then its pending loop time moved to cpu_ns.
 * One that no work program ever tracked (not attached, or it ran no loop or flusher item
 * since) has no work state: nothing to settle, its runtime stays shared. */
static __always_inline void kworker_flush(struct task_struct *task)
{
	if (!task_is_wq_worker(task->flags))
		return;
	struct work_state *ws = bpf_task_storage_get(&work_now, task, NULL, 0);
	if (!ws)
		return;
	run_settle(ws, task->se.sum_exec_runtime); /* nothing without an owner */
	loop_flush(ws);
}

static __always_inline int on_task_pass(struct bpf_iter_meta *meta, struct task_struct *task)
{
	if (!track_cpu)
		return 0;
	if (meta->seq_num == 0 && !first_pass_ns)
		first_pass_ns = bpf_ktime_get_ns();
	if (task) {
		task_account(task, false);
		kworker_flush(task);
	}
	return 0;
}

static __always_inline int on_task_exit(struct task_struct *task)
{
	if (track_cpu && first_pass_ns) {
		task_account(task, true);
		kworker_flush(task);
	}
	return 0;
}

#endif
