#!/usr/bin/env bash
# The systemd units of dist/ stay hardened (issue "Safe to leave on"): systemd-analyze
# security --offline rates each at 3.0 or below, and each unit's ExecStart passes --user
# (the drop after attaching). No root, no systemd as PID 1 needed.
# Exit 77 (skipped) without systemd-analyze.
set -uo pipefail
: "${XIOTOP_SRC:?}"
limit=3.0
if ! command -v systemd-analyze >/dev/null; then
	echo "SKIPPED: no systemd-analyze (scripts/install-deps.sh installs systemd)"
	exit 77
fi
bad=0
for unit in "$XIOTOP_SRC"/dist/*.service; do
	out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
	score=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' <<<"$out")
	name=$(basename "$unit")
	if [ -z "$score" ]; then
		echo "FAIL $name: no score from systemd-analyze:"
		printf '%s\n' "$out" | tail -5
		bad=1
	elif awk -v s="$score" -v l="$limit" 'BEGIN { exit !(s > l) }'; then
		echo "FAIL $name: exposure $score, above $limit:"
		grep '✗' <<<"$out"
		bad=1
	else
		echo "ok   $name: exposure $score (limit $limit)"
	fi
	if ! grep -q '^ExecStart=.* --user ' "$unit"; then
		echo "FAIL $name: ExecStart does not drop to a user (--user)"
		bad=1
	fi
done
exit $bad
