#!/usr/bin/env bash
# Live test of `xiotop serve` (issue "Fleet view"): a real Prometheus (Debian package, on
# 127.0.0.1, its own temporary config and storage, scrape_interval 1s) scrapes xiotop
# serve over emulated domains (guest1: a file-backed loop device, guest3: zram; guest2,
# idle, carries a hostile name), with --latency. serve_check.py compares PromQL answers
# with what the emulated backends wrote (bytes, and requests in the latency histogram),
# runs promtool and the README's queries, 100 concurrent scrapes
# and idle clients. Bad --listen values are checked first (no root needed).
# That serve is dist/xiotop-serve.service's own ExecStart in the unit's emulated sandbox
# (unit_sandbox.sh), dropping to nobody once attached: the counts are made after the drop.
# Then the unit again with a web configuration (TLS, a client CA, basic auth; throwaway
# certificates made with openssl): a second Prometheus scrapes it over TLS; curl without
# the client certificate, with a wrong password or over plain HTTP gets no metrics;
# promtool checks what the authorised scrape got. Bad --web-config files come first.
# Exit 77 (skipped) without root, zram, curl or the prometheus package; exit 1 when a
# check failed before such a skip.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
# shellcheck source=unit_sandbox.sh
. "$XIOTOP_SRC/tests/live/unit_sandbox.sh"
X=$XIOTOP_BIN
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- bad input: one message naming the value, exit 2, before any tracer ---
for bad in nonsense 127.0.0.1 127.0.0.1:0 127.0.0.1:70000 300.1.1.1:80 "[::1]:x"; do
	rc=0
	out=$(timeout 20 "$X" serve --listen "$bad" 2>&1 >/dev/null) || rc=$?
	check "$([ $rc -eq 2 ] && grep -qF "not \"$bad\"" <<<"$out" && echo 0 || echo 1)" \
		"--listen $bad: exit $rc, $out"
done
# a port held by another listener (it says "bound" once it is; the check then runs)
mkfifo "${TMPDIR:-/tmp}/serve-busy.$$"
python3 -c "import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(30)" >"${TMPDIR:-/tmp}/serve-busy.$$" &
holder=$!
read -r busy <"${TMPDIR:-/tmp}/serve-busy.$$"
rm -f "${TMPDIR:-/tmp}/serve-busy.$$"
rc=0
out=$(timeout 20 "$X" serve --listen "127.0.0.1:$busy" 2>&1 >/dev/null) || rc=$?
kill "$holder" 2>/dev/null || true
check "$([ $rc -eq 2 ] && grep -q "cannot listen on 127.0.0.1:$busy: Address already in use" <<<"$out" && echo 0 || echo 1)" \
	"a busy port: exit $rc, $out"

# --- bad --web-config files: one line naming the file and the key, exit 2, no tracer ---
webdir=$(mktemp -d -t xiotop-web.XXXXXX)
printf 'tls_server_config:\n  keyfile: a.key\n' >"$webdir/unknown.yml"
printf 'basic_auth_users:\n  prom: plaintext\n' >"$webdir/plain.yml"
printf 'tls_server_config:\n  cert_file: missing.crt\n' >"$webdir/missing.yml"
for bad in unknown.yml:keyfile plain.yml:prom missing.yml:cert_file none.yml:none.yml; do
	rc=0
	out=$(timeout 20 "$X" serve --listen 127.0.0.1:1 --web-config "$webdir/${bad%%:*}" 2>&1 >/dev/null) || rc=$?
	check "$([ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -qF "$webdir/${bad%%:*}" <<<"$out" &&
		grep -qF "${bad#*:}" <<<"$out" && echo 0 || echo 1)" "--web-config ${bad%%:*}: exit $rc, $out"
done
rm -rf "$webdir"
for cmd in "serve --listen 127.0.0.1:1" "record -o /nonexistent/x.xrec"; do
	rc=0
	# shellcheck disable=SC2086 # the command and its options
	out=$(timeout 20 "$X" $cmd --user no-such-user-xiotop 2>&1 >/dev/null) || rc=$?
	check "$([ $rc -eq 2 ] && [ "$out" = "xiotop ${cmd%% *}: --user no-such-user-xiotop: no such user" ] &&
		echo 0 || echo 1)" "${cmd%% *} --user with an unknown user: exit $rc, $out"
done

live_require_root "serving live domains needs root (BPF, loop devices, zram, mounts)"
live_require_zram "the emulated domains need zram"
live_require_cmd curl "no curl: it asks serve and Prometheus whether they answer (scripts/install-deps.sh installs it)"
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
	apt-get install -y -qq --no-install-recommends prometheus >/dev/null 2>&1 || true
fi
if live_absent prometheus || ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
	live_skip "no prometheus/promtool (apt-get install prometheus failed)"
fi

live_workdir serve
pids=()
before_cleanup() { # xiotop serve and Prometheus: SIGTERM, 5 s each to go, then SIGKILL
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
}

chmod 755 "$work" # the exporter goes on as nobody
unit=$XIOTOP_SRC/dist/xiotop-serve.service
# The unit's ExecStart with these settings, in the unit's emulated sandbox, as nobody.
unit_serve() { # LISTEN INTERVAL OPTS...
	local line listen=$1 interval=$2
	shift 2
	line=$(sed -n 's/^ExecStart=//p' "$unit")
	line=$(XIOTOP_LISTEN=$listen XIOTOP_INTERVAL=$interval XIOTOP_USER=nobody XIOTOP_OPTS="$*" \
		bash -c "echo \"$line\"" | sed "s|^/usr/sbin/xiotop|$X|")
	# shellcheck disable=SC2086 # the unit's command line, split as systemd does
	unit_sandboxed "$unit" -- $line
}
live_world_up off
# guest2's name: a quote, a backslash, a newline and ESC, as xenstore-ls prints them
hostile=$(printf 'ev"il\\na\nme\033[31m' | od -An -tx1 | tr -d ' \n')
sed 's|^\(/local/domain/2/name = \).*$|\1"ev"il\\\\na\\nme\\x1b[31m"|' "$XENSTORE_DUMP" >"$work/hostile.dump"
grep -q '^/local/domain/2/name = "ev"il' "$work/hostile.dump"
check $? "hostile name in the xenstore dump: $(grep '^/local/domain/2/name' "$work/hostile.dump")"

xport=$(free_port)
pport=$(free_port)
aport=$(free_port) # serve_check.py's probe that records the Accept header Prometheus sends
(unit_serve "127.0.0.1:$xport" 1 --latency --xenstore-dump "$work/hostile.dump") \
	2>"$work/serve.err" &
xpid=$!
pids+=("$xpid")
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: xiotop
    static_configs:
      - targets: ['127.0.0.1:$xport']
  - job_name: accept-probe
    static_configs:
      - targets: ['127.0.0.1:$aport']
YML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn 2>"$work/prometheus.err" &
pids+=($!)
ready=1
for _ in $(seq 100); do
	if curl -sf "http://127.0.0.1:$pport/-/ready" >/dev/null &&
		curl -sf "http://127.0.0.1:$xport/metrics" >/dev/null; then
		ready=0
		break
	fi
	sleep 0.3
done
check $ready "xiotop serve on 127.0.0.1:$xport and Prometheus $(prometheus --version 2>&1 | head -1 | cut -d' ' -f3) on 127.0.0.1:$pport"
if [ $ready -ne 0 ]; then
	cat "$work/serve.err" "$work/prometheus.err"
	exit 1
fi

python3 "$XIOTOP_SRC/tests/live/serve_check.py" "$work/world/env" "$XIOTOP_EMU" "$xport" \
	"$xpid" "$pport" "$XIOTOP_SRC/README.md" "$hostile" "$aport"
check $? "Prometheus, PromQL, promtool, hostile name, concurrency (serve_check.py)"

check "$(grep -q "attached; now user nobody (uid [0-9]*, gid [0-9]*), no capabilities" \
	"$work/serve.err" && echo 0 || echo 1)" "the unit's serve in its sandbox dropped to nobody: $(grep -m1 "now user" "$work/serve.err")"
grep -v "^xiotop serve: .*now user\|^xiotop serve: http" "$work/serve.err" >"$work/serve.rest" || true

# shellcheck source=serve_tls.sh
. "$XIOTOP_SRC/tests/live/serve_tls.sh"

kill -TERM "$xpid"
rc=0
for _ in $(seq 50); do kill -0 "$xpid" 2>/dev/null || break; sleep 0.1; done
wait "$xpid" || rc=$?
check $rc "xiotop serve stops on SIGTERM (exit $rc)"
sed 's/^/     serve: /' "$work/serve.rest" | head -5

live_finish serve
