#!/usr/bin/env bash
# Live test: the real console (ncurses, real BPF tracer) in a private tmux server over three
# emulated domains, one of them named with an escape sequence. Sends keys, captures the pane
# and checks rows, sorting, drill-down, filter and quit, and that the hostile name shows
# escaped and never reaches the terminal raw. Exit 77 (skipped) without root or tmux.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "the console test needs root (BPF, loop and zram devices)"
live_require_cmd tmux "tmux is not installed"
live_require_zram "the emulated domains need zram"

live_workdir console
sock="xiotop-console-$$" # a tmux server of our own: nothing else is touched
before_cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock" # a killed server leaves its socket
}

# this test's own check, in place of livelib.sh's: its checks are commands
failures=0
check() { # DESCRIPTION COMMAND...: run a check, say ok/FAIL
	local what=$1
	shift
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what"
		failures=$((failures + 1))
	fi
}
pane() { tmux -L "$sock" capture-pane -p -t console; }
keys() { tmux -L "$sock" send-keys -t console "$@"; }
# wait_for SECONDS PREDICATE...: until the predicate holds on a fresh capture (in $screen)
screen=""
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	while :; do
		screen=$(pane 2>/dev/null || true)
		"$@" && return 0
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}
has() { grep -qF -- "$1" <<<"$screen"; }
lacks() { ! grep -qF -- "$1" <<<"$screen"; }
line_of() { grep -nF -- "$1" <<<"$screen" | head -1 | cut -d: -f1; }
above() { # A B: the first line with A comes before the first line with B
	local a b
	a=$(line_of "$1")
	b=$(line_of "$2")
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
}
show() { echo "--- screen ---"; echo "$screen"; echo "--------------"; }

live_world_up off --size-mib 64

# guest3 renamed the way a hostile guest could name itself: an OSC sequence that would set
# the terminal's title (xenstore-ls writes control bytes as \xNN escapes)
evil_dump="$work/evil.dump"
sed 's|^\(/local/domain/3/name = \)"guest3"$|\1"\\x1b]0;owned\\x07"|' "$XENSTORE_DUMP" >"$evil_dump"
grep -qF '\x1b]0;owned\x07' "$evil_dump" || {
	echo "FAIL could not rename guest3 in the dump"
	exit 1
}
escaped='\e]0;owned\x07'

# guest2 writes fast, guest1 slowly, guest3 not at all
start_writer() { # NAME ARGS...
	local name=$1
	shift
	"$XIOTOP_EMU" blkback "$@" >"$work/world/logs/$name.out" 2>&1 &
	echo $! >"$work/world/pids/$name.pid"
}
start_writer dom2 --domid 2 --target "$DOM2_DEV" --write-mib 32 --bs 1M --repeat --rate-mib-s 40
start_writer dom1 --domid 1 --target "$DOM1_DEV" --write-mib 32 --bs 1M --repeat --rate-mib-s 4

tmux -L "$sock" -f /dev/null new-session -d -s console -x 120 -y 30 \
	"env LANG=C.UTF-8 LC_ALL=C.UTF-8 '$XIOTOP_BIN' -d 1 --xenstore-dump '$evil_dump' \
	2>'$work/xiotop.err'; echo \$? >'$work/exit'"

# 1. rows: every domain, dom0 and the unattributed row, the hostile name escaped
if ! wait_for 20 has "guest2"; then
	show
	cat "$work/xiotop.err" || true
	echo "FAIL the console did not show the domains"
	exit 1
fi
check "header: the domain count" wait_for 5 has "3 domains"
check "header: vmstat bo" wait_for 5 has "vmstat bo"
check "column headers" wait_for 5 has "GWR_MiB/s"
for row in Domain-0 guest1 guest2 "(unattributed)"; do
	check "row $row" wait_for 5 has "$row"
done
check "the escape sequence in a name shows escaped" wait_for 5 has "$escaped"
title=$(tmux -L "$sock" display-message -p -t console '#{pane_title}')
check "the escape sequence did not reach the terminal (pane title '$title')" \
	test "$title" != "owned"
check "rows in domid order by default" wait_for 5 above guest1 guest2

# 2. sorting: reverse, then guest writes (next column x3 from DOMID), biggest first
keys r
check "r reverses" wait_for 5 has "sort DOMID desc"
# the header may be drawn before the rows in the same refresh: wait for the rows too
check "reversed: guest2 above guest1" wait_for 5 above guest2 guest1
keys r '>' '>' '>'
check "> moves the sort to GWR_MiB/s" wait_for 5 has "sort GWR_MiB/s desc"
check "by guest writes: guest2 (40 MiB/s) above guest1 (4 MiB/s)" wait_for 10 above guest2 guest1
check "by guest writes: guest1 above the idle guest3" wait_for 5 above guest1 "$escaped"
keys '<'
check "< moves back to GRD_MiB/s" wait_for 5 has "sort GRD_MiB/s desc"
keys '>'

# 3. drill-down into guest2, and back: chosen by the filter, not as the top row (on a busy
# dom0, Domain-0's own writes top the sort by guest writes as often as guest2's 40 MiB/s)
keys f g u e s t 2 Enter
check "filter to guest2" wait_for 5 has 'filter "guest2"'
keys Home Enter
check "Enter drills into guest2" wait_for 5 has "guest2  domain 2"
check "drill-down shows the layer table" wait_for 5 has "LAYER"
check "drill-down shows the backend layer" wait_for 5 has "backend"
check "drill-down shows dom0 CPU" wait_for 5 has "dom0 CPU"
keys Escape
check "Esc goes back to the table" wait_for 5 has "GWR_MiB/s"
keys f BSpace BSpace BSpace BSpace BSpace BSpace Enter
check "the filter cleared" wait_for 5 has "guest1"

# 4. filter, then drill into the hostile domain: escaped there too
keys f o w n e d Enter
check "filter by name" wait_for 5 has 'filter "owned"'
check "filter hides other rows" lacks "guest1"
keys Home d
check "drill-down into the escaped domain" wait_for 5 has "$escaped  domain 3"
keys q
check "q in the drill-down goes back" wait_for 5 has "GWR_MiB/s"
keys f BSpace BSpace BSpace BSpace BSpace Enter
check "empty filter shows every row" wait_for 5 has "guest1"

# 5. help, then quit
keys h
check "h shows the help" wait_for 5 has "any key closes this help"
keys x
check "a key closes the help" wait_for 5 has "GWR_MiB/s"
keys q
for _ in $(seq 1 300); do # 30 s: a loaded dom0 detaches the programs late; the status is the check
	[ -s "$work/exit" ] && break
	sleep 0.1
done
check "q quits with status 0" test "$(cat "$work/exit" 2>/dev/null)" = 0
if grep -q . "$work/xiotop.err" 2>/dev/null; then
	echo "xiotop stderr:"
	sed 's/^/  /' "$work/xiotop.err" | cat -v
fi
check "nothing raw reached stderr either" bash -c "! grep -q \$'\\x1b' '$work/xiotop.err'"

if [ "$failures" -ne 0 ]; then
	show
	echo "$failures check(s) failed"
	exit 1
fi
echo "all console checks passed"
