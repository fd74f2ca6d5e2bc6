"""No test here waits a fixed time: a wait polls for its condition (harness.poll_until, or a
`while` loop that asks again). A `time.sleep` with a constant outside a `while` loop is a guess
at how long something takes, too short on a loaded machine and wasted on an idle one.

Listed below, by file and function, are the only exceptions: pacing that is the point of the
test (a slow client). Any other fixed sleep fails here."""
import ast
import glob
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

# A client that is slow on purpose: the pause is what the test is about, not a wait.
PACING = {
    ("test_daemon.py", "test_half_line_staller_is_dropped_after_the_deadline"),
    ("test_resources.py", "flood"),
}


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

    def test_no_fixed_sleep_in_the_end_to_end_tests(self):
        found = []
        for path in sorted(glob.glob(os.path.join(HERE, "*.py"))):
            name = os.path.basename(path)
            with open(path) as handle:
                for line, function in fixed_sleeps(handle.read()):
                    if (name, function) not in PACING:
                        found.append("%s:%d in %s" % (name, line, function))
        self.assertEqual(found, [], "poll for the condition instead (harness.poll_until)")

    def test_the_exceptions_are_still_there(self):
        # A pause gone must leave the list, so the list stays the truth.
        present = set()
        for path in glob.glob(os.path.join(HERE, "*.py")):
            with open(path) as handle:
                present |= {(os.path.basename(path), function) for _, function in fixed_sleeps(handle.read())}
        self.assertEqual(PACING - present, set())


if __name__ == "__main__":
    unittest.main()
