# shellcheck shell=bash
# explain.sh - sourced by scenarios.sh (uses its mark, create, wait_done, destroy and $R):
# phase X, explain as a user runs it. Two guests, one after the other, each with an ext4
# file system on its disk running GNU dd, fio and bonnie++ (domu_bench.sh, their own
# marks written into xenstore): "x-file" on a file image through loop with direct I/O off
# (dom0's page cache on its path), "x-lv" on a dm linear "LV" (no dom0 cache). Both
# images sit on zram disks, which count their I/O in /proc/diskstats (brd does not), so
# iostat's leaf disk figures are real. dom0 runs `xiotop record` and, as people paste
# them, `xentop -b -x -d 1`, `vmstat -t 1` and `iostat -dxt 1` meanwhile; blkback's
# statistics and the kernel's counters are read before and after each guest (XVBD,
# XDISK, XVMSTAT lines in snapshots.txt, the wall clock with each). Then explain runs in
# dom0 on the recording with each tool's output as a claim, and on `xiotop import` of the
# three logs; check_explain.py judges the JSON.

# x_counts TAG NAME: blkback's statistics of NAME's vbd, the zram disks' and vmstat's
# counters, the wall clock first
x_counts() {
	local now d v
	now=$EPOCHREALTIME
	d=$(xl domid "$2" 2>/dev/null) || d=
	for v in /sys/bus/xen-backend/devices/vbd-"$d"-*; do
		if [ -z "$d" ] || [ ! -d "$v/statistics" ]; then continue; fi
		echo "XVBD $1 $2 $d $now $(cat "$v/statistics/rd_sect") $(cat "$v/statistics/wr_sect")" \
			"$(cat "$v/statistics/rd_req") $(cat "$v/statistics/wr_req")" >>"$R"/snapshots.txt
	done
	awk -v t="$1" -v now="$now" '$3 ~ /^(zram|loop|dm-)[0-9]/ {print "XDISK", t, now, $0}' \
		/proc/diskstats >>"$R"/snapshots.txt
	awk -v t="$1" -v now="$now" '$1 == "pgpgin" {i = $2} $1 == "pgpgout" {o = $2}
		END {print "XVMSTAT", t, now, i, o}' /proc/vmstat >>"$R"/snapshots.txt
}

# x_zram SIZE: a new zram disk of SIZE, its name printed
x_zram() {
	local n
	n=$(cat /sys/class/zram-control/hot_add) || return 1
	echo "$1" >"/sys/block/zram$n/disksize" || return 1
	echo "zram$n"
}

# x_mark_watch NAME DOMID: an XMARK line with blkback's statistics at each new value of
# the domain's mark node
x_mark_watch() {
	local last="" v now s
	[ -p /tmp/never ] || mkfifo /tmp/never
	exec 7<>/tmp/never # read -t on it: a sleep without a fork
	while :; do
		v=$(xenstore-read "/local/domain/$2/data/xiotop/mark" 2>/dev/null) || v=""
		if [ -n "$v" ] && [ "$v" != "$last" ]; then
			now=$EPOCHREALTIME
			for s in /sys/bus/xen-backend/devices/vbd-"$2"-*/statistics; do
				echo "XMARK $1 $2 $now $(cat "$s/rd_sect") $(cat "$s/wr_sect") $v"
			done
			last=$v
		fi
		read -r -t 0.1 -u 7 _
	done
}

# x_cfg NAME TARGET
x_cfg() {
	cat >"/root/$1.cfg" <<EOC
name = "$1"
type = "pv"
memory = 448
vcpus = 1
kernel = "/root/vmlinux"
ramdisk = "/root/domU-bench.cpio.gz"
extra = "console=hvc0 rdinit=/init quiet xmib=48"
disk = [ 'format=raw,vdev=xvda,access=rw,target=$2' ]
on_poweroff = "destroy"
EOC
}

# x_guest NAME TARGET: one guest's run, counted around it; its tools' outputs kept
x_guest() {
	local n=$1
	x_cfg "$n" "$2"
	local d
	d=$(create "$n") || return 1
	x_counts "before" "$n"
	# blkback's statistics the moment each of the guest's marks lands in xenstore (XMARK
	# lines): the truth over the window explain takes from those marks
	# (polled every 0.1 s: the guest sleeps 2 s after each mark, its I/O done before it;
	# xenstore-watch's output into a pipe waits in its buffer)
	x_mark_watch "$n" "$d" >>"$R"/snapshots.txt &
	echo $! >"/tmp/xwatch-$n.pid"
	xl unpause "$n"
	# fio and bonnie++ under TCG: minutes, not seconds
	local end=$(($(date +%s) + ${XIOTOP_X_GUEST_S:-420}))
	while ! grep -q "XIOTOP-DOMU: done" "/var/log/xen/guest-$n.log" 2>/dev/null; do
		[ "$(date +%s)" -lt $end ] || { mark "$n did not finish"; break; }
		sleep 1
	done
	sleep 3 # the recorder's and the logs' last intervals
	sync
	x_counts "after" "$n"
	mark "phase X: $n done"
	tr -d '\r' <"/var/log/xen/guest-$n.log" >"$R/xguest-$n.log"
	for t in dd fio bonnie; do
		awk -v t="$t" '$0 ~ "^XIOTOP-BENCH-END " t {p = 0} p {print} $0 ~ "^XIOTOP-BENCH-BEGIN " t "$" {p = 1}' \
			"$R/xguest-$n.log" >"$R/x-$n-$t.txt"
	done
	kill "$(cat "/tmp/xwatch-$n.pid")" 2>/dev/null
	destroy "$n"
	sleep 2
}

explain_phase() {
	modprobe zram 2>/dev/null
	local zf zl
	if ! zf=$(x_zram 320M) || ! zl=$(x_zram 320M); then
		echo "XPHASE-FAILED no zram disks (zram hot_add)" >>"$R"/snapshots.txt
		return 1
	fi
	if ! mkfs.ext4 -q -F "/dev/$zf" || ! mkdir -p /mnt/x || ! mount "/dev/$zf" /mnt/x; then
		echo "XPHASE-FAILED ext4 on $zf" >>"$R"/snapshots.txt
		return 1
	fi
	truncate -s 160M /mnt/x/x-file.img
	local loopdev
	loopdev=$(losetup -f --show --direct-io=off /mnt/x/x-file.img) ||
		{ echo "XPHASE-FAILED losetup" >>"$R"/snapshots.txt; return 1; }
	lv xvg-xlv "/dev/$zl" $((160 * 2048)) || { echo "XPHASE-FAILED dm LV on $zl" >>"$R"/snapshots.txt; return 1; }
	echo "XSTACK x-file $loopdev $zf" >>"$R"/snapshots.txt
	echo "XSTACK x-lv /dev/mapper/xvg-xlv $zl" >>"$R"/snapshots.txt
	sync
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
	x_guest x-file "$loopdev"
	x_guest x-lv /dev/mapper/xvg-xlv
	sleep 2
	kill "${lpids[@]}" 2>/dev/null
	kill -INT $rpid
	wait $rpid
	mark "phase X: record exit $?"
	wait "${lpids[@]}" 2>/dev/null
	explain_runs
}

# explain_runs: what a user asks of the recording and of the logs
explain_runs() {
	local n t t0 claims
	for n in x-file x-lv; do
		claims=()
		for t in dd fio bonnie; do
			[ -s "$R/x-$n-$t.txt" ] && claims+=(--claim "$R/x-$n-$t.txt@$n")
		done
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
	for n in x-file x-lv; do
		claims=()
		for t in dd fio bonnie; do
			[ -s "$R/x-$n-$t.txt" ] && claims+=(--claim "$R/x-$n-$t.txt@$n")
		done
		xiotop explain "$R/x-import.xiotop" "${claims[@]}" --format json \
			>"$R/x-import-explain-$n.json" 2>"$R/x-import-explain-$n.err" ||
			echo "XEXPLAIN-FAILED import $n rc=$?" >>"$R"/snapshots.txt
		xiotop explain "$R/x-import.xiotop" "${claims[@]}" >"$R/x-import-explain-$n.txt" 2>&1
	done
}
