# shellcheck shell=bash
# A unit's sandbox as far as it can be emulated without systemd (systemd is not PID 1 on
# the machines this suite runs on), for the live tests that run a unit's own ExecStart:
#  - CapabilityBoundingSet: the unit's list becomes the bounding set, nothing inheritable
#    or ambient (setpriv), so root holds exactly those capabilities, as under systemd;
#  - NoNewPrivileges (setpriv --no-new-privs);
#  - ProtectSystem=strict: a private mount namespace where every mount is read-only but
#    /dev, /proc, /sys and the writable paths given (ReadWritePaths=, RuntimeDirectory=);
#    the namespace checks that / is indeed read-only before it runs the command.
# Not emulated: the system call filter, address families, ProtectHome, PrivateTmp (the
# test's work dir is in /tmp), device policy, the other Protect*= settings.
# The command keeps its pid (unshare, sh and setpriv each exec the next).

# The unit's capability list as setpriv takes it: -all,+bpf,+perfmon,...
unit_capabilities() { # UNIT
	local caps
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$1" | tr ' ' '\n' | grep . |
		sed 's/^CAP_/+/' | tr '[:upper:]' '[:lower:]' | paste -sd, -)
	echo "-all${caps:+,$caps}"
}

# Runs COMMAND (exec) in UNIT's emulated sandbox with DIRs writable.
unit_sandboxed() { # UNIT DIR... -- COMMAND ARGS...
	local unit=$1 caps
	shift
	caps=$(unit_capabilities "$unit")
	local rw=()
	while [ "$1" != -- ]; do
		mkdir -p "$1"
		rw+=("$1")
		shift
	done
	shift
	# shellcheck disable=SC2016 # the script is for the inner shell
	exec unshare -m sh -c '
		set -e
		caps=$1
		shift
		awk "{print \$5}" /proc/self/mountinfo | while read -r m; do
			case $m in /dev | /dev/* | /proc | /proc/* | /sys | /sys/*) continue ;; esac
			mount -o remount,bind,ro "$m" 2>/dev/null || true
		done
		while [ "$1" != -- ]; do
			mount --bind "$1" "$1"
			mount -o remount,bind,rw "$1"
			shift
		done
		shift
		if touch /.xiotop-sandbox-probe 2>/dev/null; then
			rm -f /.xiotop-sandbox-probe
			echo "sandbox: / is still writable" >&2
			exit 125
		fi
		exec setpriv --no-new-privs --inh-caps=-all --ambient-caps=-all \
			--bounding-set="$caps" "$@"' sandbox "$caps" "${rw[@]}" -- "$@"
}
