# Wrapper over CMake: the two commands a newcomer runs are `make demo` and `make test`.
BUILD ?= build
CMAKE_FLAGS ?= -DXIOTOP_WERROR=ON

.PHONY: all deps deps-test build test test-load test-trixie test-bookworm test-explain unit demo clean format lint bench fuzz

all: build

# what building and the demo need; deps-test adds what the suite, lint, fuzz and bench run
# (qemu, prometheus, bpftrace, mmdebstrap...): scripts/install-deps.sh
deps:
	@scripts/install-deps.sh

deps-test:
	@scripts/install-deps.sh --test

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j2

# ctest -j2 (one test holds the host at a time, the sanitizer build and fuzzers run
# niced beside it: CMakeLists.txt), then every skip with its reason (tests/skip_report.py): a skip not on
# tests/skips.allow fails the run as a failed test does. CTEST_ARGS picks tests (-R ...).
# The real Xen dom0 test in it: Debian 13's (trixie, the current release) main boot. One
# command away (label xen-by-hand): trixie's stacks boot (`make test-trixie` runs both),
# Debian 12's two (`make test-bookworm`), the explain boot (`make test-explain`) and the
# emulator's own check (tests/xen/flip.sh): each Xen boot is 3-5 minutes, and with them
# all a run would take well over CI's 25 minutes (docs/testing.md, "Tested on real Xen dom0s").
CTEST_ARGS ?= -LE xen-by-hand
test: deps-test build
	@rm -f $(BUILD)/Testing/Temporary/junit.xml
	@rc=0; (cd $(BUILD) && ctest -j2 --output-on-failure \
		--output-junit Testing/Temporary/junit.xml $(CTEST_ARGS)) || rc=1; \
	python3 tests/skip_report.py $(BUILD) tests/skips.allow || rc=1; \
	exit $$rc

# the same run with a realistic dom0 background load beside it for its whole length (a
# build, a buffered writer, an O_DIRECT reader: tests/load/with_load.sh): every live test
# holds under it or says why a figure cannot (docs/testing.md). Not CI's: it takes longer.
test-load: build
	@tests/load/with_load.sh $(MAKE) --no-print-directory test

test-trixie: build
	@$(MAKE) --no-print-directory test CTEST_ARGS="-L xen-trixie"

test-bookworm: build
	@$(MAKE) --no-print-directory test CTEST_ARGS="-L xen-bookworm -LE 'xen-explain|xen-harness'"

test-explain: build
	@$(MAKE) --no-print-directory test CTEST_ARGS="-L xen-explain"

unit: build
	cd $(BUILD) && ctest --output-on-failure -R '^unit_'

demo: build
	@tests/emu/demo.sh $(BUILD)

# the layers (docs/DESIGN.md) and the C of the tests; bpf/ and bench/*.bpf.c are C for clang
# -target bpf.
# shellcheck: every shell script, its notes included (a deliberate one is disabled in place)
LINT_DIRS = monitor ui tests/unit tests/tools tests/emu bench

lint: deps-test
	@git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror
	@cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --suppress=missingIncludeSystem -I monitor -I . -I tests \
		-i bench/floor_btf.bpf.c $(LINT_DIRS)
	@git ls-files '*.sh' | xargs shellcheck

format:
	@git ls-files '*.c' '*.h' | xargs clang-format -i

# every libFuzzer harness of tests/fuzz, one at a time, FUZZ_SECONDS each, niced (the
# machine is shared); harnesses and new inputs in $(BUILD)/sanitize. FUZZERS=fuzz_x picks.
FUZZ_SECONDS ?= 600
FUZZERS ?=
fuzz: deps-test
	@tests/fuzz/sanitize_build.sh $(CURDIR) $(CURDIR)/$(BUILD)/sanitize
	@nice -n 19 tests/fuzz/run.sh $(BUILD)/sanitize tests/fuzz/corpus $(FUZZ_SECONDS) $(FUZZERS)

bench: deps-test build
	@bench/bpf_overhead.sh $(BUILD)

clean:
	rm -rf $(BUILD)
