"""layoutctl end to end: golden help and output files, exit codes of every error class, the
progress bar on a terminal, watch, render (SVG parsed and rendered to PNG), the man page and
completions, and the strategy scenarios as a shell script that uses only layoutctl and jq.

Re-record the golden files with LAYOUTCTL_RECORD=1."""
import functools
import json
import math
import os
import select
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import xml.etree.ElementTree as ET

from harness import DAEMON, ROOT, Client, Daemon, poll_until

LAYOUTCTL = os.path.join(os.path.dirname(DAEMON), "layoutctl")
WATERFALL = os.path.join(ROOT, ".build", "plugins", "debug", "waterfall.so")
GOLDEN = os.path.join(ROOT, "system-tests", "golden")
RECORD = os.environ.get("LAYOUTCTL_RECORD") == "1"


def ctl(*arguments, socket_path=None, input=None, env=None, timeout=60):
    environment = dict(os.environ)
    environment.pop("LAYOUTD_SOCKET", None)
    if socket_path:
        environment["LAYOUTD_SOCKET"] = socket_path
    if env:
        environment.update(env)
    return subprocess.run([LAYOUTCTL] + list(arguments), capture_output=True, text=True, input=input, env=environment, timeout=timeout)


def ctl_ok(case, socket_path, *arguments):
    """layoutctl ARGUMENTS against the daemon at `socket_path`, which must succeed: its stdout."""
    result = ctl(*arguments, socket_path=socket_path)
    case.assertEqual(result.returncode, 0, result.stderr)
    return result.stdout


class GoldenCase(unittest.TestCase):
    def golden(self, relative, actual):
        path = os.path.join(GOLDEN, relative)
        if RECORD or not os.path.exists(path):
            if not RECORD:
                self.fail("no golden file %s (record with LAYOUTCTL_RECORD=1)" % relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write(actual)
            return
        with open(path) as handle:
            expected = handle.read()
        self.assertEqual(expected, actual, "golden %s differs (re-record with LAYOUTCTL_RECORD=1 if intended)" % relative)


class HelpTests(GoldenCase):
    def commands(self):
        overview = ctl("help").stdout
        section = overview.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
        return [line.split()[0] for line in section.splitlines()]

    def test_help_of_every_command_is_golden(self):
        commands = self.commands()
        self.assertGreater(len(commands), 30)
        self.golden("help/layoutctl.txt", ctl("help").stdout)
        self.assertEqual(ctl("--help").stdout, ctl("help").stdout)
        for name in commands:
            with self.subTest(command=name):
                result = ctl("help", name)
                self.assertEqual(result.returncode, 0)
                self.assertEqual(ctl(name, "--help").stdout, result.stdout)
                self.golden("help/%s.txt" % name, result.stdout)

    def test_man_page_and_completions_cover_every_command(self):
        commands = self.commands()
        man = ctl("man").stdout
        self.assertTrue(man.startswith(".TH LAYOUTCTL 1"))
        for name in commands:
            self.assertIn(".SS " + name.replace("-", "\\-"), man)
        if shutil.which("groff"):
            rendered = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=man, capture_output=True, text=True)
            self.assertEqual(rendered.stderr, "")
        bash = ctl("completion", "bash").stdout
        checked = subprocess.run(["bash", "-n"], input=bash, capture_output=True, text=True)
        self.assertEqual(checked.returncode, 0, checked.stderr)
        # Completing the first word offers the commands.
        probe = bash + '\nCOMP_WORDS=(layoutctl cre); COMP_CWORD=1; _layoutctl; echo "${COMPREPLY[*]}"\n'
        self.assertEqual(subprocess.run(["bash"], input=probe, capture_output=True, text=True).stdout.strip(), "create")
        probe = bash + '\nCOMP_WORDS=(layoutctl create v --stra); COMP_CWORD=3; _layoutctl; echo "${COMPREPLY[*]}"\n'
        self.assertEqual(subprocess.run(["bash"], input=probe, capture_output=True, text=True).stdout.strip(), "--strategy")
        zsh = ctl("completion", "zsh").stdout
        self.assertTrue(zsh.startswith("#compdef layoutctl"))
        for name in commands:
            self.assertIn("'%s:" % name, zsh)
        if shutil.which("zsh"):
            self.assertEqual(subprocess.run(["zsh", "-n"], input=zsh, capture_output=True, text=True).returncode, 0)


class FakeDaemon:
    """A socket that accepts and then misbehaves: never replies, or replies garbage."""

    def __init__(self, directory, reply):
        self.path = os.path.join(directory, "fake.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(4)
        self.reply = reply
        self.connections = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections.append(connection)
            if self.reply is not None:
                connection.recv(65536)
                connection.sendall(self.reply)

    def close(self):
        for connection in self.connections:
            connection.close()
        self.listener.close()


class ExitCodeTests(unittest.TestCase):
    def test_exit_codes_of_every_error_class(self):
        directory = tempfile.mkdtemp(prefix="layoutctl-exit-")
        with Daemon() as daemon:
            cases = [
                ("usage: unknown command", ["frobnicate"], 64, "unknown command 'frobnicate'"),
                ("usage: unknown option", ["views", "--colour"], 64, "views has no option --colour"),
                ("usage: missing argument", ["create"], 64, "create takes VIEW"),
                ("usage: bad number", ["create", "v", "--width", "wide", "--height", "1"], 64, "--width needs a number"),
                ("usage: bad parameter", ["configure", "v", "oops"], 64, "expected NAME=VALUE"),
                ("refused: unknown view", ["get", "nope"], 2, "ViewNotFound: no view named 'nope'"),
                ("refused: bad parameter value", ["create", "v", "--width", "10", "--height", "10", "--param", "itemSize=-1x5"], 2, "InvalidParameter"),
                ("refused: unknown method", ["call", "daemon.frobnicate"], 2, "MethodNotFound"),
            ]
            for name, arguments, code, message in cases:
                with self.subTest(case=name):
                    result = ctl(*arguments, socket_path=daemon.path)
                    self.assertEqual(result.returncode, code, result.stderr)
                    self.assertIn(message, result.stderr)
                    self.assertEqual(result.stdout, "")
        missing = ctl("status", socket_path=os.path.join(directory, "absent.sock"))
        self.assertEqual(missing.returncode, 1)
        self.assertIn("cannot connect to layoutd", missing.stderr)
        silent = FakeDaemon(tempfile.mkdtemp(prefix="layoutctl-fake-"), None)
        started = time.monotonic()
        timed_out = ctl("--timeout", "0.5", "status", socket_path=silent.path)
        self.assertEqual(timed_out.returncode, 3, timed_out.stderr)
        self.assertIn("Timeout", timed_out.stderr)
        self.assertLess(time.monotonic() - started, 5)
        silent.close()
        garbage = FakeDaemon(tempfile.mkdtemp(prefix="layoutctl-fake-"), b"this is not json\n")
        bad = ctl("status", socket_path=garbage.path)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("not a JSON reply", bad.stderr)
        garbage.close()

    def test_flags_take_no_value_and_nonsense_is_refused(self):
        with Daemon() as daemon:
            self.assertEqual(ctl("create", "v", "--width", "100", "--height", "100", "--items", "3", "-q", socket_path=daemon.path).returncode, 0)
            cases = [
                ("a global flag with a value", ["--json=garbage", "views"], "--json takes no value, not '--json=garbage'"),
                ("a short flag's long form with a value", ["--quiet=no", "views"], "--quiet takes no value"),
                ("a command flag with a value", ["select", "v", "i0", "--animated=yes"], "--animated takes no value"),
                ("hex where a number is expected", ["create", "w", "--width", "0x40", "--height", "10"], "--width needs a number, not '0x40'"),
                ("hex seconds", ["--timeout", "0x1", "views"], "--timeout needs seconds, not '0x1'"),
                ("inf is no number", ["scroll", "v", "--y", "inf"], "--y needs a number, not 'inf'"),
                ("select with no ids", ["select", "v"], "select needs at least one ID, or --clear"),
                ("select --clear with ids", ["select", "v", "i0", "--clear"], "select --clear takes no IDs"),
                ("a size parameter that is no size", ["configure", "v", "itemSize=64"], "parameter 'itemSize' is a size"),
                ("an unknown option before the command", ["--colour", "views"], "unknown option --colour"),
            ]
            for name, arguments, message in cases:
                with self.subTest(case=name):
                    result = ctl(*arguments, socket_path=daemon.path)
                    self.assertEqual(result.returncode, 64, result.stderr)
                    self.assertIn(message, result.stderr)
                    self.assertEqual(result.stdout, "")
            # None of them changed the view: the selection is still empty, the epoch 0.
            state = json.loads(ctl("get", "v", socket_path=daemon.path).stdout)
            self.assertEqual(state["epoch"], 0)

    def test_v_prints_the_version_only(self):
        for arguments in (["-v"], ["--version"], ["views", "-v"]):
            with self.subTest(arguments=arguments):
                result = ctl(*arguments)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertRegex(result.stdout, r"^layoutctl \d+\.\d+\.\d+\S*\n$")
                self.assertEqual(result.stderr, "")

    def test_double_dash_ends_the_options(self):
        with Daemon() as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)
            run("create", "v", "--width", "100", "--height", "100", "-q")
            run("insert", "v", "-q", "--", "-x", "--y:10x10")
            self.assertEqual(json.loads(run("item", "v", "--", "-x"))["attributes"]["id"], "-x")
            self.assertEqual(json.loads(run("item", "v", "--", "--y"))["attributes"]["frame"]["height"], 10)
            self.assertEqual(json.loads(run("select", "v", "--animated", "--", "-x"))["epoch"], 2)
            self.assertEqual(sorted(element["id"] for element in json.loads(run("call", "view.get", '{"view":"v"}'))["elements"]), ["--y", "-x"])

    def test_sizes_read_as_sizes_never_as_hex(self):
        with Daemon() as daemon:
            def run(*arguments):
                result = ctl(*arguments, socket_path=daemon.path)
                self.assertEqual(result.returncode, 0, result.stderr)
                return json.loads(result.stdout) if result.stdout else None
            created = run("create", "v", "--width", "320", "--height", "400", "--param", "headerReferenceSize=0x40", "--param", "itemSize=100x100", "--items", "2")
            self.assertEqual(created["params"]["headerReferenceSize"], {"width": 0, "height": 40})
            header = [element for element in created["elements"] if element["kind"] == "header"]
            self.assertEqual(header[0]["frame"]["height"], 40)
            configured = run("configure", "v", "headerReferenceSize=0x0")
            self.assertEqual([element["id"] for element in configured["left"]], ["s"])
            self.assertEqual(run("get", "v")["params"]["headerReferenceSize"], {"width": 0, "height": 0})
            run("measure", "v", "i0=0x40", "-q")
            self.assertEqual(run("item", "v", "i0")["attributes"]["frame"]["height"], 40)
            # A size written for a number parameter is refused by its type, before the daemon.
            wrong = ctl("configure", "v", "minimumLineSpacing=0x40", socket_path=daemon.path)
            self.assertEqual(wrong.returncode, 64, wrong.stderr)
            self.assertIn("parameter 'minimumLineSpacing' is a number", wrong.stderr)

    def test_select_clears_only_with_clear(self):
        with Daemon() as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)
            run("create", "v", "--width", "100", "--height", "100", "--items", "3", "-q")
            run("select", "v", "i0", "i1", "-q")
            refused = ctl("select", "v", socket_path=daemon.path)
            self.assertEqual(refused.returncode, 64)
            self.assertEqual(json.loads(run("query", "v"))["selected"], ["i0", "i1"])
            run("select", "v", "--clear", "-q")
            self.assertEqual(json.loads(run("query", "v"))["selected"], [])


class ConnectErrorTests(unittest.TestCase):
    """When no daemon listens, layoutctl names the socket once and says what to try, by where
    the path came from (issue 40: `web` printed it twice, no command said what to do)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="layoutctl-connect-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.path = os.path.join(self.dir, "absent.sock")

    def assert_named_once_with_hint(self, result, hint):
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr.count(self.path), 1, result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 2, result.stderr)
        self.assertIn("cannot connect to layoutd at %s" % self.path, lines[0])
        self.assertTrue(lines[1].startswith("hint: is layoutd running"), result.stderr)
        self.assertIn(hint, lines[1])

    def test_every_command_that_connects(self):
        for arguments in (["status"], ["views"], ["get", "v"], ["web", "--listen", "127.0.0.1:0"]):
            with self.subTest(arguments=arguments):
                result = ctl("--socket", self.path, *arguments, timeout=20)
                self.assert_named_once_with_hint(result, "layoutd --socket")

    def test_the_hint_follows_where_the_path_came_from(self):
        self.assert_named_once_with_hint(ctl("status", socket_path=self.path), "LAYOUTD_SOCKET")
        runtime = os.path.join(self.dir, "runtime")
        self.path = os.path.join(runtime, "layoutd", "ipc.sock")
        self.assert_named_once_with_hint(ctl("status", env={"XDG_RUNTIME_DIR": runtime}), "systemctl --user start layoutd.socket")

    def test_a_socket_nobody_listens_on_gets_the_hint(self):
        # What a daemon killed with SIGKILL leaves behind.
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(self.path)
        stale.close()
        self.assert_named_once_with_hint(ctl("--socket", self.path, "status"), "layoutd --socket")

    def test_no_hint_when_something_else_is_wrong(self):
        # A regular file: connect says so, and "is layoutd running?" would mislead.
        open(self.path, "w").close()
        result = ctl("--socket", self.path, "status")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(result.stderr.count(self.path), 1, result.stderr)
        self.assertNotIn("hint:", result.stderr)


class PagingTests(unittest.TestCase):
    def test_query_reads_every_page(self):
        # A page holds at most max-window-elements; layoutctl follows next to the end.
        with Daemon("--set", "max-window-elements=5") as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)
            run("create", "v", "--strategy", "flow", "--width", "320", "--height", "230", "--param", "itemSize=100x100", "--items", "23")
            query = json.loads(run("query", "v", "--rect", "0,0,320,10000"))
            self.assertEqual(sorted(element["id"] for element in query["elements"]), sorted("i%d" % n for n in range(23)))
            self.assertEqual(len(json.loads(run("get", "v"))["elements"]), 5)


class OutputTests(GoldenCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon().start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def run_ctl(self, *arguments, **options):
        result = ctl(*arguments, socket_path=self.daemon.path, **options)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    def test_table_and_json_output_of_the_main_commands(self):
        steps = [
            ("create", ["create", "photos", "--strategy", "flow", "--width", "320", "--height", "230", "--param", "itemSize=100x100", "--items", "8"]),
            ("views", ["views"]),
            ("get", ["get", "photos"]),
            ("scroll", ["scroll", "photos", "--y", "110"]),
            ("select", ["select", "photos", "i4", "i5", "--animated"]),
            ("query", ["query", "photos", "--rect", "0,100,320,120"]),
            ("item", ["item", "photos", "i4"]),
            ("hit", ["hit", "photos", "150,150"]),
            ("hit-miss", ["hit", "photos", "105,150"]),
            ("neighbor", ["neighbor", "photos", "i4", "down"]),
            ("neighbor-edge", ["neighbor", "photos", "i7", "next"]),
            ("insert", ["insert", "photos", "new:320x40", "--at", "0", "--animated"]),
            ("move", ["move", "photos", "i7", "--at", "1"]),
            ("delete", ["delete", "photos", "i0", "i1"]),
            ("configure", ["configure", "photos", "minimumInteritemSpacing=0", "itemSize=80x80"]),
            ("switch", ["switch", "photos", "display", "mode=list", "rowHeight=50"]),
            ("scroll-prefetch", ["scroll", "photos", "--y", "0", "--velocity", "0,800"]),
            ("scroll-to", ["scroll-to", "photos", "i7", "--align", "end"]),
            ("anchor", ["anchor", "photos", "end"]),
            ("direction", ["direction", "photos", "rtl"]),
            ("strategies", ["strategies"]),
            ("hello", ["hello"]),
        ]
        for name, arguments in steps:
            with self.subTest(step=name):
                table = self.run_ctl(*(arguments + ["--table"]))
                self.golden("output/%s.table.txt" % name, table)
        # The same state read back as JSON: compact when piped, one line, parseable.
        for name, arguments in [("get", ["get", "photos"]), ("query", ["query", "photos", "--rect", "0,0,320,230"]), ("views", ["views"])]:
            with self.subTest(json=name):
                text = self.run_ctl(*arguments)
                self.assertEqual(text.count("\n"), 1)
                json.loads(text)
                self.golden("output/%s.json" % name, text)
                pretty = self.run_ctl(*(arguments + ["--pretty"]))
                self.assertEqual(json.loads(pretty), json.loads(text))
        self.assertEqual(self.run_ctl("sync", "-q"), "")

    def test_tables_round_numbers_and_show_effects_while_json_keeps_precision(self):
        self.run_ctl("create", "parallax", "--strategy", "ultravisual", "--width", "320", "--height", "400", "--items", "4", "-q")
        self.run_ctl("scroll", "parallax", "--y", "133", "-q")
        table = self.run_ctl("get", "parallax", "--table")
        self.golden("output/ultravisual.table.txt", table)
        self.assertIn("effects", table.splitlines()[1].split())
        for number in [word for line in table.splitlines()[2:] for word in line.replace(",", " ").replace("=", " ").split()]:
            if number.replace(".", "", 1).replace("-", "", 1).isdigit() and "." in number:
                self.assertLessEqual(len(number.split(".")[1]), 3, number)
                self.assertFalse(number.endswith("0"), number)
        # JSON: the daemon's numbers as they are.
        elements = json.loads(self.run_ctl("get", "parallax"))["elements"]
        self.assertAlmostEqual(elements[0]["frame"]["y"], 59.111111, places=5)
        self.assertNotEqual(round(elements[1]["effects"]["detailAlpha"], 3), elements[1]["effects"]["detailAlpha"])

    def test_batch_mode_and_raw_call(self):
        self.run_ctl("create", "batch", "--width", "100", "--height", "100", "--items", "3", "-q")
        lines = '{"id":1,"method":"view.item","params":{"view":"batch","id":"i1"}}\n{"id":2,"method":"view.item","params":{"view":"batch","id":"zz"}}\n{"id":3,"method":"daemon.sync"}\n'
        result = ctl("call", "--batch", socket_path=self.daemon.path, input=lines)
        self.assertEqual(result.returncode, 2)
        replies = [json.loads(line) for line in result.stdout.splitlines()]
        self.assertEqual([reply["id"] for reply in replies], [1, 2, 3])
        self.assertEqual(replies[1]["error"]["name"], "ItemNotFound")
        raw = json.loads(self.run_ctl("call", "view.item", '{"view":"batch","id":"i2"}'))
        self.assertEqual(raw["attributes"]["item"], 2)

    def subscriptions(self):
        with Client(self.daemon.path) as client:
            return client.call("daemon.status")["result"]["subscriptions"]

    def test_watch_streams_events_one_line_each(self):
        self.run_ctl("create", "watched", "--width", "100", "--height", "100", "--items", "50", "-q")
        # The scrolls go once the watcher has subscribed: the daemon counts its subscription.
        poll_until(lambda: self.subscriptions() == 0, what="no subscription left by another test")
        watcher = subprocess.Popen([LAYOUTCTL, "-s", self.daemon.path, "watch", "watched", "--count", "3"], stdout=subprocess.PIPE, text=True)
        poll_until(lambda: self.subscriptions() == 1 or watcher.poll() is not None, what="the watcher subscribed")
        for y in (60, 120, 180):
            self.run_ctl("scroll", "watched", "--y", str(y), "-q")
        output, _ = watcher.communicate(timeout=20)
        events = [json.loads(line) for line in output.splitlines()]
        self.assertEqual([event["seq"] for event in events], [1, 2, 3])
        self.assertEqual([event["params"]["contentOffset"]["y"] for event in events], [60, 120, 180])
        # On a terminal: one summary line per event.
        poll_until(lambda: self.subscriptions() == 0, what="the first watcher's subscription ended")
        watcher = subprocess.Popen(["script", "-qec", "%s -s %s watch watched --count 1" % (LAYOUTCTL, self.daemon.path), "/dev/null"],
                                   stdout=subprocess.PIPE, text=True)
        poll_until(lambda: self.subscriptions() == 1 or watcher.poll() is not None, what="the watcher on a terminal subscribed")
        self.run_ctl("scroll", "watched", "--y", "10", "-q")
        output, _ = watcher.communicate(timeout=20)
        self.assertRegex(output.strip(), r"^#1 watched epoch 4: content 100×\d+, offset 0,10; \d+ entered, \d+ changed, \d+ left$")

    def test_load_shows_progress_on_a_terminal(self):
        directory = tempfile.mkdtemp(prefix="layoutctl-load-")
        path = os.path.join(directory, "items.jsonl")
        with open(path, "w") as handle:
            for index in range(60000):
                handle.write('{"id":"p%d","size":{"width":%d,"height":40}}\n' % (index, 50 + index % 100))
        self.run_ctl("create", "big", "--width", "390", "--height", "844", "-q")
        result = subprocess.run(["script", "-qec", "%s -s %s load big %s" % (LAYOUTCTL, self.daemon.path, path), "/dev/null"],
                                capture_output=True, text=True, timeout=120)
        self.assertIn("loading big [", result.stdout)
        self.assertIn("100% 60000/60000", result.stdout)
        self.assertRegex(result.stdout, r"loaded 60000 items into big in \d+ parts, one change \(epoch 1\)")
        self.assertEqual(json.loads(self.run_ctl("get", "big"))["itemCount"], 60000)
        # Piped: no progress bar, a JSON result.
        small = os.path.join(directory, "small.jsonl")
        with open(small, "w") as handle:
            handle.write('{"id":"a","section":"one"}\n{"id":"b","section":"two"}\n{"id":"c","section":"one"}\n')
        result = ctl("load", "big", small, socket_path=self.daemon.path)
        self.assertEqual(result.stderr, "")
        self.assertEqual(json.loads(result.stdout)["changes"]["insertedItems"], ["a", "c", "b"])


def write_items(directory, name, count, section=None):
    path = os.path.join(directory, name)
    with open(path, "w") as handle:
        for index in range(count):
            extra = ',"section":"%s"' % section(index) if section else ""
            handle.write('{"id":"p%d","size":{"width":%d,"height":40}%s}\n' % (index, 50 + index % 100, extra))
    return path


class AtomicLoadTests(unittest.TestCase):
    """layoutctl load of any size is one atomic change as subscribers see it (issue 18): one
    setData, or a staged upload (view.stage.*) committed by one request; and the staged
    upload's rules: owned by its connection, discarded when it closes, counted against the
    item budget, refused whole on a stale epoch."""

    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="layoutctl-atomic-")

    def tearDown(self):
        shutil.rmtree(self.directory, ignore_errors=True)

    def load(self, daemon, view, path, *options):
        result = ctl("load", view, path, *options, socket_path=daemon.path, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def events_until_synced(self, watcher):
        """The events the watcher received so far: daemon.sync answers after all of them."""
        events = []
        watcher.call("daemon.sync", events=events)
        return [event for event in events if event["event"] == "view.invalidated"]

    def test_a_100k_item_load_is_one_change_and_the_view_never_empties(self):
        with Daemon() as daemon, Client(daemon.path, timeout=120) as watcher:
            with Client(daemon.path) as creator:
                creator.call("view.create", {"view": "big", "strategy": "flow", "viewport": {"width": 390, "height": 844}})
            self.load(daemon, "big", write_items(self.directory, "few.jsonl", 10))
            subscribed = watcher.call("view.subscribe", {"view": "big"})["result"]
            result = self.load(daemon, "big", write_items(self.directory, "items.jsonl", 100000), "--table")
            self.assertRegex(result.stdout[:500], r"^loaded 100000 items into big in \d+ parts, one change \(epoch 2\)$")
            events = self.events_until_synced(watcher)
            self.assertEqual(len(events), 1, "one view.invalidated for the whole load")
            self.assertEqual(events[0]["params"]["epoch"], subscribed["snapshot"]["epoch"] + 1)
            # Never empty: the ten items already there stayed (no delete, no re-insert).
            self.assertEqual(events[0]["params"]["changes"]["deletedItems"], [])
            self.assertEqual(len(events[0]["params"]["changes"]["insertedItems"]), 99990)
            self.assertEqual(json.loads(ctl("get", "big", socket_path=daemon.path).stdout)["itemCount"], 100000)

    def test_reloading_the_same_file_keeps_the_selection(self):
        with Daemon() as daemon:
            ctl("create", "big", "--width", "390", "--height", "844", "-q", socket_path=daemon.path)
            path = write_items(self.directory, "items.jsonl", 100000)
            self.load(daemon, "big", path)
            ctl("select", "big", "p1", "p3", "-q", socket_path=daemon.path)
            with Client(daemon.path, timeout=120) as watcher:
                epoch = watcher.call("view.subscribe", {"view": "big"})["result"]["snapshot"]["epoch"]
                self.load(daemon, "big", path)
                events = self.events_until_synced(watcher)
            self.assertEqual([event["params"]["epoch"] for event in events], [epoch + 1])
            self.assertEqual(events[0]["params"]["changes"]["insertedItems"], [])
            self.assertEqual(events[0]["params"]["changes"]["deletedItems"], [])
            query = json.loads(ctl("query", "big", "--rect", "0,0,390,100", socket_path=daemon.path).stdout)
            self.assertEqual(sorted(query["selected"]), ["p1", "p3"])

    def test_a_small_load_keeps_the_selection(self):
        """A load that fits one line is one view.setData: diffed by id, the selection stays."""
        with Daemon() as daemon:
            ctl("create", "small", "--width", "390", "--height", "844", "-q", socket_path=daemon.path)
            path = write_items(self.directory, "items.jsonl", 10)
            self.load(daemon, "small", path)
            ctl("select", "small", "p2", "-q", socket_path=daemon.path)
            reloaded = json.loads(self.load(daemon, "small", path).stdout)
            self.assertEqual(reloaded["changes"]["insertedItems"] + reloaded["changes"]["deletedItems"], [])
            query = json.loads(ctl("query", "small", "--rect", "0,0,390,844", socket_path=daemon.path).stdout)
            self.assertEqual(query["selected"], ["p2"])

    def test_reloading_keeps_a_measured_size(self):
        """view.setData keeps the measurement of an item the data describes as it did when the
        item was measured (mutations.md, view.setData), for one setData and a staged commit."""
        for count, limits in [(10, ()), (3000, ("--set", "max-line-length=65536", "--set", "max-batch=1000"))]:
            with self.subTest(items=count), Daemon(*limits) as daemon:
                ctl("create", "small", "--width", "390", "--height", "844", "-q", socket_path=daemon.path)
                path = write_items(self.directory, "items.jsonl", count)
                self.load(daemon, "small", path)
                ctl("measure", "small", "p0=50x99", "-q", socket_path=daemon.path)
                result = self.load(daemon, "small", path, "--table")
                if count > 10:
                    self.assertIn(" parts, one change", result.stdout)
                item = json.loads(ctl("item", "small", "p0", socket_path=daemon.path).stdout)
                self.assertEqual(item["attributes"]["frame"]["height"], 99)

    def test_a_file_over_one_line_is_staged_and_still_one_change(self):
        with Daemon("--set", "max-line-length=65536", "--set", "max-batch=1000") as daemon, Client(daemon.path, timeout=60) as watcher:
            ctl("create", "v", "--width", "390", "--height", "844", "-q", socket_path=daemon.path)
            watcher.call("view.subscribe", {"view": "v"})
            path = write_items(self.directory, "items.jsonl", 20000, section=lambda index: "s%d" % (index % 3))
            result = self.load(daemon, "v", path, "--table")
            self.assertRegex(result.stdout[:500], r"^loaded 20000 items into v in \d+ parts, one change \(epoch 1\)$")
            parts = int(result.stdout.split(" in ")[1].split()[0])
            self.assertGreaterEqual(parts, 20, "1000 items and sections per append at most")
            events = self.events_until_synced(watcher)
            self.assertEqual([event["params"]["epoch"] for event in events], [1])
            # 20,000 ids are more than a 64 KiB line carries: the change gives their counts.
            self.assertEqual(events[0]["params"]["changes"]["insertedSections"], [])
            self.assertEqual(events[0]["params"]["omittedIDs"]["insertedSections"], 3)
            state = json.loads(ctl("get", "v", socket_path=daemon.path).stdout)
            self.assertEqual((state["itemCount"], state["sectionCount"]), (20000, 3))
            # In file order within each section.
            first = json.loads(ctl("item", "v", "p3", socket_path=daemon.path).stdout)["attributes"]
            self.assertEqual((first["section"], first["item"]), (0, 1))
            # On a terminal the progress bar still shows, a step per part.
            result = subprocess.run(["script", "-qec", "%s -s %s load v %s" % (LAYOUTCTL, daemon.path, path), "/dev/null"],
                                    capture_output=True, text=True, timeout=120)
            self.assertIn("loading v [", result.stdout)
            self.assertIn("100% 20000/20000", result.stdout)

    def status(self, client):
        return client.call("daemon.status")["result"]

    def test_an_upload_is_discarded_when_its_connection_closes(self):
        with Daemon("--set", "max-total-items=3000") as daemon, Client(daemon.path) as other:
            other.call("view.create", {"view": "v", "strategy": "flow", "viewport": {"width": 100, "height": 100},
                                       "sections": [{"id": "s", "items": [{"id": "a"}]}]})
            with Client(daemon.path) as uploader:
                upload = uploader.call("view.stage.begin", {"view": "v"})["result"]["upload"]
                for part in range(2):
                    items = [{"id": "b%d" % index} for index in range(part * 1000, part * 1000 + 1000)]
                    self.assertEqual(uploader.call("view.stage.append", {"upload": upload, "sections": [{"id": "s", "items": items}]})["result"]["items"], (part + 1) * 1000)
                self.assertEqual(self.status(other)["uploads"], {"open": 1, "items": 2000})
                # The upload is its connection's alone, and so is committing it.
                refused = other.call("view.stage.commit", {"upload": upload})["error"]
                self.assertEqual((refused["name"], refused["data"]["path"]), ("InvalidParams", "params.upload"))
            deadline = time.monotonic() + 10
            while self.status(other)["uploads"]["open"] and time.monotonic() < deadline:
                other.call("daemon.sync")
            self.assertEqual(self.status(other)["uploads"], {"open": 0, "items": 0})
            state = other.call("view.get", {"view": "v"})["result"]
            self.assertEqual((state["epoch"], state["itemCount"]), (0, 1))
            # The budget came back: 2999 more items fit again.
            items = [{"id": "c%d" % index} for index in range(2999)]
            self.assertIn("result", other.call("view.setData", {"view": "v", "sections": [{"id": "s", "items": items + [{"id": "a"}]}]}))

    def test_a_stale_commit_is_refused_and_changes_nothing(self):
        with Daemon() as daemon, Client(daemon.path) as uploader, Client(daemon.path) as other:
            other.call("view.create", {"view": "v", "strategy": "flow", "viewport": {"width": 100, "height": 100},
                                       "sections": [{"id": "s", "items": [{"id": "a"}]}]})
            begun = uploader.call("view.stage.begin", {"view": "v"})["result"]
            uploader.call("view.stage.append", {"upload": begun["upload"], "sections": [{"id": "s", "items": [{"id": "b"}]}]})
            other.call("view.scroll", {"view": "v", "offset": {"x": 0, "y": 5}})
            refused = uploader.call("view.stage.commit", {"upload": begun["upload"], "ifEpoch": begun["epoch"]})["error"]
            self.assertEqual((refused["name"], refused["data"]), ("StaleEpoch", {"actual": 1, "expected": 0}))
            state = other.call("view.get", {"view": "v"})["result"]
            self.assertEqual((state["epoch"], state["itemCount"]), (1, 1))
            # A commit ends the upload whatever its outcome; its items went back.
            self.assertEqual(self.status(other)["uploads"], {"open": 0, "items": 0})
            self.assertEqual(uploader.call("view.stage.commit", {"upload": begun["upload"]})["error"]["name"], "InvalidParams")

    def test_limits_of_uploads(self):
        with Daemon("--set", "max-batch=10", "--set", "max-items=25") as daemon, Client(daemon.path) as client:
            self.assertEqual(client.call("daemon.hello")["result"]["limits"]["maximumUploads"], 4)
            client.call("view.create", {"view": "v", "strategy": "flow", "viewport": {"width": 100, "height": 100}})
            uploads = [client.call("view.stage.begin", {"view": "v"})["result"]["upload"] for _ in range(4)]
            self.assertEqual(len(set(uploads)), 4)
            refused = client.call("view.stage.begin", {"view": "v"})["error"]
            self.assertEqual((refused["name"], refused["data"]["limit"]), ("LimitExceeded", "uploads"))
            append = lambda items: client.call("view.stage.append", {"upload": uploads[0], "sections": [{"id": "s", "items": items}]})
            # Items and sections of one append count against max-batch, as an insertSections does.
            self.assertEqual(append([{"id": "x%d" % index} for index in range(10)])["error"]["data"]["limit"], "batch size")
            for part in range(2):
                self.assertIn("result", append([{"id": "a%d_%d" % (part, index)} for index in range(9)]))
            self.assertEqual(append([{"id": "z%d" % index} for index in range(8)])["error"]["data"]["limit"], "items")
            self.assertEqual(client.call("view.stage.commit", {"upload": uploads[0]})["result"]["epoch"], 1)
            self.assertEqual(client.call("view.get", {"view": "v"})["result"]["itemCount"], 18)
            # Deleting the view leaves the upload open; its commit then finds no view.
            client.call("view.delete", {"view": "v"})
            self.assertEqual(client.call("view.stage.commit", {"upload": uploads[1]})["error"]["name"], "ViewNotFound")
            self.assertEqual(client.call("view.stage.abort", {"upload": uploads[2]})["result"], {})
            self.assertEqual(self.status(client)["uploads"], {"open": 1, "items": 0})


class WatchEndingTests(unittest.TestCase):
    """How a watch ends decides its exit code: 0 only for --count or SIGINT/SIGTERM."""

    def watch(self, daemon, *arguments):
        """A watcher that has subscribed: --monitor prints the snapshot line first."""
        subprocess.run([LAYOUTCTL, "-s", daemon.path, "create", "w", "--width", "100", "--height", "100", "--items", "20", "-q"], check=True)
        watcher = subprocess.Popen([LAYOUTCTL, "-s", daemon.path, "watch", "w", "--monitor"] + list(arguments),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(json.loads(watcher.stdout.readline())["view"], "w")
        return watcher

    def finish(self, watcher):
        output, errors = watcher.communicate(timeout=20)
        return watcher.returncode, output, errors

    def test_daemon_shutdown_exits_1_with_the_reason(self):
        daemon = Daemon().start()
        watcher = self.watch(daemon)
        daemon.signal(signal.SIGTERM)
        code, output, errors = self.finish(watcher)
        daemon.stop()
        self.assertEqual(code, 1, errors)
        self.assertEqual(json.loads(output.splitlines()[-1])["event"], "daemon.shutdown")
        self.assertIn("layoutctl: watch ended: the daemon shut down", errors)

    def test_connection_drop_exits_1_and_says_so(self):
        daemon = Daemon().start()
        watcher = self.watch(daemon)
        daemon.process.kill()
        code, _, errors = self.finish(watcher)
        daemon.stop()
        self.assertEqual(code, 1, errors)
        self.assertIn("layoutctl: watch ended: the connection to the daemon dropped", errors)

    def test_view_deleted_exits_2(self):
        with Daemon() as daemon:
            watcher = self.watch(daemon)
            subprocess.run([LAYOUTCTL, "-s", daemon.path, "delete-view", "w", "-q"], check=True)
            code, output, errors = self.finish(watcher)
        self.assertEqual(code, 2, errors)
        self.assertEqual(json.loads(output.splitlines()[-1])["event"], "view.deleted")
        self.assertIn("watch ended: the view was deleted", errors)

    def test_count_reached_exits_0(self):
        with Daemon() as daemon:
            watcher = self.watch(daemon, "--count", "1")
            subprocess.run([LAYOUTCTL, "-s", daemon.path, "scroll", "w", "--y", "50", "-q"], check=True)
            code, output, errors = self.finish(watcher)
        self.assertEqual((code, errors), (0, ""))
        self.assertEqual(json.loads(output)["event"], "view.invalidated")

    def test_sigint_and_sigterm_exit_0(self):
        for number in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(signal=number), Daemon() as daemon:
                watcher = self.watch(daemon)
                watcher.send_signal(number)
                code, _, errors = self.finish(watcher)
                self.assertEqual((code, errors), (0, ""))


class CompletionTests(unittest.TestCase):
    """The generated completion scripts against a live daemon: commands, a command's options,
    view and (plugin) strategy names asked from the daemon, files for load."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(WATERFALL):
            raise AssertionError("%s is missing: run `make plugins CONFIG=debug`" % WATERFALL)
        cls.dir = tempfile.mkdtemp(prefix="layoutctl-complete-")
        plugins = os.path.join(cls.dir, "plugins")
        os.mkdir(plugins)
        shutil.copy(WATERFALL, os.path.join(plugins, "waterfall.so"))
        cls.daemon = Daemon("--plugin-dir", plugins).start()
        for view in ("alpha", "beta"):
            result = ctl("create", view, "--width", "100", "--height", "100", "-q", socket_path=cls.daemon.path)
            assert result.returncode == 0, result.stderr
        cls.files = os.path.join(cls.dir, "files")
        os.mkdir(cls.files)
        for name in ("items.jsonl", "items-2.jsonl", "other.txt"):
            open(os.path.join(cls.files, name), "w").close()
        cls.bash = os.path.join(cls.dir, "layoutctl.bash")
        with open(cls.bash, "w") as handle:
            handle.write(ctl("completion", "bash").stdout)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def complete(self, *words, socket_path=None):
        """COMPREPLY for the command line `words` (the last one being completed), sorted."""
        socket_path = socket_path or self.daemon.path
        line = " ".join(shlex.quote(word) for word in ("layoutctl",) + words)
        probe = 'source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _layoutctl; printf "%%s\\n" "${COMPREPLY[@]}"' % (
            shlex.quote(self.bash), line, len(words))
        environment = dict(os.environ, PATH=os.path.dirname(LAYOUTCTL) + os.pathsep + os.environ["PATH"], LAYOUTD_SOCKET=socket_path)
        result = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, cwd=self.files, env=environment, timeout=20)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        return sorted(line for line in result.stdout.splitlines() if line)

    def test_commands_and_options(self):
        self.assertEqual(self.complete("cre"), ["create"])
        self.assertEqual(self.complete("--ti"), ["--timeout"])
        self.assertEqual(self.complete("-s", "/tmp/x.sock", "swi"), ["switch"])
        self.assertEqual(self.complete("select", "alpha", "--"), sorted(["--anchor", "--animated", "--clear", "--help", "--if-epoch", "--json", "--mode", "--pretty",
                                                                         "--print-socket-path", "--quiet", "--socket", "--table", "--timeout", "--version"]))
        self.assertEqual(self.complete("select", "alpha", "--mode", "t"), ["toggle"])
        self.assertEqual(self.complete("completion", ""), ["bash", "zsh"])
        self.assertEqual(self.complete("help", "delete"), ["delete", "delete-view"])

    def test_view_names_from_the_daemon(self):
        self.assertEqual(self.complete("get", ""), ["alpha", "beta"])
        self.assertEqual(self.complete("select", "--animated", "al"), ["alpha"])
        self.assertEqual(self.complete("watch", "--count", "3", "b"), ["beta"])
        # The daemon the command line names with --socket, not the default one.
        self.assertEqual(self.complete("-s", self.daemon.path, "get", "", socket_path=os.path.join(self.dir, "absent.sock")), ["alpha", "beta"])
        # After the view, select takes ids: no view names there.
        self.assertEqual(self.complete("select", "alpha", ""), [])

    def test_strategy_names_include_plugins(self):
        self.assertEqual(self.complete("create", "v", "--strategy", "wat"), ["waterfall"])
        names = self.complete("switch", "alpha", "")
        self.assertIn("waterfall", names)
        self.assertIn("flow", names)
        self.assertEqual(self.complete("render", "alpha", "--switch", "wa"), ["waterfall"])

    def test_files_for_load(self):
        self.assertEqual(self.complete("load", "alpha", "items"), ["items-2.jsonl", "items.jsonl"])
        self.assertEqual(self.complete("load", "al"), ["alpha"])

    def test_short_options_combine_as_the_parser_reads_them(self):
        absent = os.path.join(self.dir, "absent.sock")
        self.assertEqual(self.complete("-jq", "cre"), ["create"])
        # -js PATH: the socket is the next word, and the word after it the command.
        self.assertEqual(self.complete("-js", self.daemon.path, "get", "", socket_path=absent), ["alpha", "beta"])
        self.assertEqual(self.complete("-js" + self.daemon.path, "get", "", socket_path=absent), ["alpha", "beta"])
        self.assertEqual(self.complete("export", "-qo", "items"), ["items-2.jsonl", "items.jsonl"])
        self.assertEqual(self.complete("load", "-jq", "alpha", "items"), ["items-2.jsonl", "items.jsonl"])
        self.assertEqual(self.complete("watch", "-mj", "b"), ["beta"])

    def test_parameter_names_of_the_strategy_the_line_names(self):
        display = ["animationDuration=", "columns=", "inlineHeight=", "inlineWidthFraction=", "interitemSpacing=", "lineSpacing=", "mode=", "rowHeight="]
        self.assertEqual(self.complete("create", "v", "--strategy", "display", "--param", ""), display)
        self.assertEqual(self.complete("create", "v", "--strategy=display", "--param", "mo"), ["mode="])
        # create's default strategy is flow.
        self.assertEqual(self.complete("create", "v", "--param", "itemS"), ["itemSize="])
        self.assertEqual(self.complete("switch", "alpha", "display", "co"), ["columns="])
        self.assertEqual(self.complete("begin-transition", "alpha", "collapsible", "coll"), ["collapsed="])
        self.assertEqual(self.complete("render", "alpha", "--switch", "display", "--configure", "mo"), ["mode="])
        # A plugin's, from the daemon's descriptors.
        self.assertIn("columnCount=", self.complete("create", "v", "--strategy", "waterfall", "--param", ""))

    def test_parameter_names_of_the_views_strategy(self):
        spacing = ["minimumInteritemSpacing=", "minimumLineSpacing="]
        self.assertEqual(self.complete("configure", "alpha", "min"), spacing)
        self.assertEqual(self.complete("configure", "alpha", "itemSize=10x10", "min"), spacing)
        self.assertEqual(self.complete("render", "alpha", "--configure", "min"), spacing)
        self.assertEqual(self.complete("begin-transition", "alpha", "mode=list", "min"), spacing)

    def test_parameter_values_after_the_name(self):
        self.assertEqual(self.complete("switch", "alpha", "display", "mode="), ["mode=grid", "mode=inline", "mode=list"])
        self.assertEqual(self.complete("create", "v", "--strategy", "collapsible", "--param", "collapsed=t"), ["collapsed=true"])
        # As bash hands them over: NAME=VALUE split at '=' (COMP_WORDBREAKS); only the last
        # piece is replaced.
        self.assertEqual(self.complete("switch", "alpha", "display", "mode", "=", "l"), ["list"])
        self.assertEqual(self.complete("switch", "alpha", "display", "mode", "="), ["=grid", "=inline", "=list"])
        self.assertEqual(self.complete("create", "v", "--strategy", "display", "--param", "mode", "=", "g"), ["grid"])
        self.assertEqual(self.complete("get", "--socket", "=", self.daemon.path, "", socket_path=os.path.join(self.dir, "absent.sock")), ["alpha", "beta"])

    def test_parameter_names_without_a_daemon_are_the_built_in_ones(self):
        absent = os.path.join(self.dir, "absent.sock")
        self.assertEqual(self.complete("create", "v", "--strategy", "display", "--param", "mo", socket_path=absent), ["mode="])
        self.assertEqual(self.complete("switch", "v", "display", "mode=l", socket_path=absent), ["mode=list"])
        self.assertEqual(self.complete("create", "v", "--strategy", "waterfall", "--param", "", socket_path=absent), [])

    def test_without_a_daemon_commands_and_options_still_complete_silently(self):
        absent = os.path.join(self.dir, "absent.sock")
        started = time.monotonic()
        self.assertEqual(self.complete("get", "", socket_path=absent), [])
        self.assertEqual(self.complete("switch", "alpha", "", socket_path=absent), [])
        self.assertEqual(self.complete("sta", socket_path=absent), ["status"])
        self.assertEqual(self.complete("watch", "v", "--co", socket_path=absent), ["--count"])
        self.assertLess(time.monotonic() - started, 10)

    def test_a_hung_daemon_costs_at_most_the_completion_timeout(self):
        silent = FakeDaemon(tempfile.mkdtemp(prefix="layoutctl-fake-"), None)
        started = time.monotonic()
        self.assertEqual(self.complete("get", "", socket_path=silent.path), [])
        self.assertLess(time.monotonic() - started, 3)
        silent.close()

    def test_zsh_script_parses_and_asks_the_daemon(self):
        zsh = shutil.which("zsh")
        if not zsh:
            self.skipTest("zsh is not installed")
        script = ctl("completion", "zsh").stdout
        checked = subprocess.run([zsh, "-n"], input=script, capture_output=True, text=True)
        self.assertEqual(checked.returncode, 0, checked.stderr)
        path = os.path.join(self.dir, "_layoutctl")
        with open(path, "w") as handle:
            handle.write(script)
        # Outside a completion: compdef registers _layoutctl; _layoutctl_ask is the daemon query.
        probe = ("autoload -U compinit && compinit -u -D; source %s; print -r -- ${_comps[layoutctl]}; "
                 "_layoutctl_line=(layoutctl -s %s get ''); _layoutctl_ask views; _layoutctl_ask strategies; "
                 # Short options combine (-js PATH, -jsPATH); parameters by strategy.
                 "_layoutctl_line=(layoutctl -js %s get ''); print -r -- -js $(_layoutctl_ask views); "
                 "_layoutctl_line=(layoutctl -js%s get ''); print -r -- -jsPATH $(_layoutctl_ask views); "
                 "print -r -- display $(_layoutctl_ask parameters display '')") % (
            shlex.quote(path), shlex.quote(self.daemon.path), shlex.quote(self.daemon.path), shlex.quote(self.daemon.path))
        environment = dict(os.environ, PATH=os.path.dirname(LAYOUTCTL) + os.pathsep + os.environ["PATH"])
        environment.pop("LAYOUTD_SOCKET", None)
        result = subprocess.run([zsh, "-f", "-c", probe], capture_output=True, text=True, env=environment, timeout=20)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], "_layoutctl")
        self.assertEqual(lines[1:3], ["alpha", "beta"])
        self.assertIn("waterfall", lines[3:-3])
        self.assertEqual(lines[-3:-1], ["-js alpha beta", "-jsPATH alpha beta"])
        self.assertTrue(lines[-1].startswith("display mode= columns="), lines[-1])
        self.assertIn("mode=list", lines[-1].split())


class ReadmePictureTests(unittest.TestCase):
    def test_the_readme_pictures_script_draws_both_pictures(self):
        """scripts/readme-pictures.sh (docs/img) against a real daemon, into a temporary
        directory: two PNGs as wide as the views it draws, and the views deleted after."""
        import struct
        out = tempfile.mkdtemp(prefix="layoutd-pictures-")
        self.addCleanup(shutil.rmtree, out, True)
        with Daemon() as daemon:
            result = subprocess.run(["bash", os.path.join(ROOT, "scripts", "readme-pictures.sh"), out], capture_output=True, text=True,
                                    timeout=120, env=dict(os.environ, LAYOUTD_SOCKET=daemon.path, LAYOUTCTL=LAYOUTCTL))
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertEqual(json.loads(ctl("views", "-j", socket_path=daemon.path).stdout)["views"], [])
        for name, minimum_width in (("flow-grid.png", 390), ("stack-transition.png", 2 * 320)):
            with open(os.path.join(out, name), "rb") as handle:
                head = handle.read(24)
            self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n", name)
            width, height = struct.unpack(">II", head[16:24])
            self.assertGreaterEqual(width, minimum_width, name)
            self.assertGreater(height, 300, name)


class RenderTests(unittest.TestCase):
    def test_render_writes_a_valid_svg_of_the_layout(self):
        directory = tempfile.mkdtemp(prefix="layoutctl-render-")
        with Daemon() as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)

            run("create", "grid", "--width", "320", "--height", "230", "--param", "itemSize=100x100", "--param", "headerReferenceSize=320x30", "--items", "9")
            run("select", "grid", "i4")
            svg_path = os.path.join(directory, "grid.svg")
            run("render", "grid", "--svg", svg_path, "--rect", "0,0,320,500")
            root = ET.parse(svg_path).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            groups = [element for element in root.iter(ns + "g") if "element" in element.get("class", "").split()]
            cells = sorted(group.get("data-id") for group in groups if group.get("data-kind") == "cell")
            self.assertEqual(cells, sorted("i%d" % n for n in range(9)))
            headers = [group for group in groups if group.get("data-kind") == "header"]
            self.assertEqual(len(headers), 1)
            selected = [group.get("data-id") for group in groups if "selected" in group.get("class", "").split()]
            self.assertEqual(selected, ["i4"])
            viewports = [rect for rect in root.iter(ns + "rect") if rect.get("class") == "viewport"]
            self.assertEqual(len(viewports), 1)
            self.assertIn("content 320 × ", "".join(root.itertext()))
            # Stacks and a transition side by side.
            run("create", "stack", "--strategy", "collapsible", "--width", "320", "--height", "400", "--param", "itemSize=90x90", "--items", "12")
            run("select", "stack", "i1", "i2", "i3", "i6")
            stack_path = os.path.join(directory, "stack.svg")
            run("render", "stack", "--svg", stack_path, "--transition", "--configure", "collapsed=true")
            root = ET.parse(stack_path).getroot()
            panels = [group for group in root.iter(ns + "g") if group.get("class") == "panel"]
            self.assertEqual([panel.get("data-side") for panel in panels], ["from", "to"])
            counts = [text.text for text in root.iter(ns + "text") if text.get("class") == "stack-count"]
            self.assertEqual(counts, ["×3"])
            if shutil.which("rsvg-convert"):
                for path in (svg_path, stack_path):
                    png = path[:-4] + ".png"
                    converted = subprocess.run(["rsvg-convert", path, "-o", png], capture_output=True, text=True)
                    self.assertEqual(converted.returncode, 0, converted.stderr)
                    with open(png, "rb") as handle:
                        self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n")
            else:
                self.fail("rsvg-convert is missing (Debian: librsvg2-bin)")

    def test_render_png_is_the_svg_drawn_at_its_size(self):
        import struct
        import zlib
        directory = tempfile.mkdtemp(prefix="layoutctl-render-")
        with Daemon() as daemon:
            def run(*arguments):
                result = ctl(*arguments, socket_path=daemon.path)
                self.assertEqual(result.returncode, 0, result.stderr)
                return result

            run("create", "feat", "--strategy", "ultravisual", "--width", "320", "--height", "480", "--items", "12")
            svg_path, png_path = os.path.join(directory, "feat.svg"), os.path.join(directory, "feat.png")
            run("render", "feat", "--svg", svg_path, "--png", png_path, "--scale", "1.5")
            root = ET.parse(svg_path).getroot()
            with open(png_path, "rb") as handle:
                data = handle.read()
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            length, kind = struct.unpack(">I4s", data[8:16])
            self.assertEqual((length, kind), (13, b"IHDR"))
            width, height = struct.unpack(">II", data[16:24])
            self.assertEqual(struct.unpack(">I", data[29:33])[0], zlib.crc32(data[12:29]))
            self.assertEqual((width, height), (math.ceil(float(root.get("width"))), math.ceil(float(root.get("height")))))
            self.assertGreater(width, 320)
            # Only --png: no SVG needed; a directory that does not exist is a clear failure.
            only = os.path.join(directory, "only.png")
            self.assertIn("wrote %s (%d × %d)" % (only, width, height), run("render", "feat", "--png", only, "--scale", "1.5").stderr)
            failed = ctl("render", "feat", "--png", os.path.join(directory, "missing", "x.png"), socket_path=daemon.path)
            self.assertEqual(failed.returncode, 1)
            self.assertIn("cannot write", failed.stderr)

    def test_render_shows_effects_offset_and_legend(self):
        directory = tempfile.mkdtemp(prefix="layoutctl-render-")
        ns = "{http://www.w3.org/2000/svg}"
        with Daemon() as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)

            run("create", "feat", "--strategy", "ultravisual", "--width", "320", "--height", "480", "--items", "12")
            run("scroll", "feat", "--y", "150")
            path = os.path.join(directory, "feat.svg")
            run("render", "feat", "--svg", path)
            root = ET.parse(path).getroot()
            text = "".join(root.itertext())
            self.assertIn("offset 0, 150", text)
            legend = [entry.get("data-key") for entry in root.iter(ns + "g") if entry.get("class") == "legend-entry"]
            for key in ("cell", "supplementary", "viewport", "cover", "title-scale", "effects"):
                self.assertIn(key, legend)
            self.assertNotIn("selected", legend)
            query = json.loads(run("query", "feat", "--rect", "0,0,320,2000", "--json"))
            effects = {element["id"]: element["effects"] for element in query["elements"] if element["kind"] == "cell"}
            groups = {group.get("data-id"): group for group in root.iter(ns + "g") if "element" in group.get("class", "").split()}
            self.assertGreater(len(groups), 2)
            sizes = {}
            for id, group in groups.items():
                expected = effects[id]
                self.assertIn("coverAlpha=", group.get("data-effects"))
                cover = [rect for rect in group.iter(ns + "rect") if rect.get("class") == "effect-cover"]
                self.assertEqual(len(cover), 1)
                self.assertLessEqual(abs(float(cover[0].get("fill-opacity")) - expected["coverAlpha"]), 0.0051)
                title = group.find(ns + "title").text
                self.assertIn("titleScale", title)
                label = [t for t in group.iter(ns + "text") if t.get("class") == "label"][0]
                sizes[id] = (expected["titleScale"], float(label.get("font-size")))
            # The label's size follows titleScale: the featured cell's title is the largest.
            by_scale = sorted(sizes.values())
            self.assertLess(by_scale[0][1], by_scale[-1][1])

    def test_render_transition_leaves_the_view_unchanged(self):
        directory = tempfile.mkdtemp(prefix="layoutctl-render-")
        with Daemon() as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)

            run("create", "stack", "--strategy", "collapsible", "--width", "320", "--height", "400", "--param", "itemSize=90x90", "--items", "12")
            run("select", "stack", "i1", "i2", "i3", "i6")
            # --monitor prints the snapshot once subscribed: after that line, every change is an event.
            events = subprocess.Popen([LAYOUTCTL, "-s", daemon.path, "watch", "stack", "--json", "--monitor"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            self.addCleanup(events.stdout.close)

            def next_line():
                ready, _, _ = select.select([events.stdout], [], [], 30)
                self.assertTrue(ready, "the watcher printed nothing within 30 s")
                return json.loads(events.stdout.readline())

            try:
                self.assertEqual(next_line()["view"], "stack")
                before = run("get", "stack", "--json")
                epoch = json.loads(before)["epoch"]
                path = os.path.join(directory, "stack.svg")
                run("render", "stack", "--svg", path, "--transition", "--configure", "collapsed=true")
                run("render", "stack", "--svg", os.path.join(directory, "switch.svg"), "--transition", "--switch", "flow")
                run("render", "stack", "--svg", os.path.join(directory, "select.svg"), "--transition", "--select", "i7")
                self.assertEqual(run("get", "stack", "--json"), before)
                self.assertFalse(json.loads(before)["params"]["collapsed"])
                run("scroll", "stack", "--y", "0")
                # The next event is that scroll's: the renders sent none.
                self.assertEqual(next_line()["params"]["epoch"], epoch + 1)
            finally:
                events.kill()
                events.wait()
            root = ET.parse(path).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            titles = [t.text for t in root.iter(ns + "text") if t.get("class") == "title"]
            self.assertIn("(preview): epoch %d" % (epoch + 1), titles[1])
            counts = [t.text for t in root.iter(ns + "text") if t.get("class") == "stack-count"]
            self.assertEqual(counts, ["×3"])

    def test_render_progress_draws_the_interactive_transition_at_that_point(self):
        directory = tempfile.mkdtemp(prefix="layoutctl-render-")
        with Daemon() as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)
            run("create", "photos", "--strategy", "flow", "--width", "320", "--height", "200", "--param", "itemSize=100x100", "--items", "5")
            before = json.loads(run("get", "photos", "--json"))
            path = os.path.join(directory, "half.svg")
            run("render", "photos", "--svg", path, "--switch", "display", "--configure", "mode=list", "--configure", "rowHeight=50", "--progress", "0.5")
            after = json.loads(run("get", "photos", "--json"))
            self.assertEqual(after["epoch"], before["epoch"] + 1, "the revert is the one change")
            self.assertEqual(dict(after, epoch=0), dict(before, epoch=0), "the view is as it was")
            root = ET.parse(path).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            titles = [t.text for t in root.iter(ns + "text") if t.get("class") == "title"]
            self.assertIn("(flow to display) at 0.5 of the transition", titles[0])
            # Each cell halfway from a 100 × 100 flow cell to a 320 × 50 row; i1 from (110, 0) to (0, 60).
            frames = [r for r in root.iter(ns + "rect") if r.get("class") == "frame"]
            self.assertEqual([(r.get("width"), r.get("height")) for r in frames], [("210", "75")] * 5)
            self.assertEqual((float(frames[1].get("x")) - float(frames[0].get("x")), float(frames[1].get("y")) - float(frames[0].get("y"))), (55, 30))
            # The same through the commands: begin, scrub, end.
            pairs = json.loads(run("begin-transition", "photos", "display", "mode=list", "rowHeight=50", "--json"))["pairs"]
            self.assertEqual(len(pairs), 5)
            half = json.loads(run("update-transition", "photos", "0.5", "--json"))
            self.assertEqual(half["elements"][1]["frame"], {"x": 55, "y": 30, "width": 210, "height": 75})
            refused = ctl("render", "photos", "--svg", path, "--configure", "minimumLineSpacing=20", "--progress", "0.5", socket_path=daemon.path)
            self.assertEqual(refused.returncode, 2)
            self.assertIn("TransitionInProgress", refused.stderr)
            ended = json.loads(run("end-transition", "photos", "commit", "--json"))
            self.assertEqual(ended["transition"]["duration"], 0.15)
            self.assertEqual(json.loads(run("get", "photos", "--json"))["strategy"], "display")
    def test_render_move_draws_the_drag_state_and_leaves_the_view_unchanged(self):
        directory = tempfile.mkdtemp(prefix="layoutctl-render-")
        with Daemon() as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)
            run("create", "grid", "--width", "320", "--height", "480", "--param", "itemSize=100x100", "--items", "30")
            before = run("get", "grid", "--json")
            path = os.path.join(directory, "drag.svg")
            run("render", "grid", "--svg", path, "--move", "i4", "--to", "60,400")
            self.assertEqual(run("get", "grid", "--json"), before, "a previewed drag changes nothing")
            root = ET.parse(path).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            moving = [g for g in root.iter(ns + "g") if "moving" in (g.get("class") or "").split()]
            self.assertEqual([g.get("data-id") for g in moving], ["i4"])
            frame = [r for r in moving[0].iter(ns + "rect")][0]
            # Centred on the finger: viewport (60, 400) at offset 0, a 100 x 100 cell.
            self.assertEqual((float(frame.get("x")) - float(root.find(".//" + ns + "rect[@class='region']").get("x")),
                              float(frame.get("width"))), (10.0, 100.0))
            self.assertEqual(len([c for c in root.iter(ns + "circle") if c.get("class") == "finger"]), 1)
            titles = [t.text for t in root.iter(ns + "text") if t.get("class") == "title"]
            self.assertIn("dragging i4 (preview): target [0, 9]", titles[0])
            # i9 gave its slot to i4's target: the others re-flowed.
            cells = {g.get("data-id"): g for g in root.iter(ns + "g") if g.get("data-id")}
            self.assertIn("i9", cells)
            result = subprocess.run([LAYOUTCTL, "-s", daemon.path, "render", "grid", "--svg", path, "--move", "i4"],
                                    capture_output=True, text=True)
            self.assertEqual(result.returncode, 64, result.stderr)



    def test_a_drag_through_the_move_commands(self):
        with Daemon() as daemon:
            run = functools.partial(ctl_ok, self, daemon.path)
            run("create", "stack", "--strategy", "collapsible", "--width", "320", "--height", "330", "--items", "12",
                "--param", "itemSize=100x100", "--param", "collapsed=true")
            run("select", "stack", "i2", "i3", "i4")
            begun = run("begin-move", "stack", "i3", "--table")
            self.assertIn("moving i3 [i2 i3 i4] to 0.2, auto-scroll 0,0 pt/s", begun)
            moved = json.loads(run("update-move", "stack", "60,170", "--json"))
            self.assertEqual((moved["movingItems"], moved["target"]), (["i2", "i3", "i4"], {"section": 0, "item": 3}))
            refused = ctl("begin-move", "stack", "i0", socket_path=daemon.path)
            self.assertEqual(refused.returncode, 2)
            self.assertIn("MoveInProgress", refused.stderr)
            bad = ctl("end-move", "stack", "maybe", socket_path=daemon.path)
            self.assertEqual(bad.returncode, 64)
            ended = run("end-move", "stack", "commit", "--table")
            self.assertIn("move of i3 committed", ended)
            self.assertEqual(json.loads(run("item", "stack", "i2", "--json"))["attributes"]["item"], 3)
            self.assertEqual(ctl("update-move", "stack", "1,1", socket_path=daemon.path).returncode, 2)


class ScenarioScriptTests(unittest.TestCase):
    def test_strategy_scenarios_through_layoutctl_and_jq(self):
        with Daemon() as daemon:
            script = os.path.join(ROOT, "system-tests", "e2e", "layoutctl-scenarios.sh")
            result = subprocess.run(["bash", script], capture_output=True, text=True, timeout=300,
                                    env=dict(os.environ, LAYOUTD_SOCKET=daemon.path, LAYOUTCTL=LAYOUTCTL))
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("all scenarios passed", result.stdout)


if __name__ == "__main__":
    unittest.main()
