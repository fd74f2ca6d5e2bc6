#!/usr/bin/env python3
"""Builds layoutd's Debian package from a tree staged by `make install DESTDIR=ROOT PREFIX=/usr`.

What Debian's helpers (debhelper) would do for a source package, done here on the staged tree
because the package is built with plain `dpkg-deb --build`, offline, from the Makefile:
strip the ELF files, their debug information into a -dbgsym package (dh_strip), compress the manual pages (dh_compress), add the copyright
file and a Debian changelog (dh_installdocs, dh_installchangelogs), compute Depends from the
binaries with dpkg-shlibdeps (dh_shlibdeps), list the conffile and the maintainer scripts
(packaging/debian/), write md5sums (dh_md5sums) and Installed-Size (dh_gencontrol).

With `--client-root` (the C client library staged by `make -C clients/c install` with Debian's
multiarch libdir) it also builds the library's two packages, split as Debian's library policy
(§8) wants: `liblayoutd-client1` (the shared library under its SONAME, a shlibs file, the
ldconfig trigger) and `liblayoutd-client-dev` (the header, the unversioned .so link, the static
archive and the pkg-config file, depending on exactly this liblayoutd-client1).

With `--gtk-root` too (the GTK library staged by `make -C clients/gtk install install-docs`
with the same libdir) it builds the GTK library's three: `liblayoutd-gtk-1-0` (the shared
library, on liblayoutd-client1), `gir1.2-layoutd-1` (its typelib, in
/usr/lib/<multiarch>/girepository-1.0, as dh_girepository names and places one) and
`liblayoutd-gtk-dev` (the header, the .so link, the pkg-config file, Layoutd-1.gir and the
HTML API reference, with its devhelp link).

The package's version is the release (Sources/LayoutProtocol/Release.swift), passed in by the
Makefile; the Debian changelog's entry is dated by CHANGELOG.md's heading for that version, so
building twice gives the same package.
"""
import argparse
import datetime
import gzip
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

PACKAGE = "layoutd"
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGING = os.path.join(HERE, "..", "packaging", "debian")
MAINTAINER_SCRIPTS = ["postinst", "prerm", "postrm"]
CONFFILES = ["/etc/layoutd/layoutd.conf"]
# Files make install puts in the documentation that Debian keeps elsewhere: the license is in
# `copyright` (lintian: extra-license-file).
NOT_IN_DEBIAN_DOCS = ["LICENSE"]


def fail(message):
    sys.exit("build-deb: " + message)


def run(arguments, **options):
    result = subprocess.run(arguments, capture_output=True, text=True, **options)
    if result.returncode != 0:
        fail("%s failed (%d):\n%s%s" % (" ".join(arguments), result.returncode, result.stdout, result.stderr))
    return result.stdout


def is_elf(path):
    with open(path, "rb") as handle:
        return handle.read(4) == b"\x7fELF"


def files_under(root):
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                yield path


def release_date(changelog, version):
    """The date of CHANGELOG.md's `## VERSION — YYYY-MM-DD` heading, which must be the first."""
    with open(changelog) as handle:
        headings = [line for line in handle if line.startswith("## ")]
    if not headings:
        fail("%s has no '## VERSION — DATE' heading" % changelog)
    match = re.match(r"## (\S+) — (\d{4}-\d{2}-\d{2})\s*$", headings[0])
    if not match or match.group(1) != version:
        fail("%s must start with '## %s — YYYY-MM-DD', not %r" % (changelog, version, headings[0].strip()))
    return datetime.datetime.strptime(match.group(2), "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)


def gzip_file(path, target, mtime):
    # -9n: no name or time in the header, so the bytes depend only on the content.
    with open(path, "rb") as source, open(target, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=mtime) as zipped:
            shutil.copyfileobj(source, zipped)


def build_id(path):
    """The ELF file's GNU build id (hex), or None."""
    match = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "--notes", path]))
    return match.group(1) if match else None


def strip(root, debug_root):
    """Strips every ELF file; the debug information of those that have some (layoutd,
    layoutctl, the plugins: not the runtime, which the toolchain ships without) goes first to
    DEBUG_ROOT/usr/lib/debug/.build-id/xx/yyyy.debug, where gdb and debuginfod look it up by
    the build id the stripped file keeps. Returns the build ids, for the dbgsym package."""
    ids = []
    for path in files_under(root):
        if not is_elf(path):
            continue
        identifier = build_id(path)
        if identifier and ".debug_info" in run(["readelf", "--section-headers", "--wide", path]):
            target = os.path.join(debug_root, "usr/lib/debug/.build-id", identifier[:2], identifier[2:] + ".debug")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            run(["objcopy", "--only-keep-debug", "--compress-debug-sections", path, target])
            os.chmod(target, 0o644)
            ids.append(identifier)
        shared = path.endswith(".so") or ".so." in os.path.basename(path)
        flags = ["--remove-section=.comment", "--remove-section=.note"] + (["--strip-unneeded"] if shared else [])
        run(["strip"] + flags + [path])
    return ids


def build_dbgsym(debug_root, version, architecture, maintainer, ids, output, environment):
    """layoutd-dbgsym: the debug information strip took out, as dh_strip packages it (Section
    debug, depending on exactly this layoutd, Build-Ids listed)."""
    if not ids:
        return None
    docs = os.path.join(debug_root, "usr/share/doc")
    os.makedirs(docs, exist_ok=True)
    # As debhelper does: the documentation is the main package's.
    os.symlink(PACKAGE, os.path.join(docs, PACKAGE + "-dbgsym"))
    control = os.path.join(debug_root, "DEBIAN")
    os.makedirs(control, exist_ok=True)
    with open(os.path.join(control, "control"), "w") as handle:
        handle.write(
            "Package: %s-dbgsym\nSource: %s\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %d\n"
            "Depends: %s (= %s)\nSection: debug\nPriority: optional\nAuto-Built-Package: debug-symbols\n"
            "Description: debug symbols for %s\nBuild-Ids: %s\n"
            % (PACKAGE, PACKAGE, version, architecture, maintainer, installed_size(debug_root), PACKAGE, version, PACKAGE,
               " ".join(sorted(ids))))
    write_md5sums(debug_root)
    target = os.path.join(output, "%s-dbgsym_%s_%s.deb" % (PACKAGE, version, architecture))
    run(["dpkg-deb", "--root-owner-group", "--build", debug_root, target], env=environment)
    return target


def compress_manual_pages(root, mtime):
    manuals = os.path.join(root, "usr/share/man")
    for path in list(files_under(manuals)) if os.path.isdir(manuals) else []:
        if not path.endswith(".gz"):
            gzip_file(path, path + ".gz", mtime)
            os.chmod(path + ".gz", 0o644)
            os.remove(path)


def install_documents(root, version, date, maintainer, package=PACKAGE):
    docs = os.path.join(root, "usr/share/doc", package)
    os.makedirs(docs, exist_ok=True)
    for name in NOT_IN_DEBIAN_DOCS:
        if os.path.exists(os.path.join(docs, name)):
            os.remove(os.path.join(docs, name))
    shutil.copyfile(os.path.join(PACKAGING, "copyright"), os.path.join(docs, "copyright"))
    os.chmod(os.path.join(docs, "copyright"), 0o644)
    # A native package's changelog is changelog.gz, in Debian's format; the entry points to
    # CHANGELOG.md for what changed.
    entry = (
        "%s (%s) unstable; urgency=medium\n\n"
        "  * Release %s. What changed is in /usr/share/doc/%s/CHANGELOG.md.\n\n"
        " -- %s  %s\n" % (package, version, version, PACKAGE, maintainer, date.strftime("%a, %d %b %Y %H:%M:%S +0000")))
    with tempfile.NamedTemporaryFile("w", delete=False) as handle:
        handle.write(entry)
    gzip_file(handle.name, os.path.join(docs, "changelog.gz"), date.timestamp())
    os.chmod(os.path.join(docs, "changelog.gz"), 0o644)
    os.remove(handle.name)


def depends(root, elf_files, package=PACKAGE, built=()):
    """Depends: from the ELF files' needed libraries, by dpkg-shlibdeps. The runtime in
    /usr/lib/layoutd/runtime is the package's own (-S root, -l to find it); everything else
    (libc6, libstdc++6, libgcc-s1, libsystemd0) comes from its Debian package's symbols file.
    `built`: (root, library directory) of packages built in this run whose libraries the files
    need (liblayoutd-client1 for the GTK library): dpkg-shlibdeps finds each library there and
    reads that root's DEBIAN/symbols, as it does for debian/<package> in a source package."""
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "debian"))
        with open(os.path.join(work, "debian", "control"), "w") as handle:
            handle.write("Source: %s\n\nPackage: %s\nArchitecture: any\n" % (PACKAGE, package))
        output = run(["dpkg-shlibdeps", "-O", "-S" + root, "-l" + os.path.join(root, "usr/lib/layoutd/runtime")]
                     + [option for other, libdir in built for option in ("-S" + other, "-l" + libdir)]
                     + ["-e" + path for path in elf_files], cwd=work)
    for line in output.splitlines():
        if line.startswith("shlibs:Depends="):
            return line.split("=", 1)[1].strip()
    fail("dpkg-shlibdeps printed no shlibs:Depends:\n" + output)


def write_md5sums(root, skip=()):
    """DEBIAN/md5sums of every file under `root` but the control files and `skip` (the
    conffiles, which dpkg tracks by their own sums)."""
    sums = []
    for path in sorted(files_under(root)):
        relative = os.path.relpath(path, root)
        if relative.startswith("DEBIAN/") or "/" + relative in skip:
            continue
        with open(path, "rb") as handle:
            sums.append("%s  %s\n" % (hashlib.md5(handle.read()).hexdigest(), relative))
    with open(os.path.join(root, "DEBIAN", "md5sums"), "w") as handle:
        handle.write("".join(sums))


def installed_size(root):
    total = 0
    for path in files_under(root):
        total += (os.lstat(path).st_size + 1023) // 1024
    return total


def write_library_control(root, package, version, architecture, maintainer, depends_line, section, summary, description):
    """DEBIAN/control of one of the client libraries' packages (Multi-Arch: same); returns the
    DEBIAN folder."""
    control = os.path.join(root, "DEBIAN")
    os.makedirs(control, exist_ok=True)
    with open(os.path.join(control, "control"), "w") as handle:
        handle.write(
            "Package: %s\nSource: %s\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %d\n"
            "Depends: %s\nMulti-Arch: same\nSection: %s\nPriority: optional\nHomepage: https://example.org/layoutd\n"
            "Description: %s\n%s"
            % (package, PACKAGE, version, architecture, maintainer, installed_size(root), depends_line, section, summary,
               description))
    return control


def write_shared_library_control(control, shlibs_line, symbols_path):
    """A shared library package's shlibs, symbols and ldconfig trigger in its DEBIAN folder."""
    with open(os.path.join(control, "shlibs"), "w") as handle:
        handle.write(shlibs_line + "\n")
    shutil.copyfile(symbols_path, os.path.join(control, "symbols"))
    with open(os.path.join(control, "triggers"), "w") as handle:
        handle.write("activate-noawait ldconfig\n")


def build_package(root, control, output, package, version, architecture, environment):
    """md5sums, modes, then dpkg-deb: the .deb's path."""
    write_md5sums(root)
    for name in os.listdir(control):
        os.chmod(os.path.join(control, name), 0o644)
    target = os.path.join(output, "%s_%s_%s.deb" % (package, version, architecture))
    run(["dpkg-deb", "--root-owner-group", "--build", root, target], env=environment)
    return target


def write_control(root, version, depends_line):
    control = os.path.join(root, "DEBIAN")
    os.makedirs(control, exist_ok=True)
    architecture = run(["dpkg", "--print-architecture"]).strip()
    with open(os.path.join(PACKAGING, "control.in")) as handle:
        text = handle.read()
    fields = {"version": version, "architecture": architecture, "installed_size": str(installed_size(root)),
              "depends": depends_line}
    text = re.sub(r"@(\w+)@", lambda match: fields[match.group(1)], text)
    with open(os.path.join(control, "control"), "w") as handle:
        handle.write(text)
    for path in CONFFILES:
        if not os.path.isfile(root + path):
            fail("conffile %s is not in the staged tree" % path)
    with open(os.path.join(control, "conffiles"), "w") as handle:
        handle.write("".join(path + "\n" for path in CONFFILES))
    for name in MAINTAINER_SCRIPTS:
        shutil.copyfile(os.path.join(PACKAGING, name), os.path.join(control, name))
        os.chmod(os.path.join(control, name), 0o755)
    write_md5sums(root, skip=CONFFILES)
    for name in os.listdir(control):
        if name not in MAINTAINER_SCRIPTS:
            os.chmod(os.path.join(control, name), 0o644)
    return architecture


CLIENT_LIBRARY = "liblayoutd-client"
CLIENT_SOVERSION = "1"
CLIENT_DESCRIPTION = (
    " The C client of layoutd, the collection-layout daemon: every protocol method as\n"
    " a function over plain structs, errors by the protocol's names, a pollable fd\n"
    " for GLib or game loops, subscriptions with seq checking, a window mirror and a\n"
    " transition sampler. It needs nothing beyond libc.\n")


def copy_tree(source, target, keep):
    """Copies the files and symlinks under `source` whose path (relative, with a leading /)
    `keep` accepts into `target`, symlinks as symlinks (a link to a folder too: os.walk lists
    it with the folders and does not follow it)."""
    for folder, folders, names in os.walk(source):
        for name in names + [name for name in folders if os.path.islink(os.path.join(folder, name))]:
            path = os.path.join(folder, name)
            relative = "/" + os.path.relpath(path, source)
            if not keep(relative):
                continue
            destination = target + relative
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            if os.path.islink(path):
                os.symlink(os.readlink(path), destination)
            else:
                shutil.copy2(path, destination)


CLIENT_SYMBOLS = os.path.join(PACKAGING, "liblayoutd-client1.symbols")


def exported_symbols(library):
    """NAME@VERSION of every function and object the shared library exports (a name without a
    version node as NAME@NAME, as dpkg-gensymbols writes it)."""
    exported = set()
    for line in run(["nm", "--dynamic", "--defined-only", library]).splitlines():
        name = line.split()[-1]
        exported.add(name.replace("@@", "@") if "@" in name else "%s@%s" % (name, name))
    return exported


def check_symbols(root, library_name, soversion, symbols):
    """The symbols file the repository keeps (each exported name with the version that added
    it), checked against what the built library exports, as dpkg-gensymbols does: a function
    added or removed without the file saying so stops the build. Returns the file's path."""
    libraries = [path for path in files_under(root) if re.search(r"/%s\.so\.%s(\.|$)" % (re.escape(library_name), soversion), path)]
    if len(libraries) != 1:
        fail("expected one %s.so.%s under %s, found %s" % (library_name, soversion, root, libraries))
    exported = exported_symbols(libraries[0])
    with open(symbols) as handle:
        listed = {line.split()[0] for line in handle if line.startswith(" ")}
    if exported != listed:
        fail("%s does not match the library's exports: not listed %s, no longer exported %s (add new functions with the "
             "version that adds them)" % (symbols, sorted(exported - listed), sorted(listed - exported)))
    return symbols


def update_symbols(library, symbols, package, dev_package, version):
    """Rewrites SYMBOLS from what LIBRARY (a built liblayoutd-*.so.N) exports: names already
    listed keep the version that added them, new ones get VERSION, gone ones are dropped (an
    ABI break: the SONAME must change). For a maintainer adding functions, before make deb."""
    soname = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", run(["readelf", "--dynamic", "--wide", library])).group(1)
    known = {}
    if os.path.exists(symbols):
        with open(symbols) as handle:
            known = dict(line.split()[:2] for line in handle if line.startswith(" "))
    lines = ["%s %s #MINVER#\n" % (soname, package), "* Build-Depends-Package: %s\n" % dev_package]
    lines += [" %s %s\n" % (name, known.get(name, version)) for name in sorted(exported_symbols(library))]
    with open(symbols, "w") as handle:
        handle.write("".join(lines))


def check_client_symbols(root):
    return check_symbols(root, CLIENT_LIBRARY, CLIENT_SOVERSION, CLIENT_SYMBOLS)


def build_client_packages(client_root, version, date, maintainer, architecture, output, environment):
    """liblayoutd-client1 and liblayoutd-client-dev from the staged client library. Returns
    the two package paths; the roots stay in OUTPUT/client-PACKAGE (the GTK library's Depends
    are computed against liblayoutd-client1's)."""
    runtime_package = CLIENT_LIBRARY + CLIENT_SOVERSION
    dev_package = CLIENT_LIBRARY + "-dev"
    shared = re.compile(r"/%s\.so\.%s(\.|$)" % (re.escape(CLIENT_LIBRARY), CLIENT_SOVERSION))
    roots = {}
    for package, keep in ((runtime_package, lambda path: bool(shared.search(path))),
                          (dev_package, lambda path: not shared.search(path))):
        root = os.path.abspath(os.path.join(output, "client-" + package))
        shutil.rmtree(root, ignore_errors=True)
        copy_tree(client_root, root, keep)
        for path in files_under(root):
            # Policy §8.1: shared libraries are not executable.
            os.chmod(path, 0o644)
        # The library's debug information is not packaged (no -dbgsym for it yet).
        scratch = tempfile.mkdtemp(prefix="layoutd-client-debug-")
        strip(root, scratch)
        shutil.rmtree(scratch, ignore_errors=True)
        for path in files_under(root):
            if path.endswith(".a"):
                run(["strip", "--strip-debug", "--remove-section=.comment", "--remove-section=.note",
                     "--enable-deterministic-archives", path])
        install_documents(root, version, date, maintainer, package)
        roots[package] = root
    targets = []
    for package, section, summary, depends_line in (
            (runtime_package, "libs", "client library for layoutd (shared library)",
             depends(roots[runtime_package], [p for p in files_under(roots[runtime_package]) if is_elf(p)], runtime_package)),
            (dev_package, "libdevel", "client library for layoutd (development files)",
             "%s (= %s)" % (runtime_package, version))):
        root = roots[package]
        control = write_library_control(root, package, version, architecture, maintainer, depends_line, section, summary,
                                        CLIENT_DESCRIPTION)
        if package == runtime_package:
            # shlibs for tools that do not read symbols; the symbols file lets dpkg-shlibdeps
            # ask for the oldest version that has every function a program uses.
            write_shared_library_control(control, "%s %s %s (>= %s)" % (CLIENT_LIBRARY, CLIENT_SOVERSION, runtime_package, version),
                                         check_client_symbols(root))
        targets.append(build_package(root, control, output, package, version, architecture, environment))
    return targets


GTK_LIBRARY = "liblayoutd-gtk-1"
GTK_SOVERSION = "0"
# Debian's names: the SONAME liblayoutd-gtk-1.so.0 gives liblayoutd-gtk-1-0 (policy §8.1, a
# hyphen between two numbers); the typelib Layoutd-1.typelib gives gir1.2-layoutd-1, the name
# dh_girepository and lintian (typelib-package-name-does-not-match) expect.
GTK_RUNTIME_PACKAGE = "liblayoutd-gtk-1-0"
GTK_TYPELIB_PACKAGE = "gir1.2-layoutd-1"
GTK_DEV_PACKAGE = "liblayoutd-gtk-dev"
GTK_SYMBOLS = os.path.join(PACKAGING, GTK_RUNTIME_PACKAGE + ".symbols")
GTK_DESCRIPTION = (
    " A GTK 4 widget, LayoutdCollectionView, that shows a GListModel with the layout\n"
    " layoutd (the collection-layout daemon) computes: flow grids and lists,\n"
    " collapsible stacks, ultravisual, display modes and plugin strategies, with\n"
    " recycled cell widgets, animated transitions, self-sizing, selection, keyboard\n"
    " focus and drag to reorder. Built on liblayoutd-client; usable from C, Python,\n"
    " JavaScript (GJS) and Vala through GObject introspection (namespace Layoutd 1).\n")


def gir_depends(gir, multiarch):
    """What dh_girepository's ${gir:Depends} would say for a typelib made from GIR: the
    packages holding the typelibs it includes (Gtk-4.0: gir1.2-gtk-4.0)."""
    with open(gir) as handle:
        includes = re.findall(r'<include name="([^"]+)" version="([^"]+)"/>', handle.read())
    packages = []
    for name, version in includes:
        typelib = "/usr/lib/%s/girepository-1.0/%s-%s.typelib" % (multiarch, name, version)
        owner = run(["dpkg-query", "-S", typelib]).split(":")[0].strip()
        if owner not in packages:
            packages.append(owner)
    return packages


def build_gtk_packages(gtk_root, client_root, version, date, maintainer, architecture, output, environment):
    """liblayoutd-gtk-1-0, gir1.2-layoutd-1 and liblayoutd-gtk-dev from the staged GTK
    library. CLIENT_ROOT is liblayoutd-client1's package root (with its DEBIAN/symbols), which
    dpkg-shlibdeps reads for the library's dependency on it. Returns the three package paths."""
    multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).strip()
    libdir = "/usr/lib/" + multiarch
    shared = re.compile(r"^%s/%s\.so\.%s(\.|$)" % (re.escape(libdir), re.escape(GTK_LIBRARY), GTK_SOVERSION))
    typelibs = re.compile(r"^%s/girepository-1\.0/" % re.escape(libdir))
    gir = os.path.join(gtk_root, "usr/share/gir-1.0/Layoutd-1.gir")
    if not os.path.isfile(gir):
        fail("%s is not in the staged GTK library" % gir)
    roots = {}
    for package, keep in ((GTK_RUNTIME_PACKAGE, lambda path: bool(shared.search(path))),
                          (GTK_TYPELIB_PACKAGE, lambda path: bool(typelibs.search(path))),
                          (GTK_DEV_PACKAGE, lambda path: not shared.search(path) and not typelibs.search(path))):
        root = os.path.abspath(os.path.join(output, "gtk-" + package))
        shutil.rmtree(root, ignore_errors=True)
        copy_tree(gtk_root, root, keep)
        for folder, folders, names in os.walk(root):
            for name in folders:
                os.chmod(os.path.join(folder, name), 0o755)
            for name in names:
                if not os.path.islink(os.path.join(folder, name)):
                    # Policy §8.1: shared libraries are not executable; nothing else here is.
                    os.chmod(os.path.join(folder, name), 0o644)
        # The library's debug information is not packaged (no -dbgsym for it yet), as for the C client.
        scratch = tempfile.mkdtemp(prefix="layoutd-gtk-debug-")
        strip(root, scratch)
        shutil.rmtree(scratch, ignore_errors=True)
        install_documents(root, version, date, maintainer, package)
        doc_base = os.path.join(PACKAGING, package + ".doc-base")
        if os.path.exists(doc_base):
            # dh_installdocs' place for it: usr/share/doc-base/PACKAGE.DOCUMENT-ID.
            with open(doc_base) as handle:
                document = re.search(r"^Document: (\S+)$", handle.read(), re.M).group(1)
            target = os.path.join(root, "usr/share/doc-base", "%s.%s" % (package, document))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(doc_base, target)
            os.chmod(target, 0o644)
        roots[package] = root
    runtime_files = [path for path in files_under(roots[GTK_RUNTIME_PACKAGE]) if is_elf(path)]
    if len(runtime_files) != 1:
        fail("expected the one shared library %s.so.%s in the staged GTK library, found %s" % (GTK_LIBRARY, GTK_SOVERSION, runtime_files))
    if not list(files_under(os.path.join(roots[GTK_TYPELIB_PACKAGE], libdir.lstrip("/"), "girepository-1.0"))):
        fail("no typelib in the staged GTK library")
    runtime_depends = depends(roots[GTK_RUNTIME_PACKAGE], runtime_files, GTK_RUNTIME_PACKAGE,
                              built=[(client_root, os.path.join(client_root, libdir.lstrip("/")))])
    shlibs_dependency = "%s (>= %s)" % (GTK_RUNTIME_PACKAGE, version)
    typelib_depends = ", ".join(gir_depends(gir, multiarch) + [shlibs_dependency])
    # The .pc file Requires gtk4 and, privately, layoutd-client; the .gir includes Gtk-4.0's.
    dev_depends = "%s (= %s), %s (= %s), %s (= %s), libgtk-4-dev (>= 4.8)" % (
        GTK_RUNTIME_PACKAGE, version, GTK_TYPELIB_PACKAGE, version, CLIENT_LIBRARY + "-dev", version)
    targets = []
    for package, section, summary, depends_line in (
            (GTK_RUNTIME_PACKAGE, "libs", "GTK 4 collection view laid out by layoutd (shared library)", runtime_depends),
            (GTK_TYPELIB_PACKAGE, "introspection", "GTK 4 collection view laid out by layoutd (GObject introspection data)",
             typelib_depends),
            (GTK_DEV_PACKAGE, "libdevel", "GTK 4 collection view laid out by layoutd (development files)", dev_depends)):
        root = roots[package]
        control = write_library_control(root, package, version, architecture, maintainer, depends_line, section, summary,
                                        GTK_DESCRIPTION)
        if package == GTK_RUNTIME_PACKAGE:
            write_shared_library_control(control, "%s %s %s" % (GTK_LIBRARY, GTK_SOVERSION, shlibs_dependency),
                                         check_symbols(root, GTK_LIBRARY, GTK_SOVERSION, GTK_SYMBOLS))
        targets.append(build_package(root, control, output, package, version, architecture, environment))
    return targets


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update-gtk-symbols", metavar="LIBRARY",
                        help="only rewrite packaging/debian/%s.symbols from the built LIBRARY's exports" % GTK_RUNTIME_PACKAGE)
    parser.add_argument("--root", help="the tree make install staged (DESTDIR, PREFIX=/usr)")
    parser.add_argument("--version", required=True)
    parser.add_argument("--changelog", help="CHANGELOG.md")
    parser.add_argument("--output", help="directory for the .deb")
    parser.add_argument("--client-root", help="the C client library staged by clients/c's make install (PREFIX=/usr, multiarch LIBDIR)")
    parser.add_argument("--gtk-root", help="the GTK library staged by clients/gtk's make install install-docs (as --client-root; needs it)")
    args = parser.parse_args()
    if args.update_gtk_symbols:
        update_symbols(args.update_gtk_symbols, GTK_SYMBOLS, GTK_RUNTIME_PACKAGE, GTK_DEV_PACKAGE, args.version)
        return
    if not (args.root and args.changelog and args.output):
        parser.error("--root, --changelog and --output are required")
    if args.gtk_root and not args.client_root:
        parser.error("--gtk-root needs --client-root (the GTK library depends on liblayoutd-client1)")

    date = release_date(args.changelog, args.version)
    with open(os.path.join(PACKAGING, "control.in")) as handle:
        maintainer = re.search(r"^Maintainer: (.+)$", handle.read(), re.M).group(1)
    root = os.path.abspath(args.root)
    for path in files_under(root):
        # Group-writable files are refused by lintian and by layoutd's plugin trust alike.
        mode = os.lstat(path).st_mode
        os.chmod(path, stat.S_IMODE(mode) & ~0o022)
    debug_root = root.rstrip("/") + "-dbgsym"
    shutil.rmtree(debug_root, ignore_errors=True)
    ids = strip(root, debug_root)
    compress_manual_pages(root, date.timestamp())
    install_documents(root, args.version, date, maintainer)
    elf_files = [path for path in files_under(root) if is_elf(path)]
    architecture = write_control(root, args.version, depends(root, elf_files))
    os.makedirs(args.output, exist_ok=True)
    target = os.path.join(args.output, "%s_%s_%s.deb" % (PACKAGE, args.version, architecture))
    # Owned by root whoever builds it; SOURCE_DATE_EPOCH clamps the members' times.
    environment = dict(os.environ, SOURCE_DATE_EPOCH=str(int(date.timestamp())))
    run(["dpkg-deb", "--root-owner-group", "--build", root, target], env=environment)
    print(os.path.abspath(target))
    dbgsym = build_dbgsym(debug_root, args.version, architecture, maintainer, ids, args.output, environment)
    if dbgsym:
        print(os.path.abspath(dbgsym))
    if args.client_root:
        for target in build_client_packages(os.path.abspath(args.client_root), args.version, date, maintainer, architecture,
                                            args.output, environment):
            print(os.path.abspath(target))
    if args.gtk_root:
        client_runtime = os.path.abspath(os.path.join(args.output, "client-" + CLIENT_LIBRARY + CLIENT_SOVERSION))
        for target in build_gtk_packages(os.path.abspath(args.gtk_root), client_runtime, args.version, date, maintainer,
                                         architecture, args.output, environment):
            print(os.path.abspath(target))


if __name__ == "__main__":
    main()
