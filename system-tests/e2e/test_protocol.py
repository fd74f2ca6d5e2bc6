"""The published contract, checked against the real daemon: every transcript in
protocol/examples and protocol/conformance replays exactly, the conformance files keep their
naming promises, every method and event has an example, and every line of every transcript
validates against protocol/schemas; and no document links outside the repository."""
import json
import os
import re
import subprocess
import unittest

import transcripts
from harness import ROOT

SCHEMAS = os.path.join(ROOT, "protocol", "schemas")


def transcript_lines(path):
    return transcripts.read_transcript(path)


def parsed(line):
    try:
        return json.loads(line)
    except ValueError:
        return None


class TranscriptTests(unittest.TestCase):
    def test_every_transcript_replays_exactly(self):
        paths = transcripts.all_transcripts()
        self.assertGreater(len(paths), 30)
        for path in paths:
            with self.subTest(transcript=os.path.relpath(path, ROOT)):
                problems = transcripts.replay(path)
                self.assertEqual(problems, [], "\n".join(problems))

    def test_conformance_files_keep_their_promises(self):
        folder = os.path.join(ROOT, "protocol", "conformance")
        names = sorted(name for name in os.listdir(folder) if name.endswith(".jsonl"))
        self.assertTrue(any(name.startswith("y_") for name in names))
        self.assertTrue(any(name.startswith("n_") for name in names))
        for name in names:
            with self.subTest(file=name):
                self.assertRegex(name, r"^[yn]_")
                replies = [parsed(line) for line in transcript_lines(os.path.join(folder, name)) if transcripts.is_expected(line)]
                errors = [reply["error"]["name"] for reply in replies if "error" in reply]
                if name.startswith("y_"):
                    self.assertEqual(errors, [], "a y_ file must succeed throughout")
                    continue
                # n_<ErrorName>_<what>.jsonl: that error, only that one, and a final
                # successful read showing the state the bad requests left unchanged.
                expected_error = name.split("_")[1]
                self.assertIn(expected_error, errors)
                self.assertLessEqual(set(errors), {expected_error, "InvalidBatch"} if expected_error == "DuplicateItemID" else {expected_error})
                self.assertIn("result", replies[-1], "ends with a successful read of the state")

    def test_every_method_and_event_has_an_example(self):
        describe = [parsed(line) for line in transcript_lines(os.path.join(ROOT, "protocol", "examples", "describe.jsonl"))]
        methods = {method["name"] for method in describe[1]["result"]["methods"]}
        events = set(describe[1]["result"]["events"])
        seen_methods, seen_events = set(), set()
        examples = os.path.join(ROOT, "protocol", "examples")
        for name in os.listdir(examples):
            for line in transcript_lines(os.path.join(examples, name)):
                value = parsed(line)
                if isinstance(value, dict) and "method" in value:
                    seen_methods.add(value["method"])
                if isinstance(value, dict) and "event" in value:
                    seen_events.add(value["event"])
        self.assertEqual(methods - seen_methods, set())
        # The events a single scripted connection cannot provoke on cue (a slow reader's
        # resync, a stopping daemon) are covered by test_daemon.py.
        self.assertEqual(events - seen_events, {"view.resync", "daemon.shutdown"})


class DeclarationTests(unittest.TestCase):
    """Every error a transcript's reply carries and every event a request causes is one its
    method declares in protocol/interface.json (or, for errors, one any request may get)."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(ROOT, "protocol", "interface.json")) as handle:
            interface = json.load(handle)
        cls.methods = {method["name"]: method for method in interface["methods"]}
        cls.request_errors = {error["name"] for error in interface["errors"] if error.get("scope") in ("line", "request")}

    def declared_problems(self, path):
        problems, checked = [], [0, 0]
        for requests, expected in transcripts.steps(transcript_lines(path)):
            sent = [parsed(line) for line in requests]
            methods = {json.dumps(v.get("id")): v.get("method") for v in sent if isinstance(v, dict) and "id" in v}
            lone = sent[0].get("method") if len(sent) == 1 and isinstance(sent[0], dict) else None
            cause = lone
            for line in expected:
                value = parsed(line)
                if "event" in value:
                    # A request's own events follow its reply (a notification's, the request).
                    if cause in self.methods and value.get("subscription") is not None:
                        checked[1] += 1
                        if value["event"] not in self.methods[cause]["events"]:
                            problems.append("%s: %s caused %s" % (os.path.basename(path), cause, value["event"]))
                    continue
                if value.get("id") is None:
                    continue  # an undecodable line's or the connection's error, no method's
                method = cause = methods.get(json.dumps(value["id"]))
                if "error" in value and method in self.methods:
                    checked[0] += 1
                    name = value["error"]["name"]
                    if name not in self.request_errors and name not in self.methods[method]["errors"]:
                        problems.append("%s: %s answered %s" % (os.path.basename(path), method, name))
        return problems, checked

    def test_errors_and_events_are_declared_by_their_methods(self):
        problems, errors, events = [], 0, 0
        for path in transcripts.all_transcripts():
            found, (checked_errors, checked_events) = self.declared_problems(path)
            problems += found
            errors += checked_errors
            events += checked_events
        self.assertEqual(problems, [])
        self.assertGreater(errors, 50)
        self.assertGreater(events, 20)


@unittest.skipUnless(os.path.isdir(SCHEMAS), "protocol/schemas not present")
class SchemaTests(unittest.TestCase):
    # Schema files have relative $ids ("common.json", "methods/view.scroll.params.json");
    # resolved against one base, their relative $refs find each other.
    BASE = "https://layoutd.invalid/protocol/schemas/"

    @classmethod
    def setUpClass(cls):
        import warnings

        import jsonschema

        cls.jsonschema = jsonschema
        cls.documents = {}
        for folder, _, files in os.walk(SCHEMAS):
            for name in files:
                if name.endswith(".json"):
                    path = os.path.join(folder, name)
                    with open(path) as handle:
                        cls.documents[os.path.relpath(path, SCHEMAS)] = json.load(handle)
        # Absolute $ids in the copies validated against: old resolvers would otherwise join a
        # relative $id onto the document's own address twice.
        store = {}
        for relative, document in cls.documents.items():
            address = cls.BASE + document.get("$id", relative)
            store[address] = dict(document, **{"$id": address})
        with warnings.catch_warnings():
            # RefResolver is what Debian 12's jsonschema (4.10) has; newer ones deprecate it.
            warnings.simplefilter("ignore", DeprecationWarning)
            cls.resolver = jsonschema.RefResolver(base_uri=cls.BASE, referrer={}, store=store)

    def test_schemas_are_valid_draft_2020_12(self):
        for relative, document in self.documents.items():
            with self.subTest(schema=relative):
                self.jsonschema.Draft202012Validator.check_schema(document)

    def test_every_method_has_params_and_result_schemas(self):
        describe = [parsed(line) for line in transcript_lines(os.path.join(ROOT, "protocol", "examples", "describe.jsonl"))]
        for method in describe[1]["result"]["methods"]:
            for part in ("params", "result"):
                self.assertIn(os.path.join("methods", "%s.%s.json" % (method["name"], part)), self.documents)
        for event in describe[1]["result"]["events"]:
            self.assertIn(os.path.join("events", event + ".json"), self.documents)

    def test_every_transcript_line_matches_the_schemas(self):
        checked = 0
        for path in transcripts.all_transcripts():
            pending = {}
            for line in transcript_lines(path):
                value = parsed(line)
                if not isinstance(value, dict):
                    continue
                where = "%s: %s" % (os.path.relpath(path, ROOT), line[:160].decode("utf-8", "replace"))
                if "event" in value:
                    self.check("events/%s.json" % value["event"], value, where)
                elif "result" in value or "error" in value:
                    method, params = pending.pop(json.dumps(value.get("id")), (None, None))
                    if "error" in value:
                        self.check("envelope.json#/$defs/errorReply", value, where)
                    elif method:
                        self.check("methods/%s.result.json" % method, value["result"], where)
                        # Params the daemon accepted must pass the params schema too.
                        self.check("methods/%s.params.json" % method, params, where)
                elif os.path.basename(path).startswith("n_"):
                    continue  # deliberately malformed requests
                elif "method" in value:
                    if "id" in value:
                        pending[json.dumps(value["id"])] = (value["method"], value.get("params", {}))
                    self.check("envelope.json#/$defs/request", value, where)
                checked += 1
        self.assertGreater(checked, 200)

    def test_describe_serves_exactly_the_published_schemas(self):
        checked = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "generate-protocol.py"), "--check"],
                                 capture_output=True, text=True)
        self.assertEqual(checked.returncode, 0, checked.stdout)
        describe = [parsed(line) for line in transcript_lines(os.path.join(ROOT, "protocol", "examples", "describe.jsonl"))][1]["result"]
        for method in describe["methods"]:
            self.assertEqual(method["paramsSchema"], self.documents[os.path.join("methods", method["name"] + ".params.json")])
            self.assertEqual(method["resultSchema"], self.documents[os.path.join("methods", method["name"] + ".result.json")])
        for name, schema in describe["eventSchemas"].items():
            self.assertEqual(schema, self.documents[os.path.join("events", name + ".json")])
        self.assertEqual(describe["schemas"], {"common.json": self.documents["common.json"], "envelope.json": self.documents["envelope.json"]})

    def test_resync_and_shutdown_events_match_their_schemas(self):
        import signal
        import socket

        from harness import Client, Daemon, flow_view

        daemon = Daemon("--set", "output-cap=16384").start()
        worker = Client(daemon.path)
        worker.call("view.create", flow_view("v", 5000))
        sleeper = Client(daemon.path)
        sleeper.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sleeper.call("view.subscribe", {"view": "v"})
        for index in range(300):
            worker.call("view.scroll", {"view": "v", "offset": {"x": 0, "y": (index * 211) % 40000}})
        events = []
        sleeper.call("daemon.sync", events=events)
        daemon.signal(signal.SIGTERM)
        while True:
            message = sleeper.read()
            if message is None:
                break
            events.append(message)
        daemon.stop()
        names = [event["event"] for event in events]
        self.assertIn("view.resync", names)
        self.assertEqual(names[-1], "daemon.shutdown")
        for event in events:
            self.check("events/%s.json" % event["event"], event, event["event"])

    def check(self, reference, instance, where):
        relative, _, pointer = reference.partition("#")
        document = self.documents[relative]
        schema = {"$ref": self.BASE + document.get("$id", relative) + ("#" + pointer if pointer else "")}
        errors = sorted(self.jsonschema.Draft202012Validator(schema, resolver=self.resolver).iter_errors(instance), key=str)
        # A transcript's wildcard stands for a value that varies (uptime); it is not checked.
        errors = [error for error in errors if error.instance != transcripts.WILDCARD]
        self.assertEqual([], ["%s at %s" % (error.message, list(error.absolute_path)) for error in errors[:3]], where)


class DocumentLinkTests(unittest.TestCase):
    """A clone has only the repository: every Markdown document's relative links (and the paths
    it quotes with ../) must stay inside it, the links must name files that exist, and a
    `#fragment` must name a heading (or an explicit anchor) of the Markdown document it points
    to, as GitHub renders it."""

    LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
    REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?", re.M)
    FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
    CODE = re.compile(r"`([^`\n]+)`")

    @staticmethod
    def documents():
        listed = subprocess.run(
            ["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.md"],
            capture_output=True, text=True)
        if listed.returncode == 0:
            return sorted(set(name for name in listed.stdout.split("\0") if name))
        found = []  # not a git checkout (an unpacked tarball): every .md outside build output
        for folder, folders, files in os.walk(ROOT):
            folders[:] = [name for name in folders if name not in (".git", ".build")]
            found += [os.path.relpath(os.path.join(folder, name), ROOT) for name in files if name.endswith(".md")]
        return sorted(found)

    HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.M)
    EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)

    @staticmethod
    def inside(path):
        return os.path.commonpath([ROOT, path]) == ROOT

    @classmethod
    def anchors(cls, text):
        """The fragments a Markdown document answers to: GitHub's heading slugs (lower case,
        punctuation but hyphens dropped, spaces to hyphens, repeats numbered -1, -2 ...) and
        explicit <a id> / <a name> anchors."""
        prose = cls.FENCE.sub("", text)
        found, seen = set(cls.EXPLICIT_ANCHOR.findall(prose)), {}
        for heading in cls.HEADING.findall(prose):
            heading = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays
            slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else "%s-%d" % (slug, count))
        return found

    def problems(self, text, folder):
        """What is wrong with the links in `text`, a document in `folder` (an absolute path)."""
        prose = self.FENCE.sub("", text)
        problems = []
        for target in self.LINK.findall(prose) + self.REFERENCE.findall(prose):
            if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target):
                continue  # a URL (https:, mailto:)
            path, _, fragment = target.partition("#")
            path = path.split("?", 1)[0]
            if not path:
                if fragment not in self.anchors(text):
                    problems.append("links to a missing heading: %s" % target)
                continue
            resolved = os.path.normpath(os.path.join(ROOT if path.startswith("/") else folder, path.lstrip("/")))
            if path.startswith("/") or not self.inside(resolved):
                problems.append("links outside the repository: %s" % target)
            elif not os.path.exists(resolved):
                problems.append("links to a missing file: %s" % target)
            elif fragment and resolved.endswith(".md"):
                with open(resolved, encoding="utf-8") as handle:
                    if fragment not in self.anchors(handle.read()):
                        problems.append("links to a missing heading: %s" % target)
        for quoted in self.CODE.findall(text):
            # A path that starts with ../, not one inside another (`$ORIGIN/../lib` is a
            # RUNPATH, relative to a binary, not to the document).
            for path in re.findall(r"(?:^|(?<=[\s(=]))(?:\.\./)+[^\s`'\"),]*", quoted):
                if not self.inside(os.path.normpath(os.path.join(folder, path))):
                    problems.append("quotes a path outside the repository: %s" % path)
        return problems

    def test_documents_link_only_inside_the_repository(self):
        documents = self.documents()
        for required in ("README.md", "docs/flow-layout.md", "docs/layout-semantics.md", "docs/running.md", "docs/plugins.md"):
            self.assertIn(required, documents)
        for relative in documents:
            with self.subTest(document=relative):
                path = os.path.join(ROOT, relative)
                with open(path, encoding="utf-8") as handle:
                    problems = self.problems(handle.read(), os.path.dirname(path))
                self.assertEqual(problems, [], "\n".join(problems))

    def test_the_checker_refuses_what_a_clone_lacks(self):
        # The README once sent readers to ../shared/design/layout-semantics.md.
        text = ("[rules](../../shared/design/layout-semantics.md), [gone](missing.md),\n"
                "[ok](flow-layout.md#lines), [no](flow-layout.md#no-such-heading), [here](#nowhere),\n"
                "see `../../shared/design/x.md`, ![img](/etc/passwd)\n"
                "a RUNPATH `$ORIGIN/../lib/layoutd/runtime` is no document path\n"
                "```\n[in a fence](../../elsewhere.md)\n```\n")
        self.assertEqual(self.problems(text, os.path.join(ROOT, "docs")), [
            "links outside the repository: ../../shared/design/layout-semantics.md",
            "links to a missing file: missing.md",
            "links to a missing heading: flow-layout.md#no-such-heading",
            "links to a missing heading: #nowhere",
            "links outside the repository: /etc/passwd",
            "quotes a path outside the repository: ../../shared/design/x.md",
        ])

    def test_anchors_are_githubs_heading_slugs(self):
        text = ("# layoutd\n## The `flow` strategy\n## The GTK library's packages\n### Notes\n### Notes\n"
                "## [protocol/](protocol/README.md) and more\n<a id=\"state-directory\"></a>\n```\n## not a heading\n```\n")
        self.assertEqual(self.anchors(text), {"layoutd", "the-flow-strategy", "the-gtk-librarys-packages", "notes", "notes-1",
                                              "protocol-and-more", "state-directory"})


def sections(count, prefix="i", section="s", header=None):
    """One section of `count` items with default sizes (and a header size, if given)."""
    value = {"id": section, "items": [{"id": "%s%d" % (prefix, n)} for n in range(count)]}
    if header:
        value["headerSize"] = {"width": header[0], "height": header[1]}
    return [value]


def view_params(name, strategy, params, count=300, width=375, height=667, margin=100, header=None):
    return {"view": name, "strategy": strategy, "params": params, "viewport": {"width": width, "height": height},
            "windowMargin": margin, "sections": sections(count, header=header)}


FLOW = ("flow", {"itemSize": {"width": 100, "height": 100}, "headerReferenceSize": {"width": 375, "height": 40}})
COLLAPSIBLE = ("collapsible", {"itemSize": {"width": 90, "height": 90}})
ULTRAVISUAL = ("ultravisual", {})
DISPLAY = ("display", {})
# Section "s" as a carousel: its own offset is what view.scrollSection and view.scrollSectionEnd move.
COMPOSITIONAL = ("compositional", {"section": {
    "group": {"direction": "horizontal", "size": {"width": {"absolute": 150}, "height": {"absolute": 100}},
              "subitems": [{"size": {"width": {"fractionalWidth": 1}, "height": {"fractionalHeight": 1}}}]},
    "interGroupSpacing": 10, "orthogonalScrollingBehavior": "groupPaging"}})

# Every mutating method named by its view (daemon.describe's `mutates`), each on a strategy where it changes something,
# animated wherever the method animates; after a first scroll, so anchors and windows matter.
MUTATIONS = [
    ("view.setData", FLOW, {"animated": True, "sections": [
        {"id": "s", "items": [{"id": "i%d" % n} for n in [5, 0, 1] + list(range(7, 250))] + [{"id": "new", "size": {"width": 120, "height": 80}}]}]}),
    ("view.update", FLOW, {"animated": True, "updates": [
        {"op": "insertItems", "section": "s", "at": 1, "items": [{"id": "n1"}, {"id": "n2"}]},
        {"op": "deleteItems", "ids": ["i3", "i12"]}, {"op": "moveItem", "id": "i20", "section": "s", "at": 0},
        {"op": "reloadItems", "items": [{"id": "i8", "size": {"width": 200, "height": 150}}]}]}),
    ("view.measure", FLOW, {"animated": True, "sizes": [{"id": "i2", "size": {"width": 100, "height": 180}}, {"id": "i30", "size": {"width": 60, "height": 60}}]}),
    ("view.select", COLLAPSIBLE, {"animated": True, "ids": ["i1", "i2", "i3", "i9"], "mode": "add"}),
    ("view.scroll", ULTRAVISUAL, {"offset": {"x": 0, "y": 333}}),
    ("view.scrollEnd", ULTRAVISUAL, {"proposed": {"x": 0, "y": 410}, "velocity": {"x": 0, "y": 900}}),
    ("view.scrollSection", COMPOSITIONAL, {"section": "s", "offset": 400}),
    ("view.scrollSectionEnd", COMPOSITIONAL, {"section": "s", "proposed": 300, "velocity": 900}),
    ("view.resize", FLOW, {"animated": True, "size": {"width": 520, "height": 600}}),
    ("view.configure", COLLAPSIBLE, {"animated": True, "params": {"collapsed": True}}),
    ("view.setStrategy", FLOW, {"animated": True, "strategy": "display", "params": {"mode": "list"}}),
    ("view.setWindowMargin", DISPLAY, {"margin": 700}),
    ("view.scrollTo", FLOW, {"id": "i120", "align": "center", "offset": 10}),
    ("view.setAnchor", FLOW, {"anchor": {"id": "i3", "edge": "end"}}),
    ("view.setLayoutDirection", FLOW, {"animated": True, "layoutDirection": "rtl"}),
    # A 4th element: requests that set the view up first (an interactive transition to end).
    ("view.endTransition", FLOW, {"commit": True}, [
        ("view.beginTransition", {"strategy": "display", "params": {"mode": "list"}}),
        ("view.updateTransition", {"progress": 0.4})]),
    ("view.beginMove", FLOW, {"id": "i7"}),
    ("view.updateMove", FLOW, {"point": {"x": 300, "y": 640}}),
    ("view.endMove", FLOW, {"commit": True}),
]

# What a mutation needs done first (on the fresh view, before the state is taken).
MUTATION_SETUP = {
    "view.updateMove": [("view.beginMove", {"id": "i7"})],
    "view.endMove": [("view.beginMove", {"id": "i7"}), ("view.updateMove", {"point": {"x": 150, "y": 400}})],
}


class DryRunTests(unittest.TestCase):
    """`"dryRun": true` on every mutating method: the real call's result plus the marker, and
    nothing changes (view, epoch, selection, item budget, subscribers)."""

    MARKER = b',"dryRun":true}}'

    @classmethod
    def setUpClass(cls):
        from harness import Client, Daemon

        cls.daemon = Daemon("--set", "max-total-items=2000").start()
        cls.client = Client(cls.daemon.path)
        cls.watcher = Client(cls.daemon.path)
        cls.counter = 0

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.watcher.close()
        cls.daemon.stop()

    def line(self, method, params):
        """The reply line's bytes, with a fixed id so that two replies compare byte for byte."""
        self.client.send(method, params, id=7)
        line = self.client.read_line()
        self.assertNotIn(b'"event"', line[:12])
        return line

    def state(self, name):
        """Everything a dry run must leave alone, as bytes: the snapshot, every element with the
        selection, and the daemon's view, item and subscription counts."""
        snapshot = self.line("view.get", {"view": name})
        query = self.line("view.query", {"view": name, "rect": {"x": -5000, "y": -5000, "width": 60000, "height": 60000}, "limit": 20000})
        status = json.loads(self.line("daemon.status", None))["result"]
        listed = self.line("view.list", None)
        return snapshot, query, {key: status[key] for key in ("views", "items", "subscriptions")}, listed

    def events(self):
        events = []
        self.watcher.call("daemon.sync", events=events)
        return events

    def fresh_view(self, strategy, params, count=300):
        DryRunTests.counter += 1
        name = "dry%d" % DryRunTests.counter
        self.assertIn("result", json.loads(self.line("view.create", view_params(name, strategy, params, count=count))))
        self.assertIn("result", json.loads(self.line("view.scroll", {"view": name, "offset": {"x": 0, "y": 250}})))
        self.watcher.call("view.subscribe", {"view": name})
        return name

    def drop(self, name):
        """Deletes the view (the class's daemon has a small item budget) and its deletion event."""
        self.assertIn(b'"result"', self.line("view.delete", {"view": name}))
        self.assertEqual([event["event"] for event in self.events()], ["view.deleted"])

    def test_every_mutation_previews_exactly_what_it_then_does(self):
        from harness import Client  # noqa: F401  (the daemon is the class's)

        described = json.loads(self.line("daemon.describe", {}))["result"]["methods"]
        mutating = {m["name"] for m in described if m["mutates"] and any(p["name"] == "view" for p in m["params"])}
        self.assertEqual({entry[0] for entry in MUTATIONS}, mutating)
        for method, (strategy, strategy_params), params, *setup in MUTATIONS:
            with self.subTest(method=method, strategy=strategy):
                name = self.fresh_view(strategy, strategy_params)
                for setup_method, setup_params in (setup[0] if setup else []):
                    self.assertIn(b'"result"', self.line(setup_method, dict(setup_params, view=name)))
                for setup, setup_params in MUTATION_SETUP.get(method, []):
                    self.assertIn(b'"result"', self.line(setup, dict(setup_params, view=name)))
                self.events()
                before = self.state(name)
                epoch = json.loads(before[0])["result"]["epoch"]
                request = dict(params, view=name, ifEpoch=epoch)
                dry = self.line(method, dict(request, dryRun=True))
                self.assertTrue(dry.endswith(self.MARKER), dry[-200:])
                self.assertEqual(json.loads(dry)["result"]["epoch"], epoch + 1, "the epoch the change would produce")
                # Twice: a dry run leaves nothing behind that a second one could see.
                self.assertEqual(self.line(method, dict(request, dryRun=True)), dry)
                self.assertEqual(self.state(name), before, "a dry run changes nothing")
                self.assertEqual(self.events(), [], "a dry run sends no event")
                real = self.line(method, dict(request, dryRun=False))
                self.assertNotIn(b'"dryRun"', real)
                self.assertEqual(real[:-2] + self.MARKER, dry, "the dry result is the real one plus the marker")
                self.assertNotEqual(self.state(name)[0], before[0], "the real call changed the view")
                events = self.events()
                self.assertEqual([event["event"] for event in events], ["view.invalidated"])
                self.assertEqual(events[0]["params"], json.loads(real)["result"])
                self.drop(name)

    def test_a_dry_run_commit_previews_the_upload_and_leaves_it_open(self):
        name = self.fresh_view(*FLOW)
        epoch = json.loads(self.line("view.get", {"view": name}))["result"]["epoch"]
        upload = json.loads(self.line("view.stage.begin", {"view": name}))["result"]["upload"]
        items = [{"id": "i%d" % n} for n in range(250, -1, -1)]  # reversed: moves, and fewer items
        self.assertIn(b'"result"', self.line("view.stage.append", {"upload": upload, "sections": [{"id": "s", "items": items}]}))
        before = self.state(name)
        staged = json.loads(self.line("daemon.status", None))["result"]["uploads"]
        dry = self.line("view.stage.commit", {"upload": upload, "ifEpoch": epoch, "dryRun": True})
        self.assertTrue(dry.endswith(self.MARKER), dry[-200:])
        self.assertEqual(json.loads(dry)["result"]["epoch"], epoch + 1)
        self.assertEqual(self.state(name), before, "a dry commit changes nothing")
        self.assertEqual(json.loads(self.line("daemon.status", None))["result"]["uploads"], staged, "the upload stays open")
        self.assertEqual(self.events(), [])
        real = self.line("view.stage.commit", {"upload": upload, "ifEpoch": epoch})
        self.assertEqual(real[:-2] + self.MARKER, dry, "the dry result is the real one plus the marker")
        self.assertEqual([event["event"] for event in self.events()], ["view.invalidated"])
        self.assertEqual(json.loads(self.line("daemon.status", None))["result"]["uploads"], {"open": 0, "items": 0})
        self.drop(name)

    def test_a_refused_dry_run_is_refused_exactly_as_the_real_call(self):
        name = self.fresh_view(*FLOW)
        epoch = json.loads(self.line("view.get", {"view": name}))["result"]["epoch"]
        refused = [
            ("view.scroll", {"offset": {"x": 0, "y": 10}, "ifEpoch": epoch + 5}),  # StaleEpoch
            ("view.select", {"ids": ["i1", "nope"]}),  # ItemNotFound
            ("view.update", {"updates": [{"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "i4"}]}]}),  # DuplicateItemID
            ("view.configure", {"params": {"noSuchParameter": 1}}),  # UnknownParameter
            ("view.setStrategy", {"strategy": "nope"}),  # UnknownStrategy
            ("view.resize", {"size": {"width": -1, "height": 10}}),  # InvalidViewport
            ("view.setWindowMargin", {"margin": -3}),  # InvalidParameter
            ("view.scroll", {"offset": {"x": 0, "y": 10}, "extra": 1}),  # InvalidParams
            ("view.update", {"updates": [{"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "x%d" % n} for n in range(1800)]}]}),  # LimitExceeded (budget)
        ]
        before = self.state(name)
        names = []
        for method, params in refused:
            with self.subTest(method=method, params=str(params)[:60]):
                dry = self.line(method, dict(params, view=name, dryRun=True))
                real = self.line(method, dict(params, view=name))
                self.assertIn(b'"error"', dry)
                self.assertEqual(dry, real)
                names.append(json.loads(dry)["error"]["name"])
        self.assertEqual(len(set(names)), len(names), names)
        self.assertEqual(self.state(name)[:3], before[:3])
        self.assertEqual(self.events(), [])
        wrong = self.line("view.scroll", {"view": name, "offset": {"x": 0, "y": 1}, "dryRun": "yes"})
        self.assertEqual(json.loads(wrong)["error"]["name"], "InvalidParams")
        self.assertEqual(json.loads(wrong)["error"]["data"]["path"], "params.dryRun")
        self.drop(name)

    def test_a_dry_run_takes_nothing_from_the_item_budget(self):
        # The class's daemon holds at most 2000 items; this view and the others hold some.
        name = self.fresh_view(*FLOW, count=10)
        status = json.loads(self.line("daemon.status", None))["result"]
        room = 2000 - status["items"]
        grow = {"updates": [{"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "g%d" % n} for n in range(room)]}]}
        for _ in range(3):
            self.assertTrue(self.line("view.update", dict(grow, view=name, dryRun=True)).endswith(self.MARKER))
        self.assertEqual(json.loads(self.line("daemon.status", None))["result"]["items"], status["items"])
        self.assertEqual(self.events(), [])
        # The whole room is still there for the real call, and then none is left.
        self.assertIn(b'"result"', self.line("view.update", dict(grow, view=name)))
        self.assertEqual([event["event"] for event in self.events()], ["view.invalidated"])
        one = {"view": name, "updates": [{"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "last"}]}]}
        self.assertEqual(self.line("view.update", dict(one, dryRun=True)), self.line("view.update", one))
        self.assertEqual(json.loads(self.line("view.update", one))["error"]["name"], "LimitExceeded")
        self.drop(name)


if __name__ == "__main__":
    unittest.main()
