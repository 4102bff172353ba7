#!/usr/bin/env bash
# Live test of a benchmark run in dom0 as explain's subject "dom0 (dd)" (seed 000: dd in
# dom0 against the same dd in a file-backed domU), with the real BPF tracer on the
# emulated world:
#  - dom0: `xiotop record -- dd if=/dev/zero of=HOSTFS/dom0.bin bs=1M count=256
#    conv=fdatasync` on the world's host file system (a zram disk no domain owns: dom0's
#    own bios, to a leaf). Expected from the physics, written before the run: fdatasync
#    puts every byte on the disk before dd exits, so the subject's bytes are dd's 256 MiB
#    plus ext4's metadata and journal (at most 10 % more), all on the leaf; the disk's own
#    count (/sys/block/zramN/stat, sectors written over the recording) is at least the
#    subject's physical bytes there and those at least dd's; no double counting (one
#    submission, straight to the disk).
#    On a dom0 with other work (`make test-load`: a build, a writer's writeback, a reader
#    on the root disk) the subject also holds other programs' bios: the recording does
#    not say which of dom0's programs submitted one, so the subject is all of dom0's own
#    I/O (explain/dom0_subject.h). Its bytes beyond dd's cannot stay within 10 % then;
#    they are bounded by the truth under the same load instead: each other disk's own
#    count over the recording (/proc/diskstats before and after it) holds at least what
#    the subject has there (its layer of that disk), and the subject's submitted bytes are
#    at most dd's + 10 % + what the other disks took (dd's + 10 % alone on a quiet dom0).
#  - `--claim dd.out` without @DOMAIN is set against the subject (domain 0), writes (dd's
#    command line is pasted), its observed bytes within 10 % of dd's.
#  - the domU: guest1 (a file on loop, direct I/O off) writes 256 MiB; `explain dom0 domU`
#    compares "dom0 (dd)" with it (exit 0), A's bytes are the subject's, and dom0's cache
#    hid no time from A (fdatasync: on the disk when dd exited).
# Exit 77 (skipped) without root or zram.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "dom0's own bios are traced by BPF (root), on the emulated world's disk"
live_require_zram "the emulated world's host disk is a zram device"
live_workdir explain-dom0
X=$XIOTOP_BIN
E=$XIOTOP_EMU
live_world_up off --size-mib 600
dump=$XENSTORE_DUMP
set +e

sectors_written() { awk '{print $7}' "/sys/block/$HOST_ZRAM/stat"; }
sync
before=$(sectors_written)
cp /proc/diskstats "$work/diskstats.before"
"$X" record -o "$work/dom0.xiotop" -d 1 --tail 3 --xenstore-dump "$dump" -- \
	dd if=/dev/zero of="$HOSTFS/dom0.bin" bs=1M count=256 conv=fdatasync \
	>/dev/null 2>"$work/dd.err"
check $? "record -- dd in dom0 (conv=fdatasync)"
cp /proc/diskstats "$work/diskstats.after"
after=$(sectors_written)
disk_bytes=$(((after - before) * 512))
{
	echo "[root@Dom0]# dd if=/dev/zero of=$HOSTFS/dom0.bin bs=1M count=256 conv=fdatasync"
	grep -v "^xiotop" "$work/dd.err"
} >"$work/dd.out"
dd_bytes=$(awk '/bytes/ {print $1; exit}' "$work/dd.out")
[ "$dd_bytes" = 268435456 ]
check $? "dd says it wrote 268435456 bytes"

"$X" explain "$work/dom0.xiotop" --claim "$work/dd.out" --format json >"$work/dom0.json" \
	2>"$work/explain.err"
check $? "explain dom0.xiotop --claim dd.out (no @DOMAIN), exit 0: $(head -1 "$work/explain.err")"
# the writes each other disk took over the recording (the world's leaf is dd's disk)
python3 - "$work/diskstats.before" "$work/diskstats.after" "$HOST_ZRAM" >"$work/others.json" <<'EOF'
import json, sys
def wr(path):
    return {p[2]: int(p[9]) * 512 for p in (l.split() for l in open(path)) if len(p) >= 14}
a, b = wr(sys.argv[1]), wr(sys.argv[2])
json.dump({dev: b[dev] - a[dev] for dev in b if dev in a and dev != sys.argv[3]}, sys.stdout)
EOF
python3 - "$work/dom0.json" "$dd_bytes" "$disk_bytes" "$HOST_ZRAM" "$work/others.json" \
	>"$work/others.sum" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
dd, disk, leaf = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
others = json.load(open(sys.argv[5]))  # {disk: bytes it took over the recording}
subj = [x for x in d["domains"] if x["domid"] == 0]
assert subj, "no domain 0 in %s" % [x["name"] for x in d["domains"]]
s = subj[0]
assert s["name"] == "dom0 (dd)", s["name"]
g, p = s["guest_wr_bytes"], s["phys_wr_bytes"]
mine = {l["dev"]: l["wr_bytes"] for l in s["layers"] if l.get("leaf") and "dev" in l}
run = mine.pop(leaf, 0)
other = sum(others.get(dev, 0) for dev in mine)
print(other)  # what dom0's other disks took: the comparison's bound below
print("dom0 (dd): submitted %d, leaf %d (window), dd %d, zram stat %d; on %s %d; other disks "
      "(the subject's, their own count over the recording): %s"
      % (g, p, dd, disk, leaf, run, {k: (v, others.get(k)) for k, v in mine.items()}), file=sys.stderr)
for dev, v in mine.items():  # other programs' bios on dom0's other disks, if any
    assert dev in others and v <= others[dev] * 1.01, "%s: the subject %d, the disk took %s" % (dev, v, others.get(dev))
assert dd <= g <= dd * 1.10 + other, "subject's bytes %d against dd's %d (+ other disks' %d)" % (g, dd, other)
assert dd <= run <= disk * 1.01, "bytes on %s %d: dd %d, disk %d" % (leaf, run, dd, disk)
# the window's leaf bytes (the layers hold the drain's too): fdatasync put dd's on the disk
assert dd <= p <= disk * 1.01 + other, "leaf bytes %d: dd %d, disk %d (+ other disks' %d)" % (p, dd, disk, other)
assert s["dirty_backlog_end_bytes"] is None, "dom0's backlog is unknown, not 0"
assert not [v for v in d["verdicts"] if v["id"] == "double_counting" and v["domid"] == 0]
c = [x for x in d["claims"] if x["domid"] == 0]
assert c, "the claim is not set against domain 0: %s" % d["claims"]
cv = [v for v in d["verdicts"] if v["id"] == "claim" and v["domid"] == 0][0]
assert cv["figures"]["direction"] == "write", cv["figures"]
og = cv["figures"]["observed_guest_bytes"]
assert dd * 0.9 <= og <= dd * 1.1 + other, "observed %d against dd's %d (+ other disks' %d)" % (og, dd, other)
EOF
check $? "the subject dom0 (dd): its bytes against dd's and the disk's own count; the claim"

"$X" record -o "$work/domu.xiotop" -d 1 --tail 3 --xenstore-dump "$dump" -- \
	"$E" blkback --domid 1 --target "$DOM1_DEV" --write-mib 256 --read-mib 0 \
	>"$work/writer1.out" 2>"$work/rec1.err"
check $? "record -- the file-backed guest's dd"
"$X" explain "$work/dom0.xiotop" "$work/domu.xiotop" --format json >"$work/cmp.json" \
	2>"$work/cmp.err"
check $? "explain dom0.xiotop domu.xiotop, exit 0: $(head -1 "$work/cmp.err")"
python3 - "$work/cmp.json" "$dd_bytes" "$(head -1 "$work/others.sum")" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
dd, other = int(sys.argv[2]), int(sys.argv[3] or 0)  # other: what dom0's other disks took
c = d["comparison"]
print("A %s, B %s, ratio %.2f" % (c["a"], c["b"], c["ratio"]))
a = [x for x in d["a"]["domains"] if x["domid"] == 0][0]
assert a["name"] == "dom0 (dd)"
assert dd <= a["guest_wr_bytes"] <= dd * 1.10 + other, (a["guest_wr_bytes"], dd, other)
# fdatasync: every byte was on the disk when dd exited; dom0's cache hid nothing from A
assert c["a"]["hidden_s_per_gib"] < 0.05, c["a"]["hidden_s_per_gib"]
EOF
check $? "the comparison's A is dom0 (dd)"
live_finish "explain dom0"
