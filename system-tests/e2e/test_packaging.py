"""layoutd as it leaves the build machine: `make install` and `make deb`, run where the Swift
toolchain is hidden (a bubblewrap mount namespace with an empty tmpfs over the toolchain's
directory), the package's files, conffile, Depends, maintainer scripts and lintian, the C
client's and the GTK library's packages beside it, and the one version everything reports.

Both builds are release builds (the first run of this file on a clean tree takes minutes)."""
import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import ROOT, Client, serving_after, trusted_directory

RELEASE = os.path.join(ROOT, ".build", "release")
BUILD_TIMEOUT = 3600
# What installing layoutd may put on disk, in bytes (25 MB, decimal): 0.11.0's package installed
# 71 MB, 51 MB of it Foundation and ICU, which layoutctl linked and nothing needs.
INSTALLED_BUDGET = 25 * 1000 * 1000
# Foundation's libraries in any of its parts (libFoundation.so, libFoundationEssentials.so,
# lib_FoundationICU.so, ...) and the system's ICU (libicuuc.so.72, ...).
FOUNDATION_OR_ICU = re.compile(r"foundation|^libicu", re.IGNORECASE)


def run(arguments, timeout=BUILD_TIMEOUT, **options):
    return subprocess.run(arguments, capture_output=True, text=True, timeout=timeout, **options)


def release_version():
    with open(os.path.join(ROOT, "Sources/LayoutProtocol/Release.swift")) as handle:
        return re.search(r'public static let version = "([^"]+)"', handle.read()).group(1)


def runpath(path):
    dynamic = run(["readelf", "--dynamic", "--wide", path]).stdout
    match = re.search(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", dynamic)
    return match.group(1).split(":") if match else []


def needed(path):
    """The DT_NEEDED sonames of an ELF file."""
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run(["readelf", "--dynamic", "--wide", path]).stdout)


def elf_files(root):
    """The regular files under `root` that are ELF objects."""
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                with open(path, "rb") as handle:
                    if handle.read(4) == b"\x7fELF":
                        yield path


def toolchain_directory():
    """The Swift toolchain the build used: the absolute entry of the build's own RUNPATH
    (<toolchain>/usr/lib/swift/linux), four levels up."""
    built = os.path.join(RELEASE, "layoutd")
    entries = [entry for entry in runpath(built) if entry.startswith("/")]
    assert entries, "%s has no absolute RUNPATH entry: %s" % (built, runpath(built))
    directory = entries[0]
    for _ in range(4):
        directory = os.path.dirname(directory)
    return directory


def hidden_toolchain(arguments):
    """`arguments` in a mount namespace where the toolchain's directory is an empty tmpfs
    (everything else is the machine as it is)."""
    return ["bwrap", "--dev-bind", "/", "/", "--tmpfs", toolchain_directory(), "--die-with-parent", "--"] + arguments


def start_hidden(binary, socket_path, log_path, extra=()):
    log = open(log_path, "wb")
    process = subprocess.Popen(hidden_toolchain([binary, "--socket", socket_path] + list(extra)),
                               stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    log.close()
    try:
        serving_after(socket_path, 15, process)
    except RuntimeError as error:
        process.kill()
        process.wait()
        with open(log_path) as handle:
            raise AssertionError("%s\n%s" % (error, handle.read())) from None
    return process


def daemon_pid(bwrap_pid):
    """The layoutd bubblewrap runs (its child, or the child's child when bwrap forks twice)."""
    pid = bwrap_pid
    for _ in range(3):
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            if os.path.basename(handle.read().split(b"\0")[0].decode()) == "layoutd":
                return pid
        children = []
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as handle:
                children += [int(child) for child in handle.read().split()]
        assert children, "bwrap %d has no child" % bwrap_pid
        pid = children[0]
    raise AssertionError("no layoutd under bwrap %d" % bwrap_pid)


def mapped_libraries(pid):
    with open("/proc/%d/maps" % pid) as handle:
        return sorted({line.split(None, 5)[5].strip() for line in handle if len(line.split(None, 5)) == 6 and ".so" in line})


class InstalledTreeChecks:
    """What an installed tree (make install's stage, or the .deb unpacked) must do with the
    toolchain hidden: layoutd serves with the shipped waterfall plugin from its default
    directory and the extra plugins given, holds one Swift runtime (the shipped one), and the
    installed layoutctl drives it."""

    def check_runs_without_toolchain(self, root, extra_plugin_dir=None, expect_extra=()):
        work = tempfile.mkdtemp(prefix="layoutd-hidden-")
        self.addCleanup(shutil.rmtree, work, True)
        socket_path = os.path.join(work, "ipc.sock")
        layoutd = os.path.join(root, "usr/bin/layoutd")
        layoutctl = os.path.join(root, "usr/bin/layoutctl")
        runtime = os.path.join(root, "usr/lib/layoutd/runtime")

        # The namespace really hides the toolchain: no swift, no libswiftCore anywhere the
        # loader looks, and the build's own binary (toolchain RUNPATH) cannot start there.
        probe = run(hidden_toolchain(["sh", "-c", "command -v swift; ls -A %s; ldconfig -p | grep -c libswiftCore || true"
                                      % toolchain_directory()]))
        self.assertEqual(probe.stdout.split(), ["0"], probe.stdout + probe.stderr)
        unbundled = run(hidden_toolchain([os.path.join(RELEASE, "layoutd"), "--version"]))
        self.assertEqual(unbundled.returncode, 127, unbundled.stdout + unbundled.stderr)
        self.assertIn("libswiftCore.so", unbundled.stderr)

        for binary in (layoutd, layoutctl):
            version = run(hidden_toolchain([binary, "--version"]))
            self.assertEqual(version.returncode, 0, version.stderr)
            self.assertTrue(version.stdout.startswith("%s %s" % (os.path.basename(binary), release_version())), version.stdout)

        extra = ["--plugin-dir", extra_plugin_dir] if extra_plugin_dir else []
        process = start_hidden(layoutd, socket_path, os.path.join(work, "layoutd.log"), extra)
        try:
            def layoutctl_json(*arguments):
                result = run(hidden_toolchain([layoutctl, "--socket", socket_path, "--json"] + list(arguments)), timeout=60)
                self.assertEqual(result.returncode, 0, "layoutctl %s: %s%s" % (" ".join(arguments), result.stdout, result.stderr))
                return json.loads(result.stdout) if result.stdout.strip() else None

            strategies = {entry["name"]: entry for entry in layoutctl_json("strategies")["strategies"]}
            self.assertEqual(strategies["waterfall"]["origin"], os.path.join(root, "usr/lib/layoutd/plugins/waterfall.so"))
            for name in expect_extra:
                self.assertIn(name, strategies, sorted(strategies))
            created = layoutctl_json("create", "wall", "--strategy", "waterfall", "--width", "320", "--height", "480",
                                     "--param", "columnCount=3", "--items", "200")
            self.assertGreater(created["contentSize"]["height"], 480)
            scrolled = layoutctl_json("scroll", "wall", "--y", "600")
            self.assertEqual(scrolled["contentOffset"], {"x": 0, "y": 600})
            queried = layoutctl_json("query", "wall", "--rect", "0,600,320,480")
            self.assertTrue(queried["elements"], queried)
            for element in queried["elements"]:
                frame = element["frame"]
                self.assertLess(frame["y"], 1080)
                self.assertGreater(frame["y"] + frame["height"], 600)
            for name in expect_extra:
                view = "x-" + name
                layoutctl_json("create", view, "--strategy", name, "--width", "320", "--height", "480", "--items", "12")
                self.assertEqual(len(layoutctl_json("query", view, "--rect", "0,0,320,480")["elements"]), 12)

            # One Swift runtime in the process, the shipped one: the plugins built with the
            # SDK bound to the libraries layoutd had loaded.
            libraries = mapped_libraries(daemon_pid(process.pid))
            swift = [path for path in libraries if re.search(r"/lib(swift|dispatch|BlocksRuntime)[^/]*\.so", path)]
            self.assertTrue(swift, libraries)
            for path in swift:
                self.assertEqual(os.path.dirname(path), runtime, libraries)
            self.assertEqual([path for path in libraries if path.endswith("/libswiftCore.so")], [os.path.join(runtime, "libswiftCore.so")])
        finally:
            process.terminate()
            process.wait(15)


class MakeInstallTests(InstalledTreeChecks, unittest.TestCase):
    """`make install DESTDIR=... PREFIX=/usr`, run from the stage with the toolchain hidden,
    with the C example built against the staged header and the Swift example (built with the
    SDK, as a third-party plugin is) loaded beside the shipped waterfall."""

    @classmethod
    def setUpClass(cls):
        # Trusted (no writable ancestor): the default plugin directory under it is loaded.
        cls.stage = trusted_directory("layoutd-stage-")
        installed = run(["make", "-C", ROOT, "install", "DESTDIR=" + cls.stage, "PREFIX=/usr"])
        assert installed.returncode == 0, installed.stdout[-4000:] + installed.stderr[-4000:]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.stage, ignore_errors=True)

    def test_installed_binaries_name_the_shipped_runtime_only(self):
        runtime = os.path.join(self.stage, "usr/lib/layoutd/runtime")
        self.assertTrue(os.path.isfile(os.path.join(runtime, "libswiftCore.so")))
        for relative, expected in [("usr/bin/layoutd", "$ORIGIN/../lib/layoutd/runtime"),
                                   ("usr/bin/layoutctl", "$ORIGIN/../lib/layoutd/runtime"),
                                   ("usr/lib/layoutd/plugins/waterfall.so", "$ORIGIN/../runtime")]:
            self.assertEqual(runpath(os.path.join(self.stage, relative)), [expected], relative)
        for name in os.listdir(runtime):
            if name.endswith(".so"):
                self.assertEqual(runpath(os.path.join(runtime, name)), ["$ORIGIN"], name)
        with open(os.path.join(runtime, "swift-version")) as handle:
            self.assertTrue(handle.read().startswith("Swift version "))

    def test_runs_with_the_toolchain_hidden_and_loads_c_and_swift_plugins(self):
        plugins = os.path.join(self.stage, "extra-plugins")
        os.makedirs(plugins, mode=0o755, exist_ok=True)
        self.addCleanup(shutil.rmtree, plugins, True)
        # The C example against the installed header, found through the installed .pc file.
        environment = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=self.stage,
                           PKG_CONFIG_LIBDIR=os.path.join(self.stage, "usr/lib/pkgconfig"))
        flags = run(["pkg-config", "--cflags", "layoutd-plugin"], env=environment)
        self.assertEqual(flags.stdout.split(), ["-I" + os.path.join(self.stage, "usr/include")], flags.stderr)
        built = run(["cc", "-shared", "-fPIC", "-O2"] + flags.stdout.split()
                    + [os.path.join(self.stage, "usr/share/doc/layoutd/examples/circle.c"), "-o", os.path.join(plugins, "circle-c.so"), "-lm"])
        self.assertEqual(built.returncode, 0, built.stderr)
        # The Swift example as a third-party author builds it (swift build, a dynamic library
        # linked against the toolchain's runtime; its RUNPATH points into the hidden toolchain).
        shutil.copyfile(os.path.join(ROOT, ".build/plugins/release/examples/circle.so"), os.path.join(plugins, "circle.so"))
        self.assertTrue(any(entry.startswith("/") for entry in runpath(os.path.join(plugins, "circle.so"))))
        for name in os.listdir(plugins):
            os.chmod(os.path.join(plugins, name), 0o644)
        self.check_runs_without_toolchain(self.stage, plugins, expect_extra=["circle", "circle-c"])

    def test_the_c_client_library_installs_with_its_header_and_pkg_config_file(self):
        environment = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=self.stage,
                           PKG_CONFIG_LIBDIR=os.path.join(self.stage, "usr/lib/pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "layoutd-client"], env=environment)
        self.assertEqual(flags.returncode, 0, flags.stderr)
        self.assertIn("-I" + os.path.join(self.stage, "usr/include"), flags.stdout.split())
        binary = os.path.join(self.stage, "scroll-example")
        self.addCleanup(lambda: os.path.exists(binary) and os.remove(binary))
        built = run(["cc", "-O2", os.path.join(ROOT, "clients/c/examples/scroll.c"), "-o", binary] + flags.stdout.split(), env=environment)
        self.assertEqual(built.returncode, 0, built.stderr)
        dynamic = run(["readelf", "-d", binary]).stdout
        self.assertIn("liblayoutd-client.so.1", dynamic, "linked against the installed soname")


    def test_the_gtk_library_installs_with_its_typelib_and_reference_and_uninstalls(self):
        lib = os.path.join(self.stage, "usr/lib")
        # The .pc file names the prefix installed to (PREFIX=/usr), whatever clients/gtk/build had.
        environment = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib, "pkgconfig"))
        self.assertEqual(run(["pkg-config", "--modversion", "layoutd-gtk-1"], env=environment).stdout.strip(), release_version())
        self.assertEqual(run(["pkg-config", "--variable=includedir", "layoutd-gtk-1"], env=environment).stdout.strip(), "/usr/include")
        for relative in ("usr/include/layoutd-gtk/layoutd-gtk.h", "usr/lib/liblayoutd-gtk-1.so.0", "usr/share/gir-1.0/Layoutd-1.gir",
                         "usr/lib/girepository-1.0/Layoutd-1.typelib", "usr/share/doc/liblayoutd-gtk/reference/index.html",
                         "usr/share/doc/liblayoutd-gtk/reference/Layoutd-1.devhelp2"):
            self.assertTrue(os.path.isfile(os.path.join(self.stage, relative)), relative)
        self.assertEqual(os.readlink(os.path.join(self.stage, "usr/share/devhelp/books/Layoutd-1")), "../../doc/liblayoutd-gtk/reference")
        probe = ("import gi\ngi.require_version('Layoutd', '1')\nfrom gi.repository import Layoutd\n"
                 "print(Layoutd.Item(id='a').props.id)\n")
        loaded = run(["/usr/bin/python3", "-c", probe], timeout=60,
                     env=dict(os.environ, GI_TYPELIB_PATH=os.path.join(lib, "girepository-1.0"), LD_LIBRARY_PATH=lib))
        self.assertEqual((loaded.returncode, loaded.stdout), (0, "a\n"), loaded.stderr)
        # make uninstall on a copy of the stage leaves nothing of either client library.
        copy = tempfile.mkdtemp(prefix="layoutd-uninstall-")
        self.addCleanup(shutil.rmtree, copy, True)
        shutil.copytree(self.stage, copy, symlinks=True, dirs_exist_ok=True)
        removed = run(["make", "-C", ROOT, "uninstall", "DESTDIR=" + copy, "PREFIX=/usr"], timeout=120)
        self.assertEqual(removed.returncode, 0, removed.stdout[-2000:] + removed.stderr[-2000:])
        left = [os.path.relpath(os.path.join(folder, name), copy) for folder, folders, names in os.walk(copy) for name in names + folders
                if re.search(r"layoutd-(gtk|client)|Layoutd-1", name)]
        self.assertEqual(left, [])


def parse_control(text):
    fields = {}
    for line in text.splitlines():
        if line and not line[0].isspace() and ":" in line:
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields


class PackageTests(InstalledTreeChecks, unittest.TestCase):
    """`make deb`, unpacked into a throw-away root (dpkg -x) and run there with the toolchain
    hidden; its control files, maintainer scripts and lintian's verdict."""

    @classmethod
    def setUpClass(cls):
        built = run(["make", "-C", ROOT, "deb"])
        assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
        architecture = run(["dpkg", "--print-architecture"]).stdout.strip()
        cls.deb = os.path.join(ROOT, ".build/deb", "layoutd_%s_%s.deb" % (release_version(), architecture))
        assert cls.deb in built.stdout, "make deb did not say it wrote %s:\n%s" % (cls.deb, built.stdout[-2000:])
        cls.root = trusted_directory("layoutd-deb-")
        cls.control = tempfile.mkdtemp(prefix="layoutd-deb-control-")
        for command in (["dpkg-deb", "-x", cls.deb, cls.root], ["dpkg-deb", "-e", cls.deb, cls.control]):
            done = run(command)
            assert done.returncode == 0, done.stderr
        with open(os.path.join(cls.control, "control")) as handle:
            cls.fields = parse_control(handle.read())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)
        shutil.rmtree(cls.control, ignore_errors=True)

    def test_control_fields_and_depends(self):
        architecture = run(["dpkg", "--print-architecture"]).stdout.strip()
        self.assertEqual(os.path.basename(self.deb), "layoutd_%s_%s.deb" % (release_version(), architecture))
        self.assertEqual(self.fields["Package"], "layoutd")
        self.assertEqual(self.fields["Version"], release_version())
        self.assertEqual(self.fields["Architecture"], architecture)
        depends = [entry.split()[0] for entry in self.fields["Depends"].split(",")]
        # Computed from the binaries: the libraries outside the shipped runtime, and nothing
        # the toolchain would have provided.
        for package in ("libc6", "libstdc++6", "libgcc-s1", "libsystemd0"):
            self.assertIn(package, depends)
        # What layoutctl render --png opens with dlopen, which dpkg-shlibdeps cannot see.
        self.assertEqual(self.fields["Suggests"], "librsvg2-2, libcairo2")
        for package in depends:
            self.assertEqual(run(["dpkg-query", "-W", "-f=${Status}", package]).stdout, "install ok installed", package)
        installed_kib = sum(os.lstat(os.path.join(folder, name)).st_size for folder, _, names in os.walk(self.root) for name in names) / 1024
        self.assertAlmostEqual(int(self.fields["Installed-Size"]), installed_kib, delta=installed_kib * 0.05 + 64)
        size = os.path.getsize(self.deb)
        print("\n  %s: %.1f MiB, Installed-Size %s KiB, Depends: %s" % (os.path.basename(self.deb), size / 2**20,
                                                                       self.fields["Installed-Size"], self.fields["Depends"]))

    def test_installs_within_25_mb(self):
        """Installed-Size and the unpacked tree (what dpkg puts on disk) within the budget."""
        sizes = {os.path.relpath(os.path.join(folder, name), self.root): os.lstat(os.path.join(folder, name)).st_size
                 for folder, _, names in os.walk(self.root) for name in names}
        parts = ["usr/lib/layoutd/runtime", "usr/bin", "usr/lib/layoutd/plugins", "usr/share/doc"]
        breakdown = {part: sum(size for path, size in sizes.items() if path.startswith(part + "/")) for part in parts}
        breakdown["elsewhere"] = sum(sizes.values()) - sum(breakdown.values())
        report = ", ".join("%s %.1f MB" % (part, size / 1e6) for part, size in breakdown.items())
        self.assertLessEqual(sum(sizes.values()), INSTALLED_BUDGET, report)
        # Installed-Size is in KiB, each file rounded up (as dpkg-gencontrol counts).
        self.assertLessEqual(int(self.fields["Installed-Size"]) * 1024, INSTALLED_BUDGET, report)
        print("\n  installed: %.1f MB (%s)" % (sum(sizes.values()) / 1e6, report))

    def test_no_shipped_file_needs_foundation_or_icu_and_the_runtime_is_what_the_binaries_need(self):
        elves = {os.path.relpath(path, self.root): needed(path) for path in elf_files(self.root)}
        self.assertIn("usr/bin/layoutctl", elves)
        self.assertEqual({path: [name for name in names if FOUNDATION_OR_ICU.search(name)] for path, names in elves.items()
                          if any(FOUNDATION_OR_ICU.search(name) for name in names)}, {})
        self.assertEqual([path for path in elves if FOUNDATION_OR_ICU.search(os.path.basename(path))], [])
        # bundle-runtime.py copies the DT_NEEDED closure of what it is given; nothing else may
        # be in the runtime (a library no shipped file reaches is dead weight).
        runtime = "usr/lib/layoutd/runtime/"
        bundled = {path[len(runtime):] for path in elves if path.startswith(runtime)}
        reached = set()
        pending = [name for path, names in elves.items() if not path.startswith(runtime) for name in names]
        while pending:
            name = pending.pop()
            if name in bundled and name not in reached:
                reached.add(name)
                pending.extend(elves[runtime + name])
        self.assertEqual(sorted(bundled - reached), [], "bundled, yet needed by nothing shipped")
        self.assertIn("libswiftCore.so", reached)

    def test_files_and_conffile(self):
        with open(os.path.join(self.control, "conffiles")) as handle:
            self.assertEqual(handle.read().split(), ["/etc/layoutd/layoutd.conf"])
        with open(os.path.join(self.root, "etc/layoutd/layoutd.conf")) as handle, open(os.path.join(ROOT, "systemd/layoutd.conf")) as source:
            self.assertEqual(handle.read(), source.read())
        for relative in ["usr/bin/layoutd", "usr/bin/layoutctl", "usr/lib/layoutd/runtime/libswiftCore.so",
                         "usr/lib/layoutd/runtime/swift-version", "usr/lib/layoutd/plugins/waterfall.so",
                         "lib/systemd/system/layoutd.socket", "lib/systemd/system/layoutd.service",
                         "usr/lib/systemd/user/layoutd.socket", "usr/lib/systemd/user/layoutd.service",
                         "usr/share/man/man1/layoutctl.1.gz", "usr/share/man/man8/layoutd.8.gz",
                         "usr/share/man/man5/layoutd.conf.5.gz", "usr/share/bash-completion/completions/layoutctl",
                         "usr/share/zsh/site-functions/_layoutctl", "usr/include/layoutd/plugin.h",
                         "usr/share/pkgconfig/layoutd-plugin.pc", "usr/share/doc/layoutd/copyright",
                         "usr/share/doc/layoutd/changelog.gz", "usr/share/doc/layoutd/CHANGELOG.md",
                         "usr/share/doc/layoutd/README.md", "usr/share/doc/layoutd/docs/running.md", "usr/share/doc/layoutd/protocol/README.md",
                         "usr/share/doc/layoutd/examples/circle.c"]:
            self.assertTrue(os.path.isfile(os.path.join(self.root, relative)), relative)
        self.assertFalse(os.path.exists(os.path.join(self.root, "usr/share/doc/layoutd/LICENSE")), "the license belongs in copyright")
        with open(os.path.join(self.root, "usr/share/doc/layoutd/copyright")) as handle:
            copyright = handle.read()
        self.assertIn("License: Apache-2.0", copyright)
        self.assertIn("Files: usr/lib/layoutd/runtime/*", copyright)
        with gzip.open(os.path.join(self.root, "usr/share/doc/layoutd/changelog.gz"), "rt") as handle:
            self.assertTrue(handle.readline().startswith("layoutd (%s) " % release_version()))
        for page, heading in [("man1/layoutctl.1.gz", ".TH LAYOUTCTL 1"), ("man8/layoutd.8.gz", ".TH LAYOUTD 8"),
                              ("man5/layoutd.conf.5.gz", ".TH LAYOUTD.CONF 5")]:
            with gzip.open(os.path.join(self.root, "usr/share/man", page), "rt") as handle:
                self.assertTrue(handle.read().startswith(heading), page)
        with open(os.path.join(self.root, "lib/systemd/system/layoutd.service")) as handle:
            service = handle.read()
        self.assertIn("ExecStart=/usr/bin/layoutd --config /etc/layoutd/layoutd.conf", service)
        # Every ELF file finds its libraries relative to itself, never in a build machine's path.
        for folder, _, names in os.walk(self.root):
            for name in names:
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    if handle.read(4) != b"\x7fELF":
                        continue
                for entry in runpath(path):
                    self.assertTrue(entry.startswith("$ORIGIN"), "%s: RUNPATH %s" % (path, entry))

    def test_debug_symbols_go_to_the_dbgsym_package_by_build_id(self):
        """dh_strip's way: the stripped files keep their build id; layoutd-dbgsym holds
        /usr/lib/debug/.build-id/xx/yyyy.debug with the debug information for each."""
        dbgsym = self.deb.replace("/layoutd_", "/layoutd-dbgsym_")
        fields = parse_control(run(["dpkg-deb", "-f", dbgsym]).stdout)
        self.assertEqual((fields["Package"], fields["Section"]), ("layoutd-dbgsym", "debug"))
        self.assertEqual(fields["Depends"], "layoutd (= %s)" % release_version())
        debug_root = tempfile.mkdtemp(prefix="layoutd-dbgsym-")
        self.addCleanup(shutil.rmtree, debug_root, True)
        self.assertEqual(run(["dpkg-deb", "-x", dbgsym, debug_root]).returncode, 0)
        stripped = {}
        for relative in ("usr/bin/layoutd", "usr/bin/layoutctl", "usr/lib/layoutd/plugins/waterfall.so"):
            path = os.path.join(self.root, relative)
            self.assertNotIn(".debug_info", run(["readelf", "--section-headers", "--wide", path]).stdout, relative)
            build_id = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "--notes", path]).stdout)
            self.assertIsNotNone(build_id, "%s lost its build id" % relative)
            stripped[build_id.group(1)] = relative
        self.assertEqual(set(fields["Build-Ids"].split()), set(stripped))
        for build_id, relative in stripped.items():
            debug = os.path.join(debug_root, "usr/lib/debug/.build-id", build_id[:2], build_id[2:] + ".debug")
            self.assertIn(".debug_info", run(["readelf", "--section-headers", "--wide", debug]).stdout, relative)

    def client_packages(self, names=("liblayoutd-client1", "liblayoutd-client-dev")):
        """liblayoutd-client1 and liblayoutd-client-dev (or NAMES) as make deb wrote them, unpacked
        together into one throw-away root: {package: (path, control fields, control dir)}."""
        architecture = run(["dpkg", "--print-architecture"]).stdout.strip()
        root = tempfile.mkdtemp(prefix="layoutd-client-deb-")
        self.addCleanup(shutil.rmtree, root, True)
        packages = {}
        for package in names:
            path = os.path.join(ROOT, ".build/deb", "%s_%s_%s.deb" % (package, release_version(), architecture))
            self.assertTrue(os.path.exists(path), "make deb did not write %s" % path)
            control = os.path.join(root, "DEBIAN-" + package)
            for command in (["dpkg-deb", "-x", path, root], ["dpkg-deb", "-e", path, control]):
                done = run(command)
                self.assertEqual(done.returncode, 0, done.stderr)
            with open(os.path.join(control, "control")) as handle:
                packages[package] = (path, parse_control(handle.read()), control)
        multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip()
        return root, os.path.join(root, "usr/lib", multiarch), packages

    def test_the_c_client_library_packages_follow_the_library_policy(self):
        root, libdir, packages = self.client_packages()
        _, runtime, runtime_control = packages["liblayoutd-client1"]
        _, dev, _ = packages["liblayoutd-client-dev"]
        self.assertEqual((runtime["Section"], runtime["Multi-Arch"], runtime["Version"]), ("libs", "same", release_version()))
        self.assertRegex(runtime["Depends"], r"^libc6 \(>= [\d.]+\)$", "libc only")
        self.assertEqual((dev["Section"], dev["Depends"]), ("libdevel", "liblayoutd-client1 (= %s)" % release_version()))
        with open(os.path.join(runtime_control, "shlibs")) as handle:
            self.assertEqual(handle.read(), "liblayoutd-client 1 liblayoutd-client1 (>= %s)\n" % release_version())
        # The symbols file the repository keeps is the one shipped (build-deb refuses a library
        # whose exports differ from it).
        with open(os.path.join(runtime_control, "symbols")) as shipped, \
                open(os.path.join(ROOT, "packaging/debian/liblayoutd-client1.symbols")) as kept:
            self.assertEqual(shipped.read(), kept.read())
        with open(os.path.join(runtime_control, "triggers")) as handle:
            self.assertEqual(handle.read(), "activate-noawait ldconfig\n")
        # The runtime package holds the SONAME and the real file only; -dev the rest.
        library = os.path.join(libdir, "liblayoutd-client.so.1.0.0")
        self.assertEqual(os.stat(library).st_mode & 0o777, 0o644)
        self.assertEqual(os.readlink(os.path.join(libdir, "liblayoutd-client.so.1")), "liblayoutd-client.so.1.0.0")
        self.assertEqual(os.readlink(os.path.join(libdir, "liblayoutd-client.so")), "liblayoutd-client.so.1")
        self.assertNotIn(".debug_info", run(["readelf", "--section-headers", "--wide", library]).stdout, "stripped")
        # Built with Debian's hardening flags: full RELRO (relro + bindnow).
        self.assertRegex(run(["readelf", "--dynamic", library]).stdout, r"\(FLAGS(_1)?\)\s+Flags: .*\bNOW\b")
        self.assertIn("GNU_RELRO", run(["readelf", "--program-headers", library]).stdout)
        listed = {package: run(["dpkg-deb", "-c", path]).stdout for package, (path, _, _) in packages.items()}
        self.assertNotIn("client.h", listed["liblayoutd-client1"])
        self.assertNotIn("liblayoutd-client.so.1.0.0", listed["liblayoutd-client-dev"])
        # A program built from the -dev package as its users would (pkg-config), linked by SONAME,
        # runs against a real daemon with the library found where the runtime package put it.
        environment = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=root, PKG_CONFIG_LIBDIR=os.path.join(libdir, "pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "layoutd-client"], env=environment)
        self.assertEqual(flags.returncode, 0, flags.stderr)
        # The pkg-config file says the release, as every client does (one version).
        self.assertEqual(run(["pkg-config", "--modversion", "layoutd-client"], env=environment).stdout.strip(), release_version())
        binary = os.path.join(root, "scroll-example")
        built = run(["cc", "-O2", os.path.join(ROOT, "clients/c/examples/scroll.c"), "-o", binary] + flags.stdout.split(), env=environment)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertIn("Shared library: [liblayoutd-client.so.1]", run(["readelf", "-d", binary]).stdout)
        work = trusted_directory("layoutd-client-deb-run-")
        self.addCleanup(shutil.rmtree, work, True)
        socket_path = os.path.join(work, "ipc.sock")
        process = start_hidden(os.path.join(self.root, "usr/bin/layoutd"), socket_path, os.path.join(work, "log"))
        try:
            scrolled = run([binary, socket_path], timeout=120, env=dict(os.environ, LD_LIBRARY_PATH=libdir))
            self.assertEqual(scrolled.returncode, 0, scrolled.stdout + scrolled.stderr)
            frames = re.findall(r"^frame \d+: epoch \d+ offset [\d.]+, [1-9]\d* elements in the window", scrolled.stdout, re.M)
            self.assertEqual(len(frames), 10, scrolled.stdout)
        finally:
            process.terminate()
            process.wait(timeout=30)
        if shutil.which("lintian"):
            checked = run(["lintian", "--fail-on", "error,warning"] + [path for path, _, _ in packages.values()], timeout=600)
            self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)
            self.assertEqual(re.findall(r"^[EW]: .*$", checked.stdout, re.M), [])
        print("\n  client packages: %s" % ", ".join("%s %d B" % (package, os.path.getsize(path)) for package, (path, _, _) in sorted(packages.items())))

    def test_the_gtk_library_packages_follow_the_library_and_introspection_policies(self):
        """liblayoutd-gtk-1-0, gir1.2-layoutd-1 and liblayoutd-gtk-dev, unpacked with the C
        client's two: where each file is, the control files, Depends, the hardening, a program
        built with pkg-config from the unpacked files, the typelib loaded from them, lintian."""
        gtk = ("liblayoutd-gtk-1-0", "gir1.2-layoutd-1", "liblayoutd-gtk-dev")
        root, libdir, packages = self.client_packages(("liblayoutd-client1", "liblayoutd-client-dev") + gtk)
        version = release_version()
        fields = {package: packages[package][1] for package in gtk}
        self.assertEqual({package: (fields[package]["Section"], fields[package]["Multi-Arch"], fields[package]["Version"])
                          for package in gtk},
                         {"liblayoutd-gtk-1-0": ("libs", "same", version), "gir1.2-layoutd-1": ("introspection", "same", version),
                          "liblayoutd-gtk-dev": ("libdevel", "same", version)})
        # Computed by dpkg-shlibdeps: GTK, GLib and libc from the system's symbols files, the C
        # client from the symbols file of the liblayoutd-client1 built beside it.
        runtime_depends = {entry.split()[0]: entry for entry in fields["liblayoutd-gtk-1-0"]["Depends"].split(", ")}
        for package in ("libc6", "libglib2.0-0", "libgtk-4-1", "liblayoutd-client1"):
            self.assertIn(package, runtime_depends, fields["liblayoutd-gtk-1-0"]["Depends"])
        self.assertRegex(runtime_depends["liblayoutd-client1"], r"^liblayoutd-client1 \(>= [\d.]+\)$")
        # As dh_girepository: the typelibs Layoutd-1 includes, and the library through its shlibs.
        typelib_depends = fields["gir1.2-layoutd-1"]["Depends"].split(", ")
        self.assertIn("gir1.2-gtk-4.0", typelib_depends)
        self.assertIn("liblayoutd-gtk-1-0 (>= %s)" % version, typelib_depends)
        self.assertEqual(fields["liblayoutd-gtk-dev"]["Depends"],
                         "liblayoutd-gtk-1-0 (= {0}), gir1.2-layoutd-1 (= {0}), liblayoutd-client-dev (= {0}), libgtk-4-dev (>= 4.8)"
                         .format(version))
        runtime_control = packages["liblayoutd-gtk-1-0"][2]
        with open(os.path.join(runtime_control, "shlibs")) as handle:
            self.assertEqual(handle.read(), "liblayoutd-gtk-1 0 liblayoutd-gtk-1-0 (>= %s)\n" % version)
        with open(os.path.join(runtime_control, "symbols")) as shipped, \
                open(os.path.join(ROOT, "packaging/debian/liblayoutd-gtk-1-0.symbols")) as kept:
            self.assertEqual(shipped.read(), kept.read())
        with open(os.path.join(runtime_control, "triggers")) as handle:
            self.assertEqual(handle.read(), "activate-noawait ldconfig\n")
        # What the library exports (build-deb holds it to the symbols file) is its public API: a
        # name not in the header would be ABI by accident.
        with open(os.path.join(runtime_control, "symbols")) as handle:
            exported = {line.split("@")[0].strip() for line in handle if line.startswith(" ")} - {"LAYOUTD_GTK_1"}
        with open(os.path.join(ROOT, "clients/gtk/include/layoutd-gtk/layoutd-gtk.h")) as handle:
            declared = set(re.findall(r"\b(layoutd_\w+)\s*\(", handle.read()))
        self.assertEqual(sorted(exported - declared), [], "exported but not declared in layoutd-gtk.h")
        self.assertEqual(sorted(declared - exported), [], "declared in layoutd-gtk.h but not exported")
        # Each file in its package.
        multiarch = os.path.relpath(libdir, root)
        listed = {package: sorted(line.split()[5].lstrip(".") for line in run(["dpkg-deb", "-c", packages[package][0]]).stdout.splitlines()
                                  if not line.startswith("d")) for package in gtk}
        own_docs = lambda package: [path for path in listed[package] if not path.startswith("/usr/share/doc/%s/" % package)]
        self.assertEqual(own_docs("liblayoutd-gtk-1-0"), ["/%s/liblayoutd-gtk-1.so.0" % multiarch])
        self.assertEqual(own_docs("gir1.2-layoutd-1"), ["/%s/girepository-1.0/Layoutd-1.typelib" % multiarch])
        dev = own_docs("liblayoutd-gtk-dev")
        for path in ("/usr/include/layoutd-gtk/layoutd-gtk.h", "/%s/liblayoutd-gtk-1.so" % multiarch,
                     "/%s/pkgconfig/layoutd-gtk-1.pc" % multiarch, "/usr/share/gir-1.0/Layoutd-1.gir",
                     "/usr/share/devhelp/books/Layoutd-1", "/usr/share/doc-base/liblayoutd-gtk-dev.liblayoutd-gtk-reference"):
            self.assertIn(path, dev)
        self.assertEqual([path for path in dev if not path.startswith(("/usr/include/", "/usr/share/gir-1.0/", "/usr/share/devhelp/",
                                                                      "/usr/share/doc-base/", "/" + multiarch + "/"))], [])
        self.assertEqual(os.readlink(os.path.join(libdir, "liblayoutd-gtk-1.so")), "liblayoutd-gtk-1.so.0")
        reference = os.path.join(root, "usr/share/doc/liblayoutd-gtk-dev/reference")
        self.assertEqual(os.path.realpath(os.path.join(root, "usr/share/devhelp/books/Layoutd-1")), os.path.realpath(reference))
        for name in ("index.html", "Layoutd-1.devhelp2", "class.CollectionView.html", "overview.html"):
            self.assertTrue(os.path.isfile(os.path.join(reference, name)), name)
        with open(os.path.join(reference, "index.html")) as handle:
            self.assertIn(version, handle.read())
        # Not executable (policy 8.1), stripped, built with Debian's hardening flags (full RELRO,
        # fortified functions) and linked to the C client by SONAME.
        library = os.path.join(libdir, "liblayoutd-gtk-1.so.0")
        self.assertEqual(os.stat(library).st_mode & 0o777, 0o644)
        self.assertNotIn(".debug_info", run(["readelf", "--section-headers", "--wide", library]).stdout, "stripped")
        dynamic = run(["readelf", "--dynamic", "--wide", library]).stdout
        self.assertRegex(dynamic, r"\(FLAGS(_1)?\)\s+Flags: .*\bNOW\b")
        self.assertIn("Library soname: [liblayoutd-gtk-1.so.0]", dynamic)
        self.assertIn("Shared library: [liblayoutd-client.so.1]", dynamic)
        self.assertIn("GNU_RELRO", run(["readelf", "--program-headers", library]).stdout)
        # A program built from the -dev package as its users would (pkg-config, which also reads
        # liblayoutd-client-dev's .pc and the system's gtk4.pc), linked by SONAME. The unpacked
        # .pc files name /usr; copies name the throw-away root instead (PKG_CONFIG_SYSROOT_DIR
        # would move gtk4's directories there too).
        pkgconfig = os.path.join(root, "pkgconfig")
        os.makedirs(pkgconfig)
        for name in ("layoutd-gtk-1.pc", "layoutd-client.pc"):
            with open(os.path.join(libdir, "pkgconfig", name)) as handle:
                text = handle.read()
            self.assertIn("\nlibdir=/%s\n" % multiarch, text, name)
            with open(os.path.join(pkgconfig, name), "w") as handle:
                handle.write(re.sub(r"^(\w+)=/usr", r"\1=%s/usr" % root, text, flags=re.M))
        environment = dict(os.environ, PKG_CONFIG_PATH=pkgconfig)
        self.assertEqual(run(["pkg-config", "--modversion", "layoutd-gtk-1"], env=environment).stdout.strip(), version)
        flags = run(["pkg-config", "--cflags", "--libs", "layoutd-gtk-1"], env=environment)
        self.assertEqual(flags.returncode, 0, flags.stderr)
        self.assertIn("-I" + os.path.join(root, "usr/include"), flags.stdout.split())
        source = os.path.join(root, "view.c")
        with open(source, "w") as handle:
            handle.write("#include <layoutd-gtk/layoutd-gtk.h>\n"
                         "int main(void) { return layoutd_item_get_type() == 0 || LAYOUTD_ERROR == 0; }\n")
        binary = os.path.join(root, "view")
        # The linker looks for the library's own NEEDED (liblayoutd-client.so.1) where the loader
        # would, not in -L: in /usr/lib/<multiarch> once installed, here through LD_LIBRARY_PATH.
        built = run(["cc", "-O2", "-Wall", "-Werror", source, "-o", binary] + flags.stdout.split(),
                    env=dict(environment, LD_LIBRARY_PATH=libdir))
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertIn("Shared library: [liblayoutd-gtk-1.so.0]", run(["readelf", "-d", binary]).stdout)
        self.assertEqual(run([binary], env=dict(os.environ, LD_LIBRARY_PATH=libdir)).returncode, 0)
        # The typelib loads from gir1.2-layoutd-1's place and finds the library where
        # liblayoutd-gtk-1-0 put it (Debian's python3-gi, no display needed for an item).
        probe = ("import gi\ngi.require_version('Layoutd', '1')\nfrom gi.repository import Layoutd\n"
                 "item = Layoutd.Item(id='a', section='s')\nprint(item.props.id, item.props.section)\n"
                 "print([line.split()[-1] for line in open('/proc/self/maps') if 'liblayoutd-gtk' in line][0])\n")
        loaded = run(["/usr/bin/python3", "-c", probe], timeout=60,
                     env=dict(os.environ, GI_TYPELIB_PATH=os.path.join(libdir, "girepository-1.0"), LD_LIBRARY_PATH=libdir))
        self.assertEqual(loaded.returncode, 0, loaded.stderr)
        self.assertEqual(loaded.stdout.split(), ["a", "s", library])
        if shutil.which("lintian"):
            checked = run(["lintian", "--fail-on", "error,warning", "--display-info"] + [packages[package][0] for package in gtk], timeout=600)
            self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)
            self.assertEqual(re.findall(r"^[EWI]: .*$", checked.stdout, re.M), [])
        print("\n  GTK packages: %s" % ", ".join("%s %d B" % (package, os.path.getsize(packages[package][0])) for package in gtk))

    def test_unpacked_package_runs_with_the_toolchain_hidden(self):
        self.check_runs_without_toolchain(self.root)

    def test_lintian_has_no_errors_and_only_the_warnings_the_readme_accepts(self):
        if not shutil.which("lintian"):
            self.skipTest("lintian is not installed (Debian: lintian; make deps installs it)")
        checked = run(["lintian", "--fail-on", "error", "--display-info", self.deb], timeout=600)
        tags = re.findall(r"^([EWIPX]): layoutd(?: \w+)?: (\S+)", checked.stdout, re.M)
        self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)
        self.assertEqual([tag for level, tag in tags if level == "E"], [])
        with open(os.path.join(ROOT, "docs", "install.md")) as handle:
            documented = handle.read()
        accepted = set(re.findall(r"^- lintian warning `([\w-]+)`", documented, re.M))
        warnings = sorted({tag for level, tag in tags if level == "W"})
        self.assertEqual([tag for tag in warnings if tag not in accepted], [], "warnings docs/install.md does not accept")
        counts = {level: sum(1 for found, _ in tags if found == level) for level in "EWI"}
        print("\n  lintian: %d errors, %d warnings (%s), %d info tags" % (counts["E"], counts["W"], ", ".join(warnings) or "none", counts["I"]))

    def run_script(self, name, arguments, systemd_running):
        """A maintainer script with deb-systemd-helper, deb-systemd-invoke and systemctl
        replaced by recorders, in a namespace where /run/systemd/system exists or not."""
        fakes = tempfile.mkdtemp(prefix="layoutd-maint-")
        self.addCleanup(shutil.rmtree, fakes, True)
        log = os.path.join(fakes, "calls")
        for tool in ("deb-systemd-helper", "deb-systemd-invoke", "systemctl"):
            with open(os.path.join(fakes, tool), "w") as handle:
                handle.write('#!/bin/sh\necho "%s $*" >> %s\n' % (tool, log))
            os.chmod(os.path.join(fakes, tool), 0o755)
        sandbox = ["bwrap", "--dev-bind", "/", "/", "--tmpfs", "/run"] + (["--dir", "/run/systemd/system"] if systemd_running else [])
        result = run(sandbox + ["--", "sh", os.path.join(self.control, name)] + arguments,
                     env=dict(os.environ, PATH=fakes + ":/usr/sbin:/usr/bin:/sbin:/bin"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        if not os.path.exists(log):
            return []
        with open(log) as handle:
            return handle.read().splitlines()

    def test_maintainer_scripts_touch_systemd_only_when_it_runs(self):
        for name in ("postinst", "prerm", "postrm"):
            self.assertEqual(run(["sh", "-n", os.path.join(self.control, name)]).returncode, 0, name)
        enable = ["deb-systemd-helper unmask layoutd.socket", "deb-systemd-helper --quiet was-enabled layoutd.socket",
                  "deb-systemd-helper enable layoutd.socket"]
        # A first install in a chroot or image build: the enablement is recorded, nothing runs.
        self.assertEqual(self.run_script("postinst", ["configure", ""], systemd_running=False), enable)
        # On a running system: units reloaded and the socket started, no daemon restart.
        self.assertEqual(self.run_script("postinst", ["configure", ""], systemd_running=True),
                         enable + ["systemctl --system daemon-reload", "deb-systemd-invoke start layoutd.socket"])
        # An upgrade restarts a running daemon into the new binary.
        self.assertEqual(self.run_script("postinst", ["configure", "0.7.0"], systemd_running=True),
                         enable + ["systemctl --system daemon-reload", "deb-systemd-invoke try-restart layoutd.service",
                                   "deb-systemd-invoke start layoutd.socket"])
        self.assertEqual(self.run_script("prerm", ["remove"], systemd_running=True),
                         ["deb-systemd-invoke stop layoutd.socket layoutd.service"])
        self.assertEqual(self.run_script("prerm", ["remove"], systemd_running=False), [])
        self.assertEqual(self.run_script("prerm", ["upgrade", "0.8.1"], systemd_running=True), [])
        self.assertEqual(self.run_script("postrm", ["remove"], systemd_running=False), ["deb-systemd-helper mask layoutd.socket"])
        self.assertEqual(self.run_script("postrm", ["purge"], systemd_running=True),
                         ["systemctl --system daemon-reload", "deb-systemd-helper purge layoutd.socket",
                          "deb-systemd-helper unmask layoutd.socket"])

    def test_one_version_everywhere(self):
        version = release_version()
        with open(os.path.join(ROOT, "CHANGELOG.md")) as handle:
            first = next(line for line in handle if line.startswith("## "))
        self.assertTrue(first.startswith("## %s — " % version), first)
        self.assertEqual(self.fields["Version"], version)
        named = set()
        for document in ("README.md", "docs/install.md", "docs/gtk.md", "docs/clients.md"):
            with open(os.path.join(ROOT, document)) as handle:
                named |= set(re.findall(r"layoutd_([^_\s]+)_\w+\.deb", handle.read()))
        self.assertEqual(named, {version}, "the package names in README.md and docs/")
        with open(os.path.join(self.root, "usr/share/pkgconfig/layoutd-plugin.pc")) as handle:
            self.assertIn("\nVersion: %s\n" % version, handle.read())
        for binary in ("layoutd", "layoutctl"):
            printed = run(hidden_toolchain([os.path.join(self.root, "usr/bin", binary), "--version"])).stdout
            self.assertEqual(printed.split()[:2], [binary, version])
        work = tempfile.mkdtemp(prefix="layoutd-version-")
        self.addCleanup(shutil.rmtree, work, True)
        socket_path = os.path.join(work, "ipc.sock")
        process = start_hidden(os.path.join(self.root, "usr/bin/layoutd"), socket_path, os.path.join(work, "log"))
        try:
            with Client(socket_path) as client:
                self.assertEqual(client.call("daemon.hello")["result"]["version"], version)
        finally:
            process.terminate()
            process.wait(15)


if __name__ == "__main__":
    unittest.main()
