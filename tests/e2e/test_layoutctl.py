"""layoutctl end to end: golden help and output files, exit codes of every error class, the
progress bar on a terminal, watch, render (SVG parsed and rendered to PNG), the man page and
completions, and the strategy scenarios as a shell script that uses only layoutctl and jq.

Re-record the golden files with LAYOUTCTL_RECORD=1."""
import json
import math
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import xml.etree.ElementTree as ET

from harness import DAEMON, ROOT, Client, Daemon

LAYOUTCTL = os.path.join(os.path.dirname(DAEMON), "layoutctl")
GOLDEN = os.path.join(ROOT, "tests", "golden")
RECORD = os.environ.get("LAYOUTCTL_RECORD") == "1"


def ctl(*arguments, socket_path=None, input=None, env=None, timeout=60):
    environment = dict(os.environ)
    environment.pop("LAYOUTD_SOCKET", None)
    if socket_path:
        environment["LAYOUTD_SOCKET"] = socket_path
    if env:
        environment.update(env)
    return subprocess.run([LAYOUTCTL] + list(arguments), capture_output=True, text=True, input=input, env=environment, timeout=timeout)


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


class PagingTests(unittest.TestCase):
    def test_query_reads_every_page(self):
        # A page holds at most max-window-elements; layoutctl follows next to the end.
        with Daemon("--set", "max-window-elements=5") as daemon:
            def run(*arguments):
                result = ctl(*arguments, socket_path=daemon.path)
                self.assertEqual(result.returncode, 0, result.stderr)
                return result.stdout
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
            ("insert", ["insert", "photos", "new:320x40", "--at", "0", "--animated"]),
            ("move", ["move", "photos", "i7", "--at", "1"]),
            ("delete", ["delete", "photos", "i0", "i1"]),
            ("configure", ["configure", "photos", "minimumInteritemSpacing=0", "itemSize=80x80"]),
            ("switch", ["switch", "photos", "display", "mode=list", "rowHeight=50"]),
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

    def test_watch_streams_events_one_line_each(self):
        self.run_ctl("create", "watched", "--width", "100", "--height", "100", "--items", "50", "-q")
        watcher = subprocess.Popen([LAYOUTCTL, "-s", self.daemon.path, "watch", "watched", "--count", "3"], stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        for y in (60, 120, 180):
            self.run_ctl("scroll", "watched", "--y", str(y), "-q")
        output, _ = watcher.communicate(timeout=20)
        events = [json.loads(line) for line in output.splitlines()]
        self.assertEqual([event["seq"] for event in events], [1, 2, 3])
        self.assertEqual([event["params"]["contentOffset"]["y"] for event in events], [60, 120, 180])
        # On a terminal: one summary line per event.
        watcher = subprocess.Popen(["script", "-qec", "%s -s %s watch watched --count 1" % (LAYOUTCTL, self.daemon.path), "/dev/null"],
                                   stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
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
        self.assertIn("loaded 60000 items into big in batches", result.stdout)
        self.assertEqual(json.loads(self.run_ctl("get", "big"))["itemCount"], 60000)
        # Piped: no progress bar, a JSON result.
        small = os.path.join(directory, "small.jsonl")
        with open(small, "w") as handle:
            handle.write('{"id":"a","section":"one"}\n{"id":"b","section":"two"}\n{"id":"c","section":"one"}\n')
        result = ctl("load", "big", small, socket_path=self.daemon.path)
        self.assertEqual(result.stderr, "")
        self.assertEqual(json.loads(result.stdout)["changes"]["insertedItems"], ["a", "c", "b"])


class RenderTests(unittest.TestCase):
    def test_render_writes_a_valid_svg_of_the_layout(self):
        directory = tempfile.mkdtemp(prefix="layoutctl-render-")
        with Daemon() as daemon:
            def run(*arguments):
                result = ctl(*arguments, socket_path=daemon.path)
                self.assertEqual(result.returncode, 0, result.stderr)
                return result.stdout

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
            def run(*arguments):
                result = ctl(*arguments, socket_path=daemon.path)
                self.assertEqual(result.returncode, 0, result.stderr)
                return result.stdout

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
            def run(*arguments):
                result = ctl(*arguments, socket_path=daemon.path)
                self.assertEqual(result.returncode, 0, result.stderr)
                return result.stdout

            run("create", "stack", "--strategy", "collapsible", "--width", "320", "--height", "400", "--param", "itemSize=90x90", "--items", "12")
            run("select", "stack", "i1", "i2", "i3", "i6")
            events = subprocess.Popen([LAYOUTCTL, "-s", daemon.path, "watch", "stack", "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            self.addCleanup(events.stdout.close)
            try:
                # Subscribed once the watcher reports this scroll (epoch 2).
                while True:
                    run("scroll", "stack", "--y", "0")
                    if json.loads(events.stdout.readline())["params"]["epoch"] >= 2:
                        break
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
                self.assertEqual(json.loads(events.stdout.readline())["params"]["epoch"], epoch + 1)
            finally:
                events.kill()
                events.wait()
            root = ET.parse(path).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            titles = [t.text for t in root.iter(ns + "text") if t.get("class") == "title"]
            self.assertIn("(preview): epoch %d" % (epoch + 1), titles[1])
            counts = [t.text for t in root.iter(ns + "text") if t.get("class") == "stack-count"]
            self.assertEqual(counts, ["×3"])



class ScenarioScriptTests(unittest.TestCase):
    def test_strategy_scenarios_through_layoutctl_and_jq(self):
        with Daemon() as daemon:
            script = os.path.join(ROOT, "tests", "e2e", "layoutctl-scenarios.sh")
            result = subprocess.run(["bash", script], capture_output=True, text=True, timeout=300,
                                    env=dict(os.environ, LAYOUTD_SOCKET=daemon.path, LAYOUTCTL=LAYOUTCTL))
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("all scenarios passed", result.stdout)


if __name__ == "__main__":
    unittest.main()
