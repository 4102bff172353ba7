# shellcheck shell=bash
# stacks.sh - sourced by scenarios.sh (uses its mark, cfg, create, wait_done, destroy and
# $R): the storage stacks of the user stories' hosts, after the other phases, with the
# batch xiotop still watching.
# Phase R: md RAID1 (two zram members) and RAID10 (four) as the "physical volume", a dm
# linear "LV" on each (what lvcreate makes), a guest per LV, and a file-backed guest
# beside them; the console is driven through tmux meanwhile (console_session).
# Phase RD: the RAID1 degraded (a member failed and removed), a guest writing on it.
# Phase RS: the member added back: md's recovery rewrites it from its own thread while
# a guest writes.
# Each phase writes the kernel's own counts before and after to snapshots.txt (STACK,
# SVBD, DISKSTAT, VMSTAT lines, the wall clock with each) for check_stacks.py.

# stack_counts TAG: every md, dm and zram line of /proc/diskstats and vmstat's
# pgpgin/pgpgout (KiB), the wall clock first
stack_counts() {
	local now
	now=$EPOCHREALTIME
	awk -v t="$1" -v now="$now" '$3 ~ /^(md|dm-|zram|ram|loop)[0-9]/ {print "DISKSTAT", t, now, $0}' \
		/proc/diskstats >>"$R"/snapshots.txt
	awk -v t="$1" -v now="$now" '$1 == "pgpgin" {i = $2} $1 == "pgpgout" {o = $2}
		END {print "VMSTAT", t, now, i, o}' /proc/vmstat >>"$R"/snapshots.txt
}

# stack_vbds TAG NAME...: blkback's statistics of each guest (sectors, requests)
stack_vbds() {
	local tag=$1 n d v
	shift
	for n in "$@"; do
		d=$(xl domid "$n" 2>/dev/null) || continue
		for v in /sys/bus/xen-backend/devices/vbd-"$d"-*; do
			[ -d "$v/statistics" ] || continue
			echo "SVBD $tag $n $d $(cat "$v/statistics/rd_sect") $(cat "$v/statistics/wr_sect")" \
				"$(cat "$v/statistics/rd_req") $(cat "$v/statistics/wr_req")" >>"$R"/snapshots.txt
		done
	done
}

# md_node NAME: the md device node (no udev here: made from sysfs when mdadm did not)
md_node() {
	local mm
	[ -b "/dev/$1" ] && return 0
	mm=$(cat "/sys/block/$1/dev" 2>/dev/null) || return 1
	mknod "/dev/$1" b "${mm%:*}" "${mm#*:}"
}

# lv NAME DEV SECTORS: a dm linear over the first SECTORS of DEV, as /dev/mapper/NAME
lv() {
	dmsetup create "$1" --noudevsync --table "0 $3 linear $2 0" || { mark "dmsetup $1 FAILED"; return 1; }
	dmsetup mknodes "$1"
	[ -b "/dev/mapper/$1" ] && return 0
	mkdir -p /dev/mapper
	# shellcheck disable=SC2046 # major and minor: two words, split on purpose
	mknod "/dev/mapper/$1" b $(dmsetup info -c --noheadings -o major,minor --separator ' ' "$1")
}

stacks_setup() {
	command -v mdadm >/dev/null || { echo "STACK-FAILED mdadm is not in this dom0" >>"$R"/snapshots.txt; return 1; }
	if ! modprobe zram num_devices=6 || ! modprobe raid1 || ! modprobe raid10; then
		echo "STACK-FAILED modprobe zram/raid1/raid10 failed" >>"$R"/snapshots.txt
		return 1
	fi
	local i
	for i in 0 1 2 3 4 5; do echo 64M >/sys/block/zram$i/disksize; done
	# no write-intent bitmap (mdadm adds none below 100 GB): md's own writes are its
	# superblock's; --assume-clean: no initial resync, phase RS starts one on purpose
	if ! mdadm --create /dev/md0 --run --metadata=1.2 --level=1 --raid-devices=2 --assume-clean \
		--bitmap=none /dev/zram0 /dev/zram1 >"$R"/mdadm-create.log 2>&1 ||
		! mdadm --create /dev/md1 --run --metadata=1.2 --level=10 --raid-devices=4 --assume-clean \
			--bitmap=none /dev/zram2 /dev/zram3 /dev/zram4 /dev/zram5 >>"$R"/mdadm-create.log 2>&1; then
		echo "STACK-FAILED mdadm --create: $(tail -1 "$R"/mdadm-create.log)" >>"$R"/snapshots.txt
		return 1
	fi
	md_node md0 && md_node md1
	# 48 MiB "LVs" (98304 sectors), one per array
	lv xvg-r1 /dev/md0 98304 && lv xvg-r10 /dev/md1 98304 || return 1
	truncate -s 64M /mnt/ext/rfile.img
	losetup --direct-io=on /dev/loop4 /mnt/ext/rfile.img
	cat /proc/mdstat >"$R"/mdstat-R.txt
	{ dmsetup table; ls -l /dev/mapper; } >"$R"/dmsetup-stacks.txt
	# the resync of phase RS must not be held to md's idle minimum while a guest writes
	echo 200000 >/proc/sys/dev/raid/speed_limit_min
	echo 400000 >/proc/sys/dev/raid/speed_limit_max
}

# settle TAG NAME...: the guests done, their writes on the members, then the counts
settle() {
	local tag=$1
	shift
	sync
	sleep 1.5 # md marks the array clean 200 ms after its last write (a superblock write)
	stack_vbds "$tag" "$@"
	stack_counts "$tag-end"
	xiotop_past "settle $tag" # (scenarios.sh) its next interval holds the last of it
}

stacks_phase_r() {
	# 16 MiB written 10 times over (160 MiB each) in 256 KiB requests, file-r 30 times: the
	# console drills into raid1 while all write, then into file-r while it still does
	XARGS="xbs=256 xloops=10" cfg raid1 /dev/mapper/xvg-r1 16 8
	XARGS="xbs=256 xloops=10" cfg raid10 /dev/mapper/xvg-r10 16 8
	XARGS="xbs=256 xloops=30" cfg file-r /dev/loop4 16 8
	# the console first: it starts slowly under TCG while guests boot, and keys typed
	# before it reads the terminal would go to the shell
	console_start
	for n in raid1 raid10 file-r; do create $n >/dev/null || return 1; done
	# while they are paused: the rows, a filter and the drill-down into raid1, so that the
	# drill-down is on screen when the writes come (under TCG with three guests writing,
	# a key took 26 s to show: typed after the unpause it came after the writes)
	console_prepare
	stack_counts R-start
	mark "phase R: unpause"
	for n in raid1 raid10 file-r; do xl unpause $n; done
	console_drive &
	local cs=$!
	xiotop topology --format json >"$R"/topology-R.json 2>"$R"/topology-R.err
	# file-r's 480 MiB through loop, ext4 and a ram disk took over 60 s while the host
	# was loaded (a round read its counts at 311.5 MiB, and failed on a run still writing)
	WAIT_S=240 wait_done raid1 raid10 file-r
	mark "phase R: guests done"
	settle R raid1 raid10 file-r
	wait $cs
	destroy raid1 raid10 file-r
}

stacks_phase_rd() {
	mdadm /dev/md0 --fail /dev/zram1 --remove /dev/zram1 >"$R"/mdadm-rd.log 2>&1 ||
		{ echo "STACK-FAILED mdadm --fail/--remove: $(tail -1 "$R"/mdadm-rd.log)" >>"$R"/snapshots.txt; return 1; }
	cat /proc/mdstat >"$R"/mdstat-RD.txt
	XARGS=xbs=256 cfg raid1-deg /dev/mapper/xvg-r1 16 4
	create raid1-deg >/dev/null || return 1
	sleep 1
	stack_counts RD-start
	mark "phase RD: unpause"
	xl unpause raid1-deg
	wait_done raid1-deg
	settle RD raid1-deg
	destroy raid1-deg
}

stacks_phase_rs() {
	XARGS=xbs=256 cfg raid1-rs /dev/mapper/xvg-r1 16 4
	create raid1-rs >/dev/null || return 1
	mdadm --zero-superblock /dev/zram1
	sleep 1
	stack_counts RS-start
	mark "phase RS: add the member back, unpause"
	# a fresh member: md recovers all of it (no bitmap), from its own md0_resync thread
	mdadm /dev/md0 --add /dev/zram1 >"$R"/mdadm-rs.log 2>&1 ||
		echo "STACK-FAILED mdadm --add: $(tail -1 "$R"/mdadm-rs.log)" >>"$R"/snapshots.txt
	xl unpause raid1-rs
	cat /proc/mdstat >"$R"/mdstat-RS.txt
	local end=$(($(date +%s) + 60))
	while [ "$(cat /sys/block/md0/md/sync_action)" != idle ] && [ "$(date +%s)" -lt $end ]; do
		sleep 0.5
	done
	echo "MDSYNC RS $(cat /sys/block/md0/md/sync_action) $(cat /sys/block/md0/md/component_size)" \
		"$(cat /sys/block/md0/md/degraded)" >>"$R"/snapshots.txt
	cat /proc/mdstat >>"$R"/mdstat-RS.txt
	wait_done raid1-rs
	mark "phase RS: guest done, recovery $(cat /sys/block/md0/md/sync_action)"
	settle RS raid1-rs
	destroy raid1-rs
}

# The console as an administrator uses it, in tmux, each screen kept for check_stacks.py
# (adm-NN-WHAT.txt, and .mode: tmux's alternate-screen and cursor flags, the width):
# sort, reverse, filter to the RAID1 guest and drill into its layers, the same for the
# file-backed one, a mark, help, a resize to 60 columns, quit.
adm_step=0
# adm_shot WHAT: the screen now
adm_shot() {
	adm_step=$((adm_step + 1))
	local f
	f=$R/adm-$(printf %02d $adm_step)-$1
	tmux -u capture-pane -p -t adm >"$f.txt" 2>>"$R"/tmux.err
	tmux display -p -t adm "#{alternate_on} #{cursor_flag} #{pane_width}" >"$f.mode" 2>>"$R"/tmux.err
}
# adm_await WHAT SECONDS REGEX: the screen once a line matches REGEX (else at the timeout)
adm_await() {
	local end=$(($(date +%s) + $2))
	local screen
	# each poll's wall time and the screen's first line (its clock): how late a key shows
	while screen=$(tmux -u capture-pane -p -t adm 2>/dev/null) && ! grep -qE "$3" <<<"$screen"; do
		echo "$EPOCHREALTIME $1 $(head -1 <<<"$screen")" >>"$R"/adm-polls.log
		case $1 in drill-*) grep -E "leaf|backend|stacked|^guest " <<<"$screen" >>"$R"/adm-polls.log ;; esac
		[ "$(date +%s)" -lt $end ] || { mark "console: no \"$3\" on the screen in $2 s ($1)"; break; }
		sleep 0.3
	done
	adm_shot "$1"
}
adm_keys() { tmux send-keys -t adm "$@" 2>>"$R"/tmux.err; }

console_start() {
	export LC_ALL=C.UTF-8
	tmux -u new-session -d -s adm -x 120 -y 32 \
		"xiotop -d 1 2>>$R/adm.err; echo \"xiotop console exit \$?\" >>$R/adm.err; sleep 3600" 2>>"$R"/tmux.err
	adm_await ready 90 "^Domain-0 +0 "
}

console_prepare() {
	adm_await start 90 "^file-r "
	adm_keys f r a i d 1 Enter
	adm_await filter-raid1 30 "filter \"raid1\""
	adm_keys d
	adm_await drilled 30 "^LAYER "
}

console_drive() {
	# the drill-down shows the layers of the next interval with I/O: a member with bytes (".-",
	# not a quoted backtick: GNU grep reads \` as the start of the text, and never matched)
	adm_await drill-raid1 120 "^ *.- zram[0-9]+ +leaf +[0-9.]+ +[0-9]*[1-9]"
	adm_keys q f BSpace BSpace BSpace BSpace BSpace f i l e - r Enter d
	adm_await drill-file 90 "^ *.- ram0 +leaf +[0-9.]+ +[0-9]*[1-9]"
	adm_keys q f BSpace BSpace BSpace BSpace BSpace BSpace Enter
	adm_await unfiltered 30 "^raid10 "
	# each await names what the key changes: a starved dom0 shows it seconds late
	adm_keys '>'
	adm_await sort-next 30 "sort KIND "
	adm_keys r
	adm_await reverse 30 "sort KIND desc"
	adm_keys m a d m - m a r k Enter
	adm_await mark 30 "mark 1 "
	adm_keys h
	adm_await help 30 "xiotop keys"
	adm_keys x
	adm_await help-closed 30 "^NAME "
	tmux resize-window -t adm -x 60 2>>"$R"/tmux.err
	sleep 1.5
	adm_await narrow 5 "^NAME "
	adm_keys q
	local end=$(($(date +%s) + 30))
	while ! grep -q "xiotop console exit" "$R"/adm.err 2>/dev/null && [ "$(date +%s)" -lt $end ]; do
		sleep 0.3
	done
	adm_shot quit
	tmux kill-session -t adm 2>/dev/null
}

# stacks_all: the phases in order (a phase that could not start stops the RAID ones)
stacks_all() {
	if stacks_setup; then
		stacks_phase_r && stacks_phase_rd && stacks_phase_rs
	fi
}
