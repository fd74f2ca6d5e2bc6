"""README.md and the manual in docs/ as a new user follows them: every ```sh block carries a
marker on the line above, `<!-- readme: run -->` or `<!-- readme: skip: REASON -->`; the run
blocks run in order in one bash (so an `export` in one holds in the next), the README's first
and then each of DOCUMENTS', from the repository root, against the daemon that the README's
own `make run` starts. Also: the README's socket expression without XDG_RUNTIME_DIR, the
Debian packages docs/running.md lists against the Makefile's, the scripting block on its own
against a debug daemon, and the README's size (a front door, not the manual).

`make run` builds in release mode: the first run of this file takes minutes."""
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
from collections import namedtuple

from harness import DAEMON, ROOT, Daemon, serving_after

LAYOUTCTL = os.path.join(os.path.dirname(DAEMON), "layoutctl")
README = os.path.join(ROOT, "README.md")
# The documents whose shell blocks are marked, in the order their run blocks run: a later one
# may rely on what an earlier one set up (the README's PATH).
DOCUMENTS = ["README.md", "docs/running.md", "docs/strategies.md", "docs/flow-layout.md", "docs/compositional-layout.md",
             "docs/layout-semantics.md", "docs/layoutctl.md", "docs/clients.md", "docs/gtk.md",
             "docs/viewer.md", "docs/plugins.md", "docs/install.md", "docs/testing.md"]
# What the README may weigh: what it is, a picture, the two commands, a session and links.
README_LIMIT = 10 * 1024
# Where the Debian packages the make targets install are listed.
PACKAGES_DOCUMENT, PACKAGES_SECTION = "docs/running.md", "## Building and running from a checkout"
MAKEFILE = os.path.join(ROOT, "Makefile")
MARKER = re.compile(r"^<!-- readme: (?:(?P<run>run)|skip: (?P<reason>\S.*?)) -->$")
SHELL_LANGUAGES = {"sh", "bash", "shell", "console", "zsh"}
# make run: an incremental release build, or the whole one on a fresh clone.
BUILD_TIMEOUT = 3600
SCRIPTING = "Scripting with layoutctl"

Block = namedtuple("Block", "language code marker heading line")


def readme_text():
    with open(README) as handle:
        return handle.read()


def document_text(relative):
    with open(os.path.join(ROOT, relative)) as handle:
        return handle.read()


def all_run_blocks():
    """Every document's run blocks, in the order they run, each with its document."""
    return [(relative, block) for relative in DOCUMENTS for block in run_blocks(document_text(relative))]


def readme_blocks(text):
    """Every fenced block in order, with the line above it and the heading it is under."""
    lines = text.splitlines()
    blocks, heading, index = [], None, 0
    while index < len(lines):
        line = lines[index]
        if line.lstrip().startswith("```"):
            end = index + 1
            while end < len(lines) and not lines[end].lstrip().startswith("```"):
                end += 1
            above = lines[index - 1] if index > 0 else ""
            blocks.append(Block(line.lstrip()[3:].strip(), "\n".join(lines[index + 1:end]) + "\n", above, heading, index + 1))
            index = end + 1
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        index += 1
    return blocks


def shell_blocks(text):
    return [block for block in readme_blocks(text) if block.language in SHELL_LANGUAGES]


def run_blocks(text):
    return [block for block in shell_blocks(text) if (marker := MARKER.match(block.marker)) and marker.group("run")]


def clean_environment(**extra):
    """This environment without a socket of its own or an enclosing make's jobserver."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("LAYOUTD_SOCKET", "XDG_RUNTIME_DIR", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    environment.update(extra)
    return environment


def check_scripting_output(case, stdout, stderr):
    """What the scripting block must print (its checks from before the README test)."""
    lines = stdout.splitlines()
    case.assertIn("refused with exit 2", lines)
    case.assertIn("1 epoch", " ".join(lines))
    case.assertIn("StaleEpoch", stderr)
    # The animated selection moves what follows the two taller items (it once printed 0).
    counts = [int(line.split()[0]) for line in lines if re.fullmatch(r"\d+ segments", line)]
    case.assertEqual(len(counts), 1, stdout)
    case.assertGreater(counts[0], 0, "the animated select demo animates nothing")


def check_session_output(case, stdout, stderr):
    """The README's session: the tap, the arrow key, the still screen, an animated switch."""
    lines = stdout.splitlines()
    case.assertIn("i48", lines)  # a tap at (60, 2100) lands on the first item of the line at 2080
    case.assertIn("i52", lines)  # down from i49 is the item below it
    case.assertIn('"y": 2000', stdout)  # the measured item grew below the anchor: no jump
    case.assertGreater(int(lines[-1]), 0, "the animated switch animates nothing")
    case.assertEqual(stderr, "")


def scripting_block(case):
    blocks = [block for block in run_blocks(document_text("docs/layoutctl.md")) if block.heading == SCRIPTING]
    case.assertEqual(len(blocks), 1, "one run block under '%s' in docs/layoutctl.md" % SCRIPTING)
    return blocks[0]


class MarkerTests(unittest.TestCase):
    def test_every_shell_block_is_marked_run_or_skip(self):
        manual = sorted("docs/" + name for name in os.listdir(os.path.join(ROOT, "docs")) if name.endswith(".md"))
        self.assertEqual(sorted(set(manual) - set(DOCUMENTS)), [],
                         "a document in docs/ that test_readme.DOCUMENTS does not list (its blocks would go untested)")
        for relative in DOCUMENTS:
            text = document_text(relative)
            for block in shell_blocks(text):
                with self.subTest(document=relative, line=block.line):
                    self.assertRegex(block.marker, MARKER,
                                     "%s:%d: the ```%s block needs <!-- readme: run --> or <!-- readme: skip: REASON --> on the line above"
                                     % (relative, block.line, block.language))
            # A marker belongs to the shell block right below it.
            lines = text.splitlines()
            for number, line in enumerate(lines, 1):
                if line.startswith("<!-- readme:"):
                    with self.subTest(document=relative, marker_line=number):
                        self.assertRegex(line, MARKER)
                        following = lines[number].strip() if number < len(lines) else ""
                        self.assertIn(following[3:].strip() if following.startswith("```") else None, SHELL_LANGUAGES,
                                      "%s:%d: a readme marker not followed by a shell block" % (relative, number))
        readme = readme_text()
        self.assertGreater(len(shell_blocks(readme)), 3)
        self.assertTrue(any("socat" in block.code for block in run_blocks(readme)))
        scripting_block(self)

    def test_the_readme_is_a_front_door(self):
        size = len(readme_text().encode())
        self.assertLessEqual(size, README_LIMIT, "README.md is %d bytes: the manual belongs in docs/" % size)
        for section in ("## Quick start", "## A session"):
            self.assertIn(section, readme_text())

    def test_readme_lists_every_debian_package_the_make_targets_install(self):
        with open(MAKEFILE) as handle:
            makefile = handle.read().replace("\\\n", " ")
        declared = re.search(r"^DEB_PACKAGES\s*:?=(.*)$", makefile, re.M)
        self.assertIsNotNone(declared, "no DEB_PACKAGES in the Makefile")
        packages = declared.group(1).split()
        self.assertIn("libsystemd-dev", packages)
        # Extra packages a target asks for itself (bench: python3-venv).
        for arguments in re.findall(r"^\t@?scripts/ensure-deps\.sh([^\n;&|]*)", makefile, re.M):
            packages += [word for word in arguments.split() if not word.startswith("$")]
        self.assertIn("python3-venv", packages)
        text = document_text(PACKAGES_DOCUMENT)
        listing = text.split(PACKAGES_SECTION + "\n", 1)[1].split("\n## ", 1)[0]
        for package in packages:
            with self.subTest(package=package):
                self.assertTrue("`%s`" % package in listing, "%s (%s) does not list the Debian package %s"
                                % (PACKAGES_DOCUMENT, PACKAGES_SECTION, package))


class SocketExpressionTests(unittest.TestCase):
    def test_the_readme_socket_expression_finds_the_daemons_socket(self):
        assignments = [line for _, block in all_run_blocks() for line in block.code.splitlines() if line.startswith("S=")]
        self.assertEqual(len(assignments), 1, assignments)
        # The expression names .build/release/layoutd from the repository root: here the debug
        # build stands in for it (the same resolution code).
        root = tempfile.mkdtemp(prefix="layoutd-readme-s-")
        os.makedirs(os.path.join(root, ".build", "release"))
        os.symlink(DAEMON, os.path.join(root, ".build", "release", "layoutd"))

        def expression(**environment):
            result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", assignments[0] + '\nprintf %s "$S"'], cwd=root,
                                    capture_output=True, text=True, timeout=30, env=clean_environment(**environment))
            self.assertEqual(result.returncode, 0, result.stderr)
            return result.stdout

        def daemon_uses(**environment):
            return subprocess.run([DAEMON, "--print-socket-path"], capture_output=True, text=True, timeout=30,
                                  env=clean_environment(**environment)).stdout.strip()

        def layoutctl_uses(**environment):
            return subprocess.run([LAYOUTCTL, "--print-socket-path"], capture_output=True, text=True, timeout=30,
                                  env=clean_environment(**environment)).stdout.strip()

        self.assertEqual(expression(), "/run/layoutd/ipc.sock")
        self.assertEqual(daemon_uses(), "/run/layoutd/ipc.sock")
        self.assertEqual(layoutctl_uses(), "/run/layoutd/ipc.sock")
        for environment, expected in [({"XDG_RUNTIME_DIR": "/run/user/4242"}, "/run/user/4242/layoutd/ipc.sock"),
                                      ({"XDG_RUNTIME_DIR": ""}, "/run/layoutd/ipc.sock"),
                                      ({"XDG_RUNTIME_DIR": "/run/user/4242", "LAYOUTD_SOCKET": "/tmp/l.sock"}, "/tmp/l.sock")]:
            with self.subTest(environment=environment):
                self.assertEqual(expression(**environment), expected)
                self.assertEqual(daemon_uses(**environment), expected)
                self.assertEqual(layoutctl_uses(**environment), expected)
        # make run asks the daemon with LAYOUTD_ARGS, which may name the socket.
        moved = subprocess.run([DAEMON, "--print-socket-path", "--plugin-dir", "x", "--socket", "/tmp/moved.sock"],
                               capture_output=True, text=True, timeout=30, env=clean_environment()).stdout.strip()
        self.assertEqual(moved, "/tmp/moved.sock")


class ScriptingBlockTests(unittest.TestCase):
    def test_the_readme_scripting_block_runs(self):
        block = scripting_block(self).code
        bin_dir = tempfile.mkdtemp(prefix="layoutctl-path-")
        os.symlink(LAYOUTCTL, os.path.join(bin_dir, "layoutctl"))
        with Daemon() as daemon:
            result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], capture_output=True, text=True, timeout=300,
                                    env=dict(os.environ, LAYOUTD_SOCKET=daemon.path, PATH=bin_dir + ":" + os.environ["PATH"]))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        check_scripting_output(self, result.stdout, result.stderr)


class InOrderTests(unittest.TestCase):
    """The quick start's `make run` (in the background, as in a first terminal), then every run
    block in order in one bash (the second terminal), then Ctrl-C (SIGINT to make's group)."""

    def test_the_run_blocks_run_in_order_against_make_run(self):
        blocks = [block for _, block in all_run_blocks()]
        runtime = tempfile.mkdtemp(prefix="layoutd-readme-")  # 0700, as XDG_RUNTIME_DIR is
        socket_path = os.path.join(runtime, "layoutd", "ipc.sock")
        environment = clean_environment(XDG_RUNTIME_DIR=runtime)
        log_path = os.path.join(tempfile.mkdtemp(prefix="layoutd-readme-log-"), "make-run.stderr")
        log = open(log_path, "w")
        make = subprocess.Popen(["make", "run"], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                env=environment, text=True, start_new_session=True)
        printed = []
        reader = threading.Thread(target=lambda: printed.extend(make.stdout), daemon=True)
        reader.start()

        def make_output():
            with open(log_path) as handle:
                return "stdout:\n%s\nstderr:\n%s" % ("".join(printed), handle.read())

        try:
            try:
                serving_after(socket_path, BUILD_TIMEOUT, make)
            except RuntimeError as error:
                self.fail("make run: %s\n%s" % (error, make_output()))

            # What make run printed before starting the daemon, and that its command works.
            deadline = time.monotonic() + 30
            while not any(line.startswith("layoutctl: ") for line in printed) and time.monotonic() < deadline:
                time.sleep(0.05)
            hints = [line.rstrip("\n") for line in printed if line.startswith("layoutctl: ")]
            self.assertEqual(len(hints), 1, make_output())
            command = shlex.split(hints[0][len("layoutctl: "):])
            self.assertEqual(command, [".build/release/layoutctl", "--socket", socket_path, "views"])
            hinted = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, env=environment)
            self.assertEqual(hinted.returncode, 0, hinted.stderr)
            self.assertIsInstance(json.loads(hinted.stdout), (dict, list))
            output = "".join(printed)
            self.assertIn("layoutd: starting on %s" % socket_path, output)
            self.assertIn("layoutctl finds this socket by default here: .build/release/layoutctl views", output)
            self.assertIn('export PATH="%s/.build/release:$PATH"' % ROOT, output)
            default = subprocess.run([".build/release/layoutctl", "views"], cwd=ROOT, capture_output=True, text=True, timeout=60, env=environment)
            self.assertEqual(default.returncode, 0, default.stderr)

            # The blocks, each after a separator line on stdout and stderr; then which layoutctl
            # the PATH the blocks set up finds.
            script = ""
            for number, block in enumerate(blocks):
                script += "echo '@@readme-block %d@@'; echo '@@readme-block %d@@' >&2\n%s" % (number, number, block.code)
            script += "echo '@@readme-block end@@'; echo \"layoutctl is $(command -v layoutctl)\"\n"
            result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=ROOT, capture_output=True, text=True,
                                    timeout=600, env=environment)
            self.assertEqual(result.returncode, 0, "the README's run blocks failed:\n%s\n%s" % (result.stdout, result.stderr))
            outputs = self.split(result.stdout, len(blocks))
            errors = self.split(result.stderr, len(blocks))
            self.assertEqual(outputs["end"].strip(), "layoutctl is %s" % os.path.join(ROOT, ".build", "release", "layoutctl"))
            checked = set()
            for number, block in enumerate(blocks):
                if "socat" in block.code:
                    self.check_socat(outputs[number], errors[number])
                    checked.add("socat")
                if block.heading == SCRIPTING:
                    check_scripting_output(self, outputs[number], errors[number])
                    checked.add("scripting")
                if block.heading == "A session":
                    check_session_output(self, outputs[number], errors[number])
                    checked.add("session")
            self.assertEqual(checked, {"socat", "scripting", "session"})
        finally:
            if make.poll() is None:
                os.killpg(make.pid, signal.SIGINT)  # Ctrl-C in make's terminal
            try:
                make.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(make.pid, signal.SIGKILL)
                make.wait()
                self.fail("make run did not stop within 60 s of SIGINT\n%s" % make_output())
            reader.join(timeout=10)
            make.stdout.close()
            log.close()
        # Stopped: nothing answers there any more.
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with self.assertRaises((ConnectionRefusedError, FileNotFoundError)):
            probe.connect(socket_path)
        probe.close()

    def split(self, output, count):
        """A block's output by its separator: {number: text, "end": text}."""
        parts = re.split(r"@@readme-block (\d+|end)@@\n", output)
        self.assertEqual(parts[0], "", output)
        found = {(int(key) if key.isdigit() else key): value for key, value in zip(parts[1::2], parts[2::2])}
        self.assertEqual(sorted(key for key in found if key != "end"), list(range(count)), output)
        return found

    def check_socat(self, stdout, stderr):
        replies = [json.loads(line) for line in stdout.splitlines()]
        self.assertEqual([reply.get("id") for reply in replies], [1, 2, 3, 4], stdout)
        for reply in replies:
            self.assertNotIn("error", reply)
            self.assertIn("result", reply)
        self.assertEqual(replies[0]["result"]["view"], "hello")
        self.assertEqual(replies[1]["result"]["contentOffset"], {"x": 0, "y": 40})
        attributes = replies[2]["result"]["attributes"]
        self.assertEqual((attributes["id"], attributes["frame"]), ("b", {"x": 110, "y": 0, "width": 100, "height": 100}))
        self.assertEqual(replies[3]["result"], {})
        self.assertEqual(stderr, "")


if __name__ == "__main__":
    unittest.main()
