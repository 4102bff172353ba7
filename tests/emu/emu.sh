#!/usr/bin/env bash
# emu.sh: a private, clean emulated dom0 world for live tests and the demo.
#
#   emu.sh up DIR [--dio on|off] [--size-mib S]   build it (runs `down DIR` first if DIR has an env)
#   emu.sh down DIR                                tear it down (writers, partition, loops, zram, DIR)
#
# The world: a zram device with ext4 on it mounted at DIR/hostfs (the "physical" leaf of dom0);
# guest1 = loop device on DIR/hostfs/dom1.img; guest2 = partition 1 (added by hand) of a loop
# device on DIR/hostfs/dom2.img; guest3 = a bare zram device (the stand-in for an LV). It writes
# DIR/xenstore.dump (`xenstore-ls -f` form) and DIR/env (shell-sourceable; see README.md).
# Only devices recorded in DIR/env are ever touched by `down`.
set -euo pipefail

PROG=emu.sh
ZRAM_CTL=/sys/class/zram-control
DEVID=51712 # xvda: (202 << 8) | 0

say() { echo "$PROG: $*" >&2; }
die() {
	say "$*"
	exit 1
}
need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		say "must run as root (it creates loop and zram devices and mounts a file system)"
		exit 2
	fi
}
usage() {
	cat >&2 <<-EOF
		usage: $PROG up DIR [--dio on|off] [--size-mib S]
		       $PROG down DIR
	EOF
	exit 1
}

# Refuse directories whose removal would be a disaster.
check_dir() {
	case "$1" in
	"" | / | /tmp | /root | /home | /usr | /etc | /var | /dev | /proc | /sys | /boot)
		die "refusing to use '$1' as the world directory"
		;;
	esac
}

env_add() { # KEY VALUE: append to DIR/env (later lines win when sourced)
	printf '%s=%q\n' "$1" "$2" >>"$DIR/env"
}

# "maj:min" (decimal, from sysfs) -> lowercase hex "maj:min" as the hotplug script writes it
hexdev() {
	local mm=$1
	printf '%x:%x' "${mm%%:*}" "${mm##*:}"
}

# A block device node for sysfs device NAME whose maj:min is MM: /dev/NAME if it is a block
# device with that number (devtmpfs), else one made under DIR/dev. Prints the path.
devnode() {
	local name=$1 mm=$2 want
	want=$(printf '%x:%x' "${mm%%:*}" "${mm##*:}")
	for _ in $(seq 1 20); do
		if [ -b "/dev/$name" ] && [ "$(stat -c '%t:%T' "/dev/$name")" = "$want" ]; then
			echo "/dev/$name"
			return 0
		fi
		sleep 0.05
	done
	mknod "$DIR/dev/$name" b "${mm%%:*}" "${mm##*:}"
	[ -b "$DIR/dev/$name" ] || die "$DIR/dev/$name is not a block device"
	echo "$DIR/dev/$name"
}

wait_file() { # PATH: wait up to 2 s for a sysfs file to appear
	for _ in $(seq 1 40); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# A partition added by hand outlives `losetup -d`; the next user of that loop device then fails
# with EBUSY. Remove partitions of loop devices that are not attached (stale by definition).
clear_stale_partitions() {
	local p loop partno
	for p in /sys/block/loop*/loop*p*; do
		[ -e "$p/partition" ] || continue
		loop=$(basename "$(dirname "$p")")
		[ -e "/sys/block/$loop/loop/backing_file" ] && continue
		partno=$(cat "$p/partition")
		say "removing stale partition $(basename "$p") of detached $loop"
		delpart "/dev/$loop" "$partno" || say "warning: delpart /dev/$loop $partno failed"
	done
}

zram_add() { # hot-add a zram device; prints its number
	cat "$ZRAM_CTL/hot_add"
}

# ---------------------------------------------------------------------------------------------
# up

UP_BUILDING=0
up_on_exit() { # EXIT trap while building: any failure (set -e, die, signal) tears down
	local rc=$?
	[ "$UP_BUILDING" = 1 ] || return 0
	[ "$rc" -ne 0 ] || return 0
	trap - EXIT
	set +e
	say "up failed (status $rc); tearing down what was built in $DIR"
	cmd_down "$DIR"
	exit "$rc"
}

cmd_up() {
	[ $# -ge 1 ] || usage
	DIR=$1
	shift
	local dio=off size=320
	while [ $# -gt 0 ]; do
		case "$1" in
		--dio)
			dio=${2:?--dio needs on or off}
			shift 2
			;;
		--dio=*)
			dio=${1#--dio=}
			shift
			;;
		--size-mib)
			size=${2:?--size-mib needs a number}
			shift 2
			;;
		--size-mib=*)
			size=${1#--size-mib=}
			shift
			;;
		*) usage ;;
		esac
	done
	case "$dio" in on | off) ;; *) die "--dio must be on or off" ;; esac
	if ! [[ "$size" =~ ^[0-9]+$ ]] || [ "$size" -lt 16 ]; then
		die "--size-mib must be a number >= 16"
	fi
	need_root
	local t
	for t in losetup mkfs.ext4 addpart delpart mknod mount umount mountpoint fallocate; do
		command -v "$t" >/dev/null || die "missing tool: $t"
	done
	[ -w "$ZRAM_CTL/hot_add" ] || die "no $ZRAM_CTL (zram not available: modprobe zram?)"
	DIR=$(realpath -m "$DIR")
	check_dir "$DIR"

	if [ -f "$DIR/env" ]; then
		say "$DIR holds a previous world: tearing it down first"
		cmd_down "$DIR" || die "could not tear down the previous world in $DIR"
	elif [ -e "$DIR" ]; then
		if mountpoint -q "$DIR/hostfs" 2>/dev/null; then
			die "$DIR/hostfs is mounted but $DIR/env is missing: not mine, refusing"
		fi
		rm -rf --one-file-system "$DIR"
	fi
	clear_stale_partitions

	mkdir -p "$DIR/hostfs" "$DIR/dev" "$DIR/pids" "$DIR/logs"
	: >"$DIR/env"
	UP_BUILDING=1
	trap up_on_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	env_add EMU_DIR "$DIR"
	env_add DIO "$dio"
	env_add SIZE_MIB "$size"

	# (a) the host leaf: zram + ext4, mounted at DIR/hostfs
	local hz hzdev hostfs="$DIR/hostfs"
	hz=$(zram_add)
	env_add HOST_ZRAM "zram$hz"
	env_add HOST_ZRAM_BYTES "$(((3 * size + 256) * 1048576))"
	echo "$((3 * size + 256))M" >"/sys/block/zram$hz/disksize"
	hzdev=$(devnode "zram$hz" "$(cat "/sys/block/zram$hz/dev")")
	# no lazy init: ext4lazyinit would write inode tables during the tests
	mkfs.ext4 -q -F -L xiotop-hostfs -E lazy_itable_init=0,lazy_journal_init=0 "$hzdev"
	mount -o noatime "$hzdev" "$hostfs"
	env_add HOSTFS "$hostfs"
	env_add HOST_DEV "$hzdev"

	# (b) guest1: a file on a loop device
	local img1="$hostfs/dom1.img" img2="$hostfs/dom2.img" l1 l2
	fallocate -l "${size}M" "$img1"
	l1=$(losetup -f --show --direct-io="$dio" "$img1")
	l1=${l1#/dev/}
	env_add DOM1_LOOP "$l1"
	env_add DOM1_IMG "$img1"
	check_dio "$l1" "$dio"

	# (c) guest2: partition 1 of a loop device, added by hand
	fallocate -l "${size}M" "$img2"
	l2=$(losetup -f --show --direct-io="$dio" "$img2")
	l2=${l2#/dev/}
	env_add DOM2_LOOP "$l2"
	env_add DOM2_IMG "$img2"
	check_dio "$l2" "$dio"
	local part="${l2}p1" psectors=$((size * 2048 - 2048)) pmm pdev
	env_add DOM2_PART "$part"
	addpart "/dev/$l2" 1 2048 "$psectors"
	wait_file "/sys/block/$l2/$part/dev" || die "partition $part did not appear in sysfs"
	pmm=$(cat "/sys/block/$l2/$part/dev")
	mknod "$DIR/dev/$part" b "${pmm%%:*}" "${pmm##*:}"
	[ -b "$DIR/dev/$part" ] || die "$DIR/dev/$part is not a block device"
	pdev="$DIR/dev/$part"

	# (d) guest3: a bare zram device (stand-in for an LVM LV; zram refuses partitions)
	local z3 z3dev
	z3=$(zram_add)
	env_add DOM3_ZRAM "zram$z3"
	env_add DOM3_ZRAM_BYTES "$((size * 1048576))"
	echo "${size}M" >"/sys/block/zram$z3/disksize"
	z3dev=$(devnode "zram$z3" "$(cat "/sys/block/zram$z3/dev")")

	env_add DOM1_DEV "/dev/$l1"
	env_add DOM2_DEV "$pdev"
	env_add DOM3_DEV "$z3dev"
	env_add XENSTORE_DUMP "$DIR/xenstore.dump"

	write_xenstore "$DIR/xenstore.dump" \
		"$l1" "$img1" "$l2" "$part" "$pdev" "$img2" "zram$z3" "$z3dev" "$psectors"
	env_add EMU_READY 1
	UP_BUILDING=0
	trap - EXIT INT TERM HUP
	say "up: $DIR (dio $dio): guest1 /dev/$l1, guest2 $pdev, guest3 $z3dev; host leaf zram$hz"
}

check_dio() { # LOOP WANT: report if the loop device did not get the requested direct-io mode
	local got
	got=$(cat "/sys/block/$1/loop/dio" 2>/dev/null || echo '?')
	case "$2:$got" in
	on:1 | off:0) ;;
	*) die "$1: direct-io is '$got' but '$2' was requested" ;;
	esac
}

write_xenstore() {
	local out=$1 l1=$2 img1=$3 l2=$4 part=$5 pdev=$6 img2=$7 z3=$8 z3dev=$9 psectors=${10}
	local f
	f=$(mktemp "$DIR/.xenstore.XXXXXX")
	{
		node() { printf '%s = "%s"\n' "$1" "$2"; }
		# vbd DOMID PARAMS NODE PHYSDEV(sysfs dev file) PHYSPATH SECTORS LBS
		vbd() {
			local d=$1 be="/local/domain/0/backend/vbd/$1/$DEVID"
			node "/local/domain/0/backend/vbd/$d" ""
			node "$be" ""
			node "$be/frontend" "/local/domain/$d/device/vbd/$DEVID"
			node "$be/params" "$2"
			node "$be/script" "/etc/xen/scripts/block"
			node "$be/frontend-id" "$d"
			node "$be/online" "1"
			node "$be/removable" "0"
			node "$be/bootable" "1"
			node "$be/state" "4"
			node "$be/dev" "xvda"
			node "$be/type" "phy"
			node "$be/mode" "w"
			node "$be/device-type" "disk"
			node "$be/discard-enable" "0"
			if [ -n "$3" ]; then node "$be/node" "$3"; fi
			node "$be/physical-device" "$(hexdev "$(cat "$4")")"
			node "$be/physical-device-path" "$5"
			node "$be/hotplug-status" "connected"
			node "$be/feature-flush-cache" "1"
			node "$be/sectors" "$6"
			node "$be/sector-size" "$7"
			node "$be/info" "0"
		}
		guest() { # DOMID NAME
			local fe="/local/domain/$1/device/vbd/$DEVID"
			node "/local/domain/$1" ""
			node "/local/domain/$1/name" "$2"
			node "/local/domain/$1/domid" "$1"
			node "/local/domain/$1/device" ""
			node "/local/domain/$1/device/vbd" ""
			node "$fe" ""
			node "$fe/backend" "/local/domain/0/backend/vbd/$1/$DEVID"
			node "$fe/backend-id" "0"
			node "$fe/state" "4"
			node "$fe/virtual-device" "$DEVID"
			node "$fe/device-type" "disk"
		}
		lbs() { cat "/sys/block/$1/queue/logical_block_size"; }
		node "/local" ""
		node "/local/domain" ""
		node "/local/domain/0" ""
		node "/local/domain/0/name" "Domain-0"
		node "/local/domain/0/domid" "0"
		node "/local/domain/0/backend" ""
		node "/local/domain/0/backend/vbd" ""
		vbd 1 "$img1" "/dev/$l1" "/sys/block/$l1/dev" "/dev/$l1" \
			"$(cat "/sys/block/$l1/size")" "$(lbs "$l1")"
		vbd 2 "$img2" "/dev/$l2" "/sys/block/$l2/$part/dev" "$pdev" "$psectors" "$(lbs "$l2")"
		vbd 3 "$z3dev" "" "/sys/block/$z3/dev" "$z3dev" \
			"$(cat "/sys/block/$z3/size")" "$(lbs "$z3")"
		guest 1 guest1
		guest 2 guest2
		guest 3 guest3
	} >"$f"
	mv "$f" "$out"
}

# ---------------------------------------------------------------------------------------------
# down (in a subshell: the env it sources must not leak into `up`)

cmd_down() (
	set +e
	[ $# -ge 1 ] || usage
	need_root
	DIR=$(realpath -m "$1")
	check_dir "$DIR"
	errors=0
	err() {
		say "down: $*"
		errors=$((errors + 1))
	}

	if [ ! -f "$DIR/env" ]; then
		if [ ! -e "$DIR" ]; then
			say "down: $DIR does not exist: nothing to do"
			exit 0
		fi
		if mountpoint -q "$DIR/hostfs"; then
			err "$DIR/env is missing: not touching the file system mounted on $DIR/hostfs"
			exit 1
		fi
		rm -rf --one-file-system "$DIR" || err "rm -rf $DIR failed"
		exit $((errors > 0))
	fi
	# shellcheck source=/dev/null
	. "$DIR/env"
	HOSTFS=${HOSTFS:-$DIR/hostfs}

	# 1. writers started by demo (or tests) with a pid file in DIR/pids
	local_pids=()
	for f in "$DIR"/pids/*.pid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f" 2>/dev/null)
		[[ "$pid" =~ ^[0-9]+$ ]] || continue
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
		exe=${exe% (deleted)}
		case "$(basename "$exe")" in
		xiotop-emu) ;;
		*) continue ;; # gone, pid reused by something else: leave it alone
		esac
		kill -TERM "$pid" 2>/dev/null && local_pids+=("$pid")
	done
	if [ ${#local_pids[@]} -gt 0 ]; then
		for _ in $(seq 1 50); do
			alive=0
			for pid in "${local_pids[@]}"; do
				kill -0 "$pid" 2>/dev/null && alive=1
			done
			[ $alive -eq 0 ] && break
			sleep 0.1
		done
		for pid in "${local_pids[@]}"; do
			if kill -0 "$pid" 2>/dev/null; then
				say "down: writer $pid ignored SIGTERM: SIGKILL"
				kill -KILL "$pid" 2>/dev/null
			fi
		done
	fi

	# A loop device is ours if its backing file is our image, or it is no longer attached.
	loop_attached_to() { # LOOP IMG
		local bf
		bf=$(cat "/sys/block/$1/loop/backing_file" 2>/dev/null) || return 1
		bf=${bf% (deleted)}
		[ "$bf" = "$2" ]
	}
	loop_ours() { # LOOP IMG
		[ -e "/sys/block/$1" ] || return 1
		[ ! -e "/sys/block/$1/loop/backing_file" ] || loop_attached_to "$1" "$2"
	}
	retry() { # TRIES CMD...: retry a command that may fail while references drain
		local n=$1
		shift
		for _ in $(seq 1 "$n"); do
			"$@" 2>/dev/null && return 0
			sleep 0.2
		done
		"$@"
	}

	# 2. the partition on guest2's loop device (before detaching: it outlives losetup -d)
	if [ -n "${DOM2_LOOP:-}" ] && [ -n "${DOM2_PART:-}" ] &&
		[ -e "/sys/block/$DOM2_LOOP/$DOM2_PART/partition" ]; then
		if loop_ours "$DOM2_LOOP" "${DOM2_IMG:-$HOSTFS/dom2.img}"; then
			partno=$(cat "/sys/block/$DOM2_LOOP/$DOM2_PART/partition")
			retry 10 delpart "/dev/$DOM2_LOOP" "$partno" ||
				err "delpart /dev/$DOM2_LOOP $partno failed (partition still open?)"
		else
			err "$DOM2_LOOP is now attached to another file: leaving $DOM2_PART alone"
		fi
	fi

	# 3. loop devices
	for pair in "${DOM1_LOOP:-}:${DOM1_IMG:-$HOSTFS/dom1.img}" \
		"${DOM2_LOOP:-}:${DOM2_IMG:-$HOSTFS/dom2.img}"; do
		loop=${pair%%:*}
		img=${pair#*:}
		[ -n "$loop" ] || continue
		if loop_attached_to "$loop" "$img"; then
			losetup -d "/dev/$loop" || err "losetup -d /dev/$loop failed"
		elif [ -e "/sys/block/$loop/loop/backing_file" ]; then
			err "$loop is attached to another file now: not detaching it"
		fi
	done

	# 4. the host file system (the loop devices release their files asynchronously)
	if mountpoint -q "$HOSTFS"; then
		retry 25 umount "$HOSTFS" || err "umount $HOSTFS failed (still in use?)"
	fi

	# 5. zram devices (guest3's, then the host leaf once unmounted)
	zram_remove() { # NAME RECORDED_BYTES
		local id=${1#zram} ds
		[ -e "/sys/block/$1" ] || return 0
		ds=$(cat "/sys/block/$1/disksize")
		if [ "$ds" != "0" ] && [ -n "$2" ] && [ "$ds" != "$2" ]; then
			err "$1 has disksize $ds, not the recorded $2: not mine, leaving it"
			return 0
		fi
		if ! echo "$id" >"$ZRAM_CTL/hot_remove" 2>/dev/null; then
			echo 1 >"/sys/block/$1/reset" 2>/dev/null
			retry 10 eval "echo $id >$ZRAM_CTL/hot_remove" ||
				err "zram hot_remove $id failed (device busy?)"
		fi
	}
	[ -n "${DOM3_ZRAM:-}" ] && zram_remove "$DOM3_ZRAM" "${DOM3_ZRAM_BYTES:-}"
	if [ -n "${HOST_ZRAM:-}" ]; then
		if mountpoint -q "$HOSTFS"; then
			err "$HOSTFS still mounted: leaving $HOST_ZRAM"
		else
			zram_remove "$HOST_ZRAM" "${HOST_ZRAM_BYTES:-}"
		fi
	fi

	# 6. the directory (never across a still-mounted file system)
	if mountpoint -q "$HOSTFS"; then
		err "not removing $DIR: $HOSTFS is still mounted"
	else
		rm -rf --one-file-system "$DIR" || err "rm -rf $DIR failed"
	fi
	if [ $errors -gt 0 ]; then
		say "down: $DIR: $errors error(s), see above"
		exit 1
	fi
	say "down: $DIR removed"
	exit 0
)

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
up) cmd_up "$@" ;;
down) cmd_down "$@" ;;
-h | --help | help) usage ;;
*) usage ;;
esac
