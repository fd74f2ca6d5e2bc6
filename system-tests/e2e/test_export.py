"""view.export and view.import against the real daemon (protocol/views.md): for every strategy,
compositional and the waterfall plugin included, a view exported in parts and imported under
another name has the same frames everywhere, the same offset, selection and epoch, and answers
the next mutation exactly as the original does; an export reads one snapshot whatever changes
meanwhile; and every kind of bad blob is refused by name with nothing created and every item
given back to the daemon's budget."""
import json
import os
import shutil
import unittest

from harness import ROOT, Client, Daemon, export_parts, trusted_directory, view_contents
from test_layoutctl import ctl

WATERFALL = os.path.join(ROOT, ".build", "plugins", "debug", "waterfall.so")


def items(prefix, count, **fields):
    return [dict({"id": "%s%d" % (prefix, n)}, **fields) for n in range(count)]


COMPOSITIONAL = {
    "section": {"list": {"appearance": "plain"}},
    "sections": {"featured": {
        "group": {"direction": "horizontal", "size": {"width": {"absolute": 150}, "height": {"absolute": 100}},
                  "subitems": [{"size": {"width": {"fractionalWidth": 1}, "height": {"fractionalHeight": 1}},
                                "supplementaryItems": [{"kind": "badge", "size": {"width": {"absolute": 20}, "height": {"estimated": 20}},
                                                        "containerAnchor": {"edges": ["top", "trailing"]}}]}]},
        "interGroupSpacing": 10, "orthogonalScrollingBehavior": "continuous",
        "boundarySupplementaryItems": [{"kind": "header", "size": {"width": {"fractionalWidth": 1}, "height": {"estimated": 30}},
                                        "alignment": "top"}]}},
}

# One view per strategy, each with state beyond its data: measurements, a selection, an offset.
CASES = {
    "flow": dict(
        strategy="flow", params={"estimatedItemSize": {"width": 80, "height": 50}, "headerReferenceSize": {"width": 0, "height": 24}},
        sections=[{"id": "a", "items": items("a", 40)},
                  {"id": "b", "headerSize": {"width": 0, "height": 40}, "items": items("b", 30, size={"width": 120, "height": 70}, selectedSize={"width": 120, "height": 200})}],
        measure=[{"id": "a3", "size": {"width": 80, "height": 91}}, {"id": "b2", "size": {"width": 140, "height": 75}}],
        select=["a5", "b1"], offset={"x": 0, "y": 310}),
    "collapsible": dict(
        strategy="collapsible", params={"itemSize": {"width": 90, "height": 90}},
        sections=[{"id": "s", "items": items("c", 60)}], select=["c4", "c9"], offset={"x": 0, "y": 120}),
    "ultravisual": dict(strategy="ultravisual", params={}, sections=[{"id": "s", "items": items("u", 50)}], offset={"x": 0, "y": 777}),
    "display": dict(strategy="display", params={"columns": 3}, sections=[{"id": "s", "items": items("d", 200)}], select=["d7"],
                    offset={"x": 0, "y": 500}),
    "flow-rtl-horizontal": dict(
        strategy="flow", params={"itemSize": {"width": 60, "height": 60}, "scrollDirection": "horizontal"}, layoutDirection="rtl",
        sections=[{"id": "s", "items": items("h", 90)}], offset={"x": 250, "y": 0}),
    "compositional": dict(
        strategy="compositional", params=COMPOSITIONAL,
        sections=[{"id": "featured", "items": items("f", 12)}, {"id": "rows", "items": items("r", 40)}],
        measure=[{"id": "r2", "size": {"width": 375, "height": 80}}],
        supplementary=[{"kind": "header", "id": "featured", "size": {"width": 375, "height": 52}},
                       {"kind": "badge", "id": "f1", "size": {"width": 20, "height": 33}}],
        section_offset=("featured", 230.0), select=["f2"], offset={"x": 0, "y": 60}),
    "waterfall": dict(
        strategy="waterfall", params={"columnCount": 3, "columnSpacing": 6, "itemSpacing": 6},
        sections=[{"id": "s", "items": [{"id": "w%d" % n, "size": {"width": 100, "height": 60 + (n * 37) % 90}} for n in range(80)]}],
        select=["w3"], offset={"x": 0, "y": 200}),
}


class ExportImport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plugins = trusted_directory("layoutd-export-plugins-")
        shutil.copy(WATERFALL, os.path.join(cls.plugins, "waterfall.so"))
        os.chmod(os.path.join(cls.plugins, "waterfall.so"), 0o644)
        cls.daemon = Daemon("--plugin-dir", cls.plugins).start()
        cls.client = Client(cls.daemon.path, timeout=60)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.daemon.stop()
        shutil.rmtree(cls.plugins, ignore_errors=True)

    def call(self, method, params):
        reply = self.client.call(method, params)
        self.assertNotIn("error", reply, "%s: %s" % (method, reply.get("error")))
        return reply["result"]

    def refused(self, method, params):
        reply = self.client.call(method, params)
        self.assertIn("error", reply, "%s was not refused" % method)
        return reply["error"]

    def build(self, name, case):
        params = {"view": name, "strategy": case["strategy"], "params": case["params"], "viewport": {"width": 375, "height": 400},
                  "sections": case["sections"], "windowMargin": 50}
        if "layoutDirection" in case:
            params["layoutDirection"] = case["layoutDirection"]
        self.call("view.create", params)
        if case.get("measure") or case.get("supplementary"):
            self.call("view.measure", {"view": name, "sizes": case.get("measure", []) + case.get("supplementary", [])})
        if case.get("select"):
            self.call("view.select", {"view": name, "ids": case["select"], "mode": "add"})
        if case.get("section_offset"):
            section, offset = case["section_offset"]
            self.call("view.scrollSection", {"view": name, "section": section, "offset": offset})
        self.call("view.scroll", {"view": name, "offset": case["offset"]})

    def export(self, name, limit=None):
        return export_parts(self, name, limit)

    def import_parts(self, name, parts):
        reply = self.call("view.import", {"view": name, "blob": parts[0]})
        for index, part in enumerate(parts[1:], start=2):
            self.assertEqual(reply["part"], index - 1)
            reply = self.call("view.import", {"importId": reply["importId"], "blob": part})
        self.assertIn("snapshot", reply)
        return reply

    def everything(self, name):
        """The view's state (but its name), every element of its content and its selection."""
        state, elements, selection = view_contents(self, name)
        state.pop("view")
        return state, elements, selection

    def test_every_strategy_round_trips_exactly(self):
        for label, case in CASES.items():
            with self.subTest(strategy=label):
                original, copy = "orig-" + label, "copy-" + label
                self.build(original, case)
                parts = self.export(original, limit=7)
                self.assertGreater(len(parts), 2, "several parts")
                self.assertTrue(all(len(part["sections"]) <= 7 for part in parts))
                self.assertTrue(all(sum(len(s["items"]) for s in part["sections"]) <= 7 for part in parts))
                reply = self.import_parts(copy, parts)
                self.assertEqual(reply["items"], sum(len(s["items"]) for s in case["sections"]))
                before, after = self.everything(original), self.everything(copy)
                self.assertEqual(before[0], after[0], "view.get")
                self.assertEqual(before[1], after[1], "every element")
                self.assertEqual(before[2], after[2], "the selection")
                # The same epoch, and the next mutation is the same on both.
                epoch = before[0]["epoch"]
                first = case["sections"][0]["items"][1]["id"]
                change = {"ifEpoch": epoch, "updates": [{"op": "deleteItems", "ids": [first]}]}
                one = self.call("view.update", dict(change, view=original))
                two = self.call("view.update", dict(change, view=copy))
                one.pop("view"), two.pop("view")
                self.assertEqual(one, two)
                self.assertEqual(one["epoch"], epoch + 1)
                # An export of the import is the export of the original (but the name).
                again = [dict(part, view="x") for part in self.export(copy, limit=7)]
                fresh = [dict(part, view="x") for part in self.export(original, limit=7)]
                for part in again + fresh:
                    part["next"] = part["next"] and part["next"].split(".", 1)[1]
                self.assertEqual(again, fresh)

    def test_one_part_by_default_and_measured_items_keep_their_description(self):
        self.build("plain", CASES["flow"])
        parts = self.export("plain")
        self.assertEqual(len(parts), 1)
        part = parts[0]
        self.assertEqual((part["format"], part["version"], part["part"], part["next"]), ("layoutd.view", 1, 1, None))
        items = {item["id"]: item for section in part["sections"] for item in section["items"]}
        # a3 had no size of its own before its measurement; b2 had an absolute size.
        self.assertEqual(items["a3"], {"id": "a3", "measuredSize": {"width": 80, "height": 91}})
        self.assertEqual(items["b2"]["size"], {"width": 120, "height": 70})
        self.assertEqual(items["b2"]["measuredSize"], {"width": 140, "height": 75})
        self.assertTrue(items["b1"]["selected"] and "selected" not in items["b2"])
        # Sending the same data again keeps a measurement, in the original and the import alike.
        self.import_parts("plain-copy", parts)
        data = {"sections": CASES["flow"]["sections"]}
        one = self.call("view.setData", dict(data, view="plain"))
        two = self.call("view.setData", dict(data, view="plain-copy"))
        one.pop("view"), two.pop("view")
        self.assertEqual(one, two)
        self.assertEqual(self.call("view.item", {"view": "plain-copy", "id": "a3"})["attributes"]["frame"]["height"], 91)

    def test_an_export_reads_one_snapshot_whatever_changes_meanwhile(self):
        self.call("view.create", {"view": "moving", "strategy": "flow", "params": {"itemSize": {"width": 50, "height": 50}},
                                  "viewport": {"width": 300, "height": 300}, "sections": [{"id": "s", "items": items("m", 100)}]})
        first = self.call("view.export", {"view": "moving", "limit": 30})
        self.call("view.update", {"view": "moving", "updates": [{"op": "deleteItems", "ids": ["m%d" % n for n in range(50)]}]})
        self.call("view.select", {"view": "moving", "ids": ["m70"]})
        parts = [first]
        while parts[-1]["next"]:
            parts.append(self.call("view.export", {"view": "moving", "cursor": parts[-1]["next"], "limit": 30}))
        self.assertEqual([part["epoch"] for part in parts], [0] * 4)
        ids = [item["id"] for part in parts for section in part["sections"] for item in section["items"]]
        self.assertEqual(ids, ["m%d" % n for n in range(100)])
        self.assertFalse(any(item.get("selected") for part in parts for section in part["sections"] for item in section["items"]))
        # The import is the view as it was at epoch 0.
        self.assertEqual(self.import_parts("moving-then", parts)["snapshot"]["itemCount"], 100)
        # A finished export's cursor, or one of another view, is refused by name.
        error = self.refused("view.export", {"view": "moving", "cursor": parts[1]["next"]})
        self.assertEqual((error["name"], error["data"]["path"]), ("InvalidParams", "params.cursor"))
        self.assertEqual(self.refused("view.export", {"view": "moving", "cursor": "x999.0.0.2"})["name"], "InvalidParams")
        self.assertEqual(self.refused("view.export", {"view": "moving", "limit": 10 ** 9})["name"], "LimitExceeded")

    def test_a_move_in_progress_is_exported_as_cancelled(self):
        self.call("view.create", {"view": "dragging", "strategy": "flow", "params": {"itemSize": {"width": 100, "height": 100}},
                                  "viewport": {"width": 300, "height": 400}, "sections": [{"id": "s", "items": items("g", 12)}]})
        before = self.everything("dragging")
        self.call("view.beginMove", {"view": "dragging", "id": "g0", "point": {"x": 50, "y": 50}})
        self.call("view.updateMove", {"view": "dragging", "point": {"x": 250, "y": 250}})
        parts = self.export("dragging")
        self.assertEqual(parts[0]["epoch"], 3, "one epoch past the move's")
        self.import_parts("dropped", parts)
        after = self.everything("dropped")
        self.assertEqual(before[1], after[1], "the frames from before the move")
        self.assertEqual(self.call("view.get", {"view": "dragging"})["epoch"], 2, "the view itself untouched")
        self.assertEqual(self.call("view.get", {"view": "dragging"})["moving"], "g0")

    def test_bad_blobs_are_refused_by_name_and_change_nothing(self):
        self.build("source", CASES["flow"])
        parts = self.export("source", limit=20)
        whole = self.export("source")[0]
        status = self.call("daemon.status", {})

        def refused_import(blob, **params):
            return self.refused("view.import", dict({"view": "bad", "blob": blob}, **params))

        first = parts[0]
        cases = [
            (dict(first, format="other"), "InvalidExport", "params.blob.format"),
            (dict(first, version=2), "UnsupportedExportVersion", None),
            ({k: v for k, v in first.items() if k != "version"}, "UnsupportedExportVersion", None),
            (dict(first, extra=True), "InvalidExport", "params.blob.extra"),
            ({k: v for k, v in first.items() if k != "viewport"}, "InvalidExport", "params.blob.viewport"),
            (dict(first, part=2), "InvalidExport", "params.blob.part"),
            (dict(first, next=None), "InvalidExport", "params.blob"),
            (dict(first, strategy="nope"), "UnknownStrategy", None),
            (dict(first, params={"itemSize": {"width": -1, "height": 1}}), "InvalidParameter", None),
            (dict(first, epoch=-1), "InvalidExport", "params.blob.epoch"),
            (json.loads(json.dumps(whole).replace('"a1"', '"a0"')), "DuplicateItemID", None),
            (dict(whole, itemCount=69), "InvalidExport", "params.blob"),
            (dict(first, sections=[dict(first["sections"][0], items=first["sections"][0]["items"] + [{"id": "zz", "selected": False}])]),
             "InvalidExport", "params.blob.sections[0].items[20].selected"),
            ("not an object", "InvalidParams", None),
        ]
        views = self.call("view.list", {})
        for blob, name, path in cases:
            with self.subTest(name=name, path=path):
                error = refused_import(blob)
                self.assertEqual(error["name"], name, error)
                if path:
                    self.assertEqual(error["data"]["path"], path)
        if "version" in cases[1][0]:
            self.assertEqual(refused_import(dict(first, version=2))["data"], {"version": 2, "supported": [1]})
        # A later part out of order ends the import; its id is gone.
        opened = self.call("view.import", {"view": "bad", "blob": first})
        error = self.refused("view.import", {"importId": opened["importId"], "blob": parts[2]})
        self.assertEqual((error["name"], error["data"]["path"]), ("InvalidExport", "params.blob.part"))
        error = self.refused("view.import", {"importId": opened["importId"], "blob": parts[1]})
        self.assertEqual((error["name"], error["data"]["path"]), ("InvalidParams", "params.importId"))
        # A part of another export.
        other = self.export("source", limit=20)
        self.call("view.scroll", {"view": "source", "offset": {"x": 0, "y": 0}})
        newer = self.export("source", limit=20)
        views = self.call("view.list", {})
        opened = self.call("view.import", {"view": "bad", "blob": other[0]})
        self.assertEqual(self.refused("view.import", {"importId": opened["importId"], "blob": newer[1]})["name"], "InvalidExport")
        # A taken name; both view and importId; neither.
        self.assertEqual(refused_import(first, view="source")["name"], "ViewExists")
        self.assertEqual(self.refused("view.import", {"view": "bad", "importId": "i1", "blob": first})["name"], "InvalidParams")
        self.assertEqual(self.refused("view.import", {"blob": first})["name"], "InvalidParams")
        # Nothing was created and every item went back.
        self.assertEqual(self.call("view.list", {}), views)
        self.assertEqual(self.call("daemon.status", {})["items"], status["items"])

    def test_layoutctl_exports_to_a_file_and_imports_it(self):
        self.build("filed", CASES["compositional"])
        path = os.path.join(self.daemon.dir, "filed.export")
        result = ctl("export", "filed", "--limit", "10", "-o", path, socket_path=self.daemon.path)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(path) as handle:
            lines = handle.read().splitlines()
        self.assertEqual(len(lines), 6, "52 items in parts of 10")
        self.assertEqual([json.loads(line)["part"] for line in lines], list(range(1, 7)))
        result = ctl("import", path, "--view", "filed-back", socket_path=self.daemon.path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.everything("filed"), self.everything("filed-back"))
        # A file that is not an export is refused before anything is sent.
        with open(path, "w") as handle:
            handle.write("not json\n")
        result = ctl("import", path, socket_path=self.daemon.path)
        self.assertEqual(result.returncode, 65)
        self.assertIn("not a JSON object", result.stderr)

    def test_parts_fit_the_line_cap_so_an_export_imports_where_it_came_from(self):
        # A small line cap: the default part (maximumBatchSize items) would not fit a line, so
        # parts end by their bytes, leaving room for the view.import request around them.
        with Daemon("--set", "max-line-length=8192") as small:
            client = Client(small.path)
            items = [{"id": "item-%032d" % n, "size": {"width": 100 + n % 7, "height": 50}} for n in range(600)]
            reply = client.call("view.create", {"view": "v", "strategy": "flow", "viewport": {"width": 300, "height": 300},
                                                "sections": [{"id": "s", "items": items[:50]}]})
            self.assertNotIn("error", reply)
            for start in range(50, 600, 50):
                self.assertNotIn("error", client.call("view.update", {"view": "v", "updates": [
                    {"op": "insertItems", "section": "s", "at": start, "items": items[start:start + 50]}]}))
            parts = [client.call("view.export", {"view": "v"})["result"]]
            while parts[-1]["next"]:
                parts.append(client.call("view.export", {"view": "v", "cursor": parts[-1]["next"]})["result"])
            self.assertGreaterEqual(len(parts), 6, "600 items of about 70 bytes in parts under 7 KiB")
            self.assertTrue(all(len(json.dumps(part, separators=(",", ":"))) <= 8192 - 1024 + 200 for part in parts))
            reply = client.call("view.import", {"view": "w", "blob": parts[0]})["result"]
            for part in parts[1:]:
                reply = client.call("view.import", {"importId": reply["importId"], "blob": part})["result"]
            self.assertEqual(reply["snapshot"]["itemCount"], 600)
            client.close()

    def test_limits_oversized_parts_and_a_closed_connection(self):
        with Daemon("--set", "max-batch=50", "--set", "max-total-items=400") as small:
            client = Client(small.path)
            reply = client.call("view.create", {"view": "v", "strategy": "flow", "viewport": {"width": 300, "height": 300},
                                                "params": {"itemSize": {"width": 50, "height": 50}},
                                                "sections": [{"id": "s", "items": items("v", 120)}]})
            self.assertNotIn("error", reply)
            part = client.call("view.export", {"view": "v", "limit": 50})["result"]
            self.assertEqual(sum(len(s["items"]) for s in part["sections"]), 50)
            self.assertEqual(client.call("view.export", {"view": "v", "limit": 51})["error"]["name"], "LimitExceeded")
            # A part over the batch size.
            big = dict(part, sections=[dict(part["sections"][0], items=items("n", 51))])
            error = client.call("view.import", {"view": "w", "blob": big})["error"]
            self.assertEqual((error["name"], error["data"]["limit"]), ("LimitExceeded", "batch size"))
            # Four imports (maximumUploads) open at most on one connection.
            opened = [client.call("view.import", {"view": "w%d" % n, "blob": part})["result"] for n in range(4)]
            self.assertEqual([reply["items"] for reply in opened], [50] * 4)
            error = client.call("view.import", {"view": "w4", "blob": part})["error"]
            self.assertEqual((error["name"], error["data"]["limit"]), ("LimitExceeded", "imports"))
            # 120 in the view and 250 in the imports of the budget of 400; the closed
            # connection gives its 250 back.
            second = client.call("view.export", {"view": "v", "cursor": part["next"], "limit": 50})["result"]
            self.assertEqual(client.call("view.import", {"importId": opened[0]["importId"], "blob": second})["result"]["part"], 2)
            other = Client(small.path)
            error = other.call("view.create", {"view": "z", "strategy": "flow", "viewport": {"width": 10, "height": 10},
                                               "sections": [{"id": "s", "items": items("z", 200)}]})["error"]
            self.assertEqual((error["name"], error["data"]["limit"]), ("LimitExceeded", "total items"))
            client.close()
            deadline_reply = None
            for _ in range(200):
                deadline_reply = other.call("view.create", {"view": "z", "strategy": "flow", "viewport": {"width": 10, "height": 10},
                                                            "sections": [{"id": "s", "items": items("z", 200)}]})
                if "result" in deadline_reply:
                    break
                other.call("daemon.sync", {})
            self.assertIn("result", deadline_reply, "the closed connection's imports gave their items back")
            other.close()


if __name__ == "__main__":
    unittest.main()
