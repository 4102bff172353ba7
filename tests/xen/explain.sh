# shellcheck shell=bash
# explain.sh - sourced by scenarios.sh (uses its mark, create, destroy, $R, and stacks.sh's lv
# and md_node): phase X, explain as a user runs it. Three guests, one after the other (at
# once, under TCG on dom0's one vCPU, xl create took minutes and a hotplug script timed out),
# each with an ext4 file system on its disk running GNU dd (with conv=fdatasync, then with
# oflag=direct), fio (a sequential write, then 4 KiB random reads at iodepth 1), bonnie++
# and iozone -o (domu_bench.sh, their own marks written into xenstore; x_cfg says which on
# which), on the three stacks of the user stories:
#   "x-file" a file image on ext4 on a zram disk, through loop with direct I/O off (dom0's
#            page cache on its path);
#   "x-lv"   a dm linear "LV" over another zram disk (no dom0 cache);
#   "x-md"   a file image on ext4 on md RAID1 of two zram disks, through loop with direct
#            I/O off (seed 000's stack: a mirror under the image's file system).
# zram counts its I/O in /proc/diskstats (brd does not), and md0 its own, so the disks'
# figures are real. dom0 runs `xiotop record` and, as people paste them, `xentop -b -x -d 1`,
# `vmstat -t 1` and `iostat -dxt 1` meanwhile; blkback's statistics and the kernel's
# counters (each guest's devices' diskstats, vmstat) are read before and after each guest
# and the moment each of its marks lands (XVBD, XDISK, XVMSTAT, XMARK, XMARKDISK lines in
# snapshots.txt, the wall clock with each). Then explain runs in dom0 on the recording with
# each tool's output as a claim, and on `xiotop import` of the three logs; the recording is
# exported too (its copies and its vmstat identity); check_explain.py judges.

# x_counts TAG NAME: blkback's statistics of NAME's vbd, the disks' and vmstat's counters,
# the wall clock first
x_counts() {
	local now d v
	now=$EPOCHREALTIME
	d=$(xl domid "$2" 2>/dev/null) || d=
	for v in /sys/bus/xen-backend/devices/vbd-"$d"-*; do
		if [ -z "$d" ] || [ ! -d "$v/statistics" ]; then continue; fi
		echo "XVBD $1 $2 $d $now $(cat "$v/statistics/rd_sect") $(cat "$v/statistics/wr_sect")" \
			"$(cat "$v/statistics/rd_req") $(cat "$v/statistics/wr_req")" >>"$R"/snapshots.txt
	done
	awk -v t="$1" -v n="$2" -v now="$now" '$3 ~ /^(zram|loop|dm-|md)[0-9]/ {print "XDISK", t, n, now, $0}' \
		/proc/diskstats >>"$R"/snapshots.txt
	awk -v t="$1" -v n="$2" -v now="$now" '$1 == "pgpgin" {i = $2} $1 == "pgpgout" {o = $2}
		END {print "XVMSTAT", t, n, now, i, o}' /proc/vmstat >>"$R"/snapshots.txt
}

# x_zram SIZE: a new zram disk of SIZE, its name printed
x_zram() {
	local n
	n=$(cat /sys/class/zram-control/hot_add) || return 1
	echo "$1" >"/sys/block/zram$n/disksize" || return 1
	echo "zram$n"
}

# the kernel's own trace of the backends' reads (a trace instance of its own): the truth of
# their latency, independent of xiotop's BPF (check 15, qd_truth.py)
XT=/sys/kernel/tracing/instances/xtruth

# x_trace_start DEV...: the instance tracing the reads of DEV... (the backends): a blk-mq
# device's requests from block_getrq (their creation, where 6.1 stamps rq->start_time_ns,
# blk_mq_rq_ctx_init) and block_rq_issue to block_rq_complete, a bio-based device's bios from
# block_bio_queue to block_bio_complete; the boot clock (/proc/uptime's); 32 MiB of ring;
# the guests' marks written into it as they land (x_mark_watch), so no clock is mapped.
# The devices' numbers in x-trace-info.txt ("dev NAME MAJOR:MINOR").
x_trace_start() {
	local d e filt="" why=""
	if ! mkdir -p "$XT" || ! echo 0 >"$XT/tracing_on" || ! echo boot >"$XT/trace_clock" ||
		! echo 32768 >"$XT/buffer_size_kb"; then
		echo "XPHASE-FAILED no trace instance $XT" >>"$R"/snapshots.txt
		return 1
	fi
	: >"$R"/x-trace-info.txt
	for d in "$@"; do
		echo "dev $d $(cat "/sys/class/block/$d/dev")" >>"$R"/x-trace-info.txt
		# the kernel's dev_t in a trace event: major << 20 | minor
		filt="${filt:+$filt || }dev == $(awk -F: '{print $1 * 1048576 + $2}' "/sys/class/block/$d/dev")"
	done
	for e in block_getrq block_rq_issue block_rq_complete block_bio_queue block_bio_complete; do
		# reads only where the kernel takes the glob (qd_truth.py keeps only reads anyway)
		echo "($filt) && rwbs ~ \"R*\"" >"$XT/events/block/$e/filter" 2>/dev/null ||
			echo "$filt" >"$XT/events/block/$e/filter" || why="$why filter of $e;"
		echo 1 >"$XT/events/block/$e/enable" || why="$why enable of $e;"
	done
	[ -z "$why" ] || echo "XPHASE-FAILED trace instance:$why" >>"$R"/snapshots.txt
	echo 1 >"$XT/tracing_on"
}

# x_trace_stop: the trace kept (x-trace.txt) with the ring's own count of what it lost
# (x-trace-info.txt: its per-CPU stats, overrun and dropped events), the instance removed
x_trace_stop() {
	[ -d "$XT" ] || return 0
	echo 0 >"$XT/tracing_on"
	local s
	for s in "$XT"/per_cpu/cpu*/stats; do
		sed "s|^|stats $(basename "$(dirname "$s")") |" "$s" >>"$R"/x-trace-info.txt
	done
	cat "$XT/trace" >"$R"/x-trace.txt
	echo 0 >"$XT/events/enable"
	rmdir "$XT" 2>/dev/null
}

# x_mark_watch NAME DOMID DEV...: an XMARK line with blkback's statistics, and an XMARKDISK
# line per device (its whole /proc/diskstats line), at each new value of the domain's mark
# node, and the mark in the trace (x_trace_start): the truth over the window explain takes
# from those marks
x_mark_watch() {
	local last="" v now s n=$1 d=$2
	shift 2
	local devs="$*"
	[ -p /tmp/never ] || mkfifo /tmp/never
	exec 7<>/tmp/never # read -t on it: a sleep without a fork
	while :; do
		v=$(xenstore-read "/local/domain/$d/data/xiotop/mark" 2>/dev/null) || v=""
		if [ -n "$v" ] && [ "$v" != "$last" ]; then
			now=$EPOCHREALTIME
			for s in /sys/bus/xen-backend/devices/vbd-"$d"-*/statistics; do
				echo "XMARK $n $d $now $(cat "$s/rd_sect") $(cat "$s/wr_sect") $v"
			done
			awk -v n="$n" -v d="$d" -v now="$now" -v devs=" $devs " -v mk="$v" \
				'index(devs, " " $3 " ") {print "XMARKDISK", n, d, now, $3, $4, $6, $7, $8, $10, $11, "|", mk}' \
				/proc/diskstats
			echo "XMARK $n $v" 2>/dev/null >"$XT/trace_marker"
			last=$v
		fi
		read -r -t 0.1 -u 7 _
	done
}

# x_cfg NAME TARGET: the guest's config; its files are 32 MiB (xmib), bonnie++'s 2x its -r;
# 512 MiB of memory: its ramdisk (fio's libraries pull in ceph's and ICU's) is ~39 MiB
# compressed, ~90 MiB unpacked, both in memory at once; with 256 MiB the guest's kernel
# panicked at boot ("Initramfs unpacking failed: write error", no /init);
# its runs (xtools): every tool on the file image; on the LV and on the mirror the ones
# their checks need (dd with and without O_DIRECT everywhere, fio's random reads on both
# (check 15: a dm device and a second loop one), fio's write and bonnie++'s rewrite on the
# mirror): a boot of six tools on each took 15 minutes under a loaded TCG
x_cfg() {
	local tools=dd,ddd,fio,fiorr,bonnie,iozone
	case $1 in
	x-lv) tools=dd,ddd,fiorr,bonnie ;;
	x-md) tools=dd,ddd,fio,fiorr,bonnie ;;
	esac
	cat >"/root/$1.cfg" <<EOC
name = "$1"
type = "pv"
memory = 512
vcpus = 1
kernel = "/root/vmlinux"
ramdisk = "/root/domU-bench.cpio.gz"
extra = "console=hvc0 rdinit=/init quiet xmib=32 xtools=$tools"
disk = [ 'format=raw,vdev=xvda,access=rw,target=$2' ]
on_poweroff = "destroy"
EOC
}

# x_guest NAME TARGET DEV...: one guest's run, counted around it (with the diskstats of
# DEV...: its backend and the devices below it, when each of its marks lands too), until
# its writes reached the disks (dom0's sync: its drain's end); its tools' outputs kept
x_guest() {
	local n=$1 t=$2 d
	shift 2
	x_cfg "$n" "$t"
	d=$(create "$n") || return 1
	x_counts "before" "$n"
	x_mark_watch "$n" "$d" "$@" >>"$R"/snapshots.txt &
	echo $! >"/tmp/xwatch-$n.pid"
	xl unpause "$n"
	# fio, bonnie++ and iozone under TCG: minutes, not seconds
	local end=$(($(date +%s) + ${XIOTOP_X_GUEST_S:-420}))
	# a guest that is gone (its kernel panicked: xl destroys a crashed domain) ends the
	# wait at once, said with its console's last line (check_explain.py prints its tail)
	while ! grep -q "XIOTOP-DOMU: done" "/var/log/xen/guest-$n.log" 2>/dev/null; do
		[ "$(date +%s)" -lt $end ] || { mark "$n did not finish"; break; }
		xl domid "$n" >/dev/null 2>&1 ||
			{ mark "$n is gone before it was done: $(tail -1 "/var/log/xen/guest-$n.log" | tr -d '\r')"; break; }
		sleep 1
	done
	sleep 2 # the recorder's and the logs' last intervals
	sync    # what dom0 still held of the image: the drain's end
	sleep 1.2
	x_counts "after" "$n"
	mark "phase X: $n done"
	tr -d '\r' <"/var/log/xen/guest-$n.log" >"$R/xguest-$n.log"
	for t in dd ddd fio fiorr bonnie iozone; do
		awk -v t="$t" '$0 ~ "^XIOTOP-BENCH-END " t " " {p = 0} p {print} $0 ~ "^XIOTOP-BENCH-BEGIN " t "$" {p = 1}' \
			"$R/xguest-$n.log" >"$R/x-$n-$t.txt"
	done
	kill "$(cat "/tmp/xwatch-$n.pid")" 2>/dev/null
	destroy "$n"
	sleep 1
}

# x_stacks: the three guests' stacks; XSTACK NAME BACKEND FS-DEVICE [MEMBER...] lines
x_stacks() {
	modprobe zram 2>/dev/null
	modprobe raid1 2>/dev/null
	local zf zl zm0 zm1 lf lm
	if ! zf=$(x_zram 320M) || ! zl=$(x_zram 320M) || ! zm0=$(x_zram 320M) || ! zm1=$(x_zram 320M); then
		echo "XPHASE-FAILED no zram disks (zram hot_add)" >>"$R"/snapshots.txt
		return 1
	fi
	# no write-intent bitmap, no initial resync: md's own writes are its superblock's
	if ! mdadm --create /dev/md0 --run --metadata=1.2 --level=1 --raid-devices=2 --assume-clean \
		--bitmap=none "/dev/$zm0" "/dev/$zm1" >"$R"/x-mdadm.log 2>&1 || ! md_node md0; then
		echo "XPHASE-FAILED mdadm --create md0: $(tail -1 "$R"/x-mdadm.log)" >>"$R"/snapshots.txt
		return 1
	fi
	# the images' file systems initialised at once: no lazy init writing into a window
	local mkfs=(mkfs.ext4 -q -F -E "lazy_itable_init=0,lazy_journal_init=0")
	if ! "${mkfs[@]}" "/dev/$zf" || ! mkdir -p /mnt/x /mnt/xm || ! mount "/dev/$zf" /mnt/x ||
		! "${mkfs[@]}" /dev/md0 || ! mount /dev/md0 /mnt/xm; then
		echo "XPHASE-FAILED ext4 on $zf and md0" >>"$R"/snapshots.txt
		return 1
	fi
	# the images written whole before the recording: the guests' writes then allocate
	# nothing, and the file systems' own writes (metadata, journal) stay a few blocks
	local img
	for img in /mnt/x/x-file.img /mnt/xm/x-md.img; do
		dd if=/dev/zero of="$img" bs=1M count=200 conv=fsync status=none ||
			{ echo "XPHASE-FAILED $img" >>"$R"/snapshots.txt; return 1; }
	done
	if ! lf=$(losetup -f --show --direct-io=off /mnt/x/x-file.img) ||
		! lm=$(losetup -f --show --direct-io=off /mnt/xm/x-md.img); then
		echo "XPHASE-FAILED losetup" >>"$R"/snapshots.txt
		return 1
	fi
	lv xvg-xlv "/dev/$zl" $((200 * 2048)) || { echo "XPHASE-FAILED dm LV on $zl" >>"$R"/snapshots.txt; return 1; }
	local dm
	dm=$(basename "$(readlink -f /dev/mapper/xvg-xlv)")
	[ -b "/dev/$dm" ] || dm=dm-$(dmsetup info -c --noheadings -o minor xvg-xlv | tr -d ' ')
	{
		echo "XSTACK x-file $lf ${lf#/dev/} $zf"
		echo "XSTACK x-lv /dev/mapper/xvg-xlv $dm $zl"
		echo "XSTACK x-md $lm ${lm#/dev/} md0 $zm0 $zm1"
	} >>"$R"/snapshots.txt
	cat /proc/mdstat >"$R"/x-mdstat.txt
	sync
}

explain_phase() {
	x_stacks || return 1
	local s
	mark "phase X: record"
	xiotop record -d 1 -o "$R/x.xiotop" >"$R/x-record.err" 2>&1 &
	local rpid=$! lpids=()
	xentop -b -x -d 1 >"$R/x-xentop.log" 2>"$R/x-xentop.err" &
	lpids+=($!)
	vmstat -t 1 >"$R/x-vmstat.log" 2>&1 &
	lpids+=($!)
	iostat -dxt 1 >"$R/x-iostat.log" 2>&1 &
	lpids+=($!)
	sleep 3
	# each guest with the devices its marks read: backend, file system device, members
	# (XSTACK's fields after the target); the backends traced
	local stacks
	mapfile -t stacks < <(grep '^XSTACK ' "$R"/snapshots.txt)
	# shellcheck disable=SC2046 # the backends' names, one word each
	x_trace_start $(awk '$1 == "XSTACK" {print $4}' "$R"/snapshots.txt)
	for s in "${stacks[@]}"; do
		# shellcheck disable=SC2086 # XSTACK NAME TARGET DEV...: words on purpose
		set -- $s
		shift
		x_guest "$@" </dev/null
	done
	sleep 2
	x_trace_stop
	kill "${lpids[@]}" 2>/dev/null
	kill -INT $rpid
	wait $rpid
	mark "phase X: record exit $?"
	wait "${lpids[@]}" 2>/dev/null
	xiotop export "$R/x.xiotop" --format json >"$R/x-export.json" 2>"$R/x-export.err" ||
		echo "XEXPLAIN-FAILED export rc=$?" >>"$R"/snapshots.txt
	explain_runs
}

# x_claims NAME: --claim FILE@NAME for each tool's output the guest printed
x_claims() {
	local t
	claims=()
	for t in dd ddd fio fiorr bonnie iozone; do
		[ -s "$R/x-$1-$t.txt" ] && claims+=(--claim "$R/x-$1-$t.txt@$1")
	done
}

# explain_runs: what a user asks of the recording and of the logs
explain_runs() {
	local n t0 claims
	for n in x-file x-lv x-md; do
		x_claims "$n"
		t0=$EPOCHREALTIME
		xiotop explain "$R/x.xiotop" "${claims[@]}" --format json >"$R/x-explain-$n.json" \
			2>"$R/x-explain-$n.err" || echo "XEXPLAIN-FAILED recording $n rc=$?" >>"$R"/snapshots.txt
		echo "XTIME explain $n $t0 $EPOCHREALTIME" >>"$R"/snapshots.txt
		xiotop explain "$R/x.xiotop" "${claims[@]}" >"$R/x-explain-$n.txt" 2>&1
	done
	xiotop import -o "$R/x-import.xiotop" --xentop "$R/x-xentop.log" --vmstat "$R/x-vmstat.log" \
		--iostat "$R/x-iostat.log" >"$R/x-import.err" 2>&1 ||
		echo "XEXPLAIN-FAILED import rc=$?" >>"$R"/snapshots.txt
	xiotop explain "$R/x-import.xiotop" --format json >"$R/x-import-explain-all.json" \
		2>"$R/x-import-explain-all.err" || echo "XEXPLAIN-FAILED import whole rc=$?" >>"$R"/snapshots.txt
	for n in x-file x-lv x-md; do
		x_claims "$n"
		xiotop explain "$R/x-import.xiotop" "${claims[@]}" --format json \
			>"$R/x-import-explain-$n.json" 2>"$R/x-import-explain-$n.err" ||
			echo "XEXPLAIN-FAILED import $n rc=$?" >>"$R"/snapshots.txt
		xiotop explain "$R/x-import.xiotop" "${claims[@]}" >"$R/x-import-explain-$n.txt" 2>&1
	done
}
