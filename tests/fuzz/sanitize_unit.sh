#!/usr/bin/env bash
# sanitize_unit.sh DIR - the unit suite of the ASan + UBSan build in DIR, once, with
# LeakSanitizer on: any leak, overflow or undefined behaviour fails it.
set -euo pipefail
dir=$1
if [ ! -f "$dir/CTestTestfile.cmake" ]; then
	echo "SKIPPED: no sanitizer build in $dir (sanitize_build skipped)"
	exit 77
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=report_objects=1
cd "$dir"
# two at a time on this suite's two cores: each unit test makes its own temporary files.
# Only the C unit tests: the others labelled unit (unit_security runs xiotop, which this
# build does not make) are the main build's, where they run as they are.
ctest --output-on-failure -j2 -R '^unit_test_'
