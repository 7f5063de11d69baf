# extern-audit: host C11 + CUDA C, Criterion tests, gcovr coverage.
# `make test` is what users and CI run; `make audit` runs the CLI on the committed golden data.

CUDA_HOME ?= /usr/local/cuda
CC        ?= cc
NVCC      ?= $(CUDA_HOME)/bin/nvcc
BUILD     ?= build

CPPFLAGS  += -Isrc -Isrc/gpu -I$(CUDA_HOME)/include -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
CFLAGS    ?= -O2 -g
# override: the coverage build sets CFLAGS on the command line and must keep the language and warnings
override CFLAGS += -std=c11 -Wall -Wextra -Wshadow -Wno-unused-parameter
# sm_90 (H100/H200) and sm_100 (B200) machine code plus PTX for later parts.
NVFLAGS   ?= -O2 -g -std=c++17 \
             -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_100,code=[sm_100,compute_100]
# cudart is linked statically: it reaches libcuda through dlopen, so binaries start on CPU-only hosts.
LDLIBS    += -lcjson -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lpthread -lrt -lm -lstdc++

LIB_C     := $(sort $(wildcard src/*.c src/gpu/*.c repros/*.c repros/*/*.c))
LIB_CU    := $(sort $(wildcard src/gpu/*.cu repros/*/*.cu))
TEST_C    := $(sort $(wildcard tests/*.c))

obj = $(patsubst %.c,$(1)/obj/%.o,$(filter %.c,$(2))) $(patsubst %.cu,$(1)/obj/%.cu.o,$(filter %.cu,$(2)))

LIB_OBJ   := $(call obj,$(BUILD),$(LIB_C) $(LIB_CU))
CLI       := $(BUILD)/extern-audit
SUITE     := $(BUILD)/test-suite
# Cubins the loader tests load: one per target, so an sm_100 image can be refused on an sm_90 GPU.
FIXTURE_CUBINS := $(BUILD)/fixtures/add_one.sm_90.cubin $(BUILD)/fixtures/add_one.sm_100.cubin

DEB_PKGS  := libcriterion-dev libcjson-dev gcovr
# the rollup's HTML report is tested in a real headless browser; its screenshot is read with libpng
DEB_PKGS  += chromium libpng-dev clang libclang-rt-14-dev xz-utils

.PHONY: all deps test audit coverage clean help readme sanitize fuzz bench-cat-host campaign

all: $(CLI) $(SUITE)

help:
	@echo "make deps      install missing Debian packages ($(DEB_PKGS)) when root, else print the apt-get line"
	@echo "make test      deps + build + run the Criterion suite (GPU tests skip without a device)"
	@echo "make audit     build and run extern-audit on the committed golden data"
	@echo "make readme    rewrite README.md's generated blocks from what the commands print (ci/readme)"
	@echo "make coverage  instrumented host build, suite, gcovr HTML in $(BUILD)/coverage/ (fails under 80% of src/ lines)"
	@echo "make sanitize  suite and CLI with ASan+UBSan (leak detection on) in $(BUILD)/sanitize/; any report fails"
	@echo "make bench-cat-host  the cat family's CPU-side cost per step, no GPU (build/bench-cat-host --help)"
	@echo "make fuzz      libFuzzer harnesses (fuzz/) on every input reader, FUZZ_SECONDS=N each (default 30)"
	@echo "make campaign  golden mutations and extract kill loops (ci/campaign), CAMPAIGN_RUNS=N (default 300)"

deps:
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null || exit 1; \
	  else \
	    echo "deps: missing$$missing; run: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi; \
	[ -x "$(NVCC)" ] || { echo "deps: nvcc not found at $(NVCC); install the CUDA toolkit or set CUDA_HOME"; exit 1; }

test: deps
	@$(MAKE) --no-print-directory $(SUITE) $(CLI)
	ci/suite $(SUITE) $(BUILD)/test.log
	@# ci/gpu-check exports EXTERN_AUDIT_TARGET to the whole suite: the tests on fixture folders must not inherit it
	EXTERN_AUDIT_TARGET=$$(ls golden/targets | head -n 1) $(SUITE) --filter '@(bad_input|classify|cli|rollup|run|target)/*' >$(BUILD)/test-env.log 2>&1 || \
	  { tail -n 30 $(BUILD)/test-env.log; exit 1; }
	@# exports: none that only its own file uses, test-only ones behind an _impl.h (nm over the objects)
	ci/check-exports $(BUILD)
	tests/check_exports.sh
	@# ci/sanitize-summary's parsing of compute-sanitizer logs (real H200 logs as fixtures)
	tests/sanitize_summary.sh
	@# ci/golden-stage-check's comparison of a partial stage's baselines.json with the base's
	tests/kept_from_base.sh
	@# the capture tool's pure-Python parts; torch is not needed for them
	EXTERN_AUDIT_CLI=$(abspath $(CLI)) python3 -m unittest discover -s tools/capture/tests

audit: $(CLI)
	$(CLI) audit

# README.md's generated blocks (the rollup tables, the audit sample) rewritten from what the commands print
readme: $(CLI)
	ci/readme

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -Isrc -Isrc/gpu -MMD -MP -c $< -o $@

$(BUILD)/fixtures/%.sm_90.cubin: tests/fixtures/gpu/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) -cubin -O2 -arch=sm_90 $< -o $@

$(BUILD)/fixtures/%.sm_100.cubin: tests/fixtures/gpu/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) -cubin -O2 -arch=sm_100 $< -o $@

# The GPU tests look for the cubins where this build put them.
$(BUILD)/obj/tests/test_gpu.o $(BUILD)/obj/tests/test_gpu_host.o: CPPFLAGS += -DEA_FIXTURE_DIR='"$(BUILD)/fixtures"'

$(BUILD)/libextern-audit.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(CLI): $(BUILD)/obj/tools/extern-audit.o $(BUILD)/libextern-audit.a
	$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

# Order-only: the cubins are loaded at run time, not linked.
$(SUITE): $(call obj,$(BUILD),$(TEST_C)) $(BUILD)/libextern-audit.a | $(FIXTURE_CUBINS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) -lcriterion -lpng $(LDLIBS)

# One test per golden occurrence and check, generated from golden/occurrences (tests/occurrence_checks.c
# holds the checks), so an occurrence that extract adds is tested with no C edit.
OCC_GEN   := $(BUILD)/gen-occurrence-tests
OCC_TESTS := $(BUILD)/gen/occurrence_tests.c
$(OCC_GEN): $(BUILD)/obj/tools/gen_occurrence_tests.o $(BUILD)/libextern-audit.a
	$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)
$(OCC_TESTS): $(OCC_GEN) $(wildcard golden/occurrences/*.json)
	@mkdir -p $(dir $@)
	$(OCC_GEN) golden/occurrences $@
$(call obj,$(BUILD),$(OCC_TESTS)): CPPFLAGS += -Itests
$(SUITE): $(call obj,$(BUILD),$(OCC_TESTS))

# The cat family's CPU-side cost per step, no GPU needed (tools/bench_cat_host.c): make bench-cat-host
BENCH_CAT := $(BUILD)/bench-cat-host
bench-cat-host: $(BENCH_CAT)
$(BENCH_CAT): $(BUILD)/obj/tools/bench_cat_host.o $(BUILD)/libextern-audit.a
	$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

# Coverage: a separate instrumented tree so normal objects stay optimised.
coverage: deps
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
sanitize: deps
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
fuzz: deps
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
