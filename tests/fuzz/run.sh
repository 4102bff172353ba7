#!/usr/bin/env bash
# run.sh DIR CORPUS SECONDS [HARNESS...] - run each libFuzzer harness built in DIR (by
# sanitize_build.sh) for SECONDS, one after the other, seeded from CORPUS/<harness>/.
# New inputs go to DIR/fuzz-corpus/<harness>/ (the committed seeds are never written),
# a crash to DIR/fuzz-artifacts/. Prints one line per harness: runs, exec/s, cov, ft.
# Exits 1 if any harness crashed, 77 (SKIPPED) if no harness was built.
set -uo pipefail
dir=$1
corpus=$2
secs=$3
shift 3
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
	for f in "$dir"/fuzz_*; do
		[ -x "$f" ] && [ -f "$f" ] && harnesses+=("$(basename "$f")")
	done
fi
if [ ${#harnesses[@]} -eq 0 ]; then
	echo "SKIPPED: no fuzz harness in $dir (clang's libFuzzer missing or not built: see sanitize_build)"
	exit 77
fi
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=0
mkdir -p "$dir/fuzz-artifacts"
for h in "${harnesses[@]}"; do
	work=$dir/fuzz-corpus/$h
	mkdir -p "$work"
	log=$dir/fuzz-$h.log
	seeds=()
	[ -d "$corpus/$h" ] && seeds=("$corpus/$h")
	"$dir/$h" -max_total_time="$secs" -timeout=20 -error_exitcode=99 -print_final_stats=1 \
		-artifact_prefix="$dir/fuzz-artifacts/$h-" "$work" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	stats=$(grep -E '^#[0-9]+' "$log" | tail -1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(echo "$stats" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$stats" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	if [ $rc -ne 0 ]; then
		echo "$h: FAILED (exit $rc) after ${execs:-?} runs; see $log"
		grep -E 'ERROR|SUMMARY|assert|runtime error' "$log" | head -5
		failed=1
	else
		echo "$h: ${secs}s ${execs:-?} runs, ${rate:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}"
	fi
done
exit $failed
