# layoutd: the two commands of the quick start are `make run` and `make test`.
SWIFT ?= swift
# The toolchain lives here on our Debian machines; harmless elsewhere.
export PATH := $(PATH):/opt/swift/usr/bin

BENCH_ARGS ?=
LAYOUTD_ARGS ?=
# Debian packages the build and the tests need; scripts/ensure-deps.sh installs the missing ones.
# (python3 and python3-jsonschema drive the end-to-end tests; socat is the raw client there.)
DEB_PACKAGES := libsystemd-dev pkg-config socat python3 python3-jsonschema
# Debian's interpreter, where python3-jsonschema lives (not a pyenv shim).
PYTHON := /usr/bin/python3

.PHONY: all deps build run test unit-test e2e-test bench clean

all: build

deps:
	@scripts/ensure-deps.sh $(DEB_PACKAGES)

build: deps
	$(SWIFT) build

## Builds and starts layoutd in the foreground on the default socket
## ($$LAYOUTD_SOCKET, else $$XDG_RUNTIME_DIR/layoutd/ipc.sock, else /run/layoutd/ipc.sock).
run: deps
	$(SWIFT) build -c release --product layoutd
	.build/release/layoutd $(LAYOUTD_ARGS)

## Unit tests (swift test), then the daemon end to end: transcripts, conformance, schemas,
## real processes and signals (tests/e2e).
test: unit-test e2e-test

unit-test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

e2e-test: deps
	$(SWIFT) build --product layoutd
	cd tests/e2e && PYTHONWARNINGS=ignore::ResourceWarning $(PYTHON) -m unittest -v test_protocol test_daemon

## Release build; prints a table and rewrites BENCHMARKS.md.
bench: deps
	$(SWIFT) build -c release --product layout-bench
	.build/release/layout-bench --markdown BENCHMARKS.md --toolchain "$$($(SWIFT) --version 2>/dev/null | head -1)" $(BENCH_ARGS)

clean:
	$(SWIFT) package clean
