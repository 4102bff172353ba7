#!/usr/bin/env bash
# test_unprivileged.sh - what a user without root meets first: each live command says that
# live tracing needs root, as its first and only line, and exits 2; it does not speak of
# Xen or the topology source first (it did: "Xen not available: xenstat_init failed"
# came before "live tracing needs root"). Run as root, the commands run as nobody
# (setpriv); run unprivileged, as they are.
set -uo pipefail
bin=${XIOTOP_BIN:?XIOTOP_BIN: the xiotop binary}
as_user=()
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || { echo "SKIPPED: setpriv (util-linux) is not installed"; exit 77; }
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/xiotop-unpriv.XXXXXX")
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
fail=0
want="xiotop: live tracing needs root (CAP_BPF and CAP_PERFMON)"
check() { # NAME COMMAND...
	local name=$1
	shift
	(cd "$work" && timeout 30 "${as_user[@]}" "$bin" "$@" >"$work/$name.out" 2>"$work/$name.err" </dev/null)
	local rc=$?
	local lines
	lines=$(cat "$work/$name.err")
	if [ "$rc" -ne 2 ] || [ "$lines" != "$want" ]; then
		echo "FAIL: $name: exit $rc, want 2 and the one line '$want'; stderr:"
		sed 's/^/  /' "$work/$name.err"
		fail=1
	else
		echo "ok: $name: exit 2, '$want' alone"
	fi
}
check batch -b -i 1
check console -i 1
check record record -o "$work/rec.xiotop" --duration 1
check serve serve --listen 127.0.0.1:39717
check topology_dump -b -i 1 --xenstore-dump /nonexistent
exit "$fail"
