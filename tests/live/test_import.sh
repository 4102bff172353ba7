#!/usr/bin/env bash
# xiotop import end to end (issue 14), no root or BPF needed: the fixtures of
# tests/fixtures/import/ become recordings that `xiotop export` and `xiotop replay -b`
# read like any other; a bad log gives one line FILE:LINE: ... and exit 2; a partial last
# block a note; an existing output file is never overwritten.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_cmd sqlite3 "no sqlite3 command-line tool (apt-get install sqlite3)"
fx=$XIOTOP_SRC/tests/fixtures/import
live_workdir import

# real captures with -t times: 5 samples, 4 intervals
"$XIOTOP_BIN" import -o "$work/real.xiotop" --vmstat "$fx/vmstat-linux-t.txt" \
	--iostat "$fx/iostat-dxt.txt" 2>"$work/err" || fail "import: $(cat "$work/err")"
grep -q "5 samples" "$work/err" || fail "import said: $(cat "$work/err")"
n=$("$XIOTOP_BIN" export "$work/real.xiotop" | wc -l)
[ "$n" -eq 4 ] || fail "export printed $n intervals, 4 expected"
"$XIOTOP_BIN" export "$work/real.xiotop" | head -1 | grep -q '"vmstat_pgpgout_bytes":5259264' ||
	fail "first interval's vmstat bytes are not bo 5136 KiB/s x 1 s"
n=$("$XIOTOP_BIN" replay -b "$work/real.xiotop" | grep -c '^xiotop .*1.00s' || true)
[ "$n" -eq 4 ] || fail "replay -b printed $n intervals, 4 expected"

# xentop (Linux, -x -n -v, cut at the end) with vmstat: no times, so --interval and --start
"$XIOTOP_BIN" import -o "$work/xt.xiotop" --xentop "$fx/xentop-linux-xnv.txt" --interval 2 \
	--start 2026-12-02T10:00:00Z 2>"$work/err" || fail "xentop import: $(cat "$work/err")"
grep -q "note: .*xentop-linux-xnv.txt: the last line is cut short: ignored" "$work/err" ||
	fail "no note about the cut line: $(cat "$work/err")"
"$XIOTOP_BIN" export "$work/xt.xiotop" --format json | tail -1 |
	grep -q '"name":"guest-file".*"guest_wr_bytes":125829120' ||
	fail "guest-file's interval is not 3 x 81920 sectors"
"$XIOTOP_BIN" replay -b "$work/xt.xiotop" | grep -q guest-lvm || fail "replay -b lacks guest-lvm"
sqlite3 "$work/xt.xiotop" "select value from meta where key='source'" | grep -qx import ||
	fail "meta source is not import"

# bad input: one line naming FILE:LINE, exit 2
printf 'hello\n' >"$work/bad.txt"
set +e
"$XIOTOP_BIN" import -o "$work/bad.xiotop" --vmstat "$work/bad.txt" 2>"$work/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a garbled vmstat log exited $rc, 2 expected"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "more than one line: $(cat "$work/err")"
grep -q "bad.txt:1: a vmstat header expected first" "$work/err" || fail "said: $(cat "$work/err")"
[ ! -e "$work/bad.xiotop" ] || fail "a recording was left for a bad log"
set +e
"$XIOTOP_BIN" import -o "$work/real.xiotop" --vmstat "$fx/vmstat-linux-t.txt" 2>"$work/err"
rc=$?
"$XIOTOP_BIN" import -o "$work/x2.xiotop" --vmstat "$fx/vmstat-linux-t.txt" --interval 2 \
	2>"$work/err2"
rc2=$?
set -e
[ "$rc" -eq 2 ] || fail "an existing output exited $rc"
{ [ "$rc2" -eq 2 ] && grep -q "vmstat-linux-t.txt:7: rows 2 s apart expected (as --interval)" \
	"$work/err2"; } || fail "mixed intervals: $(cat "$work/err2")"
echo "import: fixtures import, export and replay -b read them, bad logs refused"
