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
        checked = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "generate-schema-catalog.py"), "--check"],
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
    it quotes with ../) must stay inside it, and the links must name files that exist."""

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

    @staticmethod
    def inside(path):
        return os.path.commonpath([ROOT, path]) == ROOT

    def problems(self, text, folder):
        """What is wrong with the links in `text`, a document in `folder` (an absolute path)."""
        prose = self.FENCE.sub("", text)
        problems = []
        for target in self.LINK.findall(prose) + self.REFERENCE.findall(prose):
            if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL (https:, mailto:) or an anchor in this document
            path = target.split("#", 1)[0].split("?", 1)[0]
            resolved = os.path.normpath(os.path.join(ROOT if path.startswith("/") else folder, path.lstrip("/")))
            if path.startswith("/") or not self.inside(resolved):
                problems.append("links outside the repository: %s" % target)
            elif not os.path.exists(resolved):
                problems.append("links to a missing file: %s" % target)
        for quoted in self.CODE.findall(text):
            # A path that starts with ../, not one inside another (`$ORIGIN/../lib` is a
            # RUNPATH, relative to a binary, not to the document).
            for path in re.findall(r"(?:^|(?<=[\s(=]))(?:\.\./)+[^\s`'\"),]*", quoted):
                if not self.inside(os.path.normpath(os.path.join(folder, path))):
                    problems.append("quotes a path outside the repository: %s" % path)
        return problems

    def test_documents_link_only_inside_the_repository(self):
        documents = self.documents()
        for required in ("README.md", "docs/flow-layout.md", "docs/layout-semantics.md"):
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
                "[ok](flow-layout.md#lines), see `../../shared/design/x.md`, ![img](/etc/passwd)\n"
                "a RUNPATH `$ORIGIN/../lib/layoutd/runtime` is no document path\n"
                "```\n[in a fence](../../elsewhere.md)\n```\n")
        self.assertEqual(self.problems(text, os.path.join(ROOT, "docs")), [
            "links outside the repository: ../../shared/design/layout-semantics.md",
            "links to a missing file: missing.md",
            "links outside the repository: /etc/passwd",
            "quotes a path outside the repository: ../../shared/design/x.md",
        ])


if __name__ == "__main__":
    unittest.main()
