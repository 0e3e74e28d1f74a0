# Thin wrapper over scripts/setup, CMake and CTest. `make run` and `make test` work on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
# Ninja keeps both cores busy to the end (it compiles a target's files while the libraries it links still build).
GENERATOR ?= $(if $(shell command -v ninja),-G Ninja,)
KEMPE = $(BUILD)/bin/kempe
# The default case: double Mach reflection (p = 2) at a size that finishes in about four minutes on 2 CPU cores.
RUN_SIZE ?= 0.02
RUN_OUT ?= output/double_mach

.PHONY: all setup configure build run test test-sanitize clean

all: build

setup:
	@scripts/setup

configure: setup
	@if [ ! -f $(BUILD)/CMakeCache.txt ]; then cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS); fi

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# `make run` builds only the kempe program and the libraries it links.
run: configure
	cmake --build $(BUILD) -j$(JOBS) --target kempe
	$(KEMPE) run cases/double_mach.yaml --set mesh.size=$(RUN_SIZE) --output $(RUN_OUT)

# `make test` builds every program but the benchmarks (target kempe_test_programs), then runs ctest: JOBS tests at
# once, one OpenMP thread each, so that no test's threads spin on a core another test needs.
test: configure
	cmake --build $(BUILD) -j$(JOBS) --target kempe_test_programs
	OMP_NUM_THREADS=1 ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

# The whole test suite built with AddressSanitizer and UndefinedBehaviorSanitizer (CMake preset asan: Debug, CPU
# only, build-asan/): any report fails its test. Its own CI job (.ci/sanitize), apart from make test.
test-sanitize: setup
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j$(JOBS)
	ctest --preset asan -j$(JOBS)

clean:
	rm -rf $(BUILD)
