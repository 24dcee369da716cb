# gapscope build.  One static archive per layer; a layer links only the
# layers it depends on (LAYER_DEPS below is the architecture, written down).
#
#   make                 library, the gapscope binary (the CUDA backend too where a GPU is
#                        present, CUDA=1 asks for it: see "CUDA default" below)
#   make test            deps step, then every test (CPU backend; GPU tests print "skipped"),
#                        then the fuzz corpora replayed (make fuzz-regress); compiles the
#                        CUDA backend whenever nvcc is found, GPU or not
#   make test-gpu        on a GPU machine: build with nvcc and gcc alone, run the CUDA tests
#   make test-slurm      deps step with Slurm (slurm-wlm, munge), then the Slurm tests against
#                        a private single-node cluster the test starts and stops (root only)
#   make demo            the demo's deps (compiler, make, gnuplot), the binary, then the
#                        default scenario and its report (CPU backend: no nvcc without a GPU)
#   make bench           Google Benchmark microbenchmarks, JSON under build/bench/
#   make deps            install what is missing for everything (apt-get as root, npm into
#                        node_modules/); make deps-demo: only what `make demo` needs
#   make test-layer L=field   one layer's tests (build/test/<layer>)
#   make soak            10,000-job soak with injected faults (SOAK_JOBS=N to change)
#
# Options: CUDA=0|1 (default below), VERIFY=1 (invariant
# checks), SAN=address,undefined (sanitizers), ARCH=... (default -march=native),
# NVCC_ARCH=... (default sm_90 plus compute_90 PTX).

CC      ?= gcc
CXX     ?= g++
ARCH    ?= -march=native
OPT     ?= -O2
BUILD   ?= build

CUDA_HOME ?= /usr/local/cuda
NVCC    ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
NVCC_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

HAVE_GMP := $(if $(wildcard /usr/include/gmp.h /usr/include/*/gmp.h),1,0)
# libsqlite3 (Debian libsqlite3-dev) for the Nsight Systems importer and
# `gapscope export --sqlite`; without it both say they need it and the rest works.
HAVE_SQLITE ?= $(if $(wildcard /usr/include/sqlite3.h),1,0)

CFLAGS_BASE := -std=c17 $(OPT) -g $(ARCH) -Wall -Wextra -Werror -pthread -fno-strict-aliasing
ifeq ($(VERIFY),1)
  CFLAGS_BASE += -DGS_VERIFY=1
  BUILD := $(BUILD)-verify
endif
ifneq ($(SAN),)
  CFLAGS_BASE += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS_SAN := -fsanitize=$(SAN)
  comma := ,
  BUILD := $(BUILD)-san-$(subst $(comma),-,$(SAN))
endif

# ---- CUDA default -----------------------------------------------------------
# Build only what is run.  Without CUDA=0|1 on the command line the CUDA
# backend is built when nvcc is found and
#   - the goal is `test` or `test-layer` (CI has nvcc and no GPU: the CUDA
#     code must keep compiling), or
#   - a GPU is present (/dev/nvidia0, or `nvidia-smi -L` succeeds), or
#   - $(BUILD) already holds a CUDA build (so `make demo` after `make test`
#     relinks nothing);
# otherwise (`make`, `make demo` on a fresh clone of a machine without a GPU)
# it is CPU only.  $(BUILD)/obj/.cuda0 or .cuda1 records what the objects
# were compiled with; every object depends on it, so switching rebuilds them.
BUILT_CUDA := $(patsubst .cuda%,%,$(notdir $(wildcard $(BUILD)/obj/.cuda[01])))
ifeq ($(origin CUDA), undefined)
  ifeq ($(NVCC),)
    CUDA := 0
  else ifneq ($(filter test test-layer,$(MAKECMDGOALS)),)
    CUDA := 1
  else ifeq ($(BUILT_CUDA),1)
    CUDA := 1
  else
    CUDA := $(if $(shell { test -e /dev/nvidia0 || nvidia-smi -L; } >/dev/null 2>&1 && echo 1),1,0)
  endif
endif
CUDA_STAMP := $(BUILD)/obj/.cuda$(CUDA)
# Sub-makes: the CUDA choice, in parallel (-j from nproc unless the caller gave -j).
NPROC := $(shell nproc 2>/dev/null || echo 1)
PAR    = $(if $(filter -j%,$(MAKEFLAGS))$(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))
SUBMAKE_FLAGS = --no-print-directory CUDA=$(CUDA) $(PAR)

ifeq ($(CUDA),1)
  CFLAGS_BASE += -DGS_HAVE_CUDA=1
  LDLIBS_CUDA := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
endif
CFLAGS  += $(CFLAGS_BASE)
LDLIBS  += -lm -pthread
ifeq ($(HAVE_SQLITE),1)
  LDLIBS += -lsqlite3
endif
TEST_CFLAGS := $(if $(filter 1,$(HAVE_GMP)),-DGS_HAVE_GMP=1,)
TEST_LDLIBS := $(if $(filter 1,$(HAVE_GMP)),-lgmp,)

# ---- layers ---------------------------------------------------------------
# The house (DESIGN.md "Layout"): common/ and timeline/ are everyone's
# ground; the prover's layers; the capture sources; the model device;
# diagnosis; the report; the drivers; the front doors.  A layer may include
# and link only the layers listed in its deps_ line (test/test_layers.c
# reads these lines and every #include, and fails on an include that runs
# up this list).
LAYERS := common timeline field curve pairing poly msm groth16 io circuits cuda engine \
          attach import model diag report scenarios cli
dir_common    := common
dir_timeline  := timeline
dir_field     := prover/field
dir_curve     := prover/curve
dir_pairing   := prover/pairing
dir_poly      := prover/poly
dir_msm       := prover/msm
dir_groth16   := prover/groth16
dir_io        := prover/io
dir_circuits  := prover/circuits
dir_cuda      := prover/cuda
dir_engine    := prover/engine
dir_attach    := capture/attach
dir_import    := capture/import
dir_model     := model
dir_diag      := diag
dir_report    := report
dir_scenarios := scenarios
dir_cli       := cli

PROVER := circuits io groth16 msm poly pairing curve field
# Each layer's dependencies, most dependent first (the link order).
deps_common    :=
deps_timeline  := common
deps_field     := common
deps_curve     := field common
deps_pairing   := curve field common
deps_poly      := field common
deps_msm       := curve field common
deps_groth16   := msm poly pairing curve field timeline common
deps_io        := groth16 msm poly pairing curve field timeline common
deps_circuits  := io groth16 msm poly pairing curve field timeline common
deps_cuda      := groth16 msm poly pairing curve field timeline common
deps_engine    := $(PROVER) timeline common
deps_attach    := timeline common
deps_import    := timeline common
deps_model     := engine $(PROVER) timeline common
deps_diag      := timeline common
deps_report    := diag timeline common
deps_scenarios := report diag model engine cuda $(PROVER) timeline common
deps_cli       := import attach scenarios report diag model engine cuda $(PROVER) timeline common
# Layers a layer's tests use as oracles beyond its own dependencies (a test
# of an importer checks the analysis of what it imported).
tdeps_engine   := cuda
tdeps_import   := diag
tdeps_attach   := diag
tdeps_model    := scenarios cuda

srcs_of  = $(filter-out $(dir_$(1))/test_%.c,$(wildcard $(dir_$(1))/*.c))
tests_of = $(wildcard $(dir_$(1))/test_*.c)
objs_of  = $(patsubst %.c,$(BUILD)/obj/%.o,$(call srcs_of,$(1))) \
           $(if $(filter cuda,$(1)),$(CU_OBJS),)
lib_of   = $(BUILD)/lib/$(1).a
libs_for = $(foreach d,$(1) $(deps_$(1)),$(call lib_of,$(d)))

CU_SRCS := $(if $(filter 1,$(CUDA)),$(wildcard prover/cuda/*.cu),)
CU_OBJS := $(patsubst %.cu,$(BUILD)/obj/%.o,$(CU_SRCS))

# ---- gapscope attach: the injection library and the test probe --------------
# libgsattach.so is loaded into other programs (LD_PRELOAD, CUDA_INJECTION64_PATH,
# NVTX_INJECTION64_PATH); it dlopens libcupti at run time, so it needs only
# the CUPTI headers to build (without them: the host-side interposer alone).
.DEFAULT_GOAL := all
ATTACH_SO    := $(BUILD)/lib/libgsattach.so
AUDIT_SO     := $(BUILD)/lib/libgsaudit.so
ATTACH_PROBE := $(BUILD)/test/gs-attach-probe
ATTACH_SRCS  := $(filter-out %/inject_audit.c,$(wildcard inject/*.c))
AUDIT_SRCS   := inject/inject_audit.c inject/inject_out.c \
                inject/inject_stack.c
# CPU-only programs of other shapes, run under attach by the tests (test/foreign/cpu/).
FOREIGN_CPU  := $(patsubst test/foreign/cpu/%.c,$(BUILD)/test/foreign/%,$(wildcard test/foreign/cpu/*.c))
# The tokio daemon of test/foreign/gpu, built without CUDA (its cpu_shim.c)
# for the wake-up chain test, with cargo offline over Debian's tokio crates
# (scripts/deps.sh installs them); without cargo, or if it fails, the test
# says it skipped.
CARGO        ?= $(shell command -v cargo 2>/dev/null)
TOKIO_DIR    := test/foreign/gpu/tokio_daemon
TOKIO_CPU    := $(BUILD)/test/foreign/tokio_daemon
ATTACH_BINS  := $(ATTACH_SO) $(AUDIT_SO) $(ATTACH_PROBE) $(FOREIGN_CPU) $(TOKIO_CPU)
HAVE_CUPTI   := $(if $(wildcard $(CUDA_HOME)/include/cupti.h),1,0)
ATTACH_CFLAGS := -std=c17 $(OPT) -g -Wall -Wextra -Werror -pthread -fPIC -shared -fvisibility=hidden \
	$(if $(filter 1,$(HAVE_CUPTI)),-DGS_HAVE_CUPTI=1 -I$(CUDA_HOME)/include \
	-DGS_CUPTI_DEFAULT='"$(CUDA_HOME)/lib64/libcupti.so"',)
$(ATTACH_SO): $(ATTACH_SRCS) inject/inject.h
	@mkdir -p $(dir $@)
	$(CC) $(ATTACH_CFLAGS) -o $@ $(ATTACH_SRCS) -ldl
$(AUDIT_SO): $(AUDIT_SRCS) inject/inject.h
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -DGS_HAVE_CUPTI=1,$(ATTACH_CFLAGS)) -o $@ $(AUDIT_SRCS) -ldl
$(BUILD)/test/foreign/%: test/foreign/cpu/%.c test/foreign/cpu/foreign.h
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O1 -g -Wall -Wextra -Werror -pthread -o $@ $< -ldl
$(TOKIO_CPU): $(wildcard $(TOKIO_DIR)/src/*.rs) $(TOKIO_DIR)/build.rs $(TOKIO_DIR)/Cargo.toml \
        $(TOKIO_DIR)/Cargo.lock $(TOKIO_DIR)/cpu_shim.c
	@mkdir -p $(BUILD)/test/foreign/tokio-shim
	$(CC) -std=c17 -O2 -g -Wall -Wextra -Werror -c $(TOKIO_DIR)/cpu_shim.c \
	    -o $(BUILD)/test/foreign/tokio-shim/cpu_shim.o
	rm -f $(BUILD)/test/foreign/tokio-shim/libgpushim.a
	ar rcs $(BUILD)/test/foreign/tokio-shim/libgpushim.a $(BUILD)/test/foreign/tokio-shim/cpu_shim.o
	@if [ -z "$(CARGO)" ]; then echo "no cargo: $@ not built (the tokio wake test skips)"; \
	elif (cd $(TOKIO_DIR) && GPUSHIM_DIR=$(abspath $(BUILD)/test/foreign/tokio-shim) GPUSHIM_NO_CUDA=1 \
	      CARGO_TARGET_DIR=$(abspath $(BUILD)/test/foreign/tokio.cargo) \
	      $(CARGO) build --release --offline --locked -q); then \
	    cp $(BUILD)/test/foreign/tokio.cargo/release/tokio_daemon $@; \
	else echo "cargo could not build $@ (the tokio wake test skips)"; fi
$(ATTACH_PROBE): capture/attach/probe/gs_attach_probe.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O1 -g -Wall -Wextra -Werror -pthread \
	    $(if $(filter 1,$(HAVE_CUPTI)),-DGS_HAVE_NVTX=1 -I$(CUDA_HOME)/include,) -o $@ $< -ldl

ALL_TESTS := $(foreach l,$(LAYERS),$(call tests_of,$(l))) test/test_layers.c test/test_traces.c
TEST_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(ALL_TESTS) test/runner.c)
ALL_LIBS  := $(call libs_for,cli)

.PHONY: all test test-gpu test-layer test-slurm demo deps deps-demo deps-slurm bench bench-tools clean check-valgrind massif
all: $(BUILD)/gapscope $(ATTACH_SO) $(AUDIT_SO)

$(CUDA_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(BUILD)/obj/.cuda[01]
	@touch $@

$(BUILD)/obj/%.o: %.c $(CUDA_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

# capture/import: the nsys reader is compiled against libsqlite3 when present;
# report/: so is `gapscope export --sqlite` (and its test).
$(BUILD)/obj/capture/import/%.o: CFLAGS += -DGS_HAVE_SQLITE=$(HAVE_SQLITE)
$(BUILD)/obj/report/%.o: CFLAGS += -DGS_HAVE_SQLITE=$(HAVE_SQLITE)

# The commit a binary was built from, compiled into it (fingerprint.c's
# GS_GIT_REV): a binary carried to another machine (the GPU box) reports
# its build, not the checkout it happens to run in.  The stamp is rewritten
# only when the revision changes, so a commit rebuilds one object.  Outside a
# git checkout: "unknown" (fingerprint.c then asks the tree at run time).
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
	git rev-parse --git-dir >/dev/null 2>&1 && ! git diff --quiet HEAD -- 2>/dev/null && echo -dirty)
GIT_REV_STAMP := $(BUILD)/obj/.git_rev
$(shell mkdir -p $(BUILD)/obj && [ "$$(cat $(GIT_REV_STAMP) 2>/dev/null)" = "$(GIT_REV)" ] || \
	echo "$(GIT_REV)" > $(GIT_REV_STAMP))
$(BUILD)/obj/scenarios/fingerprint.o: $(GIT_REV_STAMP)
$(BUILD)/obj/scenarios/fingerprint.o: CFLAGS += -DGS_GIT_REV='"$(GIT_REV)"'

$(BUILD)/obj/%.o: %.cu $(CUDA_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O3 $(NVCC_ARCH) -DGS_HAVE_CUDA=1 -Xcompiler -Wall,-fno-strict-aliasing -lineinfo -MMD -MP -MF $(@:.o=.d) -c $< -o $@

define layer_rules
$(call lib_of,$(1)): $(call objs_of,$(1))
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	ar rcs $$@ $$^ $(if $(call objs_of,$(1)),,$(BUILD)/obj/empty.o)
$(BUILD)/test/$(1): $(patsubst %.c,$(BUILD)/obj/%.o,test/runner.c $(call tests_of,$(1))) $(foreach d,$(tdeps_$(1)),$(call lib_of,$(d))) $(call libs_for,$(1))
	@mkdir -p $$(dir $$@)
	$(CC) $(CFLAGS) $(LDFLAGS_SAN) -o $$@ $$^ $(TEST_LDLIBS) $(LDLIBS_CUDA) $(LDLIBS)
endef
$(foreach l,$(LAYERS),$(eval $(call layer_rules,$(l))))

$(BUILD)/obj/empty.o:
	@mkdir -p $(dir $@)
	echo 'typedef int gs_empty_unit;' | $(CC) -x c -c - -o $@

$(BUILD)/gapscope: $(ALL_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS_SAN) -o $@ -Wl,--whole-archive $(call lib_of,cli) -Wl,--no-whole-archive $(ALL_LIBS) $(LDLIBS_CUDA) $(LDLIBS)

$(BUILD)/test/all: $(TEST_OBJS) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS_SAN) -o $@ $(TEST_OBJS) $(ALL_LIBS) $(TEST_LDLIBS) $(LDLIBS_CUDA) $(LDLIBS)

# ---- benchmarks (Google Benchmark through bench/gsbench.h) ------------------
BENCH_SRCS := $(wildcard bench/bm_*.c)
BENCH_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(BENCH_SRCS)) $(BUILD)/obj/bench/gsbench.o
BENCH_LIBS := $(call libs_for,scenarios)
BENCH_OUT  ?= $(BUILD)/bench/results.json

$(BUILD)/obj/bench/gsbench.o: bench/gsbench.cc bench/gsbench.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Werror -c $< -o $@

$(BUILD)/bench/gsbench: $(BENCH_OBJS) $(BENCH_LIBS)
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS_SAN) -o $@ $(BENCH_OBJS) $(BENCH_LIBS) -lbenchmark $(LDLIBS_CUDA) $(LDLIBS)

bench: deps $(BUILD)/bench/gsbench
	$(BUILD)/bench/gsbench --benchmark_out=$(BENCH_OUT) --benchmark_out_format=json $(BENCH_ARGS)
	@echo "bench: results in $(BENCH_OUT) (compare two runs with bench/compare A.json B.json)"

# ---- standalone measurement programs (bench/cuda/*.cu, bench/cpu/*.c) -------
# Run by hand on the machine they measure (each file's header has the command
# and bench/RESULTS.md the figures); `make test` compiles them so they keep
# building.  The IFMA one is x86-64 only (it compiles on any x86-64 CPU and
# runs where /proc/cpuinfo lists avx512ifma).
BENCH_TOOLS := $(BUILD)/bench-tools/tl_scale $(BUILD)/bench-tools/imp_scale \
               $(if $(filter x86_64,$(shell uname -m)),$(BUILD)/bench-tools/ifma_mul) \
               $(BUILD)/bench-tools/wait_pingpong $(BUILD)/bench-tools/engine_overhead \
               $(if $(filter 1,$(CUDA)),$(patsubst bench/cuda/%.cu,$(BUILD)/bench-tools/%,$(wildcard bench/cuda/*.cu)))

$(BUILD)/bench-tools/ifma_mul: bench/cpu/ifma_mul.c $(call lib_of,field) $(call lib_of,common)
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O2 -mavx512f -mavx512ifma -Wall -Wextra -Werror -o $@ $< $(call lib_of,field) $(call lib_of,common) -lm

$(BUILD)/bench-tools/wait_pingpong: bench/cpu/wait_pingpong.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O2 -Wall -Wextra -Werror -pthread -o $@ $<

$(BUILD)/bench-tools/engine_overhead: bench/cpu/engine_overhead.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(ALL_LIBS) $(LDLIBS_CUDA) $(LDLIBS)

$(BUILD)/bench-tools/tl_scale: bench/cpu/tl_scale.c bench/cpu/bench_time.h $(call lib_of,timeline) $(call lib_of,common)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(call lib_of,timeline) $(call lib_of,common) -lm -pthread

$(BUILD)/bench-tools/imp_scale: bench/cpu/imp_scale.c bench/cpu/bench_time.h $(call lib_of,import) $(call lib_of,timeline) $(call lib_of,common)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(call lib_of,import) $(call lib_of,timeline) $(call lib_of,common) -lm -pthread -lsqlite3

$(BUILD)/bench-tools/%: bench/cuda/%.cu prover/cuda/cu_field.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O3 -arch=sm_90 -Iprover/cuda -o $@ $<

bench-tools: $(BENCH_TOOLS)

deps:
	@./scripts/deps.sh all

deps-demo:
	@./scripts/deps.sh demo

deps-slurm:
	@./scripts/deps.sh slurm

test: deps
	@$(MAKE) $(SUBMAKE_FLAGS) $(BUILD)/test/all $(BUILD)/gapscope $(ATTACH_BINS) $(BENCH_TOOLS)
	GS_BIN=$(BUILD)/gapscope $(BUILD)/test/all $(TEST_ARGS)
	@$(MAKE) --no-print-directory $(PAR) fuzz-regress

test-layer:
	@$(MAKE) $(SUBMAKE_FLAGS) $(BUILD)/test/$(L) $(if $(filter attach,$(L)),$(BUILD)/gapscope $(ATTACH_BINS),)
	GS_BIN=$(BUILD)/gapscope $(BUILD)/test/$(L) $(TEST_ARGS)

# A real Slurm: scenarios/test_slurm_cluster.c starts slurmctld, slurmd and
# munged single-node under its scratch directory (test/slurm/cluster.sh) and
# stops them; skipped with the reason where it cannot run, except under CI.
test-slurm: deps-slurm
	@$(MAKE) $(SUBMAKE_FLAGS) $(BUILD)/test/all $(BUILD)/gapscope
	GS_SLURM_TEST=1 GS_BIN=$(BUILD)/gapscope $(BUILD)/test/all --only slurm $(TEST_ARGS)

# On a GPU machine: nvcc and gcc only, no deps step.
test-gpu:
	@$(MAKE) --no-print-directory CUDA=1 $(PAR) $(BUILD)/test/all $(BUILD)/gapscope $(ATTACH_BINS)
	GS_REQUIRE_GPU=1 GS_BIN=$(BUILD)/gapscope $(BUILD)/test/all --only cuda $(TEST_ARGS)

demo: deps-demo
	@$(MAKE) $(SUBMAKE_FLAGS) $(BUILD)/gapscope
	$(BUILD)/gapscope run scenarios/demo.ini

# memcheck: the fast unit tests and a tiny engine run, zero errors, no definite
# leaks.  Its own build: valgrind 3.19 does not decode AVX-512, so no
# -march=native there (broadwell keeps the mulx/adx field code), and no CUDA.
VG_BUILD := build-valgrind
VALGRIND := valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite \
	--error-exitcode=99 --suppressions=ci/valgrind.supp
# Timing assertions cannot hold under valgrind's serialized threads: the
# tracker-hold and prep-ahead overlap tests are run natively only.
VALGRIND_TESTS ?= --only json --only io_ --only timeline --only analysis --only scenario \
	--only trace --only engine_ --skip engine_tracker_hold --skip engine_prep_ahead
check-valgrind: deps
	@$(MAKE) --no-print-directory BUILD=$(VG_BUILD) ARCH=-march=broadwell CUDA=0 \
	    $(VG_BUILD)/test/all $(VG_BUILD)/gapscope
	GS_TEST_QUICK=1 GS_BIN=$(VG_BUILD)/gapscope $(VALGRIND) $(VG_BUILD)/test/all $(VALGRIND_TESTS)
	$(VALGRIND) $(VG_BUILD)/gapscope run scenarios/demo.ini --quiet --out $(VG_BUILD)/valgrind-run \
	    --set jobs.count=1 --set jobs.partitions=porep_c2:2 --set jobs.size_map=porep_c2:9 \
	    --set inject.malloc_trim.frag=8MiB --set inject.malloc_trim.work_per_constraint=1KiB
	@echo "check-valgrind: no memcheck errors, no definite leaks"

# ---- soak (issue 16) ----------------------------------------------------------
# scenarios/soak.ini (injected synthesis errors, partition failures,
# cancellations; smallest sizes, CPU backend), checked by scenarios/runcheck.c
# through scenarios/test_soak.c: every job ends once, no partition proved
# twice, peak RSS bounded.  `make test` runs 500 jobs of it.
SOAK_JOBS ?= 10000
.PHONY: soak
soak:
	@$(MAKE) $(SUBMAKE_FLAGS) $(BUILD)/test/all $(BUILD)/gapscope
	GS_SOAK_JOBS=$(SOAK_JOBS) GS_BIN=$(BUILD)/gapscope $(BUILD)/test/all --only soak_ -v

# Heap profile of synthesis (one setup at 2^14), for ms_print; the valgrind build.
massif:
	@$(MAKE) --no-print-directory BUILD=$(VG_BUILD) ARCH=-march=broadwell CUDA=0 $(VG_BUILD)/gapscope
	valgrind --tool=massif --massif-out-file=$(VG_BUILD)/massif.out $(VG_BUILD)/gapscope setup \
	    --log 14 --out $(VG_BUILD)/massif-setup --quiet
	@echo "massif: ms_print $(VG_BUILD)/massif.out"

# ---- fuzzing (fuzz/README.md) ------------------------------------------------
# libFuzzer targets with ASan+UBSan for every input format.  clang builds
# them and the library objects they link into their own tree (CUDA=0,
# -fsanitize=fuzzer-no-link,address,undefined).
#   make fuzz [FUZZ_S=60] [FUZZ_TARGETS="spans jobs"]   fuzz each target FUZZ_S seconds
#   make fuzz-regress    every committed corpus/regression input once, then a
#                        short fixed-seed run per target (`make test` runs it)
FUZZ_CC      ?= clang
FUZZ_BUILD   := build-fuzz
FUZZ_S       ?= 60
FUZZ_TARGETS ?= zkey wtns r1cs json scenario trace spans jobs import attach gate
FUZZ_BINS     = $(patsubst %,$(FUZZ_BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
.PHONY: fuzz fuzz-build fuzz-regress fuzz-cli

# Every layer but cli (its main), so a target for a new layer needs no rule.
$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/fuzz/fuzz_%.o $(BUILD)/obj/fuzz/fz.o $(BUILD)/obj/fuzz/fz_oracle.o \
        $(filter-out $(call lib_of,cli),$(ALL_LIBS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-build:
	@./fuzz/check-toolchain.sh $(FUZZ_CC)
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) CUDA=0 BUILD=$(FUZZ_BUILD) \
	    SAN=fuzzer-no-link,address,undefined $(FUZZ_BINS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) ./fuzz/run.sh fuzz $(FUZZ_S) $(FUZZ_TARGETS)

fuzz-regress: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) ./fuzz/run.sh regress $(FUZZ_TARGETS)

# The same inputs through the ASan+UBSan gapscope binary (fuzz/cli_check.sh).
fuzz-cli: fuzz-build
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) CUDA=0 BUILD=$(FUZZ_BUILD) \
	    SAN=fuzzer-no-link,address,undefined $(FUZZ_BUILD)/gapscope
	FUZZ_BUILD=$(FUZZ_BUILD) ./fuzz/cli_check.sh $(FUZZ_CLI_DIRS)

clean:
	rm -rf build build-* 

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
