#!/usr/bin/env bash
# The systemd units of dist/ stay hardened (issue "Safe to leave on"): systemd-analyze
# security --offline rates each at 3.0 or below, and each unit's ExecStart passes --user
# (the drop after attaching). And they stop where a restart cannot mend (issue 45): each
# has RestartPreventExitStatus=2 and a start limit, and 2 is what its ExecStart exits with
# for what no restart mends (an option it does not take, a user that does not exist, the
# settings of /etc/default gone wrong), as XIOTOP_BIN (when given) shows. No root, no
# systemd as PID 1 needed.
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
	if grep -q '^RestartPreventExitStatus=2$' "$unit" && grep -q '^StartLimitBurst=[0-9]' "$unit" &&
		grep -q '^StartLimitIntervalSec=[0-9]' "$unit"; then
		echo "ok   $name: exit 2 stops it (RestartPreventExitStatus=2), starts limited"
	else
		echo "FAIL $name: no RestartPreventExitStatus=2 or no start limit"
		bad=1
	fi
	[ -n "${XIOTOP_BIN:-}" ] || continue
	# the unit's command line with settings a restart cannot mend: an option it does not
	# take, a user that does not exist; each exits 2 before it loads anything
	line=$(sed -n 's/^ExecStart=//p' "$unit")
	for setting in "XIOTOP_OPTS=--no-such-option" "XIOTOP_USER=no-such-user-xiotop"; do
		cmd=$(env XIOTOP_DIR=/nonexistent XIOTOP_INTERVAL=1 XIOTOP_PERIOD=1d XIOTOP_RETAIN=14d \
			XIOTOP_RETAIN_SIZE=2G XIOTOP_USER=nobody XIOTOP_LISTEN=127.0.0.1:0 "$setting" \
			bash -c "echo \"$line\"" | sed "s|^/usr/sbin/xiotop|$XIOTOP_BIN|")
		# shellcheck disable=SC2086 # the unit's command line, split as systemd does
		$cmd >/dev/null 2>&1
		rc=$?
		if [ $rc -eq 2 ]; then
			echo "ok   $name with $setting: exit 2, not restarted"
		else
			echo "FAIL $name with $setting: exit $rc, not 2 (it would restart forever)"
			bad=1
		fi
	done
done
exit $bad
