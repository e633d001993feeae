# warphunt — plain Makefile.  `make help` lists the targets.
#
# Sources are picked up by folder (wildcards), so adding a file to a stage
# needs no edit here.  Build outputs go under build/ (never committed).

# Every core unless told (`make JOBS=1`): the PTX, the objects and the two
# test trees build in parallel (the test runner itself uses every core).
JOBS     ?= $(shell nproc 2>/dev/null || echo 1)
MAKEFLAGS += -j$(JOBS)

CC       ?= cc
SHELL    := /bin/bash
PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
# PTX always lives under build/ptx (tests look for it there), whatever BUILD.
PTX_DIR  ?= build/ptx
NVCC_ARCH ?= sm_80

# CUDA toolkit: CUDA_HOME first, then nvcc on PATH, then /usr/local/cuda.
CUDA_HOME ?= $(shell d=$$(dirname $$(dirname $$(command -v nvcc 2>/dev/null) 2>/dev/null) 2>/dev/null); \
               if [ -n "$$d" ] && [ -x "$$d/bin/nvcc" ]; then echo $$d; elif [ -x /usr/local/cuda/bin/nvcc ]; then echo /usr/local/cuda; fi)
NVCC     ?= $(if $(CUDA_HOME),$(CUDA_HOME)/bin/nvcc,nvcc)
# cuda.h only: libcuda itself is dlopen'ed at run time.
CUDA_INC := $(if $(wildcard $(CUDA_HOME)/include/cuda.h),-I$(CUDA_HOME)/include -DWH_HAVE_CUDA_H=1,)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
OPT      ?= -O2 -g
# The one version string (warphunt --version, run.json's tool version).
VERSION  := 0.1.0
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) -I. $(CUDA_INC) -DWH_VERSION='"$(VERSION)"' $(CFLAGS)
LIBS     := -lz3 -ljansson -lgsl -lgslcblas -ldl -lm -lpthread
# Open MPI for the GA's islands (ga/islands_mpi.c), when its mpicc is
# installed (make deps installs it; another MPI's mpicc, without
# --showme, is not used); a build without it runs one island and says so
# when started by mpirun.  Only islands_mpi.c sees mpi.h.
MPICC       := $(shell command -v mpicc 2>/dev/null)
MPI_COMPILE := $(if $(MPICC),$(shell $(MPICC) --showme:compile 2>/dev/null))
MPI_CFLAGS  := $(if $(MPI_COMPILE),$(MPI_COMPILE) -DWH_HAVE_MPI=1)
MPI_LIBS    := $(if $(MPI_COMPILE),$(shell $(MPICC) --showme:link 2>/dev/null))
LIBS        += $(MPI_LIBS)

SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

MODULES  := core ptx symexec gen harness harness/sim harness/cuda ga
LIB_SRC  := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
CLI_SRC  := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/*.c)
BENCH_SRC:= $(wildcard bench/*.c)

KERNEL_CU  := $(wildcard kernels/*.cu kernels/calib/*.cu)
CORPUS_CU  := $(wildcard tests/ptx/*.cu)
KERNEL_PTX := $(patsubst %.cu,$(PTX_DIR)/%.ptx,$(KERNEL_CU))
CORPUS_PTX := $(patsubst %.cu,$(PTX_DIR)/%.ptx,$(CORPUS_CU))
# The benchmark corpus (kernels/corpus/): kernels, and the C that builds
# their hand-made worst and best inputs (linked into tests and benchmarks).
BENCH_KERNEL_CU  := $(wildcard kernels/corpus/*.cu)
BENCH_KERNEL_PTX := $(patsubst %.cu,$(PTX_DIR)/%.ptx,$(BENCH_KERNEL_CU))
BENCH_KERNEL_SRC := $(wildcard kernels/corpus/*.c)
# The held-out kernels (kernels/holdout/): written by new users after the
# search was tuned, never tuned against (bench/holdout.sh).
HOLDOUT_CU  := $(wildcard kernels/holdout/*.cu)
HOLDOUT_PTX := $(patsubst %.cu,$(PTX_DIR)/%.ptx,$(HOLDOUT_CU))

# Two object trees: plain and sanitized (for `make check`).
OBJ      := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRC))
SOBJ     := $(patsubst %.c,$(BUILD)/san/%.o,$(LIB_SRC))
KOBJ     := $(patsubst %.c,$(BUILD)/obj/%.o,$(BENCH_KERNEL_SRC))
KSOBJ    := $(patsubst %.c,$(BUILD)/san/%.o,$(BENCH_KERNEL_SRC))

.PHONY: all deps test check bench bench-corpus bench-holdout install uninstall clean help ptx fuzz fuzz-smoke

# The default build is what a hunt needs: ./warphunt and the PTX of the
# kernels users hunt (kernels/, its calib/ and corpus/); the test kernels'
# PTX (tests/ptx/, 57 files at about 0.6 s of nvcc each, nvcc being one
# process per file) is built by `make ptx`, test, check and fuzz.
all: warphunt $(KERNEL_PTX) $(BENCH_KERNEL_PTX) $(HOLDOUT_PTX)

help:
	@echo "make            build ./warphunt and the PTX of bundled kernels (BUILD=dir: dir/warphunt)"
	@echo "make ptx        the PTX of bundled kernels and of the test kernels (tests/ptx/)"
	@echo "make deps       install the Debian packages warphunt needs"
	@echo "make test       build and run the test suite"
	@echo "make check      run the test suite under ASan + UBSan, then each fuzz harness for 5 s"
	@echo "make bench      run the benchmarks in bench/ (bench_corpus in its --quick mode)"
	@echo "make bench-corpus  the corpus benchmark's full table: bench/corpus.md (hours; CORPUS_ARGS=...)"
	@echo "make bench-holdout the same on the held-out kernels (kernels/holdout/): bench/holdout.md"
	@echo "make fuzz       build the libFuzzer harnesses (clang) and run each FUZZ_SECONDS (default 600)"
	@echo "make install    install to \$$(DESTDIR)\$$(PREFIX) (default /usr/local)"

deps:
	@sh tools/deps.sh

# Each tree links its own $(BUILD)/warphunt; ./warphunt is the default
# tree's, so building another tree (BUILD=build-x) never replaces it.
$(BUILD)/warphunt: $(OBJ) $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRC))
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LIBS) $(LDFLAGS)

ifeq ($(BUILD),build)
warphunt: $(BUILD)/warphunt
	cp $< $@
else
.PHONY: warphunt
warphunt: $(BUILD)/warphunt
endif

$(BUILD)/obj/ga/islands_mpi.o $(BUILD)/san/ga/islands_mpi.o: CFLAGS_ALL += $(MPI_CFLAGS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -MMD -MP -c -o $@ $<

# --- PTX of bundled kernels and of the test corpus -------------------------
ptx: $(KERNEL_PTX) $(CORPUS_PTX) $(BENCH_KERNEL_PTX) $(HOLDOUT_PTX)

$(PTX_DIR)/%.ptx: %.cu
	@mkdir -p $(dir $@)
	@if [ -z "$(CUDA_HOME)" ] && ! command -v $(NVCC) >/dev/null 2>&1; then \
	  echo "error: nvcc not found: set CUDA_HOME or put nvcc on PATH (needed to compile $<)" >&2; exit 1; fi
	$(NVCC) -ptx -arch=$(NVCC_ARCH) -lineinfo -o $@ $<

# --- tests -----------------------------------------------------------------
$(BUILD)/test_runner: $(OBJ) $(KOBJ) $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_SRC) $(filter-out cli/main.c,$(CLI_SRC)))
	$(CC) $(CFLAGS_ALL) -o $@ $^ -lcriterion $(LIBS) $(LDFLAGS)

$(BUILD)/test_runner_san: $(SOBJ) $(KSOBJ) $(patsubst %.c,$(BUILD)/san/%.o,$(TEST_SRC) $(filter-out cli/main.c,$(CLI_SRC)))
	$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $^ -lcriterion $(LIBS) $(LDFLAGS)

# The gpu.sh tests run bench_launch and bench_groundtruth from $(BUILD):
# built here first, so two tests running at once never race to relink them.
GPU_SCRIPT_BIN := $(BUILD)/bench/bench_launch $(BUILD)/bench/bench_groundtruth

# Skipped tests are listed with their reasons at the end (Criterion shows
# them only with --verbose): the TAP report has them.
SKIPS = grep '\# SKIP' $(1) | grep -v '\# SKIP test was skipped$$' | sed 's/^ok - /skipped: /' >&2 || true
# Failed tests are named again last, so that the end of a long log (all a
# CI summary may keep) says which.
FAILS = grep '^not ok' $(1) | sed 's/^not ok - /FAILED: /' >&2 || true

test: warphunt ptx $(BUILD)/test_runner $(GPU_SCRIPT_BIN)
	@$(BUILD)/test_runner $(TEST_ARGS) --tap=$(BUILD)/test.tap; status=$$?; \
	$(call SKIPS,$(BUILD)/test.tap); $(call FAILS,$(BUILD)/test.tap); exit $$status

# Criterion runs each test in a child process whose sanitizer reports do
# not change the test's verdict, so the log is scanned for them as well.
check: warphunt ptx $(BUILD)/test_runner_san $(GPU_SCRIPT_BIN)
	@set -o pipefail 2>/dev/null || true; \
	ASAN_OPTIONS=detect_leaks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(BUILD)/test_runner_san $(TEST_ARGS) --tap=$(BUILD)/check.tap 2>&1 | tee $(BUILD)/check.log; \
	status=$$?; \
	$(call SKIPS,$(BUILD)/check.tap); $(call FAILS,$(BUILD)/check.tap); \
	if grep -q -E '(Address|Leak|UndefinedBehavior)Sanitizer|runtime error:' $(BUILD)/check.log; then \
	  grep -m 1 -B 8 -A 30 -E '(Address|Leak|UndefinedBehavior)Sanitizer|runtime error:' $(BUILD)/check.log >&2; \
	  echo "make check: sanitizer reports found (the first above; all in $(BUILD)/check.log)" >&2; exit 1; fi; \
	[ $$status = 0 ] || exit $$status; \
	$(MAKE) --no-print-directory fuzz-smoke

# --- the fake CUDA driver (tests/fakecuda/) ----------------------------------
# A stand-in libcuda that tests/test_cuda_fake.c loads through
# $WARPHUNT_LIBCUDA (the test finds it beside the test runner), so that the
# cuda backend's driver code runs without a GPU.  Never sanitized: it is
# dlopen()ed by the plain and the sanitized test runners alike.  The _old
# variant is a 12.4 driver without the _v2 entry points of later drivers.
FAKECUDA_SRC := tests/fakecuda/fakecuda.c tests/fakecuda/fakecuda.h
FAKECUDA_LIBS := $(BUILD)/libfakecuda.so $(BUILD)/libfakecuda_old.so $(BUILD)/libfakenvml.so

$(BUILD)/libfakecuda.so: $(FAKECUDA_SRC)
	@mkdir -p $(dir $@)
	@if [ -z "$(CUDA_INC)" ]; then \
	  echo "error: cuda.h not found: set CUDA_HOME (needed to build the fake CUDA driver of the tests)" >&2; exit 1; fi
	$(CC) $(CSTD) $(WARN) $(OPT) -I. $(CUDA_INC) -fPIC -shared -o $@ $< $(CFLAGS) -lm

$(BUILD)/libfakecuda_old.so: $(FAKECUDA_SRC)
	@mkdir -p $(dir $@)
	@if [ -z "$(CUDA_INC)" ]; then \
	  echo "error: cuda.h not found: set CUDA_HOME (needed to build the fake CUDA driver of the tests)" >&2; exit 1; fi
	$(CC) $(CSTD) $(WARN) $(OPT) -I. $(CUDA_INC) -DFAKECUDA_OLD_DRIVER -fPIC -shared -o $@ $< $(CFLAGS) -lm

# The fake NVML (clocks and throttle reasons) answers for the fake driver's
# devices; tests load it through $WARPHUNT_LIBNVML.
$(BUILD)/libfakenvml.so: tests/fakecuda/fakenvml.c tests/fakecuda/fakecuda.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -I. -fPIC -shared -o $@ $< $(CFLAGS) -lm

# The scripts that tests run (bench/gpu.sh) find everything built, so
# concurrent tests never run make on the same files.
test check: $(FAKECUDA_LIBS) $(BUILD)/bench/bench_launch $(BUILD)/bench/bench_groundtruth $(BUILD)/bench/bench_corpus $(BUILD)/bench/bench_fidelity

# --- benchmarks --------------------------------------------------------------
BENCH_BIN := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

$(BUILD)/bench/%: bench/%.c $(OBJ) $(KOBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(OBJ) $(KOBJ) $(LIBS) $(LDFLAGS)

# bench_corpus's full campaign takes hours: `make bench` runs its --quick
# mode, `make bench-corpus` the whole table (bench/corpus.md, corpus.json).
# bench_fidelity compares a GPU's times with the sim's (bench/gpu.sh --fidelity
# makes the GPU's): nothing to print without them.
BENCH_QUICK := $(filter-out $(BUILD)/bench/bench_corpus $(BUILD)/bench/bench_fidelity,$(BENCH_BIN))

bench: warphunt ptx $(BENCH_BIN)
	@for b in $(BENCH_QUICK); do echo "== $$b"; $$b || exit 1; done
	@echo "== $(BUILD)/bench/bench_corpus --quick"; $(BUILD)/bench/bench_corpus --quick --warphunt $(BUILD)/warphunt

bench-corpus: warphunt ptx $(BUILD)/bench/bench_corpus
	$(BUILD)/bench/bench_corpus --warphunt $(BUILD)/warphunt $(CORPUS_ARGS)

# The same campaign on the held-out kernels: bench/holdout.md (an hour).
bench-holdout: warphunt ptx $(BUILD)/bench/bench_corpus
	$(BUILD)/bench/bench_corpus --holdout kernels/holdout --warphunt $(BUILD)/warphunt $(CORPUS_ARGS)

# --- fuzzing (clang + libFuzzer, ASan + UBSan) ------------------------------
# tests/fuzz/fuzz_NAME.c is a harness; its seeds are tests/fuzz/seeds/NAME/,
# the corpus it grows is $(BUILD)/fuzz/corpus-NAME/ (never committed), and
# a crash it finds is written to $(BUILD)/fuzz/ as crash-* (commit it under
# tests/fuzz/seeds/NAME/ once fixed, as a regression input).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_SEED    ?= 0
FUZZ_CFLAGS  := $(CSTD) $(WARN) -O1 -g -I. $(CUDA_INC) -DWH_VERSION='"$(VERSION)"' -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_SRC     := $(wildcard tests/fuzz/*.c)
FUZZ_BIN     := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FOBJ         := $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(LIB_SRC))
.SECONDARY: $(FOBJ)

$(BUILD)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FOBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LIBS)

fuzz: $(FUZZ_BIN) ptx
	@for f in $(FUZZ_BIN); do n=$$(basename $$f); s=$${n#fuzz_}; c=$(BUILD)/fuzz/corpus-$$s; mkdir -p $$c; \
	  d=; case $$s in ptx|sim) d=-dict=$(CURDIR)/tests/fuzz/ptx.dict;; esac; \
	  echo "== $$n: $(FUZZ_SECONDS) s, corpus $$c"; \
	  (cd $(BUILD)/fuzz && ./$$n -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -rss_limit_mb=2048 -timeout=20 \
	     -print_final_stats=1 $$d \
	     corpus-$$s $(CURDIR)/tests/fuzz/seeds/$$s) > $(BUILD)/fuzz/$$n.log 2>&1 \
	  || { tail -n 40 $(BUILD)/fuzz/$$n.log; echo "-- the report's first lines (last, for logs kept by their tail):"; \
	       grep -m1 -A12 -E 'ERROR: |runtime error|deadly signal' $(BUILD)/fuzz/$$n.log; \
	       echo "make fuzz: $$n failed (log: $(BUILD)/fuzz/$$n.log)" >&2; exit 1; }; \
	  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|^#[0-9]+.*DONE' $(BUILD)/fuzz/$$n.log; \
	done

# A few seconds per harness, run by make check when clang is there, from a
# fixed seed so that what a CI run finds, the same command finds again here
# (make fuzz draws a new seed each run: 0 is libFuzzer's "pick one").
fuzz-smoke:
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=5 FUZZ_SEED=1; \
	else echo "fuzz-smoke: $(FUZZ_CC) not found, skipped"; fi

# --- install -----------------------------------------------------------------
# Specs find their PTX beside them (<dir>/<stem>.ptx), so it is installed there.
install: $(BUILD)/warphunt $(KERNEL_PTX) $(BENCH_KERNEL_PTX)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/warphunt/kernels
	install -m 755 $(BUILD)/warphunt $(DESTDIR)$(PREFIX)/bin/warphunt
	install -m 644 kernels/*.cu kernels/*.json $(KERNEL_PTX) $(DESTDIR)$(PREFIX)/share/warphunt/kernels/
	install -d $(DESTDIR)$(PREFIX)/share/warphunt/kernels/corpus
	install -m 644 kernels/corpus/*.cu kernels/corpus/*.json $(BENCH_KERNEL_PTX) $(DESTDIR)$(PREFIX)/share/warphunt/kernels/corpus/
	install -m 644 kernels/corpus/*.h $(DESTDIR)$(PREFIX)/share/warphunt/kernels/corpus/
	install -d $(DESTDIR)$(PREFIX)/share/doc/warphunt
	install -m 644 README.md $(DESTDIR)$(PREFIX)/share/doc/warphunt/README.md
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 cli/warphunt.1 $(DESTDIR)$(PREFIX)/share/man/man1/warphunt.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/warphunt $(DESTDIR)$(PREFIX)/share/man/man1/warphunt.1
	rm -rf $(DESTDIR)$(PREFIX)/share/warphunt $(DESTDIR)$(PREFIX)/share/doc/warphunt

clean:
	rm -rf $(BUILD) $(if $(filter build,$(BUILD)),warphunt)

# Every object's header dependencies, library, CLI, tests and sanitized alike.
-include $(OBJ:.o=.d) $(SOBJ:.o=.d) $(KOBJ:.o=.d) $(KSOBJ:.o=.d) \
         $(patsubst %.c,$(BUILD)/obj/%.d,$(TEST_SRC) $(CLI_SRC)) \
         $(patsubst %.c,$(BUILD)/san/%.d,$(TEST_SRC) $(CLI_SRC)) $(FOBJ:.o=.d)
