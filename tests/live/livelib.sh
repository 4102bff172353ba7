# shellcheck shell=bash
# livelib.sh: the preamble the live test scripts share (skips, the work directory, the
# emulated world, checks and the summary), sourced so that each test holds only its own
# steps. livelib.py is its counterpart for the Python checks.
#
# Use, after the test has said which variables it needs:
#     : "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
#     # shellcheck source=tests/live/livelib.sh
#     . "$XIOTOP_SRC/tests/live/livelib.sh"
# Needs XIOTOP_SRC (the source tree: tests/emu/emu.sh is found there) and bash; written
# for set -euo pipefail. Sourcing only defines: nothing runs and no trap is set before
# live_workdir.
#
# Exit codes: 77 = skipped (ctest's SKIP_RETURN_CODE); live_finish and fail give 0 or 1.
#
# Skips: REASON is the whole line after "SKIPPED: ", so that it says what the test needs
# and why (e.g. "live CPU attribution needs root (BPF, loop devices, zram)"). A skip is
# a failure of the run unless tests/skips.allow names the test (tests/skip_report.py,
# after ctest in `make test`); a skip after a failed check is no skip: it exits 1.
#   live_skip REASON             print "SKIPPED: REASON", exit 77 (exit 1 when a check
#                                failed before: "FAIL: N check(s) failed before: REASON")
#   live_require_root REASON     skip with REASON unless run as root
#   live_require_module MOD PATH WHY
#                                PATH (what the module makes, e.g. /dev/loop-control)
#                                exists, else `modprobe MOD` and look again; else skip:
#                                "SKIPPED: no PATH: modprobe MOD failed (WHY)"
#   live_require_zram WHY        live_require_module zram /sys/class/zram-control/hot_add
#   live_require_cmd CMD REASON  skip with REASON unless CMD is on the PATH
# XIOTOP_TEST_ABSENT (words: module or command names) makes these take each named one as
# absent, modprobe failing: only to show that a missing prerequisite fails `make test`.
#
# The work directory and the emulated world (tests/emu/README.md):
#   live_workdir NAME            work=a new directory xiotop-NAME.XXXXXX under $TMPDIR
#                                (/tmp by default); live_cleanup runs on EXIT INT TERM HUP
#   live_cleanup                 first before_cleanup, if the test defines that function
#                                (its own processes, mounts, settings; what fails there is
#                                passed over), then the copy XIOTOP_LIVE_KEEP asks for,
#                                then `emu.sh down $work/world` if a world was made, then
#                                rm -rf $work; never fails
# XIOTOP_LIVE_KEEP=DIR keeps what the test wrote: $work is copied into DIR at cleanup,
# but the world's devices and images (world/env is kept), so that a checker that judges
# files can be run again on mutated copies (tests/live/check_bites.py).
#   live_world_up DIO [ARG...]   the loop and zram modules (live_require_module), then
#                                `emu.sh up $work/world --dio DIO ARG...` (its output
#                                dropped), then sources $work/world/env (DOM1_DEV,
#                                XENSTORE_DUMP, HOSTFS, ...); a failed up fails the test
#   live_world_down              `emu.sh down $work/world`, for a test that builds several
#                                worlds in turn; a failed down fails the test
#
# Waiting for what a test reads (never a fixed sleep: a loaded dom0 starts, attaches and
# writes late; a file another process still writes is no result):
#   live_wait SECONDS WHAT COMMAND...
#                                until COMMAND succeeds (tried every 0.1 s); else fail
#                                (exit 1): "WHAT: not within SECONDS s"
#   live_lines FILE              how many complete (newline-ended) lines FILE holds (0 if none)
#   live_wait_lines FILE N SECONDS WHAT [PID]
#                                until FILE holds N complete lines; else fail (exit 1)
#                                naming WHAT, at the timeout or when PID (its writer)
#                                ended first
#   live_rec_samples FILE        samples committed in recording FILE (0 before it exists:
#                                sqlite3 would make it)
#   live_rec_has_domain FILE DOMID
#                                recording FILE lists domain DOMID (a committed sample held
#                                it: a device model's I/O is charged to it from then on)
#   live_batch OUT ERR ARG...    `$XIOTOP_BIN -b -d 1 --format json ARG...` in the
#                                background (the caller's environment, e.g. XIOTOP_FAIL_HOOKS=..
#                                before it), its pid in live_batch_pid, until its first
#                                interval is in OUT: it prints none before its programs
#                                are attached, so the tracer counts from then on
#   live_batch_end OUT           until OUT holds an interval sampled after the call (the
#                                second complete line after it: the next one may have been
#                                sampled before), then SIGTERM (xiotop ends after the
#                                interval in flight) and wait for its end; fail unless it
#                                exits 0. OUT is then whole.
# live_cleanup ends a live_batch xiotop still running (a test that failed meanwhile).
#
# Checks (a test whose checks run commands, as the tmux tests do, keeps its own check,
# defined after sourcing this file):
#   fails                        how many checks failed so far (0 at sourcing)
#   check STATUS DESCRIPTION     "ok   DESCRIPTION" if STATUS is 0, else "FAIL DESCRIPTION"
#                                and fails + 1; the test goes on
#   fail MESSAGE...              "FAIL: MESSAGE", exit 1: for a step nothing after it can
#                                go without
#   live_finish NAME             "NAME: N failure(s)", exit 0 if fails is 0, else exit 1
#
# Variables it sets: work, fails, live_batch_pid. Its own names start with live_ (but check, fail).

fails=0

live_skip() {
	if [ "$fails" -ne 0 ]; then
		echo "FAIL: $fails check(s) failed before: $1"
		exit 1
	fi
	echo "SKIPPED: $1"
	exit 77
}

live_absent() { # NAME: XIOTOP_TEST_ABSENT names it (the skip policy's own test)
	[[ " ${XIOTOP_TEST_ABSENT:-} " == *" $1 "* ]]
}

live_require_root() {
	[ "$(id -u)" -eq 0 ] || live_skip "$1"
}

live_require_module() {
	local mod=$1 path=$2
	if live_absent "$mod"; then
		live_skip "no $path: modprobe $mod failed (XIOTOP_TEST_ABSENT=$XIOTOP_TEST_ABSENT) ($3)"
	fi
	[ -e "$path" ] && return 0
	local err
	err=$(modprobe "$mod" 2>&1) || true
	[ -e "$path" ] || live_skip "no $path: modprobe $mod failed: ${err:-no message} ($3)"
}

live_require_zram() {
	live_require_module zram /sys/class/zram-control/hot_add "$1"
}

live_require_cmd() {
	if live_absent "$1" || ! command -v "$1" >/dev/null; then live_skip "$2"; fi
}

live_emu() { # emu.sh ARG...: the emulated world's own script
	bash "$XIOTOP_SRC/tests/emu/emu.sh" "$@"
}

live_workdir() {
	work=$(mktemp -d -t "xiotop-$1.XXXXXX")
	trap live_cleanup EXIT INT TERM HUP
}

live_cleanup() {
	# in an || list, so that a failing step of the test's own cleanup does not stop ours
	if [ -n "${live_batch_pid:-}" ] && kill -0 "$live_batch_pid" 2>/dev/null; then
		kill -TERM "$live_batch_pid" 2>/dev/null || true
		wait "$live_batch_pid" 2>/dev/null || true
	fi
	if declare -F before_cleanup >/dev/null; then before_cleanup || true; fi
	live_keep || true
	if [ -e "$work/world" ]; then live_emu down "$work/world" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}

live_keep() { # XIOTOP_LIVE_KEEP=DIR: $work into DIR, the world's images left out
	[ -n "${XIOTOP_LIVE_KEEP:-}" ] || return 0
	mkdir -p "$XIOTOP_LIVE_KEEP/world"
	find "$work" -mindepth 1 -maxdepth 1 ! -name world -exec cp -a {} "$XIOTOP_LIVE_KEEP/" \;
	if [ -f "$work/world/env" ]; then cp "$work/world/env" "$XIOTOP_LIVE_KEEP/world/"; fi
	echo "kept in $XIOTOP_LIVE_KEEP (XIOTOP_LIVE_KEEP)"
}

live_world_up() {
	live_require_module loop /dev/loop-control "the emulated world's loop devices"
	live_require_zram "the emulated world's host disk and LV stand-in are zram devices"
	local dio=$1
	shift
	live_emu up "$work/world" --dio "$dio" "$@" >/dev/null
	# shellcheck source=/dev/null
	. "$work/world/env"
}

live_world_down() {
	live_emu down "$work/world" >/dev/null
}

live_wait() {
	local secs=$1 what=$2 deadline=$((SECONDS + $1))
	shift 2
	until "$@"; do
		[ $SECONDS -lt $deadline ] || fail "$what: not within $secs s"
		sleep 0.1
	done
}

live_rec_samples() {
	[ -s "$1" ] && sqlite3 "$1" 'SELECT count(*) FROM samples' 2>/dev/null || echo 0
}

live_rec_has_domain() {
	[ -s "$1" ] && [ "$(sqlite3 "$1" "SELECT count(*) FROM domains WHERE domid = $2" 2>/dev/null)" -gt 0 ]
}

live_lines() {
	if [ -e "$1" ]; then wc -l <"$1"; else echo 0; fi
}

live_wait_lines() {
	local file=$1 want=$2 secs=$3 what=$4 pid=${5:-} deadline=$((SECONDS + $3)) have
	while :; do
		have=$(live_lines "$file")
		[ "$have" -ge "$want" ] && return 0
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			have=$(live_lines "$file") # its last lines, written as it ended
			[ "$have" -ge "$want" ] && return 0
			fail "$what: its writer (pid $pid) ended with $have of $want lines in $file"
		fi
		[ $SECONDS -lt $deadline ] || fail "$what: $have of $want lines in $file after $secs s"
		sleep 0.1
	done
}

live_batch() {
	local out=$1 err=$2
	shift 2
	# (timeout: a net under a test that dies unseen; --preserve-status: SIGTERM's exit status)
	timeout --preserve-status 600 "$XIOTOP_BIN" -b -d 1 --format json "$@" >"$out" 2>"$err" &
	live_batch_pid=$!
	( live_wait_lines "$out" 1 60 "xiotop's first interval" "$live_batch_pid" ) ||
		fail "xiotop -b did not start; it said: $(tail -3 "$err")"
}

live_batch_end() {
	local out=$1 rc=0
	live_wait_lines "$out" $(($(live_lines "$out") + 2)) 30 "xiotop's interval after the work" \
		"$live_batch_pid"
	kill -TERM "$live_batch_pid"
	wait "$live_batch_pid" || rc=$?
	live_batch_pid=
	[ $rc -eq 0 ] || fail "xiotop -b ($out) exited $rc on SIGTERM"
}

check() {
	if [ "$1" -eq 0 ]; then
		echo "ok   $2"
	else
		echo "FAIL $2"
		fails=$((fails + 1))
	fi
}

fail() {
	echo "FAIL: $*"
	exit 1
}

live_finish() {
	echo "$1: $fails failure(s)"
	[ "$fails" -eq 0 ] || exit 1
	exit 0
}
