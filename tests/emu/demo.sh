#!/usr/bin/env bash
# demo.sh BUILD_DIR: an emulated dom0 with three busy guests, watched by xiotop.
#
# Builds a private world (tests/emu/emu.sh up) in a temporary directory, starts three emulated
# blkback writers with different workloads, runs the xiotop console (`-d 1`) over the world's xenstore dump
# in the foreground until Ctrl-C, then stops the writers and tears the world down.
# Environment: XIOTOP_BIN / XIOTOP_EMU override the binaries; DEMO_DIO=on|off (loop direct-io,
# default off); DEMO_SIZE_MIB (default 320).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "demo: $*" >&2; }

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 1
fi
BUILD_DIR=$1
if [ "$(id -u)" -ne 0 ]; then
	say "needs root (it creates loop and zram devices and traces the kernel): run 'sudo make demo'"
	exit 2
fi
EMU=${XIOTOP_EMU:-$BUILD_DIR/xiotop-emu}
XIOTOP=${XIOTOP_BIN:-$BUILD_DIR/xiotop}

TMP=""
WORLD=""
cleaned=0
cleanup() {
	local rc=$?
	[ "$cleaned" = 1 ] && return
	cleaned=1
	set +e # the terminal may be gone (HUP): a failed message must not stop the teardown
	trap '' INT TERM HUP # a second Ctrl-C must not interrupt the teardown
	if [ -n "$WORLD" ] && [ -d "$WORLD" ]; then
		say "stopping writers, tearing down $WORLD"
		local f pid
		for f in "$WORLD"/pids/*.pid; do
			[ -f "$f" ] || continue
			pid=$(cat "$f")
			kill -TERM "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true # our child: returns once it has exited
		done
		for f in "$WORLD"/logs/*.out; do
			[ -f "$f" ] || continue
			sed -n '2,$s/^/  /p' "$f" >&2 # the writers' JSON summaries
		done
		"$HERE/emu.sh" down "$WORLD" || say "teardown reported errors (see above)"
	fi
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		rm -rf --one-file-system "$TMP"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP # a closed terminal tears down too

for b in "$EMU" "$XIOTOP"; do
	if [ ! -x "$b" ] && ! command -v "$b" >/dev/null; then
		say "$b not found or not executable: build first ('make build')"
		exit 1
	fi
done

TMP=$(mktemp -d /tmp/xiotop-demo.XXXXXX)
WORLD=$TMP/world
"$HERE/emu.sh" up "$WORLD" --dio "${DEMO_DIO:-off}" --size-mib "${DEMO_SIZE_MIB:-320}"
# shellcheck source=/dev/null
. "$WORLD/env"

start_writer() { # NAME ARGS...: an emulated blkback in the background, pid file for `down`
	local name=$1
	shift
	"$EMU" blkback "$@" >"$WORLD/logs/$name.out" 2>"$WORLD/logs/$name.err" &
	echo $! >"$WORLD/pids/$name.pid"
}
# guest1 (file on loop): sequential 1 MiB writes, ~40 MiB/s
start_writer dom1 --domid 1 --target "$DOM1_DEV" --write-mib 256 --bs 1M --pattern seq \
	--repeat --rate-mib-s 40
# guest2 (partition of a loop device): random 64 KiB writes and reads, ~12 MiB/s
start_writer dom2 --domid 2 --target "$DOM2_DEV" --write-mib 128 --read-mib 64 --bs 64K \
	--pattern rand --repeat --rate-mib-s 12
# guest3 (zram, the "LV"): a 96 MiB burst at ~200 MiB/s every ~4 s
start_writer dom3 --domid 3 --target "$DOM3_DEV" --write-mib 64 --read-mib 32 --bs 256K \
	--pattern seq --repeat --rate-mib-s 200 --pause 4

# each writer prints "tid=... pid=..." once its thread is named; a writer that died says why
for name in dom1 dom2 dom3; do
	for _ in $(seq 1 50); do
		grep -q '^tid=' "$WORLD/logs/$name.out" 2>/dev/null && break
		kill -0 "$(cat "$WORLD/pids/$name.pid")" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '^tid=' "$WORLD/logs/$name.out" 2>/dev/null; then
		say "writer $name did not start:"
		cat "$WORLD/logs/$name.err" >&2
		exit 1
	fi
done
say "guest1 $DOM1_DEV (loop, dio $DIO), guest2 $DOM2_DEV (partition), guest3 $DOM3_DEV (zram)"
say "host leaf: $HOST_ZRAM mounted on $HOSTFS; Ctrl-C to stop"

# the console when a terminal is attached, batch text otherwise (e.g. piped, or in CI)
if [ -t 1 ]; then
	"$XIOTOP" -d 1 --xenstore-dump "$WORLD/xenstore.dump"
else
	"$XIOTOP" -b -d 1 --xenstore-dump "$WORLD/xenstore.dump"
fi
