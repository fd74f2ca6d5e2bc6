# layoutd: the two commands of the quick start are `make run` and `make test`.
SWIFT ?= swift
# The toolchain lives here on our Debian machines; harmless elsewhere.
export PATH := $(PATH):/opt/swift/usr/bin

BENCH_ARGS ?=
# Debian packages the build and the tests need; scripts/ensure-deps.sh installs the missing ones.
DEB_PACKAGES := libsystemd-dev pkg-config

.PHONY: all deps build run test bench clean

all: build

deps:
	@scripts/ensure-deps.sh $(DEB_PACKAGES)

build: deps
	$(SWIFT) build

## Until the daemon lands (issue 5) this runs the engine demo.
run: deps
	$(SWIFT) run layout-demo

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

## Release build; prints a table and rewrites BENCHMARKS.md.
bench: deps
	$(SWIFT) build -c release --product layout-bench
	.build/release/layout-bench --markdown BENCHMARKS.md --toolchain "$$($(SWIFT) --version 2>/dev/null | head -1)" $(BENCH_ARGS)

clean:
	$(SWIFT) package clean
