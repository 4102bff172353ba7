# shellcheck shell=bash
# hvm.sh - sourced by scenarios.sh (uses its mark, cfg, create, wait_done, snapshot,
# destroy and $R): phase H, the host of seed 004. An HVM guest whose disk qemu emulates
# (IDE, the image a file on dom0's ext4: `disk=['file:...,hda,w']`, xen_platform_pci=0 so
# it keeps the emulated disk) writes a known byte count and reads it back: the program of
# hvm_disk.S, no OS and no BIOS, in hvmloader's place. Each of its port accesses is a trip
# through Xen's ioreq to qemu in dom0, which writes the image file. Then a PV guest writes
# and reads the same bytes through blkback on a file image of the same file system (the
# block script's loop device): the two paths' dom0 CPU per GiB side by side. A recorder
# watches the phase for explain (h.xiotop), the batch xiotop of scenarios.sh too.
# Truth written to snapshots.txt: the image's allocated blocks before and after (HVMIMG),
# the device model's utime+stime every 50 ms with the wall clock around each read
# (DMRUN H), the guest's own counts and TSC times (its serial console, hvm-serial.log, and
# Xen's debug port, hvm-xl-dmesg.txt); the PV guest's as scenarios.sh's snapshot has them.

# hvm_cpu_series PID DOMID: the device model's utime+stime (/proc/PID/stat fields 14 and
# 15, clock ticks, all its threads, those ended too) every 50 ms, the wall clock around
# each read, as DMRUN lines (scenarios.sh's runtime_series writes them for a qdisk QEMU)
hvm_cpu_series() {
	[ -n "$1" ] || return 0
	local t0 t1 line
	local -a f
	[ -p /tmp/never2 ] || mkfifo /tmp/never2
	exec 7<>/tmp/never2 # read -t on it: a sleep without a fork
	while [ -r "/proc/$1/stat" ]; do
		t0=$EPOCHREALTIME
		read -r line <"/proc/$1/stat" || break
		t1=$EPOCHREALTIME
		read -ra f <<<"${line##*) }" # f[0]: state (field 3); f[11], f[12]: utime, stime
		echo "DMRUN H $2 $t0 $t1 $((f[11] + f[12]))"
		read -r -t 0.05 -u 7 _
	done >>"$R"/snapshots.txt
	exec 7<&-
}

# hvm_image TAG FILE: its allocated 512-byte blocks and size (after a sync: ext4 counts
# delayed allocations in st_blocks anyway)
hvm_image() {
	sync
	echo "HVMIMG $1 $EPOCHREALTIME $(stat -c '%b %s' "$2")" >>"$R"/snapshots.txt
}

# hvm_guest: the HVM guest made, run and destroyed; 0 when it said it was done
hvm_guest() {
	local img=/mnt/ext/hvm.img elf=/root/hvm-disk.elf
	if [ ! -x /usr/libexec/xen-qemu-system-i386 ] || [ ! -f $elf ]; then
		echo "HVM-FAILED qemu-system-xen or the guest program ($elf) is not in this dom0" >>"$R"/snapshots.txt
		return 1
	fi
	truncate -s 64M $img
	cat >/root/hvm.cfg <<EOC
name = "hvm"
type = "hvm"
memory = 64
vcpus = 1
firmware_override = "$elf"
disk = [ 'file:$img,hda,w' ]
xen_platform_pci = 0
serial = "pty"
vnc = 0
sdl = 0
vga = "none"
on_poweroff = "destroy"
EOC
	hvm_image start $img
	local t0 t1 d pid tty
	t0=$EPOCHREALTIME
	if ! timeout 180 xl create -p /root/hvm.cfg >"$R"/xl-create-hvm.log 2>&1; then
		# libxl's first error says why (the last only that the defaults failed)
		echo "HVM-FAILED xl create: $(grep -m1 error "$R"/xl-create-hvm.log || tail -1 "$R"/xl-create-hvm.log)" >>"$R"/snapshots.txt
		tail -20 /var/log/xen/qemu-dm-hvm.log >"$R"/hvm-qemu.log 2>/dev/null
		xl dmesg | tail -30 >"$R"/hvm-xl-dmesg.txt
		return 1
	fi
	t1=$EPOCHREALTIME
	mark "phase H: hvm created"
	d=$(xl domid hvm)
	pid=$(xenstore-read /local/domain/"$d"/image/device-model-pid 2>/dev/null)
	echo "HVM-START $t0 $t1 $d ${pid:-none}" >>"$R"/snapshots.txt
	# the guest's serial (COM1 in qemu) is a pty: read raw, nothing echoed back to qemu
	tty=$(xenstore-read /local/domain/"$d"/serial/0/tty 2>/dev/null)
	if [ -c "$tty" ]; then
		stty -F "$tty" raw -echo 2>/dev/null
		cat "$tty" >"$R"/hvm-serial.log 2>/dev/null &
	fi
	hvm_cpu_series "$pid" "$d" &
	local series=$! log=() end=$((SECONDS + ${XIOTOP_HVM_WAIT_S:-300})) rc=1
	xl unpause hvm
	mark "phase H: hvm unpaused"
	while :; do
		mapfile -t log <"$R"/hvm-serial.log 2>/dev/null
		case "${log[*]}" in *"XIOTOP-HVM: done"*) rc=0 && break ;; *"XIOTOP-HVM: failed"*) break ;; esac
		if [ $SECONDS -ge $end ] || ! xl domid hvm >/dev/null 2>&1; then
			echo "HVM-FAILED the guest did not finish in ${XIOTOP_HVM_WAIT_S:-300} s; its serial:" \
				"$(tr -d '\r' <"$R"/hvm-serial.log 2>/dev/null | tail -c 300 | tr '\n' '|')" >>"$R"/snapshots.txt
			break
		fi
		sleep 0.5
	done
	echo "HVM-DONE $EPOCHREALTIME" >>"$R"/snapshots.txt
	mark "phase H: hvm done"
	xiotop_past "hvm done" # (scenarios.sh) its intervals hold the last of it
	kill $series 2>/dev/null
	wait $series 2>/dev/null
	hvm_image end $img
	# the guest's own lines as Xen's debug port got them (0xe9), beside its serial's
	xl dmesg | grep "(d$d)" >"$R"/hvm-xl-dmesg.txt
	cp /var/log/xen/qemu-dm-hvm.log "$R"/ 2>/dev/null
	# its QEMU's utime+stime once more, the moment before it goes: explain's device-model
	# CPU on the recording holds all of it
	local st=() t=$EPOCHREALTIME
	read -ra st <<<"$(cut -d')' -f2- "/proc/$pid/stat" 2>/dev/null)"
	[ ${#st[@]} -gt 12 ] && echo "DMEND H $d $t $EPOCHREALTIME $((st[11] + st[12]))" >>"$R"/snapshots.txt
	destroy hvm
	return $rc
}

# hvm_pv MIB: the PV guest writing MIB MiB in 128 KiB requests (the HVM guest's commands)
# and reading them back, through blkback on the loop device the block script puts over
# its image file
hvm_pv() {
	truncate -s 64M /mnt/ext/hvm-pv.img
	XARGS=xbs=128 cfg hvm-pv /mnt/ext/hvm-pv.img "$1" "$1"
	create hvm-pv >/dev/null || return 1
	mark "phase H: hvm-pv unpause"
	xl unpause hvm-pv
	wait_done hvm-pv
	mark "phase H: hvm-pv done"
	snapshot H hvm-pv
	destroy hvm-pv
}

hvm_phase() {
	mark "phase H: record"
	xiotop record -d 1 -o "$R/h.xiotop" >"$R/h-record.err" 2>&1 &
	local rpid=$! line mib=0
	sleep 3
	if hvm_guest; then
		# the PV guest moves what the HVM guest said it wrote (sectors, in hex)
		line=$(grep -a -m1 "XIOTOP-HVM: done" "$R"/hvm-serial.log)
		[[ $line =~ wr_sect\ ([0-9a-f]+) ]] && mib=$((16#${BASH_REMATCH[1]} / 2048))
		if [ "$mib" -gt 0 ]; then
			hvm_pv "$mib"
		else
			echo "HVM-FAILED no wr_sect in the guest's done line" >>"$R"/snapshots.txt
		fi
	fi
	sleep 2
	kill -INT $rpid
	wait $rpid
	mark "phase H: record exit $?"
	xiotop explain "$R/h.xiotop" --format json >"$R/h-explain.json" 2>"$R/h-explain.err" ||
		echo "HVM-EXPLAIN-FAILED rc=$?" >>"$R"/snapshots.txt
	xiotop explain "$R/h.xiotop" >"$R/h-explain.txt" 2>&1
}
