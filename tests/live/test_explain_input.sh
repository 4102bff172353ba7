#!/usr/bin/env bash
# `xiotop explain` on bad input, without root: a synthetic recording (bench's
# xiotop-record-bench, through the recorder) explained in each format, then every kind of
# bad input: one line on stderr naming the file (usage errors: the usage after it), exit 2.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
X=$XIOTOP_BIN
gen=$(dirname "$X")/xiotop-record-bench
[ -x "$gen" ] || live_skip "$gen not built"
live_workdir explain-input
rec=$work/synthetic.xiotop
"$gen" "$rec" 3 20 >/dev/null
"$X" explain "$rec" >"$work/out.txt"
check $? "explain FILE (text), exit 0"
grep -q "^Verdicts, ranked" "$work/out.txt"
check $? "text holds the ranked verdicts"
"$X" explain "$rec" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert set(("window", "domains", "claims", "verdicts")) <= set(d), d.keys()
for k in ("from", "to", "seconds"):
    assert k in d["window"]
for dom in d["domains"]:
    for k in ("domid", "name", "guest_wr_bytes", "guest_rd_bytes", "phys_wr_bytes", "phys_rd_bytes",
              "double_counted_bytes", "dirty_backlog_end_bytes", "drain_seconds", "dom0_cpu_s",
              "dom0_cpu_s_per_gib"):
        assert k in dom, k
for v in d["verdicts"]:
    for k in ("id", "domid", "share", "figures", "evidence", "text"):
        assert k in v, k
'
check $? "JSON carries the contract's fields"
"$X" explain "$rec" --format html -o "$work/out.html"
check "$(grep -q '</html>' "$work/out.html" && echo 0 || echo 1)" "html report written with -o"
"$X" explain "$rec" --against +2..+10 --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [c["id"] for c in d["comparison"]["causes"]]'
check $? "--against +2..+10 compares two windows of one file"

expect_2() { # expect_2 LINES TEXT COMMAND...: exit 2, stderr's first LINES... holds TEXT
	local lines=$1 text=$2 out rc=0
	shift 2
	out=$("$@" 2>&1 >/dev/null) || rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$text" <<<"$out" &&
		{ [ "$lines" = usage ] || [ "$(wc -l <<<"$out")" -eq "$lines" ]; }; then
		echo "ok   exit 2: $(head -1 <<<"$out")"
	else
		echo "FAIL want exit 2 and '$text' ($lines line(s)), got exit $rc: $out"
		fails=$((fails + 1))
	fi
}
: >"$work/empty.xiotop"
head -c 20000 /dev/urandom >"$work/garbage.xiotop"
python3 -c "import sqlite3; c = sqlite3.connect('$work/foreign.db'); c.execute('CREATE TABLE t (a)'); c.commit()"
expect_2 1 "empty.xiotop is empty" "$X" explain "$work/empty.xiotop"
expect_2 1 "garbage.xiotop.*not an SQLite database" "$X" explain "$work/garbage.xiotop"
expect_2 1 "foreign.db.*not an xiotop recording" "$X" explain "$work/foreign.db"
expect_2 1 "nosuch.xiotop" "$X" explain "$work/nosuch.xiotop"
expect_2 1 "synthetic.xiotop: 'no such mark' is neither a mark" "$X" explain "$rec" --from "no such mark"
expect_2 1 "synthetic.xiotop: .*no complete interval" "$X" explain "$rec" --from +3 --to +3
expect_2 1 "synthetic.xiotop: no domain 'nosuch'" "$X" explain "$rec" --domain nosuch
expect_2 1 "c.txt: cannot open" "$X" explain "$rec" --claim "$work/c.txt@1"
expect_2 1 "synthetic.xiotop: 'x' is neither a mark" "$X" explain "$rec" --against x..y
expect_2 1 "cannot write" "$X" explain "$rec" -o "$work/no/such/dir/report.html"
expect_2 usage "--format wants text, json or html" "$X" explain "$rec" --format csv
expect_2 usage "--against wants MARK..MARK" "$X" explain "$rec" --against nodots
expect_2 usage "would overwrite it" "$X" explain "$rec" -o "$rec"
expect_2 usage "which recording" "$X" explain
expect_2 usage "--format wants text, csv or json" "$X" export "$rec" --format html
live_finish "explain input"
