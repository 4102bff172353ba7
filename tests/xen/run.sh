#!/usr/bin/env bash
# run.sh - a real Xen dom0 of one Debian release ($XIOTOP_XEN_RELEASE: bookworm, Xen 4.17
# and Linux 6.1, the default; trixie, Xen 4.20 and Linux 6.12) under qemu TCG running the
# scenarios of scenarios.sh with xiotop, then check.py on what came out. The xiotop is
# the freshly built $XIOTOP_BIN when the release is the host's own; else (or with
# XIOTOP_XEN_DEB=1) the .deb scripts/build-release.sh builds for the release, installed
# with apt into the release's root file system the dom0 image is made from.
# The release's root (fetch.sh) is made once into a cache: $XIOTOP_CACHE/xen-RELEASE,
# else the machine-wide /var/cache/xiotop-tests/xen-RELEASE when that directory exists (so
# a fresh clone on this machine starts warm), else <build dir>/xen-cache-RELEASE. SKIPPED
# (exit 77) with the reason when root, qemu or the packages are missing.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_SRC:?}"
here=$XIOTOP_SRC/tests/xen
release=${XIOTOP_XEN_RELEASE:-bookworm}
case $release in
bookworm | trixie) ;;
*) echo "FAIL: XIOTOP_XEN_RELEASE=$release: bookworm or trixie"; exit 1 ;;
esac
t0=$(date +%s.%N)
elapsed() { echo "$(date +%s.%N) $t0" | awk '{printf "%.1f", $1 - $2}'; }
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: the Xen dom0 test needs root (apt-get download, initramfs device nodes)"
	exit 77
fi
for t in qemu-system-x86_64 cpio depmod modinfo xz mmdebstrap flock python3; do
	command -v "$t" >/dev/null ||
		{ echo "SKIPPED: $t is missing on this host (scripts/install-deps.sh installs it)"; exit 77; }
done
if [ -n "${XIOTOP_CACHE:-}" ]; then
	cache=$XIOTOP_CACHE/xen-$release
elif [ -d /var/cache/xiotop-tests ] && [ -w /var/cache/xiotop-tests ]; then
	cache=/var/cache/xiotop-tests/xen-$release
else
	cache=$(dirname "$XIOTOP_BIN")/xen-cache-$release
fi
# the xiotop the dom0 runs: built for its release
# shellcheck disable=SC1091 # the host's, read at run time
host_release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
deb=
if [ "$release" != "$host_release" ] || [ -n "${XIOTOP_XEN_DEB:-}" ]; then
	tb=$(date +%s)
	deb=$(bash "$XIOTOP_SRC/scripts/build-release.sh" "$release" "$(dirname "$XIOTOP_BIN")/release/$release" | tail -1) ||
		{ echo "FAIL: the $release .deb was not built (scripts/build-release.sh $release)"; exit 1; }
	echo "xen test: $(basename "$deb") for $release in $(($(date +%s) - tb)) s"
fi
mkdir -p "$cache"
# the cache may be machine-wide: one run at a time fills it (until dom0.cpio.gz is made)
exec 9>"$cache/.lock"
flock 9
rc=0
bash "$here/fetch.sh" "$cache" "$release" || rc=$?
[ $rc -eq 0 ] || exit $rc
# the image parts that do not depend on xiotop: rebuilt when packages or scripts change
base_stamp="$(cat "$cache/root.stamp") $(cat "$here/build_base.sh" "$here/domu_init.sh" "$here/domu_bench.sh" | md5sum)"
if [ ! -f "$cache/img/base.stamp" ] || [ "$(cat "$cache/img/base.stamp")" != "$base_stamp" ]; then
	bash "$here/build_base.sh" "$cache" "$XIOTOP_SRC" || exit $?
	echo "$base_stamp" >"$cache/img/base.stamp"
fi
if [ -n "$deb" ]; then
	# installed as a user installs it: apt, the release's dependencies pulled when missing.
	# --reinstall: the cached root keeps the last build's package, of the same version, and
	# apt keeps that ("already the newest version"): the dom0 ran a build of days before.
	cp "$deb" "$cache/root/tmp/xiotop.deb"
	apt_install() { chroot "$cache/root" apt-get install -y -q --reinstall /tmp/xiotop.deb; }
	if ! { apt_install || { chroot "$cache/root" apt-get update -q && apt_install; }; } >"$cache/xiotop-install.log" 2>&1; then
		echo "FAIL: $(basename "$deb") does not install in the $release root:"
		tail -5 "$cache/xiotop-install.log"
		exit 1
	fi
	rm -f "$cache/root/tmp/xiotop.deb"
	# and the binary the dom0 gets is this build's
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/sbin/xiotop | cmp -s - "$cache/root/usr/sbin/xiotop"; then
		echo "FAIL: the $release root's /usr/sbin/xiotop is not the one in $(basename "$deb") after apt-get install:"
		tail -3 "$cache/xiotop-install.log"
		exit 1
	fi
	# shellcheck disable=SC2016 # dpkg-query's own ${...}
	echo "xen test: installed $(chroot "$cache/root" dpkg-query -W -f='${Package} ${Version}' xiotop) in the $release root"
fi
echo "xen test: $release packages and base image ready in $(elapsed) s (cache $cache)"

work=$(mktemp -d /tmp/xiotop-xen.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM HUP
# the overlay: xiotop with its shared libraries, the dom0 init and the scenarios
O=$work/overlay
mkdir -p "$O/opt/xiotop/bin" "$O/lib/x86_64-linux-gnu" "$O/lib64" "$O/root"
if [ -n "$deb" ]; then
	# the packaged binary and its libraries, as the release root's loader resolves them
	cp "$cache/root/usr/sbin/xiotop" "$O/opt/xiotop/bin/xiotop"
	chroot "$cache/root" ldd /usr/sbin/xiotop | awk '/=> \//{print $3} /^\t\/lib64/{print $1}' | while read -r lib; do
		mkdir -p "$O$(dirname "$lib")"
		cp -L "$cache/root$lib" "$O$lib"
	done
else
	cp "$XIOTOP_BIN" "$O/opt/xiotop/bin/xiotop"
	ldd "$XIOTOP_BIN" | awk '/=> \//{print $3} /^\t\/lib64/{print $1}' | while read -r lib; do
		case $lib in
		/lib64/*) cp -L "$lib" "$O/lib64/" ;;
		*) cp -L "$lib" "$O/lib/x86_64-linux-gnu/" ;;
		esac
	done
fi
install -m 755 "$here/dom0_init.sh" "$O/init"
install -m 755 "$here/scenarios.sh" "$O/root/scenarios.sh"
install -m 644 "$here/stacks.sh" "$O/root/stacks.sh"
install -m 644 "$here/explain.sh" "$O/root/explain.sh"
install -m 644 "$here/flip.sh" "$O/root/flip.sh"
install -m 644 "$here/hvm.sh" "$O/root/hvm.sh"
bash "$here/hvm_build.sh" "$O/root/hvm-disk.elf" || { echo "FAIL: the HVM guest (hvm_disk.S) was not built"; exit 1; }
case ",${XIOTOP_XEN_DOM0_ARGS:-}," in
*xiotop_phases=explain*) cp "$cache/img/domU-bench.cpio.gz" "$O/root/" ;; # ~30 MiB: only for it
esac
(cd "$O" && find . | cpio -H newc -o --quiet | gzip -1 >"$work/overlay.cpio.gz")
cat "$cache/img/base.cpio.gz" "$work/overlay.cpio.gz" >"$work/dom0.cpio.gz"
cp "$cache/img/xen" "$cache/img/vmlinuz" "$cache/img/qdisk.status" "$work/"
flock -u 9
truncate -s 64M "$work/results.img"

# qemu 7.2's multi-threaded TCG (XIOTOP_XEN_TCG=single for the other) can go on running
# an instruction as one vCPU translated it while another was rewriting it: the int3 the
# kernel puts there during a rewrite outlives the rewrite. A dom0 kernel rewrites code when
# a tracepoint gets its first probe or a second (xiotop's attach and detach) and when it
# switches a static key of its own (crng_is_ready, once the crng is seeded). On two vCPUs
# the dom0 then hung (soft lockups at syscall_trace_enter: one CI run in ~15) or oopsed
# (int3 in get_random_u16 8 ms after "crng init done": a CI boot of Debian 13). So the dom0
# has one vCPU (XIOTOP_XEN_DOM0_VCPUS): none of its text is translated by another while
# it is rewritten; the domUs have one each. The test xen_tcg_flip checks it (Debian 13: 486
# tracepoint flips in 240 s on one vCPU; on two, an int3 oops at the first). Single-threaded
# TCG, immune too, cost ~70 s a boot, and its coarser timing failed the console's and the
# loop CPU's checks in one of two boots.
xen_cmdline="console=com1 com1=115200 dom0_mem=1536M,max:1536M dom0_max_vcpus=${XIOTOP_XEN_DOM0_VCPUS:-1}"
xen_cmdline+=" loglvl=all guest_loglvl=all console_timestamps=boot"
console=${XIOTOP_XEN_CONSOLE:-$work/console.log}
tq=$(date +%s.%N)
# TCG loads both CPUs: one boot at a time, and no other live test or bench beside it.
# XIOTOP_XEN_CPU: another qemu CPU model. +npt: TCG emulates AMD's nested paging, and Xen
# runs HVM guests with it (HAP); without, Debian's Xen (no shadow paging built in) refuses
# them ("neither hap nor shadow paging available").
tcg=${XIOTOP_XEN_TCG:-multi}
# The boot's limit (the dom0's own deadline 30 s less): 230 s of qemu on an idle host,
# 592 s while builds loaded it (TCG slows as a whole), which the former 600 cut short.
tmo=${XIOTOP_XEN_TIMEOUT:-1200}
# The kernel also rewrites code at its own boot (static keys, alternatives), before
# anything of ours runs: one boot in ~17 here stopped at uptime 2.4 s, both vCPUs silent
# until the timeout. A dom0 whose init has not started XIOTOP_XEN_INIT_LIMIT s (120) after
# qemu started is such a stall: qemu is stopped, said, and the dom0 booted once more.
# Nothing of xiotop has run by then, and a second stall fails the test.
dom0_args="console=hvc0 earlyprintk=xen xiotop_deadline=$((tmo - 30)) ${XIOTOP_XEN_DOM0_ARGS:-}"
boot() { # ATTEMPT: one qemu boot under the live lock; sets rc and tl
	local stall=$work/boot-stall.$1 started=$work/qemu.start.$1 waited=0 qpid
	rc=0
	# shellcheck disable=SC2016 # $0 and $@ are the inner sh's, not expanded here
	flock /tmp/xiotop-live.lock sh -c 'date +%s.%N >"$0"; exec "$@"' "$started" timeout -k 5 "$tmo" \
		qemu-system-x86_64 -accel "tcg,thread=$tcg" -cpu "${XIOTOP_XEN_CPU:-qemu64,+svm,+npt}" -m 3072 -smp 2 -nographic -no-reboot \
		-monitor none -serial stdio -kernel "$work/xen" -append "$xen_cmdline" \
		-initrd "$work/vmlinuz ${dom0_args//,/,,},$work/dom0.cpio.gz" \
		-drive "file=$work/results.img,format=raw,if=virtio" </dev/null >"$console" 2>&1 &
	qpid=$!
	while kill -0 $qpid 2>/dev/null; do
		sleep 1
		[ -f "$started" ] || continue # still waiting for the live lock
		grep -a -q "XIOTOP-DOM0: init start" "$console" && break
		waited=$((waited + 1))
		if [ $waited -ge "${XIOTOP_XEN_INIT_LIMIT:-120}" ]; then
			touch "$stall"
			pkill -TERM -P $qpid 2>/dev/null # the timeout under flock: it ends qemu
			break
		fi
	done
	wait $qpid || rc=$?
	tl=$(cat "$started" 2>/dev/null || echo "$tq")
	[ ! -f "$stall" ]
}
attempt=1
until boot $attempt; do
	echo "xen test: boot $attempt stalled: the dom0's init had not started ${XIOTOP_XEN_INIT_LIMIT:-120} s" \
		"after qemu did (a qemu TCG fault, nothing of xiotop ran); its console ends:"
	tail -3 "$console" | tr -d '\r' | sed 's/^/  /'
	cp "$console" "$work/console-stalled-$attempt.log"
	if [ $attempt -ge 2 ]; then
		echo "FAIL: the dom0 stalled in its boot twice"
		exit 1
	fi
	attempt=$((attempt + 1))
	truncate -s 0 "$work/results.img" && truncate -s 64M "$work/results.img"
	echo "xen test: booting again"
done
# what the dom0 kernel prints when it hangs or crashes (a soft lockup's report says BUG:)
kernel_trouble='BUG:|Oops|rcu: INFO|Dom0 crashed'
echo "xen test: qemu ran $(echo "$(date +%s.%N) $tl" | awk '{printf "%.1f", $1 - $2}') s (exit $rc)" \
	"after $(echo "$tl $tq" | awk '{printf "%.1f", $1 - $2}') s waiting for the live lock"
grep -a "XIOTOP-DOM0" "$console" | tr -d '\r' | sed 's/^/  /'
mkdir -p "$work/results"
if ! tar -xf "$work/results.img" -C "$work/results" 2>/dev/null || [ ! -f "$work/results/events.log" ]; then
	# the first sign of kernel trouble says more than the tail of repeated reports
	first=$(grep -a -n -m1 -E "$kernel_trouble" "$console" | cut -d: -f1)
	if [ -n "$first" ]; then
		echo "FAIL: no results came out of dom0; the console from its first kernel report:"
		sed -n "$((first > 5 ? first - 5 : 1)),$((first + 40))p" "$console" | tr -d '\r'
		echo "..."
	else
		echo "FAIL: no results came out of dom0; console tail:"
	fi
	tail -30 "$console" | tr -d '\r'
	exit 1
fi
[ -z "${XIOTOP_XEN_KEEP:-}" ] || cp -r "$work/results/." "$XIOTOP_XEN_KEEP/"
# -B: check.py imports check_latency.py; no __pycache__ written into the source tree
case ",${XIOTOP_XEN_DOM0_ARGS:-}," in
*xiotop_phases=explain*) python3 -B "$here/check_explain.py" "$work/results" || rc=1 ;;
*xiotop_phases=flip*)
	# the boot ended by itself; a hang is a soft lockup or a stall on the console
	cat "$work/results/flip.txt"
	if grep -a -q -E "$kernel_trouble" "$console"; then
		echo "FAIL: the kernel hung or crashed while flipping tracepoint probes"
		rc=1
	elif ! grep -q '^flips of ' "$work/results/flip.txt"; then
		rc=1
	fi
	;;
*)
	python3 -B "$here/check.py" "$work/results" "$work/qdisk.status" || rc=1
	# and do those checks fail when xiotop's figures are wrong? (each made wrong on a copy)
	if [ $rc -eq 0 ]; then
		python3 -B "$here/check_bites.py" "$work/results" "$work/qdisk.status" || rc=1
	fi
	;;
esac
[ $rc -eq 0 ] || [ $rc -eq 1 ] || rc=1
echo "xen test: $(elapsed) s in all"
exit $rc
