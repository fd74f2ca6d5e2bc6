# layoutd: the two commands of the quick start are `make run` and `make test`.
SWIFT ?= swift
# The toolchain lives here on our Debian machines; harmless elsewhere.
export PATH := $(PATH):/opt/swift/usr/bin

BENCH_ARGS ?=
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= framer,request,service,mutations,hot
SOAK_SECONDS ?= 300
SOAK_ARGS ?=
LONGRUN_CALLS ?= 1000000
LAYOUTD_ARGS ?=
# Debian packages the build and the tests need; scripts/ensure-deps.sh installs the missing ones.
# python3 and python3-jsonschema drive the end-to-end tests; socat is the raw client there;
# systemd brings systemd-analyze and systemd-socket-activate (no PID 1 is started); bubblewrap,
# libseccomp-dev and gcc build the sandbox that proves the unit's hardening.
# jq checks layoutctl's output in the scenario script; librsvg2-bin renders its SVGs to PNG.
# patchelf and binutils (readelf) point installed binaries at the runtime they ship with;
# dpkg-dev (dpkg-shlibdeps computes Depends) and lintian build and check the Debian package;
# groff-base and man-db check that the man pages render without warnings; zsh runs
# layoutctl's zsh completion; chromium, chromium-driver and python3-selenium load the live
# viewer (layoutctl web) in a real headless browser. libglib2.0-dev builds the C client's GSource
# example, and python3-gi with gir1.2-glib-2.0 runs the Python client's GLib main-loop example.
# libgtk-4-dev, gir1.2-gtk-4.0, gobject-introspection (g-ir-scanner, g-ir-compiler) and
# libgirepository1.0-dev build the GTK library (clients/gtk) and its Layoutd-1 typelib;
# gi-docgen writes its API reference; xvfb and xauth give its tests a display, and
# python3-gi-cairo lets them draw from Python; gjs and valac (with vapigen) run and build its
# GJS and Vala examples, which show the library works from those languages unchanged; xdotool
# gives its input tests real pointer and key events (XTEST). valgrind runs the test of make bench's
# callgrind pass (system-tests/e2e/test_daemon.py BenchCallgrindTests).
DEB_PACKAGES := libsystemd-dev pkg-config socat python3 python3-jsonschema systemd bubblewrap libseccomp-dev gcc jq librsvg2-bin \
  patchelf binutils dpkg-dev lintian groff-base man-db zsh nodejs build-essential python3-venv node-typescript \
  chromium chromium-driver python3-selenium libglib2.0-dev python3-gi gir1.2-glib-2.0 \
  libgtk-4-dev gir1.2-gtk-4.0 gobject-introspection libgirepository1.0-dev gi-docgen xvfb xauth python3-gi-cairo \
  gjs valac xdotool valgrind
# The one version (Sources/LayoutProtocol/Release.swift), for the package and pkg-config files.
VERSION := $(shell sed -n 's/^ *public static let version = "\(.*\)"$$/\1/p' Sources/LayoutProtocol/Release.swift)
# Debian's interpreter, where python3-jsonschema lives (not a pyenv shim).
PYTHON := /usr/bin/python3

# Installation layout (make install PREFIX=/usr DESTDIR=/tmp/stage).
PREFIX ?= /usr/local
# Where the Python client's tests get mypy (PyPI), apart from Debian's interpreter.
CLIENT_VENV := .build/client-venv
# Whether `make install` installs the C client library and the GTK library (with its typelib and
# API reference) too (`make deb` leaves them out of layoutd's package: they have their own).
CLIENT_LIBRARY ?= yes
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
DOCDIR ?= $(PREFIX)/share/doc/layoutd
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
INCLUDEDIR ?= $(PREFIX)/include
PLUGINDIR ?= $(PREFIX)/lib/layoutd/plugins
# The Swift runtime the installed binaries and plugins share (scripts/bundle-runtime.py).
RUNTIMEDIR ?= $(PREFIX)/lib/layoutd/runtime
PKGCONFIGDIR ?= $(PREFIX)/lib/pkgconfig
# The GTK library's API reference (gi-docgen) and where devhelp finds it.
GTK_REFERENCEDIR ?= $(PREFIX)/share/doc/liblayoutd-gtk/reference
DEVHELPDIR ?= $(PREFIX)/share/devhelp/books
# Each configuration's plugins stay apart: tests load the debug ones, `make run` and the
# benchmark the release ones.
PLUGIN_BUILD = .build/plugins/$(CONFIG)
PLUGIN_CFLAGS := -shared -fPIC -O2 -Wall -Wextra -Werror -ISources/CLayoutPlugin/include
# The benchmark's C programs (bench/c): the echo floor, the round-trip client and the load
# generator, libc only.
BENCH_C := .build/bench-c
BENCH_C_PROGRAMS := $(BENCH_C)/layoutd-bench-echo $(BENCH_C)/layoutd-bench-rtt $(BENCH_C)/layoutd-bench-load
# Preloaded into layoutd under valgrind (the callgrind pass): libdispatch's sigsuspend otherwise
# hands valgrind a read-only signal mask it writes to, and valgrind dies.
BENCH_VALGRIND_SHIM := $(BENCH_C)/layoutd-bench-valgrind-sigsuspend.so
BENCH_CFLAGS := -O2 -Wall -Wextra -Werror
UNITS := layoutd.socket layoutd.service
SUBST := sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@sysconfdir@|$(SYSCONFDIR)|g' -e 's|@docdir@|$(DOCDIR)|g'

.PHONY: all deps build plugins release-plugins run gallery test check-generated unit-test e2e-test client-test bench longrun bench-c fuzz soak clean install uninstall deb

all: build

deps:
	@scripts/ensure-deps.sh $(DEB_PACKAGES)

build: deps
	$(SWIFT) build
	$(MAKE) plugins CONFIG=debug

## The shipped waterfall plugin and the circle example in Swift and in C, in
## .build/plugins/CONFIG (examples/ for the example). None of them is linked into layoutd.
CONFIG ?= debug
plugins: deps
	$(SWIFT) build -c $(CONFIG) --product LayoutdWaterfall
	$(SWIFT) build -c $(CONFIG) --product LayoutdCircleSwift
	install -D -m 0644 .build/$(CONFIG)/libLayoutdWaterfall.so $(PLUGIN_BUILD)/waterfall.so
	install -D -m 0644 .build/$(CONFIG)/libLayoutdCircleSwift.so $(PLUGIN_BUILD)/examples/circle.so
	$(CC) $(PLUGIN_CFLAGS) Plugins/CircleExample/c/circle.c -o $(PLUGIN_BUILD)/examples/circle-c.so -lm

## Builds layoutd, layoutctl and the plugins (release), prints the socket and how to call
## layoutctl on it (stdout), then starts layoutd in the foreground on the default socket
## ($$LAYOUTD_SOCKET, else $$XDG_RUNTIME_DIR/layoutd/ipc.sock, else /run/layoutd/ipc.sock) or
## the one LAYOUTD_ARGS names (--socket PATH). layoutctl looks in the same order, so where
## nothing in LAYOUTD_ARGS moved the socket, plain `layoutctl` finds it.
run: deps
	$(SWIFT) build -c release --product layoutd
	$(SWIFT) build -c release --product layoutctl
	$(MAKE) plugins CONFIG=release
	@socket="$$(.build/release/layoutd --print-socket-path $(LAYOUTD_ARGS))" && \
	  echo "layoutd: starting on $$socket (Ctrl-C stops it)" && \
	  echo "layoutctl: .build/release/layoutctl --socket $$socket views" && \
	  if [ "$$(.build/release/layoutctl --print-socket-path)" = "$$socket" ]; then \
	    echo "  layoutctl finds this socket by default here: .build/release/layoutctl views"; \
	  else \
	    echo "  layoutctl looks elsewhere by default: pass --socket $$socket or export LAYOUTD_SOCKET=$$socket"; \
	  fi && \
	  echo "  on PATH: export PATH=\"$(CURDIR)/.build/release:\$$PATH\""
	.build/release/layoutd --plugin-dir .build/plugins/release $(LAYOUTD_ARGS)

## liblayoutd-gtk's demo (clients/gtk/examples/layoutd-gallery: a 30,000-photo grid with stacks,
## grid/list/inline, ultravisual and compositional pages) against the daemon `make run` started:
## builds the C client and the GTK library, then runs the gallery on the socket `make run` prints
## (the same LAYOUTD_ARGS), or on the default one when no release layoutd was built. The Debian
## packages it needs (GTK 4, introspection, python3-gi) come with the others (deps).
## GALLERY_ARGS: more options (--page display, --screenshot FILE, ...).
GALLERY_ARGS ?=
gallery: deps
	$(MAKE) -C clients/c build/liblayoutd-client.so.1.0.0
	$(MAKE) -C clients/gtk
	@if [ -x .build/release/layoutd ]; then set -- --socket "$$(.build/release/layoutd --print-socket-path $(LAYOUTD_ARGS))"; fi && \
	  GI_TYPELIB_PATH=$(CURDIR)/clients/gtk/build$${GI_TYPELIB_PATH:+:$$GI_TYPELIB_PATH} \
	  LD_LIBRARY_PATH=$(CURDIR)/clients/gtk/build:$(CURDIR)/clients/c/build$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH} \
	  $(PYTHON) clients/gtk/examples/layoutd-gallery "$$@" $(GALLERY_ARGS)

## Unit tests (swift test), then the daemon end to end: transcripts, conformance, schemas,
## real processes and signals (system-tests/e2e).
test: check-generated unit-test e2e-test client-test

## Every generated file equals what its generator writes now: the protocol's copies from
## protocol/interface.json (scripts/generate-protocol.py) and the viewer's assets.
check-generated:
	$(PYTHON) scripts/generate-protocol.py --check
	$(PYTHON) scripts/generate-web-assets.py --check

unit-test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

e2e-test: deps
	$(SWIFT) build --product layoutd
	$(SWIFT) build --product layoutctl
	$(SWIFT) build --product layoutd-client-check
	$(SWIFT) build --product layoutd-readme-example
	$(SWIFT) build --product layoutd-fdstore-check
	$(MAKE) plugins CONFIG=debug
	cd system-tests/e2e && PYTHONWARNINGS=ignore::ResourceWarning $(PYTHON) -m unittest -v test_architecture test_sleeps test_protocol test_export test_transition test_move test_daemon test_systemd test_fdstore test_restart test_layoutctl test_readme test_reliability test_plugins test_logging test_resources test_packaging test_clients test_web

## The client libraries' own suites against the debug daemon (clients/*/README.md); the Swift
## client runs in e2e-test (test_clients).
client-test: deps
	$(SWIFT) build --product layoutd
	LAYOUTD_BINARY=$(CURDIR)/.build/debug/layoutd LAYOUTD_REQUIRE_TSC=1 node --test clients/js/test/
	$(MAKE) -C clients/c test LAYOUTD_BINARY=$(CURDIR)/.build/debug/layoutd
	$(MAKE) -C clients/gtk test LAYOUTD_BINARY=$(CURDIR)/.build/debug/layoutd
	@# The Python client under Debian's interpreter, with mypy from PyPI in a venv of its own.
	test -x $(CLIENT_VENV)/bin/python || $(PYTHON) -m venv $(CLIENT_VENV)
	$(CLIENT_VENV)/bin/python -m pip install -q -r clients/python/requirements-test.txt
	LAYOUTD_BINARY=$(CURDIR)/.build/debug/layoutd PYTHON=$(CLIENT_VENV)/bin/python clients/python/run-tests.sh

## Release builds, every benchmark in one run (a few minutes), a table, and BENCHMARKS.md.
## BENCH_ARGS=--quick for 1k and 10k only; BENCH_ARGS="--only memory" for the memory rows alone
## (their tables printed, BENCHMARKS.md left as it is; likewise "--only ipc" for the daemon against
## the echo floor with the callgrind pass, "--only callgrind" for that pass alone). Taffy comes from
## PyPI into .bench-venv; strace, where installed, counts the syscalls per request of the daemon and
## of the C echo floor, and valgrind's callgrind its instructions per request by phase (without
## them BENCHMARKS.md says they were not measured).
bench: deps bench-c
	@scripts/ensure-deps.sh python3-venv strace valgrind
	$(SWIFT) build -c release --product layout-bench
	$(SWIFT) build -c release --product layoutd
	$(SWIFT) build -c release --product layoutd-roundtrip
	$(MAKE) plugins CONFIG=release
	$(PYTHON) scripts/bench.py --output BENCHMARKS.md --toolchain "$$($(SWIFT) --version 2>/dev/null | head -1)" $(BENCH_ARGS)
	$(MAKE) longrun

## The clients' long-run check (scripts/longrun.py): each client makes LONGRUN_CALLS calls with
## events against one release daemon and its resident size must stay flat; the figures go into
## RELIABILITY.md. Not a timed test: about 10 minutes for the four at a million calls each.
longrun: deps
	$(SWIFT) build -c release --product layoutd
	$(SWIFT) build -c release --product layoutd-client-longrun
	$(MAKE) -C clients/c longrun
	$(PYTHON) scripts/longrun.py --calls $(LONGRUN_CALLS)

## The benchmark's C programs in .build/bench-c (gcc -O2, libc only): the echo floor, the
## round-trip client and the pipelining load generator (bench/c/*.c), and the sigsuspend shim
## that lets layoutd run under valgrind for the callgrind pass.
bench-c: $(BENCH_C_PROGRAMS) $(BENCH_VALGRIND_SHIM)

$(BENCH_VALGRIND_SHIM): bench/c/valgrind-sigsuspend.c
	@mkdir -p $(BENCH_C)
	$(CC) $(BENCH_CFLAGS) -shared -fPIC $< -o $@ -ldl

$(BENCH_C)/layoutd-bench-%: bench/c/%.c bench/c/bench.h
	@mkdir -p $(BENCH_C)
	$(CC) $(BENCH_CFLAGS) $< -o $@

## libFuzzer with AddressSanitizer: every target (FUZZ_TARGETS) for FUZZ_SECONDS each, from the
## seeds in fuzz/corpus; a crash lands in fuzz/regressions/ (replayed by `make test`) and fails.
## Dead-code stripping must be off, or the linker drops the coverage counters (lld: gold warns
## about every ASan symbol). `--sanitize fuzzer` reaches only the driver's own target, not the
## layoutd targets it depends on (`swift build -v` shows them compiled without it), so
## -sanitize=fuzzer is also passed to every swiftc.
fuzz: deps
	cd fuzz && $(SWIFT) build -c release --sanitize fuzzer --sanitize address --disable-dead-strip -Xswiftc -use-ld=lld -Xswiftc -sanitize=fuzzer
	$(PYTHON) scripts/fuzz.py run --seconds $(FUZZ_SECONDS) --targets $(FUZZ_TARGETS)
	$(MAKE) -C clients/c fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

## The soak against a release daemon: SOAK_SECONDS of 64 clients on 16 views with hostile
## clients, then order, seq, replay and memory checks; the report lands in .build/soak-report.json.
soak: deps
	$(SWIFT) build -c release --product layoutd
	$(PYTHON) system-tests/soak/soak.py --seconds $(SOAK_SECONDS) --daemon .build/release/layoutd --report .build/soak-report.json $(SOAK_ARGS)

clean:
	$(SWIFT) package clean

## Release binaries, the system and user units (paths filled in), a commented default
## configuration (kept if one exists) and the documentation.
install: deps
	$(SWIFT) build -c release --product layoutd
	$(SWIFT) build -c release --product layoutctl
	$(MAKE) plugins CONFIG=release
	install -D -m 0644 Sources/CLayoutPlugin/include/layoutd/plugin.h $(DESTDIR)$(INCLUDEDIR)/layoutd/plugin.h
	install -D -m 0644 .build/plugins/release/waterfall.so $(DESTDIR)$(PLUGINDIR)/waterfall.so
	install -d -m 0755 $(DESTDIR)$(PKGCONFIGDIR)
	sed -e 's|@prefix@|$(PREFIX)|g' -e 's|@includedir@|$(INCLUDEDIR)|g' -e 's|@plugindir@|$(PLUGINDIR)|g' -e 's|@version@|$(VERSION)|g' \
	  Plugins/layoutd-plugin.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/layoutd-plugin.pc
	install -D -m 0644 Plugins/CircleExample/c/circle.c $(DESTDIR)$(DOCDIR)/examples/circle.c
	install -D -m 0644 Plugins/CircleExample/swift/Circle.swift $(DESTDIR)$(DOCDIR)/examples/Circle.swift
	install -D -m 0755 .build/release/layoutd $(DESTDIR)$(BINDIR)/layoutd
	install -D -m 0755 .build/release/layoutctl $(DESTDIR)$(BINDIR)/layoutctl
	$(PYTHON) scripts/bundle-runtime.py --swift "$(SWIFT)" --runtime-dir $(DESTDIR)$(RUNTIMEDIR) \
	  $(DESTDIR)$(BINDIR)/layoutd $(DESTDIR)$(BINDIR)/layoutctl $(DESTDIR)$(PLUGINDIR)/waterfall.so
	install -d -m 0755 $(DESTDIR)$(UNITDIR) $(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(SYSCONFDIR)/layoutd
	for unit in $(UNITS); do \
	  $(SUBST) systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit && chmod 0644 $(DESTDIR)$(UNITDIR)/$$unit; \
	  $(SUBST) systemd/user/$$unit > $(DESTDIR)$(USERUNITDIR)/$$unit && chmod 0644 $(DESTDIR)$(USERUNITDIR)/$$unit; \
	done
	test -e $(DESTDIR)$(SYSCONFDIR)/layoutd/layoutd.conf || install -m 0644 systemd/layoutd.conf $(DESTDIR)$(SYSCONFDIR)/layoutd/layoutd.conf
	install -d -m 0755 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	.build/release/layoutctl man > $(DESTDIR)$(MANDIR)/man1/layoutctl.1
	install -d -m 0755 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	.build/release/layoutd --man 8 > $(DESTDIR)$(MANDIR)/man8/layoutd.8
	.build/release/layoutd --man 5 > $(DESTDIR)$(MANDIR)/man5/layoutd.conf.5
	.build/release/layoutctl completion bash > $(DESTDIR)$(BASHCOMPDIR)/layoutctl
	.build/release/layoutctl completion zsh > $(DESTDIR)$(ZSHCOMPDIR)/_layoutctl
	install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	cd docs && find . -type f | while read -r file; do install -D -m 0644 "$$file" "$(DESTDIR)$(DOCDIR)/docs/$$file"; done
	install -D -m 0644 ARCHITECTURE.md $(DESTDIR)$(DOCDIR)/ARCHITECTURE.md
	install -D -m 0644 CHANGELOG.md $(DESTDIR)$(DOCDIR)/CHANGELOG.md
	install -D -m 0644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE
	cd protocol && find . -type f | while read -r file; do install -D -m 0644 "$$file" "$(DESTDIR)$(DOCDIR)/protocol/$$file"; done
	@# The C client library, header and pkg-config file (clients/c), and the GTK library on it
	@# (clients/gtk: the library, header, .pc, Layoutd-1.gir and .typelib, the API reference with its
	@# devhelp link). Not in the layoutd .deb: Debian ships shared libraries in packages of their own.
	if [ "$(CLIENT_LIBRARY)" = yes ]; then $(MAKE) -C clients/c install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX); fi
	if [ "$(CLIENT_LIBRARY)" = yes ]; then $(MAKE) -C clients/gtk install install-docs DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) \
	    REFERENCEDIR=$(GTK_REFERENCEDIR) DEVHELPDIR=$(DEVHELPDIR); fi

## The Debian package, offline, in .build/deb/: a staged `make install PREFIX=/usr` with the
## system units in /lib/systemd/system (where Debian 12's systemd and deb-systemd-helper look)
## and the architecture-independent .pc file in /usr/share/pkgconfig,
## made into a package by scripts/build-deb.py (strip, Depends from dpkg-shlibdeps, conffile,
## maintainer scripts from packaging/debian, dpkg-deb --build). Beside it, the C client's
## packages (liblayoutd-client1, -dev) and the GTK library's (liblayoutd-gtk-1-0,
## gir1.2-layoutd-1, liblayoutd-gtk-dev), both built with Debian's hardening flags.
DEB_ROOT := .build/deb/root
## The C client library's and the GTK library's staging trees and build folders (fresh ones, so
## the packages' objects all have Debian's flags and clients/*/build, where development builds
## and tests live, is left alone), and Debian's multiarch directory their packages use.
DEB_CLIENT_ROOT := .build/deb/client-root
DEB_CLIENT_BUILD := .build/deb/client-build
DEB_GTK_ROOT := .build/deb/gtk-root
DEB_GTK_BUILD := .build/deb/gtk-build
DEB_MULTIARCH = $(shell dpkg-architecture -qDEB_HOST_MULTIARCH)
## Debian's build flags with all hardening (fortify, stack protector, relro, bindnow) for the library.
DEB_BUILDFLAGS = DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get
DEB_CFLAGS = $(shell $(DEB_BUILDFLAGS) CPPFLAGS) $(shell $(DEB_BUILDFLAGS) CFLAGS)
DEB_LDFLAGS = $(shell $(DEB_BUILDFLAGS) LDFLAGS)
deb: deps
	rm -rf $(DEB_ROOT) $(DEB_ROOT)-dbgsym $(DEB_CLIENT_ROOT) $(DEB_CLIENT_BUILD) $(DEB_GTK_ROOT) $(DEB_GTK_BUILD)
	$(MAKE) install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr UNITDIR=/lib/systemd/system PKGCONFIGDIR=/usr/share/pkgconfig CLIENT_LIBRARY=no
	$(MAKE) -C clients/c install B=$(CURDIR)/$(DEB_CLIENT_BUILD) DESTDIR=$(CURDIR)/$(DEB_CLIENT_ROOT) PREFIX=/usr LIBDIR=/usr/lib/$(DEB_MULTIARCH) \
	    CFLAGS="$(DEB_CFLAGS)" LDFLAGS="$(DEB_LDFLAGS)"
	@# The GTK library links against clients/c/build's library (only its SONAME is recorded).
	$(MAKE) -C clients/c build/liblayoutd-client.so.1.0.0
	$(MAKE) -C clients/gtk install install-docs B=$(CURDIR)/$(DEB_GTK_BUILD) DESTDIR=$(CURDIR)/$(DEB_GTK_ROOT) PREFIX=/usr \
	    LIBDIR=/usr/lib/$(DEB_MULTIARCH) REFERENCEDIR=/usr/share/doc/liblayoutd-gtk-dev/reference DEVHELPDIR=/usr/share/devhelp/books \
	    CFLAGS="$(DEB_CFLAGS)" LDFLAGS="$(DEB_LDFLAGS)"
	$(PYTHON) scripts/build-deb.py --root $(DEB_ROOT) --client-root $(DEB_CLIENT_ROOT) --gtk-root $(DEB_GTK_ROOT) --version $(VERSION) \
	    --changelog CHANGELOG.md --output .build/deb

## Removes what install put there; a configuration file that was edited is kept.
uninstall:
	$(MAKE) -C clients/gtk uninstall uninstall-docs DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) REFERENCEDIR=$(GTK_REFERENCEDIR) DEVHELPDIR=$(DEVHELPDIR)
	$(MAKE) -C clients/c uninstall DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	rm -f $(DESTDIR)$(BINDIR)/layoutd $(DESTDIR)$(BINDIR)/layoutctl
	rm -f $(DESTDIR)$(INCLUDEDIR)/layoutd/plugin.h $(DESTDIR)$(PLUGINDIR)/waterfall.so $(DESTDIR)$(PKGCONFIGDIR)/layoutd-plugin.pc
	rm -rf $(DESTDIR)$(RUNTIMEDIR)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/layoutd $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(PREFIX)/lib/layoutd 2>/dev/null
	rm -f $(DESTDIR)$(MANDIR)/man1/layoutctl.1 $(DESTDIR)$(BASHCOMPDIR)/layoutctl $(DESTDIR)$(ZSHCOMPDIR)/_layoutctl
	rm -f $(DESTDIR)$(MANDIR)/man8/layoutd.8 $(DESTDIR)$(MANDIR)/man5/layoutd.conf.5
	for unit in $(UNITS); do rm -f $(DESTDIR)$(UNITDIR)/$$unit $(DESTDIR)$(USERUNITDIR)/$$unit; done
	if cmp -s systemd/layoutd.conf $(DESTDIR)$(SYSCONFDIR)/layoutd/layoutd.conf; then rm -f $(DESTDIR)$(SYSCONFDIR)/layoutd/layoutd.conf; fi
	-rmdir $(DESTDIR)$(SYSCONFDIR)/layoutd 2>/dev/null
	rm -rf $(DESTDIR)$(DOCDIR)
