#!/usr/bin/env python3
"""Every fenced block of clients/c/README.md, tested as its annotation says
(scripts/readme_blocks.py): a `run` block (and the joined `part` blocks of one program) is a
complete C program, compiled with gcc 12 `-Wall -Werror` against this tree's headers and static
library (with GLib's flags when it includes <glib.h>) and run twice against a real daemon (a
second run must pass too); an `output` block is what the program before it printed on its first
run; a `shell` block runs with bash in a scratch directory holding the last program as app.c, with
pkg-config finding the library installed into build/stage (make test-install) and
LAYOUTD_SOCKET set; a `compile` block is compiled only. Any other kind fails.

    python3 tests/readme_test.py README.md     (from clients/c; LAYOUTD_BINARY: the daemon)
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent          # clients/c
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import readme_blocks  # noqa: E402

BUILD = HERE / "build"
STAGE = BUILD / "stage"


def gcc() -> str:
    for name in ("gcc-12", "gcc"):
        path = shutil.which(name)
        if path:
            version = subprocess.run([path, "-dumpversion"], capture_output=True, text=True).stdout.strip()
            if version.split(".")[0] == "12":
                return path
    sys.exit("readme_test: gcc 12 is required (gcc-12 or gcc reporting 12)")


def start_daemon(directory: Path) -> tuple[subprocess.Popen, str]:
    binary = os.environ.get("LAYOUTD_BINARY") or str(REPO / ".build/debug/layoutd")
    path = str(directory / "ipc.sock")
    log = open(directory / "layoutd.log", "w")
    env = {k: v for k, v in os.environ.items() if k != "LAYOUTD_SOCKET"}
    daemon = subprocess.Popen([binary, "--socket", path, "--set", "default-plugin-dir=none"],
                              stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            sys.exit("readme_test: layoutd exited at start (see %s)" % (directory / "layoutd.log"))
        try:
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(path)
                probe.sendall(b'{"id":1,"method":"daemon.sync"}\n')
                if probe.recv(4096):
                    return daemon, path
        except OSError:
            time.sleep(0.02)  # not listening yet: poll again
    sys.exit("readme_test: layoutd did not serve within 10 s")


class Runner:
    def __init__(self, work: Path, sock: str) -> None:
        self.work = work
        self.sock = sock
        self.cc = gcc()
        self.failures = 0
        self.last_program = ""
        self.last_output: str | None = None
        self.count = 0

    def fail(self, where: str, message: str) -> None:
        self.failures += 1
        print("FAIL %s: %s" % (where, message))

    def build(self, where: str, code: str) -> Path | None:
        self.count += 1
        source = self.work / ("block%d.c" % self.count)
        source.write_text(code)
        binary = self.work / ("block%d" % self.count)
        command = [self.cc, "-std=c11", "-D_DEFAULT_SOURCE", "-Wall", "-Werror", str(source),
                   "-I", str(HERE / "include"), str(BUILD / "liblayoutd-client.a"), "-lm", "-o", str(binary)]
        if "#include <glib.h>" in code:
            flags = subprocess.run(["pkg-config", "--cflags", "--libs", "glib-2.0"], capture_output=True, text=True)
            if flags.returncode:
                self.fail(where, "glib-2.0 not found by pkg-config (Debian: libglib2.0-dev)")
                return None
            command[4:4] = flags.stdout.split()
            command += flags.stdout.split()
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode:
            self.fail(where, "does not compile with %s -Wall -Werror:\n%s" % (self.cc, done.stderr))
            return None
        return binary

    def run_program(self, where: str, code: str) -> None:
        self.last_program = code
        self.last_output = None
        binary = self.build(where, code)
        if not binary:
            return
        env = dict(os.environ, LAYOUTD_SOCKET=self.sock)
        for round in (1, 2):
            done = subprocess.run([str(binary)], capture_output=True, text=True, env=env, timeout=60)
            if done.returncode:
                self.fail(where, "run %d exited with %d:\n%s%s" % (round, done.returncode, done.stdout, done.stderr))
                return
            if round == 1:
                self.last_output = done.stdout
        print("ok   %s: compiled, ran twice" % where)

    def output(self, where: str, expected: str) -> None:
        if self.last_output is None:
            self.fail(where, "an output block with no program run before it")
        elif self.last_output.rstrip("\n") != expected.rstrip("\n"):
            self.fail(where, "the program printed:\n%s\nthe README says:\n%s" % (self.last_output, expected))
        else:
            print("ok   %s: output matches" % where)

    def shell(self, where: str, script: str) -> None:
        scratch = Path(tempfile.mkdtemp(dir=self.work))
        (scratch / "app.c").write_text(self.last_program)
        pc = STAGE / "usr/lib/pkgconfig"
        if not (pc / "layoutd-client.pc").exists():
            self.fail(where, "no staged install in %s (make test-install first)" % STAGE)
            return
        env = dict(os.environ, LAYOUTD_SOCKET=self.sock, PKG_CONFIG_PATH=str(pc), PKG_CONFIG_SYSROOT_DIR=str(STAGE),
                   LD_LIBRARY_PATH=str(STAGE / "usr/lib"), CC=self.cc)
        done = subprocess.run(["bash", "-e", "-c", script], cwd=scratch, capture_output=True, text=True, env=env, timeout=120)
        if done.returncode:
            self.fail(where, "exited with %d:\n%s%s" % (done.returncode, done.stdout, done.stderr))
        else:
            print("ok   %s: ran" % where)


def main() -> int:
    readme = Path(sys.argv[1] if len(sys.argv) > 1 else HERE / "README.md")
    try:
        found = readme_blocks.blocks(readme)
    except readme_blocks.ReadmeError as e:
        print("FAIL %s" % e)
        return 1
    work = Path(tempfile.mkdtemp(prefix="layoutd-c-readme-"))
    daemon, sock = start_daemon(work)
    runner = Runner(work, sock)
    try:
        for block in found:
            where = "%s:%d (%s%s)" % (readme.name, block["line"], block["kind"], " " + str(block["arg"]) if block["arg"] else "")
            kind, code = block["kind"], str(block["code"])
            if kind == "run":
                runner.run_program(where, code)
            elif kind == "output":
                runner.output(where, code)
            elif kind == "shell":
                runner.shell(where, code)
            elif kind == "compile":
                if runner.build(where, code):
                    print("ok   %s: compiled" % where)
            elif kind == "part":
                continue  # joined below
            else:
                runner.fail(where, "a block kind this suite does not test: %s" % kind)
        for name, code in readme_blocks.programs(found).items():
            runner.run_program("%s (part %s, joined)" % (readme.name, name), code)
    finally:
        daemon.terminate()
        daemon.wait(timeout=15)
        if runner.failures == 0:
            shutil.rmtree(work, ignore_errors=True)
    print("readme_test: %d blocks, %d failures" % (len(found), runner.failures))
    return 1 if runner.failures or not found else 0


if __name__ == "__main__":
    sys.exit(main())
