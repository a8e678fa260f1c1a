# Thin wrapper over CMake: every target installs what is missing first.
#   ./bench ... the main job (builds through `make build` on first use)
#   make test   build and run every test (what CI runs)
#   make plots  figures and report of a results folder (DIR=results/latest)
#   make mutants  every planted fault of tests/mutants/mutants.json against its tests
#   make mutants-sample  generated faults in the reporting code (COUNT=, SEED=): the survivors
BUILD ?= build
PRESET_TYPE ?= Release
JOBS ?= $(shell nproc)
DIR ?= results/latest

# Compiled through ccache where installed (install-deps installs it), keyed on
# paths relative to the checkout (CCACHE_BASEDIR, CCACHE_NOHASHDIR): a scratch
# copy's build (scripts/mutants) finds this build's objects in the cache.
# Deferred (=): expanded when the build recipe runs, after deps may have installed ccache.
CCACHE = $(shell command -v ccache 2>/dev/null)
LAUNCHER = $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# Ninja where installed (install-deps installs it): a target found up to date
# in about 0.2 s where make takes 2-4 (scripts/mutants rebuilds after each
# fault). A build folder already configured keeps its generator (CMake
# refuses another).
GENERATOR = $(if $(wildcard $(BUILD)/CMakeCache.txt),,$(if $(shell command -v ninja 2>/dev/null),-G Ninja))
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps build test overhead plots mutants mutants-sample clean

all: build

deps:
	@if [ "$$(id -u)" -eq 0 ]; then ./scripts/install-deps; else ./scripts/install-deps || true; fi

build: deps
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(PRESET_TYPE) $(LAUNCHER)
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j 2

# Every mutant (CI runs those marked "ci": scripts/mutants --ci), in a scratch copy.
mutants: build
	./scripts/mutants

# Faults nobody listed, generated in the reporting code; lists the survivors (measures, never gates).
mutants-sample: build
	./scripts/mutants-sample $(if $(COUNT),--count $(COUNT)) $(if $(SEED),--seed $(SEED))

overhead: build
	./scripts/overhead --build $(BUILD) --load idle,busy

# The build's output goes to a log, shown only when the build fails: what
# `make plots` prints is the figures' and the report's.
# A configured build brings only bench up to date (what drawing needs: the
# whole build's check alone takes seconds), and only when a file it is built
# from is newer than it (cmake's own check of bench takes 2 s): its sources,
# the contract's tables and the trace reader it links, the CMake files and the
# cache (a README edited is no reason; tests/unit/make_plots_test.py); the
# install check runs only where there is no build yet.
BENCH_INPUTS = harness/driver harness/contract harness/trace CMakeLists.txt $(BUILD)/CMakeCache.txt
BENCH_INPUT_NAMES = \( -name '*.cpp' -o -name '*.h' -o -name '*.def' -o -name CMakeLists.txt -o -name CMakeCache.txt \)
plots:
	@log="$$(mktemp)"; \
	if [ -x $(BUILD)/bin/allocstamp ] && [ -z "$$(find $(BENCH_INPUTS) -type f $(BENCH_INPUT_NAMES) -newer $(BUILD)/bin/allocstamp -print -quit)" ]; then rm -f "$$log"; \
	elif [ -f $(BUILD)/CMakeCache.txt ] && cmake --build $(BUILD) -j $(JOBS) --target bench >"$$log" 2>&1; then rm -f "$$log"; \
	elif $(MAKE) --no-print-directory build >"$$log" 2>&1; then rm -f "$$log"; else \
	  cat "$$log" >&2; rm -f "$$log"; \
	  echo "error: the build failed (its output is above) — fix it, then run make plots again" >&2; exit 1; fi
	@ALLOCSTAMP_BUILD_DIR=$(abspath $(BUILD)) ./bench plot $(DIR)

clean:
	rm -rf $(BUILD)
