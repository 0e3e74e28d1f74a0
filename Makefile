# Thin wrapper over scripts/setup, CMake and CTest. `make run` and `make test` work on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
KEMPE = $(BUILD)/bin/kempe
# Default case until `kempe run` lands (issue 6): the double Mach reflection case checked and resolved, its mesh
# meshed, checked, colored, reordered and saved.
RUN_SIZE ?= 0.015625
RUN_OUT ?= output/double_mach

.PHONY: all setup configure build run test clean

all: build

setup:
	@scripts/setup

configure: setup
	@if [ ! -f $(BUILD)/CMakeCache.txt ]; then cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS); fi

build: configure
	cmake --build $(BUILD) -j$(JOBS)

run: build
	@mkdir -p $(RUN_OUT)
	$(KEMPE) mesh convert cases/double_mach.geo $(RUN_OUT)/double_mach.msh --size $(RUN_SIZE)
	$(KEMPE) mesh info $(RUN_OUT)/double_mach.msh
	$(KEMPE) color $(RUN_OUT)/double_mach.msh --save $(RUN_OUT)/double_mach.kmesh
	$(KEMPE) case check cases/double_mach.yaml --set mesh.size=$(RUN_SIZE) > $(RUN_OUT)/double_mach.resolved.yaml
	@tail -1 $(RUN_OUT)/double_mach.resolved.yaml

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

clean:
	rm -rf $(BUILD)
