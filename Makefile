# Thin wrapper over CMake: every target installs what is missing first.
#   make demo   the profiled demo (main job until the bench driver lands)
#   make test   build and run every test (what CI runs)
BUILD ?= build
PRESET_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: all deps build test demo overhead clean

all: build

deps:
	@if [ "$$(id -u)" -eq 0 ]; then ./scripts/install-deps; else ./scripts/install-deps || true; fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(PRESET_TYPE)
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j 2

demo: build
	./scripts/demo $(BUILD)

overhead: build
	./scripts/overhead --build $(BUILD)

clean:
	rm -rf $(BUILD)
