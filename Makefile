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

plots: build
	ALLOCSTAMP_BUILD_DIR=$(abspath $(BUILD)) ./bench plot $(DIR)

clean:
	rm -rf $(BUILD)
