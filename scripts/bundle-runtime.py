#!/usr/bin/env python3
"""Makes installed layoutd binaries independent of the Swift toolchain that built them.

SwiftPM links every Swift binary against the toolchain's shared runtime (libswiftCore.so,
libdispatch.so, ...) and records the toolchain's own library directory as RUNPATH, so a copy
runs only where that toolchain is. For each installed ELF file given, this copies the runtime
libraries it needs (found in the toolchain's runtime directory, followed transitively) into
RUNTIME_DIR, and rewrites the file's RUNPATH to `$ORIGIN/<path to RUNTIME_DIR>`, relative, so
the installed tree can be moved (a DESTDIR stage, a package root) and still finds them. The
copied libraries get RUNPATH `$ORIGIN` (they find each other).

Shared, not static: plugins are shared objects that also need the Swift runtime, and a process
must hold one runtime. The daemon loads these libraries first; a plugin's libswiftCore.so then
binds to the same one by its soname, wherever the plugin's own RUNPATH points.

A library that is not in the toolchain (libc, libstdc++, libsystemd) is left to the system:
the Debian package's Depends names them. Writes RUNTIME_DIR/swift-version, the compiler that
built the runtime, which a third-party Swift plugin must be built with.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def needed(path):
    """The DT_NEEDED sonames of an ELF file, in order."""
    out = subprocess.run(["readelf", "--dynamic", "--wide", path], capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        if "(NEEDED)" in line:
            names.append(line.split("[", 1)[1].rsplit("]", 1)[0])
    return names


def set_runpath(path, runpath):
    subprocess.run(["patchelf", "--set-rpath", runpath, path], check=True)
    # --set-rpath keeps whichever of DT_RPATH / DT_RUNPATH the file had; SwiftPM writes RUNPATH,
    # which (unlike RPATH) LD_LIBRARY_PATH can still override when someone debugs.
    out = subprocess.run(["readelf", "--dynamic", "--wide", path], capture_output=True, text=True, check=True).stdout
    if "(RUNPATH)" not in out or "[%s]" % runpath not in out:
        sys.exit("bundle-runtime: %s: RUNPATH is not %s after patchelf:\n%s" % (path, runpath, out))


def toolchain_runtime(swift):
    info = json.loads(subprocess.run([swift, "-print-target-info"], capture_output=True, text=True, check=True).stdout)
    paths = info["paths"]["runtimeLibraryPaths"]
    if not paths:
        sys.exit("bundle-runtime: swift -print-target-info names no runtime library path")
    return paths[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--swift", default="swift", help="the toolchain's swift driver (default: swift on PATH)")
    parser.add_argument("--runtime-dir", required=True, help="where the runtime libraries go (created)")
    parser.add_argument("files", nargs="+", help="installed executables and shared objects to rewrite")
    args = parser.parse_args()

    source = toolchain_runtime(args.swift)
    os.makedirs(args.runtime_dir, exist_ok=True)
    copied = set()
    pending = [name for path in args.files for name in needed(path)]
    while pending:
        name = pending.pop()
        if name in copied or not os.path.exists(os.path.join(source, name)):
            continue
        target = os.path.join(args.runtime_dir, name)
        # The real file, not a symlink into the toolchain; 0644 like any library.
        shutil.copyfile(os.path.realpath(os.path.join(source, name)), target)
        os.chmod(target, 0o644)
        set_runpath(target, "$ORIGIN")
        copied.add(name)
        pending.extend(needed(target))

    runtime = os.path.abspath(args.runtime_dir)
    for path in args.files:
        relative = os.path.relpath(runtime, os.path.dirname(os.path.abspath(path)))
        set_runpath(path, "$ORIGIN" if relative == "." else "$ORIGIN/" + relative)

    # Nothing may still resolve into the toolchain: each needed name is either bundled or not
    # the toolchain's at all.
    for path in list(args.files) + [os.path.join(runtime, name) for name in sorted(copied)]:
        for name in needed(path):
            if os.path.exists(os.path.join(source, name)) and name not in copied:
                sys.exit("bundle-runtime: %s needs %s, which was not bundled" % (path, name))

    version = subprocess.run([args.swift, "--version"], capture_output=True, text=True, check=True)
    first = (version.stdout or version.stderr).splitlines()[0].strip()
    with open(os.path.join(runtime, "swift-version"), "w") as handle:
        handle.write(first + "\n")
    print("bundle-runtime: %d libraries from %s into %s" % (len(copied), source, args.runtime_dir))


if __name__ == "__main__":
    main()
