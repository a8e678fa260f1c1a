# Thin wrapper over CMake: every target installs what is missing first.
#   ./bench ... the main job (builds through `make build` on first use)
#   make test   build and run every test (what CI runs)
#   make plots  figures and report of a results folder (DIR=results/latest)
BUILD ?= build
PRESET_TYPE ?= Release
JOBS ?= $(shell nproc)
DIR ?= results/latest

.PHONY: all deps build test overhead plots clean

all: build

deps:
	@if [ "$$(id -u)" -eq 0 ]; then ./scripts/install-deps; else ./scripts/install-deps || true; fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(PRESET_TYPE)
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j 2

overhead: build
	./scripts/overhead --build $(BUILD)

# The build's output goes to a log, shown only when the build fails: what
# `make plots` prints is the figures' and the report's.
# A configured build is only brought up to date (well under a second when it
# is current); the install check runs only where there is no build yet.
plots:
	@log="$$(mktemp)"; \
	if [ -f $(BUILD)/CMakeCache.txt ] && cmake --build $(BUILD) -j $(JOBS) >"$$log" 2>&1; then rm -f "$$log"; \
	elif $(MAKE) --no-print-directory build >"$$log" 2>&1; then rm -f "$$log"; else \
	  cat "$$log" >&2; rm -f "$$log"; \
	  echo "error: the build failed (its output is above) — fix it, then run make plots again" >&2; exit 1; fi
	@ALLOCSTAMP_BUILD_DIR=$(abspath $(BUILD)) ./bench plot $(DIR)

clean:
	rm -rf $(BUILD)
