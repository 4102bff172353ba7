#!/usr/bin/env bash
# Live test: each optional BPF hook fails on its own. XIOTOP_FAIL_HOOKS forces named hooks
# to fail; every other hook must still be attached and named in the hooks line, the
# forced ones named as missing with what is lost; in both program sets (tp_btf, raw_tp).
# Bad names in XIOTOP_FAIL_HOOKS are reported. Two hooks that fail only together
# (XIOTOP_FAIL_TOGETHER) cost one of them, not the tracer. Exit 77 (skipped) without root.
set -euo pipefail
: "${XIOTOP_BIN:?}"
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: loading BPF programs needs root"
	exit 77
fi
all="block_bio_queue block_bio_remap block_split workqueue_execute_start iter/task sched_process_free writeback_dirty_folio io_uring_complete"
fails=0
check() { # ok-command... -- what
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
# stderr of a 2-interval batch run with the given environment (its hooks are named at
# load: intervals of 0.2 s, not 1 s, suffice)
# shellcheck disable=SC2069 # on purpose: stderr to the capture, stdout dropped
run() { env "$@" timeout 20 "$XIOTOP_BIN" -b -d 0.2 -i 2 --format json 2>&1 >/dev/null || true; }
hooks_line() { grep 'tracing with' <<<"$1" | sed 's/.*programs: //'; }
has_word() { grep -qw -- "$2" <<<"$1"; }

for mode in tp_btf raw_tp; do
	force_raw=0
	[ $mode = raw_tp ] && force_raw=1
	for forced in block_bio_remap block_split iter/task sched_process_free "workqueue_execute_start,io_uring_complete"; do
		err=$(run XIOTOP_FORCE_RAW_TP=$force_raw XIOTOP_FAIL_HOOKS="$forced")
		line=$(hooks_line "$err")
		what="$mode, forced $forced: hooks line '$line'"
		check grep -q "tracing with $mode programs" <<<"$err"
		attached=${line%%without:*}
		missing=${line#*without:}
		for h in $all; do
			if [[ ",$forced," == *",$h,"* ]]; then
				what="$mode: $h (forced) named after 'without:'"
				check has_word "$missing" "$h"
				what="$mode: $h (forced) reported on stderr with its loss"
				check grep -q "hook $h not active (forced by XIOTOP_FAIL_HOOKS): ." <<<"$err"
			else
				what="$mode, forced $forced: $h still attached and named"
				check has_word "$attached" "$h"
			fi
		done
	done
done

# two hooks that load alone but not together: one is left out, named with the reason,
# and the other is still attached (in both program sets)
for mode in tp_btf raw_tp; do
	force_raw=0
	[ $mode = raw_tp ] && force_raw=1
	err=$(run XIOTOP_FORCE_RAW_TP=$force_raw XIOTOP_FAIL_TOGETHER="workqueue_execute_start,iter/task")
	line=$(hooks_line "$err")
	what="$mode, failing together: one left out, '$line'"
	check grep -q "hook workqueue_execute_start not active (does not load with the others: forced by XIOTOP_FAIL_TOGETHER)" <<<"$err"
	what="$mode, failing together: iter/task still attached, '$line'"
	check has_word "${line%%without:*}" iter/task
done

err=$(run XIOTOP_FAIL_HOOKS="no_such_hook,block_bio_queue")
what="unknown hook name reported"
check grep -q "XIOTOP_FAIL_HOOKS: no hook named 'no_such_hook'" <<<"$err"
what="block_bio_queue cannot be forced off"
check grep -q "XIOTOP_FAIL_HOOKS: block_bio_queue is required" <<<"$err"
what="block_bio_queue still attached: '$(hooks_line "$err")'"
check has_word "$(hooks_line "$err" | sed 's/without:.*//')" block_bio_queue
if [ $fails -ne 0 ]; then
	echo "FAILED: hooks, $fails failure(s)"
	exit 1
fi
echo "PASSED: hooks"
