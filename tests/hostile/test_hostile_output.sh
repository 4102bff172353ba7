#!/usr/bin/env bash
# test_hostile_output.sh - issue 15: no command writes a terminal control taken from its
# input. Hostile fixtures - recordings made by the recorder from synthetic samples
# (xiotop-record-bench) then edited with sqlite3 so that domain, file, device and disk
# names, mark labels, hook sets, meta values and schema names hold ESC sequences, BEL,
# C1 (0x9b as UTF-8 and raw), U+202E/U+2066, a literal "\x1b", DEL; hostile times
# (INT64_MIN, INT64_MAX); a foreign file; a hostile xenstore dump - go through every
# command (export in all formats, replay -b, -b --from-file, topology text/json, mark,
# the error paths). Each command must exit as expected, and tests/hostile/scan_output.py
# must find no forbidden byte in any stdout+stderr.
set -uo pipefail
bin=${XIOTOP_BIN:?XIOTOP_BIN: the xiotop binary}
bench=${XIOTOP_RECORD_BENCH:?XIOTOP_RECORD_BENCH: the xiotop-record-bench binary}
src=${XIOTOP_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
for tool in sqlite3 python3 timeout; do
	command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is not installed"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/xiotop-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/out"
cd "$work" || exit 1
fail=0

# --- fixtures ---
"$bench" base.xiotop 2 4 >/dev/null || { echo "FAIL: xiotop-record-bench"; exit 1; }
esc="char(27)"
names_sql="
UPDATE domains SET name='ev'||$esc||']2;pwned'||char(7)||$esc||'[2J'||char(155)||CAST(x'9b' AS TEXT)||char(8238)||'\\x1b'||char(127) WHERE domid=1;
UPDATE domains SET file='/img/'||$esc||'[31m'||char(8294)||'.img', kind='v'||$esc||'bd' WHERE domid=2;
UPDATE devices SET name='lo'||$esc||'[5m'||char(8207) WHERE name='loop0';
UPDATE disk_keys SET name='sd'||char(155)||'a';
UPDATE hook_sets SET hooks='hook'||$esc||'[1m';
INSERT INTO marks (realtime_ns, label, origin) VALUES ((SELECT realtime_ns FROM samples WHERE idx=1),
  'go'||$esc||']2;x'||char(7)||char(8238)||'\\e', 'cli'||$esc);
INSERT OR REPLACE INTO meta VALUES ('xiotop_version', $esc||'[2J9.9');"
edit() { # edit NEW FROM SQL
	# shellcheck disable=SC2015 # the message is meant for a failure of either step
	cp "$2" "$1" && sqlite3 "$1" "$3" || { echo "FAIL: sqlite3 edit of $1"; exit 1; }
}
edit names.xiotop base.xiotop "$names_sql"
edit int64min.xiotop names.xiotop "UPDATE samples SET realtime_ns=-9223372036854775808 WHERE idx=2"
edit int64max.xiotop names.xiotop "UPDATE samples SET realtime_ns=9223372036854775807 WHERE idx=0"
edit schema.xiotop names.xiotop "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET
  sql='CREATE VIEW x AS SELEC', name=$esc||']2;pwned'||char(7)||$esc||'[2J' WHERE name='vias'"
edit newer.xiotop names.xiotop "PRAGMA user_version=9"
sqlite3 foreign.db "CREATE TABLE \"$(printf '\033]2;pwned\007\302\233')\" (x)" || exit 1
cp names.xiotop marked.xiotop
evil_name=$'ev\e]2;x\a\u202e.xiotop' # a mailed file keeps its name
cp names.xiotop "$evil_name"
dump=$src/tests/fixtures/xenstore/hostile.txt
printf '/local/domain/1/name = "a\\033b"\n/local/domain/1/x\033[2Jy = "1"\n' >bad-dump.txt
label=$'go\e]2;x\a\u202e\\e'

# --- commands: run NAME WANT_STATUS COMMAND... ---
run() {
	local name=$1 want=$2
	shift 2
	local t0=$SECONDS
	timeout 60 "$@" >"out/$name" 2>&1 </dev/null
	local rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: $name: exit $rc, want $want ($(( SECONDS - t0 ))s): $(head -c 300 "out/$name")"
		fail=1
	fi
}
for f in text csv json; do
	run "export-$f" 0 "$bin" export names.xiotop --format "$f"
	run "export-mark-$f" 0 "$bin" export names.xiotop --format "$f" --from "$label"
	run "replay-b-$f" 0 "$bin" replay names.xiotop -b --format "$f"
	run "from-file-$f" 0 "$bin" -b --from-file names.xiotop --format "$f"
	run "replay-int64min-$f" 0 "$bin" replay int64min.xiotop --format "$f"
done
run export-typo 2 "$bin" export names.xiotop --from typo
run export-2300 2 "$bin" export names.xiotop --from 2300-01-01T00:00:00Z
run export-1e300 2 "$bin" export names.xiotop --from +1e300
run export-int64max 2 "$bin" export int64max.xiotop --from +1
run replay-typo 2 "$bin" replay names.xiotop -b --to typo
run from-file-typo 2 "$bin" -b --from-file names.xiotop --from typo
t0=$SECONDS
run replay-speed64 0 "$bin" replay int64min.xiotop --format text --speed 64
if [ $(( SECONDS - t0 )) -gt 20 ]; then
	echo "FAIL: replay --speed 64 of a sample at INT64_MIN took $(( SECONDS - t0 ))s"
	fail=1
fi
run export-schema 2 "$bin" export schema.xiotop
run replay-schema 2 "$bin" replay schema.xiotop -b
run export-newer 2 "$bin" export newer.xiotop
run export-foreign 2 "$bin" export foreign.db
run mark 0 "$bin" mark -o marked.xiotop "$label"
run mark-foreign 2 "$bin" mark -o foreign.db x
run mark-newer 2 "$bin" mark -o newer.xiotop x
run export-marked 0 "$bin" export marked.xiotop --format text --to "$label"
run evil-name-typo 2 "$bin" export "$evil_name" --from typo
run evil-name-replay 2 "$bin" replay "$evil_name" -b --to typo
run evil-name-mark 0 "$bin" mark -o "$evil_name" x
run evil-name-missing 2 "$bin" export "$evil_name.gone"
run topology-text 0 "$bin" topology --xenstore-dump "$dump"
run topology-json 0 "$bin" topology --xenstore-dump "$dump" --format json
run topology-bad 2 "$bin" topology --xenstore-dump bad-dump.txt

# a truncated or hostile benchmark output given as --claim: one line naming it, exit 2,
# for every claim format cut inside the last figure it reads (2 bytes off its end); without
# just its final newline (a browser's copy) a post is read when its last line ends as its
# tool ends it ("/s", "msec", a one-decimal %CPU, a CSV line of all its fields, `time`'s
# sys line that is not read), refused where a figure may be cut (iozone's whole numbers).
# FILE:DROP:EXIT
claims=$src/tests/fixtures/claims
for spec in gnu-dd-write-then-read.txt:0:0 gnu-dd-write-then-read.txt:2:2 \
	gnu-dd-time-sync.txt:0:0 gnu-dd-time-sync.txt:2:0 \
	busybox-dd-summary-constructed.txt:0:0 busybox-dd-summary-constructed.txt:2:2 \
	seed003-dom0-bsd-dd-write.txt:0:0 seed003-dom0-bsd-dd-write.txt:2:2 fio-write.json:2:2 \
	fio-text-randrw-2jobs.txt:0:0 fio-text-randrw-2jobs.txt:2:2 \
	bonnie-2.00a-default.txt:0:0 bonnie-2.00a-default.txt:2:0 \
	seed004-domu-bonnie-classic.txt:0:0 seed004-domu-bonnie-classic.txt:2:2 \
	seed002-dom0-iozone.txt:0:2 seed002-dom0-iozone.txt:2:2 \
	iozone-R-i012.txt:0:2 iozone-R-i012.txt:2:2; do
	IFS=: read -r f drop want <<<"$spec"
	# the output without its trailing newlines (a blank last line is no figure)
	printf '%s' "$(cat "$claims/$f")" >whole.txt
	len=$(wc -c <whole.txt)
	cut=cut$drop-$f
	head -c $((len - drop)) whole.txt >"$cut"
	run "claim-$cut" "$want" "$bin" explain names.xiotop --claim "$cut"
	if [ "$want" -eq 2 ] &&
		{ [ "$(wc -l <"out/claim-$cut")" -ne 1 ] || ! grep -qF "$cut" "out/claim-$cut"; }; then
		echo "FAIL: --claim $cut: not one line naming it: $(head -c 300 "out/claim-$cut")"
		fail=1
	fi
done
printf '64+0 records in\n64+0 records out\n67108864 bytes (\033]2;x\a) copied, 1 s, 6\033[2J' >evil-dd.txt
run claim-evil-dd 2 "$bin" explain names.xiotop --claim evil-dd.txt
[ "$(wc -l <out/claim-evil-dd)" -eq 1 ] ||
	{ echo "FAIL: --claim evil-dd.txt: $(head -c 300 out/claim-evil-dd)"; fail=1; }

# the fixtures are hostile indeed: the raw bytes are in them
if ! sqlite3 names.xiotop "SELECT name FROM domains" | grep -q $'\e]2;pwned'; then
	echo "FAIL: names.xiotop does not hold the escapes it should"
	fail=1
fi
# and their text comes out, escaped
grep -qF 'ev\e]2;pwned\x07' out/export-csv || { echo "FAIL: escaped name not in export"; fail=1; }
grep -q 'is outside the times a recording can hold' out/export-2300 ||
	{ echo "FAIL: --from 2300 message: $(cat out/export-2300)"; fail=1; }
python3 "$src/tests/hostile/scan_output.py" out/* || fail=1
# shellcheck disable=SC2012 # counts the names this script wrote (plain, no newline)
n=$(ls out | wc -l)
if [ $fail -eq 0 ]; then
	echo "PASS: $n command outputs over hostile fixtures, no control or bidi byte"
fi
exit $fail
