# shellcheck shell=bash
# shellcheck disable=SC2154 # work, X and the functions come from test_serve.sh
# Part of test_serve.sh (sourced, with its $work, $X, unit_serve, free_port, check and
# pids): dist/xiotop-serve.service's ExecStart with --web-config, in the unit's sandbox:
# TLS with a client CA (RequireAndVerifyClientCert) and a bcrypt basic-auth user, from
# throwaway certificates made here. A second Prometheus scrapes it over TLS with the
# client certificate and the password; clients without the certificate, with a wrong
# password, or over plain HTTP get no metrics.

set +e # each step is a check; test_serve.sh's set -e again at the end
tls=$work/tls
mkdir -p "$tls"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
{
	openssl req -x509 "${ec[@]}" -keyout "$tls/ca.key" -out "$tls/ca.crt" -days 1 \
		-subj "/CN=xiotop test CA" &&
		openssl req "${ec[@]}" -keyout "$tls/server.key" -out "$tls/server.csr" -subj "/CN=127.0.0.1" &&
		printf 'subjectAltName=IP:127.0.0.1\n' >"$tls/san.ext" &&
		openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" \
			-CAcreateserial -out "$tls/server.crt" -days 1 -extfile "$tls/san.ext" &&
		openssl req "${ec[@]}" -keyout "$tls/client.key" -out "$tls/client.csr" -subj "/CN=prometheus" &&
		openssl x509 -req -in "$tls/client.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" \
			-CAcreateserial -out "$tls/client.crt" -days 1 &&
		openssl req -x509 "${ec[@]}" -keyout "$tls/other.key" -out "$tls/other.crt" -days 1 -subj "/CN=other"
} >"$tls/openssl.log" 2>&1
check $? "throwaway CA, server and client certificates (openssl)"
password=$(head -c 12 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
salt=$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 21)u
hash=$(perl -e 'print crypt($ARGV[0], "\$2b\$10\$" . $ARGV[1])' "$password" "$salt")
cat >"$tls/web-config.yml" <<YML
# as Prometheus exporters take it; paths relative to this file
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
  min_version: TLS12
basic_auth_users:
  prometheus: '$hash'
YML
sport=$(free_port)
(unit_serve "127.0.0.1:$sport" 1 --web-config "$tls/web-config.yml" \
	--xenstore-dump "$work/hostile.dump") 2>"$work/serve-tls.err" &
spid=$!
pids+=("$spid")
client=(--cacert "$tls/ca.crt" --cert "$tls/client.crt" --key "$tls/client.key")
for _ in $(seq 100); do
	curl -sf "${client[@]}" -u "prometheus:$password" -H 'Accept: text/plain;version=0.0.4' \
		"https://127.0.0.1:$sport/metrics" >"$work/tls.metrics" 2>/dev/null &&
		grep -q '^xiotop_domain_written_bytes_total{' "$work/tls.metrics" && break
	sleep 0.3
done
check "$(grep -q '^xiotop_domain_written_bytes_total{' "$work/tls.metrics" && echo 0 || echo 1)" \
	"https://127.0.0.1:$sport/metrics with the client certificate and the password: $(grep -c '^xiotop_' "$work/tls.metrics") samples"
promtool check metrics <"$work/tls.metrics" >"$work/tls.promtool" 2>&1
check $? "promtool check metrics on the TLS scrape ($(wc -l <"$work/tls.promtool") lines of remarks)"

# no metrics for: no client certificate, a certificate of another CA, a wrong password,
# no password, plain HTTP
nothing() { # WHAT CURL-ARGS...: no metric in what curl gets
	local what=$1 code
	shift
	: >"$work/tls.denied" # curl writes nothing when the connection is closed
	code=$(curl -s -o "$work/tls.denied" -w '%{http_code}' "$@")
	check "$(! grep -q 'xiotop_' "$work/tls.denied" && echo 0 || echo 1)" \
		"$what: no metrics (HTTP status ${code:-none}, $(wc -c <"$work/tls.denied") bytes)"
	echo "$code" >"$work/tls.code"
}
url=https://127.0.0.1:$sport/metrics
nothing "no client certificate" --cacert "$tls/ca.crt" -u "prometheus:$password" "$url"
nothing "a client certificate of another CA" --cacert "$tls/ca.crt" --cert "$tls/other.crt" \
	--key "$tls/other.key" -u "prometheus:$password" "$url"
nothing "a wrong password" "${client[@]}" -u "prometheus:${password}x" "$url"
check "$([ "$(cat "$work/tls.code")" = 401 ] && echo 0 || echo 1)" "a wrong password gets 401"
nothing "an unknown user" "${client[@]}" -u "admin:$password" "$url"
nothing "no password" "${client[@]}" "$url"
check "$([ "$(cat "$work/tls.code")" = 401 ] && echo 0 || echo 1)" "no password gets 401"
nothing "plain HTTP" "http://127.0.0.1:$sport/metrics"

# a real Prometheus over TLS with the client certificate and basic auth
tport=$(free_port)
printf '%s' "$password" >"$tls/password"
cat >"$tls/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: xiotop-tls
    scheme: https
    tls_config:
      ca_file: $tls/ca.crt
      cert_file: $tls/client.crt
      key_file: $tls/client.key
    basic_auth:
      username: prometheus
      password_file: $tls/password
    static_configs:
      - targets: ['127.0.0.1:$sport']
YML
prometheus --config.file="$tls/prometheus.yml" --storage.tsdb.path="$tls/tsdb" \
	--web.listen-address="127.0.0.1:$tport" --log.level=warn 2>"$tls/prometheus.err" &
pids+=($!)
answer=
for _ in $(seq 60); do
	answer=$(curl -s "http://127.0.0.1:$tport/api/v1/query" \
		--data-urlencode 'query=count(xiotop_domain_written_bytes_total{job="xiotop-tls"}) and on() up{job="xiotop-tls"} == 1' |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null)
	[ -n "$answer" ] && break
	sleep 0.5
done
check "$([ -n "$answer" ] && [ "$answer" -gt 0 ] && echo 0 || echo 1)" \
	"Prometheus scrapes serve over TLS with basic auth: up, ${answer:-no} xiotop_domain_written_bytes_total series"
kill -TERM "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
check "$(grep -q "attached; now user nobody" "$work/serve-tls.err" && echo 0 || echo 1)" \
	"the TLS serve dropped to nobody too; it said: $(grep -v 'now user' "$work/serve-tls.err" | head -3 | tr '\n' ' ')"
set -e
