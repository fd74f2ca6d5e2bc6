"""No test waits a fixed time: a wait polls for its condition (harness.poll_until, or a
`while` loop that asks again). A `time.sleep` with a constant outside a `while` loop is a guess
at how long something takes, too short on a loaded machine and wasted on an idle one.

Every Python file of the repository is checked (the end-to-end tests, the soak, the hostile
peers, the clients' tests). Listed below, by file and function, are the only exceptions: pacing
that is the point of the test (a slow peer). Any other fixed sleep fails here."""
import ast
import os
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# A peer that is slow on purpose: the pause is what the test is about, not a wait.
PACING = {
    # A slow but steady client (4 bytes every 0.25 s) that must not be dropped like a staller.
    ("system-tests/e2e/test_daemon.py", "test_half_line_staller_is_dropped_after_the_deadline"),
    # A connect the kernel refused (EAGAIN: the backlog full for an instant) tried again every
    # 10 ms, at most 50 times, in a `for` loop: it asks again, as a poll does.
    ("system-tests/e2e/test_resources.py", "flood"),
    # A hostile server that writes a reply one byte every 50 ms, for the clients' deadlines.
    ("system-tests/hostile/server.py", "trickle"),
}


def python_files():
    """Paths (from the root) of the repository's Python files, outside build trees and
    dependencies."""
    for parent, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("node_modules", "build", "__pycache__"))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(parent, name), ROOT)


def fixed_sleeps(source):
    """(line, function) of each sleep(<constant>) call outside a `while` loop."""
    found = []

    def visit(node, in_while, function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, False, child.name)
                continue
            if isinstance(child, ast.Call):
                name = child.func.attr if isinstance(child.func, ast.Attribute) else getattr(child.func, "id", None)
                if name == "sleep" and child.args and isinstance(child.args[0], ast.Constant) and not in_while:
                    found.append((child.lineno, function))
            visit(child, in_while or isinstance(child, ast.While), function)

    visit(ast.parse(source), False, None)
    return found


class FixedSleepTests(unittest.TestCase):
    def test_the_checker_tells_a_wait_from_a_poll(self):
        source = "def a():\n    time.sleep(0.2)\ndef b():\n    while not done():\n        time.sleep(0.05)\ndef c(x):\n    sleep(x)\n"
        self.assertEqual(fixed_sleeps(source), [(2, "a")])

    def sleeps(self):
        """(path, line, function) of every fixed sleep in the repository."""
        found = []
        for path in python_files():
            with open(os.path.join(ROOT, path)) as handle:
                found += [(path, line, function) for line, function in fixed_sleeps(handle.read())]
        return found

    def test_no_fixed_sleep_in_the_tests(self):
        found = ["%s:%d in %s" % (path, line, function) for path, line, function in self.sleeps()
                 if (path, function) not in PACING]
        self.assertEqual(found, [], "poll for the condition instead (harness.poll_until)")

    def test_the_exceptions_are_still_there(self):
        # A pause gone must leave the list, so the list stays the truth.
        present = {(path, function) for path, _, function in self.sleeps()}
        self.assertEqual(PACING - present, set())


if __name__ == "__main__":
    unittest.main()
