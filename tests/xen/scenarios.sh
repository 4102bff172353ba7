#!/bin/bash
# scenarios.sh - run inside dom0 by dom0_init.sh, xiotop watching in batch JSON mode the
# whole time. Phase A: three domains at once: "file-nodio" (loop0, direct-io off, image
# on ext4 on ram0), "file-dio" (loop1, direct-io on) and "lvm" (dm linear over ram1).
# Phase B: "qdisk" through qemu-system-xen. Phase C: "churn" made, destroyed and made
# again (new domid). Phase D: "reuse" saved with its domid (xl save -D) and restored on
# that same domid: the one way xl 4.17 reuses a domid (xl create cannot ask for one).
# After each phase: blkback's statistics, the blkback threads' runtime and xentop's view,
# written to /results for the host's checker (check.py).
set -u
R=/results
mark() {
	echo "XIOTOP-DOM0: $* (uptime $(cut -d' ' -f1 /proc/uptime))" >&2
	echo "$(cut -d' ' -f1 /proc/uptime) wall=$(date -u +%Y-%m-%dT%H:%M:%S) $*" >>$R/events.log
}

# cfg NAME TARGET WRITE_MIB READ_MIB [EXTRA-CONFIG-LINE]
cfg() {
	cat >"/root/$1.cfg" <<EOC
name = "$1"
type = "pv"
memory = 96
vcpus = 1
kernel = "/root/vmlinux"
ramdisk = "/root/domU.cpio.gz"
extra = "console=hvc0 rdinit=/init quiet xw=$3 xr=$4 ${XARGS:-}"
disk = [ 'format=raw,vdev=xvda,access=rw,${6:+$6,}target=$2' ]
on_poweroff = "destroy"
${5:-}
EOC
}

create() { # NAME: created paused; its domid is printed
	rm -f "/var/log/xen/guest-$1.log" # xenconsoled appends: a former incarnation's "done"
	if ! xl create -p "/root/$1.cfg" >"$R/xl-create-$1.log" 2>&1; then
		mark "xl create $1 FAILED"
		tail -5 "$R/xl-create-$1.log"
		return 1
	fi
	mark "created $1"
	xl domid "$1"
}

# NAME...: until each guest said it is done (or $WAIT_S, 240, seconds in all); $DONE: the
# word. Giving up is marked "NAME did not finish", a failure in check.py. A limit, not a
# pace: a done guest ends the wait at once; the qdisk guest's run took over 60 s in a
# TCG slowed 2.5x by a loaded host (a CI boot while builds ran beside it).
wait_done() {
	local n end=$(($(date +%s) + ${WAIT_S:-240}))
	for n in "$@"; do
		while ! grep -q "XIOTOP-DOMU: ${DONE:-done}" "/var/log/xen/guest-$n.log" 2>/dev/null; do
			[ "$(date +%s)" -lt $end ] || { mark "$n did not finish"; break; }
			sleep 0.5
		done
	done
}

# xiotop_past WHAT: until xiotop's JSON holds an interval sampled after this call (the
# second complete line from now: the next may have been sampled before), 60 s at most;
# never a fixed wait, which a starved TCG dom0 (a loaded host) outlasts. Giving up is
# marked "xiotop no interval after WHAT", a failure in check.py.
xiotop_past() {
	local n end=$(($(date +%s) + 60))
	n=$(wc -l <$R/xiotop.json)
	until [ "$(wc -l <$R/xiotop.json)" -ge $((n + 2)) ]; do
		[ "$(date +%s)" -lt $end ] || { mark "xiotop no interval after $1"; return 1; }
		sleep 0.2
	done
}

# runtime_series PHASE SECONDS DOMID...: each domain's blkback threads' runtime (the sum
# of their schedstat first fields, se.sum_exec_runtime) read every 50 ms for SECONDS, the
# wall clock ($EPOCHREALTIME, the clock of xiotop's JSON "time") taken just before and
# just after each read: check.py compares xiotop's backend CPU summed up to one of its
# sample instants with the runtime read around that instant. An idle blkback thread
# still runs (it wakes every 100 ms to purge persistent grants, ~2-5 ms a second under
# TCG), so a runtime read at one time is only comparable with xiotop at that time.
# A domain served by a QEMU (qdisk) has no blkback thread: its QEMU's utime+stime (all
# its threads, live and exited; clock ticks) is read instead, as DMRUN lines, the truth
# for xiotop's device-model CPU up to the same instants (its total holds the QEMU's
# run until the domain is destroyed, seconds under a loaded TCG, that no read saw).
# Bash builtins only (no fork per read): the reads are ~1 ms apart from the clock.
runtime_series() {
	local phase=$1 secs=$2 d p rt t0 t1 sum end st
	shift 2
	local -A pids=() dm=()
	local -a f
	for d in "$@"; do
		pids[$d]=$(ps -o pid,comm | awk -v d="$d" '$2 ~ "^" d "\\.xvd" {print $1}')
		[ -n "${pids[$d]}" ] || dm[$d]=$(xenstore-read /local/domain/0/libxl/"$d"/qdisk-backend-pid 2>/dev/null ||
			xenstore-read /local/domain/"$d"/image/device-model-pid 2>/dev/null)
	done
	[ -p /tmp/never ] || mkfifo /tmp/never
	exec 8<>/tmp/never # read -t on it: a sleep without a fork
	end=$(($(date +%s) + secs))
	while [ "$(printf '%(%s)T' -1)" -lt $end ]; do
		for d in "$@"; do
			if [ -n "${dm[$d]:-}" ]; then
				t0=$EPOCHREALTIME
				read -r st <"/proc/${dm[$d]}/stat" 2>/dev/null || continue
				t1=$EPOCHREALTIME
				read -ra f <<<"${st##*) }" # f[0]: state; f[11], f[12]: utime, stime
				echo "DMRUN $phase $d $t0 $t1 $((f[11] + f[12]))"
			fi
			[ -n "${pids[$d]}" ] || continue
			sum=0
			t0=$EPOCHREALTIME
			for p in ${pids[$d]}; do
				read -r rt _ <"/proc/$p/schedstat" 2>/dev/null || continue 2
				sum=$((sum + rt))
			done
			t1=$EPOCHREALTIME
			echo "RUNTIME $phase $d $t0 $t1 $sum"
		done
		read -r -t 0.05 -u 8 _
	done >>$R/snapshots.txt
	exec 8<&-
}

# kwtrace start|stop PHASE: the kernel's own record of the unbound kworkers' work around a
# phase where one domain does I/O alone on a loop device, the truth for xiotop's loop-role
# CPU (check.py, kwtrace.py): which work item each worker ran (workqueue_execute_start and
# _end; workqueue_queue_work names the workqueue of each item, loop2's "loop2"), its runs
# (sched_switch) and the runtime the scheduler charged it (sched_stat_runtime, the
# se.sum_exec_runtime deltas). A trace instance of its own, gzipped into the results with
# the ring's overrun count (a lost event makes the truth unknown, not smaller).
kwtrace() {
	local t=/sys/kernel/tracing/instances/kw e
	if [ "$1" = start ]; then
		mkdir -p $t && echo 0 >$t/tracing_on && : >$t/trace || return 1
		echo 16384 >$t/buffer_size_kb
		echo 'comm ~ "kworker/u*"' >$t/events/sched/sched_stat_runtime/filter
		echo 'prev_comm ~ "kworker/u*" || next_comm ~ "kworker/u*"' >$t/events/sched/sched_switch/filter
		echo 'workqueue ~ "loop*"' >$t/events/workqueue/workqueue_queue_work/filter
		for e in sched/sched_stat_runtime sched/sched_switch workqueue/workqueue_queue_work \
			workqueue/workqueue_execute_start workqueue/workqueue_execute_end; do
			echo 1 >$t/events/$e/enable || return 1
		done
		echo 1 >$t/tracing_on
		return
	fi
	echo 0 >$t/tracing_on
	cat $t/trace | gzip -c >"$R/kwtrace-$2.txt.gz"
	echo "KWTRACE $2 overrun $(awk '/^overrun:/ {n += $2} END {print n + 0}' $t/per_cpu/cpu*/stats)" >>$R/snapshots.txt
	for e in "$t"/events/*/*/enable; do echo 0 >"$e"; done
	echo 0 >$t/trace
}

# snapshot PHASE NAME...: blkback's counters, its threads' runtime, xentop beside xiotop
snapshot() {
	local phase=$1 n d v p b ma mi t0 ids=()
	shift
	sync # the loop devices' page cache reaches ram0 while xiotop watches
	xiotop_past "sync $phase"
	for n in "$@"; do
		d=$(xl domid "$n" 2>/dev/null) || continue
		for v in /sys/bus/xen-backend/devices/vbd-"$d"-*; do
			[ -d "$v/statistics" ] || continue
			echo "VBD $phase $n $d ${v##*-} $(cat "$v/statistics/rd_sect") $(cat "$v/statistics/wr_sect")" \
				"$(cat "$v/statistics/rd_req") $(cat "$v/statistics/wr_req")" >>$R/snapshots.txt
			# the backend device's own request counts and times (blkback shows major:minor
			# in hex), printed by check.py beside xiotop's latency
			if IFS=: read -r ma mi <"$v/physical_device"; then
				b=/sys/dev/block/$((16#$ma)):$((16#$mi))
				p=$(readlink $b)
				echo "DEVSTAT $phase $n $d ${v##*-} ${p##*/} $(cat $b/stat)" >>$R/snapshots.txt
			fi
		done
		for p in $(ps -o pid,comm | awk -v d="$d" '$2 ~ "^" d "\\.xvd" {print $1}'); do
			echo "THREAD $phase $n $d $p $(cat "/proc/$p/comm") $(cut -d' ' -f1 "/proc/$p/schedstat")" >>$R/snapshots.txt
		done
		echo "DOMAIN $phase $n $d" >>$R/snapshots.txt
		ids+=("$d")
	done
	# each guest's vCPU time as the hypervisor gives it (xl list, 0.1 s), now and after
	# xiotop's last intervals, the wall clock around each: xiotop's guest_cpu_ns summed up
	# to its sample instants after the first and before the second lies between (check.py)
	for n in "$@"; do
		d=$(xl domid "$n" 2>/dev/null) || continue
		t0=$EPOCHREALTIME v=$(xl_time "$n")
		echo "XLCPU $phase $n $d start $v $t0 $EPOCHREALTIME" >>$R/snapshots.txt
	done
	# the runtime series spans >= 3 of xiotop's 1 s intervals, read while xentop runs
	runtime_series "$phase" 4 "${ids[@]}" &
	xentop -b -i 2 -d 1 -x >"$R/xentop-$phase.txt" 2>&1
	xiotop_past "snapshot $phase" # its last intervals hold the final counts
	wait $!
	for n in "$@"; do
		d=$(xl domid "$n" 2>/dev/null) || continue
		t0=$EPOCHREALTIME v=$(xl_time "$n")
		echo "XLCPU $phase $n $d end $v $t0 $EPOCHREALTIME" >>$R/snapshots.txt
	done
}

# xl_time NAME: the domain's vCPU seconds, xl list's Time(s) column
xl_time() { xl list "$1" 2>/dev/null | awk 'NR == 2 {print $NF}'; }

destroy() { for n in "$@"; do xl destroy "$n"; done; }

# shellcheck disable=SC1091 # tests/xen/stacks.sh, put in /root by run.sh
. /root/stacks.sh
# xiotop_phases=explain: only phase X, explain as a user runs it (explain.sh, with its own
# stacks and recorder: none of the storage and batch xiotop below; run.sh then runs
# check_explain.py alone)
if grep -qw xiotop_phases=explain /proc/cmdline; then
	# shellcheck disable=SC1091 # tests/xen/explain.sh, put in /root by run.sh
	. /root/explain.sh
	explain_phase
	mark "phase X: rc=$?"
	cp /var/log/xen/*.log $R/ 2>/dev/null
	exit 0
fi

### storage: ext4 on a ram disk for the image files, a dm linear over the other
# shellcheck disable=SC2015 # the mark is meant for a failure of any step
mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 /dev/ram0 && mkdir -p /mnt/ext && mount /dev/ram0 /mnt/ext || mark "ext4 on ram0 FAILED"
for f in nodio dio qdisk churn reuse; do truncate -s 64M /mnt/ext/$f.img; done
losetup --direct-io=off /dev/loop0 /mnt/ext/nodio.img
losetup --direct-io=on /dev/loop1 /mnt/ext/dio.img
losetup --direct-io=off /dev/loop2 /mnt/ext/churn.img
losetup --direct-io=off /dev/loop3 /mnt/ext/reuse.img
losetup -a >$R/losetup.txt
dmsetup create xvg-lv0 --noudevsync --table "0 131072 linear /dev/ram1 0" || mark "dmsetup FAILED"
dmsetup mknodes xvg-lv0 # no udev here to make the node
if [ ! -b /dev/mapper/xvg-lv0 ]; then
	mkdir -p /dev/mapper
	# shellcheck disable=SC2046 # major and minor: two words, split on purpose
	mknod /dev/mapper/xvg-lv0 b $(dmsetup info -c --noheadings -o major,minor --separator ' ' xvg-lv0)
fi
dmsetup table >$R/dmsetup.txt
ls -l /dev/mapper >>$R/dmsetup.txt

### xiotop, started without a dump: it must find Xen live by itself. With --latency (its
# completion hooks on 6.1, dm among the backends): the hooks' cost lands in the blkback
# threads' runtime that both xiotop and schedstat read, so the CPU checks still compare
# like with like. The console below runs without it: the default program set runs too.
xiotop -b -d 1 --format json --latency >$R/xiotop.json 2>$R/xiotop.err &
xpid=$!
end=$(($(date +%s) + 60))
while [ ! -s $R/xiotop.json ] && [ "$(date +%s)" -lt $end ]; do sleep 0.5; done
mark "xiotop up: $(head -3 $R/xiotop.err | tr '\n' ' ')"

# xiotop_phases=stacks on the dom0 command line (run.sh passes $XIOTOP_XEN_DOM0_ARGS):
# only the storage-stack phases (the test xen_dom0_stacks); else phases A-D and the
# console (xen_dom0). Two boots, each under 6 minutes, where one did both in 7 and more.
# check.py reads $R/phases to judge only what ran.
# xiotop_phases=hvm: only phase H, the HVM guest and its PV twin (hvm.sh)
if grep -qw xiotop_phases=hvm /proc/cmdline; then
	# shellcheck disable=SC1091 # tests/xen/hvm.sh, put in /root by run.sh
	. /root/hvm.sh
	echo hvm >$R/phases
	hvm_phase
	kill -INT $xpid
	wait $xpid
	cp /var/log/xen/*.log $R/ 2>/dev/null
	exit 0
fi
if grep -qw xiotop_phases=stacks /proc/cmdline; then
	echo stacks >$R/phases
	stacks_all
	kill -INT $xpid
	wait $xpid
	cp /var/log/xen/*.log $R/ 2>/dev/null
	exit 0
fi

### phase A: file-backed (dio off, dio on) and LVM, writing at once
# 256 KiB requests: each guest writes for some seconds, so the console shows them at once
XARGS=xbs=256 cfg file-nodio /dev/loop0 32 8
XARGS=xbs=256 cfg file-dio /dev/loop1 32 8
XARGS=xbs=256 cfg lvm /dev/mapper/xvg-lv0 32 8
for n in file-nodio file-dio lvm; do create $n; done
export LC_ALL=C.UTF-8 # tmux wants a UTF-8 locale (glibc's built-in one)
# the console's stderr and exit status go to console.err; the pane stays after an exit
tmux -u new-session -d -s cap -x 118 -y 30 \
	"echo TERM=\$TERM >$R/console.err; xiotop -d 1 2>>$R/console.err; echo \"xiotop console exit \$?\" >>$R/console.err; sleep 3600" 2>>$R/tmux.err
# the console drawing before the guests run: its first frame (rates "-") and one with
# rates, or 90 s. Started beside the guests' boots it drew its first frame 24 s after the
# unpause (its BPF load in a starved dom0), inside their writes: no screen showed them.
tc=$SECONDS
for _ in $(seq 1 90); do
	scr=$(tmux -u capture-pane -p -t cap 2>/dev/null)
	[[ $scr =~ lvm\ +[0-9]+\ +[a-z]+\ +[0-9] ]] && break
	sleep 1
done
mark "console up after $((SECONDS - tc)) s"
# wr_polls STOPFILE: each phase A domain's blkback wr_sect every 0.2 s with the wall clock
# before and after the reads, until STOPFILE exists: check.py judges from them which domains each
# console capture (its header holds its interval's end) must and may show writing
declare -A adom=()
for n in file-nodio file-dio lvm; do adom[$n]=$(xl domid $n 2>/dev/null); done
wr_polls() {
	local g v w line
	[ -p /tmp/never ] || mkfifo /tmp/never
	exec 6<>/tmp/never
	while [ ! -e "$1" ]; do
		line="WRPOLL $EPOCHREALTIME"
		for g in file-nodio file-dio lvm; do
			w=-
			for v in /sys/bus/xen-backend/devices/vbd-"${adom[$g]}"-*/statistics; do
				read -r w <"$v/wr_sect" 2>/dev/null
			done
			line+=" $g $w"
		done
		echo "$line $EPOCHREALTIME"
		read -r -t 0.2 -u 6 _
	done >>$R/snapshots.txt
	exec 6<&-
}
rm -f /tmp/wr.stop
[ -p /tmp/never ] || mkfifo /tmp/never
wr_polls /tmp/wr.stop &
wrp=$!
mark "phase A: unpause"
for n in file-nodio file-dio lvm; do xl unpause $n; done
# the console inside dom0 while the guests write: a capture is taken once blkback's
# wr_sect (read with builtins every 0.2 s, no fork) says the guests' writes have been
# running for 1.2 s (so the console's last interval holds some), then each second while
# they still grow; and every 4 s while they boot, before any write (screens on which no
# domain may be shown writing, once the console has drawn its first: the first, 3 s
# after the unpause, was still blank). Each capture runs in the background: under TCG a fork
# costs ~0.5 s while the guests run and tmux took seconds while they boot, so captures
# taken in turn on a clock came out up to 28 s apart and one boot's two fell outside the
# writes (~2-3 s of them when the host is not loaded).
capture() { # N: console-N.txt, and CAPTURED N with the wall clock just after it
	tmux -u capture-pane -p -t cap >"$R/console-$1.txt" 2>>$R/tmux.err
	echo "CAPTURED $1 $EPOCHREALTIME" >>$R/snapshots.txt # the interval it shows ended before
	[ $(($1 % 4)) -ne 0 ] || tmux -u capture-pane -p -e -t cap >"$R/console-$1.ansi" 2>>$R/tmux.err # with colours
}
exec 5<>/tmp/never
declare -A wlast=()
cpids=()
i=100 seen_us=0 cap_us=0 boot_us=${EPOCHREALTIME/./} end=$((SECONDS + 150))
while [ $SECONDS -lt $end ] && [ $i -le 300 ]; do
	read -r -t 0.2 -u 5 _
	grew=0 n=0
	for g in file-nodio file-dio lvm; do
		w=0
		for v in /sys/bus/xen-backend/devices/vbd-"${adom[$g]}"-*/statistics; do
			read -r w <"$v/wr_sect" 2>/dev/null
		done
		[ "$w" = "${wlast[$g]:-0}" ] || grew=$((grew + 1))
		wlast[$g]=$w
		log=()
		mapfile -t log <"/var/log/xen/guest-$g.log" 2>/dev/null
		[[ "${log[*]}" != *"XIOTOP-DOMU: done"* ]] || n=$((n + 1))
	done
	[ $n -lt 3 ] || break
	now_us=${EPOCHREALTIME/./}
	if ((seen_us == 0 && grew == 0 && now_us - boot_us >= 4000000)); then
		capture $i & # the guests boot: none writes yet
		cpids+=($!) i=$((i + 1)) boot_us=$now_us
	fi
	[ $grew -gt 0 ] || continue
	((seen_us > 0)) || seen_us=$now_us
	if ((now_us - seen_us < 1200000 || now_us - cap_us < 1000000)); then continue; fi
	capture $i &
	cpids+=($!) i=$((i + 1)) cap_us=$now_us
done
if ((cap_us == 0)); then # all done within 1.2 s of their first write (or none seen): one now
	capture $i &
	cpids+=($!)
fi
wait "${cpids[@]}"
exec 5<&-
xiotop topology --format json >$R/topology-A.json 2>$R/topology-A.err
wait_done file-nodio file-dio lvm
mark "phase A: guests done"
touch /tmp/wr.stop
wait $wrp
snapshot A file-nodio file-dio lvm
cp $R/console.err $R/console-live.err 2>/dev/null # before the kill ends it
tmux -u kill-server 2>/dev/null
destroy file-nodio file-dio lvm

### phase B: qdisk through qemu-system-xen
if [ -x /usr/libexec/xen-qemu-system-i386 ]; then
	cfg qdisk /mnt/ext/qdisk.img 32 8 "" backendtype=qdisk
	if d=$(create qdisk); then
		echo "EXPECT B qdisk $d 32 8" >>$R/snapshots.txt # what the guest's dd moves
		xl unpause qdisk
		wait_done qdisk
		mark "phase B: guest done"
		# shellcheck disable=SC2009 # the ps lines themselves (pid, args) are the record
		ps -o pid,args | grep '[q]emu' >$R/qdisk-ps.txt
		snapshot B qdisk
		destroy qdisk
	else
		tail -20 /var/log/xen/qemu-dm-qdisk.log >$R/qdisk-qemu.log 2>/dev/null
		echo "QDISK-FAILED qemu said: $(grep -v '^$' $R/qdisk-qemu.log | tail -1);" \
			"xl said: $(grep -m1 error $R/xl-create-qdisk.log)" >>$R/snapshots.txt
	fi
else
	echo "QDISK-FAILED qemu-system-xen is not in this dom0" >>$R/snapshots.txt
fi

### phase C: churn: the same name again on the same loop device, a new domid (xl 4.17's
# create cannot ask for a domid: a "domid =" line is ignored; phase D reuses one)
# Each incarnation does its I/O alone, on loop2: the kworkers' work is traced from before
# its unpause to after its snapshot (kwtrace), the truth for its loop-role CPU
churn_phase() { # PHASE WRITE_MIB
	cfg churn /dev/loop2 "$2" 0
	create churn >/dev/null || return 1
	kwtrace start || echo "KWTRACE $1 unavailable" >>$R/snapshots.txt
	xl unpause churn && wait_done churn && snapshot "$1" churn
	kwtrace stop "$1"
	echo "LOOPDEV $1 $(xl domid churn) loop2" >>$R/snapshots.txt
}
churn_phase C1 24
destroy churn
xiotop_past "C1" # its topology without the first incarnation
churn_phase C2 40
destroy churn
xiotop_past "C2"
### phase D: a reused domid. xl save -D keeps the domid in the saved configuration and
# xl restore makes the domain again on it (same name and uuid): another incarnation
# whose blkback statistics start at zero, while xiotop must not merge the two.
XARGS=xw2=16 cfg reuse /dev/loop3 24 0
if create reuse >/dev/null && xl unpause reuse && wait_done reuse; then
	snapshot D1 reuse
	d=$(xl domid reuse)
	mark "D1 end"
	# libxl refuses a domid destroyed less than LIBXL_DOMID_REUSE_TIMEOUT (60) s ago
	export LIBXL_DOMID_REUSE_TIMEOUT=1
	if timeout 120 xl save -D reuse /tmp/reuse.chk >$R/xl-save.log 2>&1; then
		sleep 1 # LIBXL_DOMID_REUSE_TIMEOUT
		xiotop_past "save -D" # its topology sees the domid gone
		mark "D2 restore" # the second incarnation's blkback thread starts within it
		if timeout 120 xl restore /tmp/reuse.chk >$R/xl-restore.log 2>&1; then
			mark "D2 start" # the guest writes 3 s after its resume
			echo "REUSE $d $(xl domid reuse)" >>$R/snapshots.txt
			DONE=done2 wait_done reuse && snapshot D2 reuse
		else
			echo "REUSE-FAILED xl restore: $(grep -v '^$' $R/xl-restore.log | tail -1)" >>$R/snapshots.txt
		fi
	else
		echo "REUSE-FAILED xl save -D: $(grep -v '^$' $R/xl-save.log | tail -1)" >>$R/snapshots.txt
	fi
	rm -f /tmp/reuse.chk
	destroy reuse 2>/dev/null
	xiotop_past "D"
fi
echo main >$R/phases
kill -INT $xpid
wait $xpid
mark "xiotop exit $?"
cp /var/log/xen/*.log $R/ 2>/dev/null
