#!/usr/bin/env bash
# with_load.sh COMMAND...: COMMAND with a realistic dom0 background load beside it for its
# whole run (`make test-load`: the suite under load; docs/testing.md). The load is
# tests/load/dom0_load.py: a build, a buffered writer, an O_DIRECT reader, none of them on
# the emulated worlds' devices or named like a backend. It starts first, COMMAND runs, the
# load stops and says what it did.
# Exit: COMMAND's status when the load ran beside all of it; 1 when the load failed to
# start or a part of it died meanwhile (that run was not under load); 2 on bad use.
# Needs root (the reader opens a disk). XIOTOP_LOAD_DIR: where the load works (default
# /var/tmp: a directory on a disk that is not zram or loop); XIOTOP_LOAD_WRITE_MIB_S and
# XIOTOP_LOAD_READ_MIB_S: the writer's and the reader's rates (dom0_load.py).
set -euo pipefail
if [ $# -eq 0 ]; then
	echo "usage: with_load.sh COMMAND..." >&2
	exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "with_load.sh: the load reads a disk (O_DIRECT): run as root" >&2
	exit 2
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d -p "${XIOTOP_LOAD_DIR:-/var/tmp}" xiotop-load.XXXXXX)
# a session of its own (setsid does not fork here: a background job of a non-interactive
# shell leads no group), so that its build's compilers are stopped with it
setsid python3 "$src/tests/load/dom0_load.py" "$dir" "$src" >"$dir/load.out" 2>&1 &
load=$!
stopped=""
stop_load() { # -> the load's status; what it said, on stdout
	local rc=0
	if [ -z "$stopped" ]; then
		kill -TERM "$load" 2>/dev/null || true
		wait "$load" || rc=$?
		kill -KILL -- "-$load" 2>/dev/null || true # anything of it left behind
		stopped=$rc
	fi
	sed 's/^/  /' "$dir/load.out"
	return "$stopped"
}
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	stop_load >/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# its first line once every part has begun its work (the build configured), or its end
until grep -qs '^load: ' "$dir/load.out" || ! kill -0 "$load" 2>/dev/null; do sleep 0.2; done
if ! grep -qs '^load: ' "$dir/load.out"; then
	echo "FAIL load: it did not start:"
	stop_load || true
	exit 1
fi
echo "with_load.sh: $(head -1 "$dir/load.out")"
start=$SECONDS
rc=0
"$@" || rc=$?
echo "with_load.sh: the command ended ($rc) after $((SECONDS - start)) s; the load:"
if ! stop_load; then
	echo "FAIL load: a part of it failed or ended early: the run was not all under load"
	exit 1
fi
exit $rc
