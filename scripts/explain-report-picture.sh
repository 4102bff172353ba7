#!/usr/bin/env bash
# explain-report-picture.sh BUILD_DIR: README's worked example (seed 001 on emulated
# domains) run again, and docs/explain-report.png made from its HTML report, so that the
# picture shows what this build prints (it showed a share of 2014 %: it was made before
# `explain A B` put its causes on one scale, and nothing made it again).
#
# Root (emulated domains on loop and zram, BPF); hold the host's lock around it:
#   flock /tmp/xiotop-live.lock scripts/explain-report-picture.sh build
# Writes the recordings, the text and HTML reports into a temporary directory it names at
# the end (for README's example output), and the picture with Chromium headless (apt-get
# install chromium), 1200x1600, as the first one was.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (emulated domains, BPF)" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "$0: no chromium (apt-get install chromium)" >&2; exit 2; }
world=/var/lib/xen-emu # README's
out=$(mktemp -d "${TMPDIR:-/tmp}/xiotop-report.XXXXXX")
trap '"$top/tests/emu/emu.sh" down "$world" >/dev/null 2>&1 || true' EXIT
export PATH=$build:$PATH # xiotop and xiotop-emu, as README runs them

"$top/tests/emu/emu.sh" up "$world" --dio off --size-mib 600
# shellcheck disable=SC1091 # written by emu.sh up
. "$world/env"
cd "$out"
xiotop record -o file.xiotop --tail 45 --xenstore-dump "$XENSTORE_DUMP" -- \
	xiotop-emu blkback --domid 1 --target "$DOM1_DEV" --write-mib 256
xiotop record -o lv.xiotop --tail 3 --xenstore-dump "$XENSTORE_DUMP" -- \
	xiotop-emu blkback --domid 3 --target "$DOM3_DEV" --write-mib 256 --rate-mib-s 150
# each guest named, as a user asks: the emulated blkback is a process of dom0, whose own
# run ("dom0 (xiotop-emu)") is a subject too and can be the busiest (tests/live/test_explain.sh)
xiotop explain file.xiotop --domain 1 >explain-file.txt
xiotop explain file.xiotop lv.xiotop --domain 1 --domain 3 >explain-compare.txt
xiotop explain file.xiotop lv.xiotop --domain 1 --domain 3 --format html -o report.html
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1600 \
	--screenshot="$out/explain-report.png" "file://$out/report.html" 2>/dev/null
cp "$out/explain-report.png" "$top/docs/explain-report.png"
echo "$0: docs/explain-report.png made; the reports are in $out"
