#!/usr/bin/env bash
# Live test of --latency (issue "Fleet view"): the emulated backends' own per-request
# latency (native AIO, completion polled, as blkback is completed by a callback) against
# xiotop's histogram per domain (latency_check.py: p50 at most the writer's log2 bucket
# and at least one below its p50 less its own 6 us, at 64K, 256K and 4K; p99 at most the
# writer's bucket at 64K and 256K; every request timed or said lost), over a loop device
# with direct I/O, a partition of one and zram, in both program sets; then each
# completion hook failing on its own (the domains it would time: io_latency null, never
# 0; the others timed and right, untimed_check.py); latency by default (no flag): timed,
# and with both completion hooks failing the run goes on, says so once and gives no
# latency (no key, no column), never 0; block_bio_complete attached only with a
# bio-based backend, the workqueue hook only with a loop or file-backed one; no latency
# hook or key with --no-latency.
# Exit 77 (skipped) without root or zram; exit 1 when a check failed before such a skip.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
X=$XIOTOP_BIN

# --- bad input, before any tracer: a recording is not timed again ---
rc=0
out=$(timeout 20 "$X" -b --from-file /nonexistent.xiotop --latency 2>&1 >/dev/null) || rc=$?
check "$([ $rc -eq 2 ] && grep -q -- "--latency chooses what the live tracer times" <<<"$out" && echo 0 || echo 1)" \
	"-b --from-file with --latency: exit $rc, $out"
rc=0
out=$(timeout 20 "$X" -b --from-file /nonexistent.xiotop --no-latency 2>&1 >/dev/null) || rc=$?
check "$([ $rc -eq 2 ] && grep -q -- "--no-latency chooses what the live tracer times" <<<"$out" && echo 0 || echo 1)" \
	"-b --from-file with --no-latency: exit $rc, $out"
rc=0
out=$(timeout 20 "$X" topology --latency 2>&1 >/dev/null) || rc=$?
check "$([ $rc -eq 2 ] && echo 0 || echo 1)" "topology --latency is no option of topology: exit $rc"
rc=0
out=$(timeout 20 "$X" topology --no-latency 2>&1 >/dev/null) || rc=$?
check "$([ $rc -eq 2 ] && echo 0 || echo 1)" "topology --no-latency is no option of topology: exit $rc"

live_require_root "live latency needs root (BPF, loop devices, zram)"
live_require_zram "zram is the bio-based backend of this test"
live_workdir latency
live_world_up on
export PYTHONPATH="$XIOTOP_SRC/tests/live"

rc=0
XIOTOP_FORCE_RAW_TP=0 python3 "$XIOTOP_SRC/tests/live/latency_check.py" "$work/world/env" \
	"$X" "$XIOTOP_EMU" "$work/btf.json" 64K 256K 4K || rc=1
check $rc "tp_btf: each domain's p50 inside its backend's own, every request timed or said lost (64K, 256K, 4K)"
rc=0
XIOTOP_FORCE_RAW_TP=1 python3 "$XIOTOP_SRC/tests/live/latency_check.py" "$work/world/env" \
	"$X" "$XIOTOP_EMU" "$work/raw.json" 64K 4K || rc=1
check $rc "raw_tp: each domain's p50 inside its backend's own, every request timed or said lost (64K, 4K)"

# --- the completion hooks fail one by one: the other kind of backend is still timed ---
# (domain id of the backend that must still be timed, domain that must not)
timed_with() { # FAIL_HOOKS -> got: "domid:write_ios ..." of every interval, a write each
	# between xiotop's first interval (its programs attached) and its end (one sampled after both)
	local out="$work/fail.json"
	XIOTOP_FAIL_HOOKS="$1" live_batch "$out" "$work/fail.err" --latency \
		--xenstore-dump "$XENSTORE_DUMP"
	"$XIOTOP_EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib 4 --bs 64K >/dev/null
	"$XIOTOP_EMU" blkback --domid 3 --target "$DOM3_DEV" --write-mib 4 --bs 64K >/dev/null
	live_batch_end "$out"
	got=$(python3 - "$out" <<-'PY'
		import json, sys
		ios = {}
		for line in open(sys.argv[1]):
		    for d in json.loads(line)["domains"]:
		        lat = d.get("io_latency")
		        if lat and lat["write"] is None or ios.get(d["domid"]) == "null":
		            ios[d["domid"]] = "null"  # not timed: not given, in any interval
		        else:
		            ios[d["domid"]] = ios.get(d["domid"], 0) + (lat["write"]["ios"] if lat else 0)
		        ios.setdefault("key", "io_latency" in d)
		print(" ".join(f"{k}:{v}" for k, v in sorted(ios.items(), key=str)))
	PY
	)
}
timed_with block_rq_complete
check "$([[ " $got " == *" 1:null "* && " $got " != *" 3:0 "* && " $got " != *" 3:null "* ]] && echo 0 || echo 1)" \
	"block_rq_complete forced off: zram (dom3) still timed, loop (dom1) not given (null): $got"
check "$(grep -q 'hook block_rq_complete not active (forced by XIOTOP_FAIL_HOOKS): no I/O latency of request-based' "$work/fail.err" && echo 0 || echo 1)" \
	"  and said: $(grep 'block_rq_complete not active' "$work/fail.err" || true)"
timed_with block_bio_complete
check "$([[ " $got " != *" 1:0 "* && " $got " != *" 1:null "* && " $got " == *" 3:null "* ]] && echo 0 || echo 1)" \
	"block_bio_complete forced off: loop (dom1) still timed, zram (dom3) not given (null): $got"
timed_with block_bio_complete,block_rq_complete
check "$([[ " $got " == *" key:False "* ]] && echo 0 || echo 1)" \
	"both completion hooks off: no io_latency key (nothing is timed): $got"
check "$(grep -q 'without:.*block_bio_complete.*block_rq_complete' "$work/fail.err" && echo 0 || echo 1)" \
	"  both named after 'without:'"

# --- block_rq_complete refused: the loop and partition domains' latency null in every
# interval while they do I/O, never 0 requests; zram's timed and right (its writer's count
# and p50), as at full strength; a recording of it replayed the same (untimed_check.py) ---
rc=0
XIOTOP_FAIL_HOOKS=block_rq_complete python3 "$XIOTOP_SRC/tests/live/untimed_check.py" \
	"$work/world/env" "$X" "$XIOTOP_EMU" "$work/untimed.json" || rc=1
check $rc "block_rq_complete refused: loop domains' io_latency null (not 0) while they do I/O, zram's timed and right"

# --- the default (no flag): both completion hooks attached, io_latency and P50_ms given ---
timeout 20 "$X" -b -d 1 -i 2 --format json --xenstore-dump "$XENSTORE_DUMP" \
	>"$work/default.json" 2>"$work/default.err" || true
dline=$(grep 'tracing with' "$work/default.err" || true)
check "$(grep -qw block_bio_complete <<<"${dline%%without:*}" && grep -qw block_rq_complete <<<"${dline%%without:*}" && echo 0 || echo 1)" \
	"default: both completion hooks attached: ${dline#*programs: }"
check "$(grep -q '"io_latency"' "$work/default.json" && echo 0 || echo 1)" \
	"default: io_latency in the JSON"

# --- hooks on demand. block_bio_complete: no program at bio-based devices' completions
# on a host whose backends are all blk-mq (the dump without guest3's zram), attached with
# one; the loop domain timed either way (its requests at block_rq_complete). The workqueue
# hook (workqueue_execute_start; no program at an item's end): none on a host whose only
# domain is on a block device (the dump with guest3's zram alone), one with a loop-backed
# domain, and the loop domain's loop work then charged its CPU ---
ondemand_links() { # DUMP DOMID DEV -> n, nwork, nstart: block_bio_complete links, workqueue
	# links, and of them workqueue_execute_start's
	# while xiotop runs on DUMP (from its first interval: attached) and DOMID's backend
	# writes to DEV; its JSON, whole (xiotop ended), in ondemand.json
	live_batch "$work/ondemand.json" "$work/ondemand.err" --xenstore-dump "$1"
	"$XIOTOP_EMU" blkback --domid "$2" --target "$3" --write-mib 2 --bs 64K >/dev/null
	local links
	links=$(bpftool link show)
	n=$(grep -c "tp 'block_bio_complete'" <<<"$links" || true)
	nwork=$(grep -c "tp 'workqueue_execute_\(start\|end\)'" <<<"$links" || true)
	nstart=$(grep -c "tp 'workqueue_execute_start'" <<<"$links" || true)
	live_batch_end "$work/ondemand.json"
}
written() { # DOMID timed|loop -> in ondemand.json, "timed" if DOMID's writes were timed;
	# "N ms" of loop CPU charged to it, if any
	python3 -c 'import json,sys
domid, what, loop_ns = int(sys.argv[2]), sys.argv[3], 0
for line in open(sys.argv[1]):
    for d in json.loads(line)["domains"]:
        w = (d.get("io_latency") or {}).get("write") or {}
        if d["domid"] != domid: continue
        if what == "timed" and w.get("ios", 0) > 0: print("timed"); sys.exit()
        loop_ns += (d.get("dom0_cpu_ns_by_role") or {}).get("loop", 0)
if what == "loop" and loop_ns > 0: print(f"{loop_ns / 1e6:.1f} ms")' "$work/ondemand.json" "$1" "$2"
}
grep -v -e '^/local/domain/3' -e '/backend/vbd/3' "$XENSTORE_DUMP" >"$work/no-bio.dump"
ondemand_links "$work/no-bio.dump" 1 "$DOM1_DEV"
timed=$(written 1 timed)
loop=$(written 1 loop)
check "$([ "$n" = 0 ] && [ "$timed" = timed ] && echo 0 || echo 1)" \
	"no bio-based backend: block_bio_complete links $n (want 0), loop domain's writes ${timed:-not timed}"
check "$([ "$nwork" = 1 ] && [ "$nstart" = 1 ] && [ -n "$loop" ] && echo 0 || echo 1)" \
	"loop-backed domains: workqueue links $nwork, $nstart of them the start (want 1 and 1), loop domain's loop CPU ${loop:-none}"
ondemand_links "$XENSTORE_DUMP" 1 "$DOM1_DEV"
check "$([ "$n" = 1 ] && echo 0 || echo 1)" "with guest3's zram: block_bio_complete links $n (want 1)"
check "$([ "$nwork" = 1 ] && [ "$nstart" = 1 ] && echo 0 || echo 1)" \
	"every guest: workqueue links $nwork, $nstart of them the start (want 1 and 1)"
grep -v -E -e '^/local/domain/[12]( |/)' -e '/backend/vbd/[12]( |/)' "$XENSTORE_DUMP" \
	>"$work/zram-only.dump"
ondemand_links "$work/zram-only.dump" 3 "$DOM3_DEV"
timed=$(written 3 timed)
check "$([ "$nwork" = 0 ] && [ "$n" = 1 ] && [ "$timed" = timed ] && echo 0 || echo 1)" \
	"guest3's zram alone: workqueue links $nwork (want 0), block_bio_complete links $n (want 1), its writes ${timed:-not timed}"

# --- the default with both completion hooks failing: the run goes on, says so once per
# hook and in the hooks line, and gives no latency at all (no key, no column), never 0 ---
rc=0
XIOTOP_FAIL_HOOKS=block_bio_complete,block_rq_complete timeout 20 "$X" -b -d 1 -i 3 \
	--format json --xenstore-dump "$XENSTORE_DUMP" >"$work/degraded.json" 2>"$work/degraded.err" || rc=$?
check "$([ $rc -eq 0 ] && [ "$(grep -c '"domains"' "$work/degraded.json")" -eq 3 ] && echo 0 || echo 1)" \
	"both completion hooks refused, no flag: exit $rc, $(grep -c '"domains"' "$work/degraded.json") of 3 intervals"
for h in block_bio_complete block_rq_complete; do
	n=$(grep -c "hook $h not active (forced by XIOTOP_FAIL_HOOKS): no I/O latency" "$work/degraded.err" || true)
	check "$([ "$n" -eq 1 ] && echo 0 || echo 1)" "  $h said once on stderr ($n times)"
done
check "$(grep 'tracing with' "$work/degraded.err" | grep -q 'without:.*block_bio_complete.*block_rq_complete' && echo 0 || echo 1)" \
	"  both named after 'without:' in the hooks line"
check "$(grep -q '"domains"' "$work/degraded.json" && ! grep -q io_latency "$work/degraded.json" && echo 0 || echo 1)" \
	"  no io_latency key (not given, not 0)"
XIOTOP_FAIL_HOOKS=block_bio_complete,block_rq_complete timeout 20 "$X" -b -d 1 -i 2 \
	--xenstore-dump "$XENSTORE_DUMP" >"$work/degraded.txt" 2>/dev/null || true
timeout 20 "$X" -b -d 1 -i 2 --xenstore-dump "$XENSTORE_DUMP" >"$work/default.txt" 2>/dev/null || true
check "$(grep -q GWR_MiB/s "$work/degraded.txt" && ! grep -q P50_ms "$work/degraded.txt" && grep -q P50_ms "$work/default.txt" && echo 0 || echo 1)" \
	"  -b text: no P50_ms column (the default run has one)"

# --- --no-latency: no latency hook attached or missing, no io_latency key ---
timeout 20 "$X" -b -d 1 -i 2 --format json --no-latency --xenstore-dump "$XENSTORE_DUMP" \
	>"$work/plain.json" 2>"$work/plain.err" || true
check "$(grep -q 'tracing with' "$work/plain.err" && ! grep -qE 'block_(bio|rq)_complete' <(grep 'tracing with' "$work/plain.err") && echo 0 || echo 1)" \
	"--no-latency: no completion hook in: $(grep 'tracing with' "$work/plain.err" | sed 's/.*programs: //')"
check "$(grep -q '"domains"' "$work/plain.json" && ! grep -q io_latency "$work/plain.json" && echo 0 || echo 1)" \
	"--no-latency: no io_latency key in the JSON"

live_finish latency
