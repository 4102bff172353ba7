#!/usr/bin/env bash
# The fleet view as the package ships it (issue 45), against a real Prometheus (the Debian
# package) scraping `xiotop serve` (its synthetic domains: no root, no BPF):
#  - `curl /metrics | promtool check metrics`, the usual check: curl's Accept */* gets the
#    text format, as node_exporter answers it;
#  - dist/prometheus/xiotop.rules.yml passes `promtool check rules` and its own unit tests
#    (`promtool test rules dist/prometheus/xiotop.rules.test.yml`: every recording rule's
#    value, every alert firing after its `for` and silent on a healthy host);
#  - Prometheus loads the rules and evaluates every one without error; each recording
#    rule's series exist, one per domain (and op, role) the exporter exposes; each alert's
#    expression, its threshold left aside, gives the series its summary names;
#  - every expression of every panel of dist/grafana/xiotop.json (the dashboard's
#    variables as "All", $__rate_interval 1m) returns the series its legend names: a
#    per-domain panel one series for each domain the exporter exposes, the CPU by role
#    each role, a heatmap its buckets up to +Inf, the host disks each device.
# Exit 77 (skipped) when prometheus, promtool or curl is missing.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_SRC:?}"
for t in prometheus promtool curl python3; do
	command -v "$t" >/dev/null || { echo "SKIPPED: $t is missing (scripts/install-deps.sh installs it)"; exit 77; }
done
rules=$XIOTOP_SRC/dist/prometheus/xiotop.rules.yml
rules_test=$XIOTOP_SRC/dist/prometheus/xiotop.rules.test.yml
dashboard=$XIOTOP_SRC/dist/grafana/xiotop.json
work=$(mktemp -d "${TMPDIR:-/tmp}/xiotop-prom.XXXXXX")
serve_pid=
prom_pid=
cleanup() {
	if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; fi
	if [ -n "$prom_pid" ]; then kill "$prom_pid" 2>/dev/null || true; fi
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fails=0
check() { # STATUS WHAT
	if [ "$1" -eq 0 ]; then echo "ok   $2"; else echo "FAIL $2"; fails=$((fails + 1)); fi
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { # SECONDS COMMAND...
	local until=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $until ] || return 1
		sleep 0.5
	done
}

xport=$(free_port)
"$XIOTOP_BIN" serve --synthetic 5 -d 1 --listen "127.0.0.1:$xport" 2>"$work/serve.err" &
serve_pid=$!
wait_for 30 curl -sf "http://127.0.0.1:$xport/metrics"
check $? "xiotop serve answers on 127.0.0.1:$xport"
# it answers before its first interval (the families declared, no series): wait for that
# interval, however long a loaded host makes it, then a few more so every family holds values
wait_for 60 bash -c "curl -sf 'http://127.0.0.1:$xport/metrics' | grep -q '^xiotop_domain_dom0_cpu_seconds_total{'"
check $? "xiotop serve's first interval"
sleep 2

# --- 1. the usual check: curl | promtool check metrics ---
type=$(curl -s -o "$work/metrics.txt" -w '%{content_type}' "http://127.0.0.1:$xport/metrics")
promtool check metrics <"$work/metrics.txt" >"$work/check.txt" 2>&1
rc=$?
check "$([ $rc -eq 0 ] && [[ $type == "text/plain; version=0.0.4"* ]] && echo 0 || echo 1)" \
	"curl (Accept */*) gets $type; promtool check metrics: exit $rc $(head -c 300 "$work/check.txt")"

# --- 2. the rules on their own ---
promtool check rules "$rules" >"$work/rules.txt" 2>&1
check $? "promtool check rules: $(grep -o '[0-9]* rules found' "$work/rules.txt")"
(cd "$(dirname "$rules_test")" && promtool test rules "$(basename "$rules_test")") >"$work/rtest.txt" 2>&1
check $? "promtool test rules: $(tr -s ' \n' ' ' <"$work/rtest.txt" | head -c 300)"

# --- 3. a real Prometheus scraping xiotop, with the rules ---
pport=$(free_port)
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$rules"]
scrape_configs:
  - job_name: xiotop
    static_configs: [{targets: ["127.0.0.1:$xport"]}]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$work/prom.log" 2>&1 &
prom_pid=$!
api=http://127.0.0.1:$pport/api/v1
wait_for 60 bash -c "curl -sf '$api/query?query=up' | grep -q '\"value\":\[[0-9.]*,\"1\"\]'"
check $? "Prometheus (the Debian package) scrapes xiotop: up == 1"
# a minute of data: every rate over 1m has its points, every rule has evaluated
sleep 20
python3 - "$api" "$rules" "$dashboard" <<'PY'
import json, re, sys, urllib.parse, urllib.request
api, rules_path, dashboard_path = sys.argv[1:4]
fails = 0

def query(expr):
    url = f"{api}/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(body)
    return body["data"]["result"]

def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok

def labels_set(expr, label):
    return {s["metric"].get(label) for s in query(expr)}

# what the exporter exposes: the truth each view is held to
domains = labels_set("xiotop_domain_written_bytes_total", "domain")
roles = labels_set("xiotop_domain_dom0_cpu_seconds_total", "role")
devices = labels_set("xiotop_host_disk_written_bytes_total", "device")
ops = labels_set("xiotop_domain_io_latency_seconds_count", "op")
print(f"     exposed: domains {sorted(domains)}, roles {sorted(roles)}, devices {sorted(devices)}, ops {sorted(ops)}")
check(len(domains) == 6 and roles == {"backend", "device_model", "loop", "writeback"},
      "the exporter's series: Domain-0 and 5 synthetic domains, the four CPU roles")
truth = {"domain": domains, "role": roles, "device": devices, "op": ops}

def holds(series, needed, what):
    """Each needed label on every series, and each of the truth's values covered."""
    bad = [n for n in needed if any(n not in s["metric"] for s in series)]
    missing = {n: sorted(truth[n] - {s["metric"].get(n) for s in series})
               for n in needed if n in truth}
    missing = {n: v for n, v in missing.items() if v}
    check(series and not bad and not missing,
          f"{what}: {len(series)} series" + (f", labels lacking {bad}" if bad else "")
          + (f", no series of {missing}" if missing else ""))

# --- the rules, as Prometheus loaded and evaluated them ---
with urllib.request.urlopen(f"{api}/rules", timeout=10) as r:
    groups = json.load(r)["data"]["groups"]
loaded = [rule for g in groups for rule in g["rules"]]
import yaml  # python3-yaml: the rules file as written
written = [rule for g in yaml.safe_load(open(rules_path))["groups"] for rule in g["rules"]]
check(len(loaded) == len(written) and all(r["health"] == "ok" for r in loaded),
      f"Prometheus loaded the {len(written)} rules of the package, each evaluated without error: "
      + ", ".join(f"{r['name']} {r['health']}" for r in loaded if r["health"] != "ok"))
for rule in written:
    if "record" in rule:
        by = re.search(r"by \(([^)]*)\)", rule["expr"])
        needed = [l.strip() for l in by.group(1).split(",")] if by else []
        holds(query(rule["record"]), [n for n in needed if n not in ("le",)],
              f"recording rule {rule['record']}")
    else:
        # the alert's expression without its threshold: the series it watches
        base = re.split(r"\s(?:>|==)\s[^)]*$", rule["expr"])[0]
        needed = sorted(set(re.findall(r"\$labels\.([a-z_]+)", rule["annotations"]["summary"])))
        series = query(base)
        if rule["alert"] == "XiotopNotSampling":
            needed = ["instance"]
        holds(series, needed, f"alert {rule['alert']}: {base[:90]}")

# --- every panel of the dashboard ---
dash = json.load(open(dashboard_path))
subst = {"$instance": ".*", "$domain": ".*", "$__rate_interval": "1m"}
for panel in dash["panels"]:
    for target in panel.get("targets", []):
        expr = target["expr"]
        for k, v in subst.items():
            expr = expr.replace(k, v)
        needed = re.findall(r"\{\{([a-z_]+)\}\}", target.get("legendFormat", ""))
        series = query(expr)
        what = f"panel \"{panel['title']}\" {target['refId']}: {target['legendFormat']}"
        if target.get("format") == "heatmap":
            les = {s["metric"].get("le") for s in series}
            check("+Inf" in les and len(les) >= 20,
                  f"{what}: {len(les)} buckets, +Inf among them")
        else:
            holds(series, needed, what)
sys.exit(1 if fails else 0)
PY
check $? "every rule and every dashboard panel returns the series it should"
kill "$prom_pid" "$serve_pid" 2>/dev/null || true
echo "prometheus: $fails failure(s)"
[ "$fails" -eq 0 ]
