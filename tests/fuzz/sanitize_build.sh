#!/usr/bin/env bash
# sanitize_build.sh SRC DIR - configure and build DIR with clang, ASan + UBSan and, when
# clang's libFuzzer links here, the fuzz harnesses (XIOTOP_FUZZ). Without clang: SKIPPED.
# Used by ctest (sanitize_build) and `make fuzz`.
set -euo pipefail
src=$1
dir=$2
if ! command -v clang >/dev/null; then
	echo "SKIPPED: clang is not installed (scripts/install-deps.sh installs it)"
	exit 77
fi
mkdir -p "$dir"
fuzz=OFF
probe=$dir/libfuzzer-probe
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$probe.c"
if clang -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" 2>"$probe.log"; then
	fuzz=ON
else
	echo "note: clang's libFuzzer does not link here ($(head -1 "$probe.log")): harnesses not built"
fi
# RelWithDebInfo's flags less its -DNDEBUG: the asserts are checks the sanitizers should run
cmake -S "$src" -B "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" \
	-DXIOTOP_SANITIZE=ON -DXIOTOP_FUZZ=$fuzz >"$dir/configure.log" 2>&1 ||
	{ tail -20 "$dir/configure.log"; exit 1; }
# only what the tests need: the unit tests and the harnesses (not the BPF tracer)
units=$(cd "$src/tests/unit" && printf '%s\n' test_*.c | sed 's/\.c$//')
extra=
[ "$fuzz" = ON ] && extra=fuzzers
# shellcheck disable=SC2086 # units and extra: lists of target names, split on purpose
nice -n 10 cmake --build "$dir" -j2 --target $units $extra >"$dir/build.log" 2>&1 ||
	{ grep -E 'error|Error' "$dir/build.log" | head -20; exit 1; }
echo "built $dir (fuzz harnesses: $fuzz)"
