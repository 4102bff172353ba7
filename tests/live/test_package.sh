#!/usr/bin/env bash
# The Debian package end to end: built from a clean copy of the tree with
# dpkg-buildpackage, lintian clean (no error, no warning), installed with dpkg -i on this machine,
# `xiotop --version`, every command's --help and `man xiotop` work from the installed
# files, then removed and purged leaving nothing of it behind.
set -euo pipefail
: "${XIOTOP_SRC:?}"
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: installing a package needs root"
	exit 77
fi
# installed is "install ok installed" exactly: one removed but not purged ("deinstall ok
# config-files") is no installed package, and this test installs and purges over it
if [ "$(dpkg-query -W -f='${Status}' xiotop 2>/dev/null)" = "install ok installed" ]; then
	echo "SKIPPED: a xiotop package is installed already; not touching it"
	exit 77
fi
for t in dpkg-buildpackage dh lintian man; do
	command -v "$t" >/dev/null || { echo "SKIPPED: $t is missing (scripts/install-deps.sh installs it)"; exit 77; }
done
work=$(mktemp -d /tmp/xiotop-pkg.XXXXXX)
cleanup() {
	dpkg --purge xiotop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
fail=0
check() { # what, then the command
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}

# a clean copy: what git tracks plus what is not ignored (the tree under test)
mkdir "$work/src"
(cd "$XIOTOP_SRC" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$work/src")
start=$(date +%s)
(cd "$work/src" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) || {
	tail -30 "$work/build.log"
	echo "FAIL dpkg-buildpackage"
	exit 1
}
deb=$(ls "$work"/xiotop_*.deb)
echo "built $(basename "$deb") in $(($(date +%s) - start)) s"
lintian --no-tag-display-limit "$deb" >"$work/lintian.log" 2>&1 || true
check "lintian: no errors, no warnings" bash -c "! grep -q '^[EW]:' '$work/lintian.log'"
grep '^[EW]:' "$work/lintian.log" || true

check "dpkg -i" dpkg -i "$deb"
check "xiotop --version" bash -c "/usr/sbin/xiotop --version | grep -q '^xiotop [0-9]'"
for c in "" topology record mark export replay; do
	check "xiotop $c --help exits 0" bash -c "/usr/sbin/xiotop $c --help >/dev/null"
done
check "man xiotop renders" bash -c "MANWIDTH=80 man xiotop 2>&1 | grep -q 'EXIT STATUS'"
check "man --warnings is quiet" bash -c "[ -z \"\$(man --warnings xiotop 2>&1 >/dev/null)\" ]"
check "unit installed" test -f /lib/systemd/system/xiotop-record.service -o -f /usr/lib/systemd/system/xiotop-record.service
check "serve unit installed" test -f /lib/systemd/system/xiotop-serve.service -o -f /usr/lib/systemd/system/xiotop-serve.service
# dh_installsystemd's maintainer scripts: the recorder enabled (started where systemd
# runs), the exporter installed and left off
wants=/etc/systemd/system/multi-user.target.wants
# (deb-systemd-helper answers only inside dpkg's maintainer scripts: the links themselves)
check "recorder enabled by the package" test -L "$wants/xiotop-record.service"
check "exporter not enabled" test ! -e "$wants/xiotop-serve.service"
check "default config is a conffile" bash -c "dpkg-query -W -f='\${Conffiles}' xiotop | grep -q /etc/default/xiotop-record"
check "bash completion" test -f /usr/share/bash-completion/completions/xiotop
# the fleet view, as tests/dist/test_prometheus.sh held it to a real Prometheus
check "Grafana dashboard installed" cmp -s /usr/share/xiotop/grafana/xiotop.json "$XIOTOP_SRC/dist/grafana/xiotop.json"
check "Prometheus rules installed" cmp -s /usr/share/xiotop/prometheus/xiotop.rules.yml "$XIOTOP_SRC/dist/prometheus/xiotop.rules.yml"
check "the installed rules pass their tests" bash -c "cd /usr/share/xiotop/prometheus && promtool test rules xiotop.rules.test.yml >/dev/null"
check "dpkg -r" dpkg -r xiotop
check "binary gone" test ! -e /usr/sbin/xiotop
check "dpkg --purge" dpkg --purge xiotop
check "config gone" test ! -e /etc/default/xiotop-record
check "recorder's enablement gone with the purge" test ! -e "$wants/xiotop-record.service"
if [ "$fail" -ne 0 ]; then
	echo "FAILED: package"
	exit 1
fi
echo "PASSED: package"
