"""End-to-end tests of layoutd's text log: client-controlled values cannot forge log lines, and a
flood of refusals is throttled with an exact count of what was suppressed."""
import re
import time
import unittest

from harness import Client, Daemon

PRIORITY = re.compile(r"^<[0-7]>")
SUPPRESSED = re.compile(r"\blayoutd_suppressed=(\d+)")


def poll(condition, timeout=15, interval=0.05):
    """`condition()`'s first truthy value within `timeout` seconds, else its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def log_lines(daemon):
    return daemon.read_log().split("\n")[:-1]


class LogInjectionTests(unittest.TestCase):
    def test_a_view_named_with_a_newline_and_a_priority_forges_no_line(self):
        forged = "x\n<0>forged\r<0>again\x1b[2J\u2028<0>separator\u0085<0>next-line"
        with Daemon() as daemon, Client(daemon.path) as client:
            self.assertIn("error", client.call("view.get", {"view": forged}))
            self.assertIn("error", client.call(forged, {"view": forged}))
            lines = poll(lambda: [line for line in log_lines(daemon) if "refused" in line] and log_lines(daemon))
            for line in lines:
                self.assertRegex(line, PRIORITY, "a log line without a priority: %r" % line)
                self.assertFalse(line.startswith("<0>"), "a forged log line: %r" % line)
                for character in "\r\x1b\u2028\u0085":
                    self.assertNotIn(character, line, "a raw control character in %r" % line)
            refusals = [line for line in lines if "view.get refused" in line]
            self.assertEqual(len(refusals), 1, lines)
            self.assertIn(r"layoutd_view=x\n<0>forged\r<0>again\x1b[2J\u2028<0>separator\u0085<0>next-line ", refusals[0])


class LogFloodTests(unittest.TestCase):
    def test_5000_refused_requests_log_a_bounded_number_of_lines_and_count_the_rest(self):
        count = 5000
        with Daemon() as daemon, Client(daemon.path, timeout=30) as client:
            request = b'{"id":1,"method":"view.get","params":{"view":"missing"}}\n'
            client.send_raw(request * count)
            for _ in range(count):
                self.assertIn("error", client.read())

            def accounted():
                lines = log_lines(daemon)
                refusals = [line for line in lines if "view.get refused" in line]
                suppressed = sum(int(match.group(1)) for line in lines for match in SUPPRESSED.finditer(line))
                return (len(refusals), suppressed) if len(refusals) + suppressed == count else None

            # The count of suppressed lines arrives with the next line let through or in a
            # summary once the interval has passed.
            result = poll(accounted)
            lines = log_lines(daemon)
            refusals = [line for line in lines if "refused" in line]
            self.assertIsNotNone(result, "refusals and suppressed counts do not add up to %d:\n%s" % (count, "\n".join(refusals[-5:])))
            logged, suppressed = result
            self.assertLessEqual(len(refusals), 50)
            self.assertGreater(suppressed, 0)
            self.assertTrue(any(re.search(r"suppressed \d+ similar lines", line) for line in lines), refusals[-5:])


if __name__ == "__main__":
    unittest.main()
