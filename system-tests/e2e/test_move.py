"""Interactive moves against a real layoutd (protocol/views.md, Interactive moves): a drag that
auto-scrolls and commits, as a dragging client does it (updateMove, then view.scroll by the
autoScroll it was given), with a subscriber that mirrors the window from the deltas alone and
sees one data change (movedItems) at the commit; the bad-input errors, each changing nothing;
another client's changes during a drag; and a waterfall view through the shipped plugin."""
import json
import os
import shutil
import unittest

from harness import ROOT, Client, Daemon, ProcessTestCase, flow_view

WATERFALL = os.path.join(ROOT, ".build", "plugins", "debug", "waterfall.so")
EVERYTHING = {"x": -1e7, "y": -1e7, "width": 2e7, "height": 2e7}


def key(element):
    return "%s:%s" % (element["kind"], element["id"])


class Mirror:
    """A subscriber's copy of a view's window, fed only view.invalidated deltas."""

    def __init__(self, snapshot):
        self.epoch = snapshot["epoch"]
        self.elements = {key(element): element for element in snapshot["elements"]}

    def apply(self, invalidation):
        assert invalidation["epoch"] == self.epoch + 1, (invalidation["epoch"], self.epoch)
        self.epoch = invalidation["epoch"]
        for gone in invalidation["left"]:
            del self.elements["%s:%s" % (gone["kind"], gone["id"])]
        for element in invalidation["entered"] + invalidation["changed"]:
            self.elements[key(element)] = element


class MoveTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon().start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def setUp(self):
        self.client = Client(self.daemon.path)
        self.watcher = Client(self.daemon.path)
        self.addCleanup(self.client.close)
        self.addCleanup(self.watcher.close)

    def call(self, method, params):
        reply = self.client.call(method, params)
        self.assertIn("result", reply, reply)
        return reply["result"]

    def refused(self, method, params, name):
        reply = self.client.call(method, params)
        self.assertIn("error", reply, reply)
        self.assertEqual(reply["error"]["name"], name, reply)
        return reply["error"]

    def window(self, view):
        """The view's window as a fresh query gives it."""
        snapshot = self.call("view.get", {"view": view})
        return {key(element): element for element in snapshot["elements"]}

    def watch(self, view):
        snapshot = self.watcher.call("view.subscribe", {"view": view})["result"]["snapshot"]
        return Mirror(snapshot)

    def drain(self, mirror):
        """Applies every event posted so far (daemon.sync is the barrier); returns them."""
        events = []
        self.watcher.call("daemon.sync", events=events)
        for event in events:
            self.assertEqual(event["event"], "view.invalidated", event)
            mirror.apply(event["params"])
        return events

    def test_a_drag_that_auto_scrolls_to_the_end_and_commits(self):
        view = "drag"
        self.call("view.create", flow_view(view, 3000, width=320, height=480, item=(100, 100)))
        mirror = self.watch(view)
        begun = self.call("view.beginMove", {"view": view, "id": "i1"})
        self.assertEqual(begun["moving"], "i1")
        self.assertEqual(begun["target"], {"section": 0, "item": 1})
        self.assertEqual(begun["autoScroll"], {"x": 0, "y": 0})
        # The finger goes to the bottom band and stays there; the client scrolls as asked.
        # In the last column, past its centre: the drop after the last item is reachable.
        point = {"x": 300, "y": 470}
        update = self.call("view.updateMove", {"view": view, "point": point})
        self.assertGreater(update["autoScroll"]["y"], 0)
        ticks = 0
        while update["autoScroll"]["y"] > 0:
            ticks += 1
            self.assertLess(ticks, 2000, "the auto-scroll never stopped")
            content = update["contentSize"]["height"]
            offset = min(update["contentOffset"]["y"] + update["autoScroll"]["y"] * 2, content - 480)
            scrolled = self.call("view.scroll", {"view": view, "offset": {"x": 0, "y": offset}})
            self.assertEqual(scrolled["moving"], "i1", "a scroll keeps the move and reports it")
            update = self.call("view.updateMove", {"view": view, "point": point})
            if ticks % 25 == 0:
                self.drain(mirror)
                self.assertEqual(mirror.elements, self.window(view), "the mirror is the window, mid-drag")
        self.assertEqual(update["target"], {"section": 0, "item": 2999}, "the target reached the last slot")
        self.drain(mirror)
        self.assertEqual(mirror.elements, self.window(view))
        dragged = mirror.elements["cell:i1"]
        self.assertEqual(dragged["frame"]["y"] + 50, update["contentOffset"]["y"] + point["y"], "centred on the finger")
        self.assertGreater(dragged["zIndex"], max(e["zIndex"] for k, e in mirror.elements.items() if k != "cell:i1"))

        committed = self.call("view.endMove", {"view": view, "commit": True})
        self.assertEqual(committed["moveEnded"], {"id": "i1", "reason": "committed"})
        self.assertNotIn("moving", committed)
        self.assertEqual(committed["changes"]["movedItems"], ["i1"])
        segments = [s for s in committed["transition"]["segments"] if s["id"] == "i1"]
        self.assertEqual(segments[0]["to"]["frame"], self.call("view.item", {"view": view, "id": "i1"})["attributes"]["frame"])
        events = self.drain(mirror)
        self.assertEqual(len(events), 1, "the subscriber sees the commit as one change")
        self.assertEqual(events[0]["params"]["changes"]["movedItems"], ["i1"])
        self.assertEqual(mirror.elements, self.window(view))
        # The data now reads as if i1 had been moved to the end in one batch.
        item = self.call("view.item", {"view": view, "id": "i1"})["attributes"]
        self.assertEqual((item["section"], item["item"]), (0, 2999))
        fresh = flow_view("fresh", 0, width=320, height=480, item=(100, 100))
        ids = ["i%d" % n for n in range(3000) if n != 1] + ["i1"]
        fresh["sections"] = [{"id": "s", "items": [{"id": i} for i in ids]}]
        fresh["viewport"]["offset"] = {"x": 0, "y": committed["contentOffset"]["y"]}
        self.call("view.create", fresh)
        self.assertEqual(self.window(view), self.window("fresh"), "the committed view is the view of the moved data")

    def test_a_collapsed_stack_moves_as_one(self):
        view = "stacks"
        params = {"itemSize": {"width": 100, "height": 100}, "itemSpacing": 10, "rowSpacing": 10, "collapsed": True}
        self.call("view.create", flow_view(view, 12, width=320, height=330, strategy="collapsible", params=params))
        self.call("view.select", {"view": view, "ids": ["i2", "i3", "i4"]})
        mirror = self.watch(view)
        begun = self.call("view.beginMove", {"view": view, "id": "i3"})
        self.assertEqual((begun["moving"], begun["movingItems"], begun["target"]), ("i3", ["i2", "i3", "i4"], {"section": 0, "item": 2}))
        # Onto i5's slot (the second row's first), past its middle: the stack drops after i5.
        moved = self.call("view.updateMove", {"view": view, "point": {"x": 60, "y": 170}})
        self.assertEqual((moved["movingItems"], moved["target"]), (["i2", "i3", "i4"], {"section": 0, "item": 3}))
        self.drain(mirror)
        self.assertEqual(mirror.elements, self.window(view))
        drawn = [mirror.elements["cell:" + i] for i in ("i2", "i3", "i4")]
        self.assertEqual([d["frame"] for d in drawn], [{"x": 10, "y": 120, "width": 100, "height": 100}] * 3, "the stack under the finger")
        self.assertEqual([d["zIndex"] for d in drawn], [11, 12, 13], "above the window's highest other (i10, item 10, in the third row), in order")
        committed = self.call("view.endMove", {"view": view, "commit": True})
        self.assertEqual(committed["changes"]["movedItems"], ["i2", "i3", "i4"])
        self.assertNotIn("movingItems", committed)
        order = [self.call("view.item", {"view": view, "id": i})["attributes"]["item"] for i in ("i5", "i2", "i3", "i4", "i6")]
        self.assertEqual(order, [2, 3, 4, 5, 6], "the stack moved as one, after i5")
        self.drain(mirror)
        self.assertEqual(mirror.elements, self.window(view))
        # A plain item of the same view still moves alone, and says nothing of units.
        single = self.call("view.beginMove", {"view": view, "id": "i0"})
        self.assertNotIn("movingItems", single)
        self.call("view.endMove", {"view": view, "commit": False})

    def test_bad_input_is_refused_by_name_and_changes_nothing(self):
        view = "bad"
        self.call("view.create", flow_view(view, 50))
        before = self.call("view.get", {"view": view})
        self.refused("view.updateMove", {"view": view, "point": {"x": 1, "y": 1}}, "NoActiveMove")
        self.refused("view.endMove", {"view": view, "commit": True}, "NoActiveMove")
        error = self.refused("view.beginMove", {"view": view, "id": "nope"}, "ItemNotFound")
        self.assertEqual(error["data"], {"id": "nope"})
        self.refused("view.beginMove", {"view": view, "id": "i1", "ifEpoch": 9}, "StaleEpoch")
        self.refused("view.endMove", {"view": view}, "InvalidParams")
        self.assertEqual(self.call("view.get", {"view": view}), before)

        self.call("view.beginMove", {"view": view, "id": "i2"})
        moving = self.call("view.updateMove", {"view": view, "point": {"x": 60, "y": 300}})
        during = self.call("view.get", {"view": view})
        error = self.refused("view.beginMove", {"view": view, "id": "i3"}, "MoveInProgress")
        self.assertEqual(error["code"], -32026)
        self.assertEqual(error["data"], {"id": "i2"})
        # One gesture at a time: no scrubbed transition during a move...
        error = self.refused("view.beginTransition", {"view": view, "params": {"minimumLineSpacing": 4}}, "MoveInProgress")
        self.assertEqual(error["data"], {"id": "i2"})
        # JSON has no infinity: a number beyond a double's range is refused as the line is parsed.
        self.client.send_raw(b'{"id":"inf","method":"view.updateMove","params":{"view":"bad","point":{"x":1e400,"y":1}}}\n')
        self.assertEqual(json.loads(self.client.read_line())["error"]["name"], "ParseError")
        self.refused("view.updateMove", {"view": view, "point": {"x": 1e300, "y": 1}}, "InvalidParameter")
        self.refused("view.updateMove", {"view": view, "point": {"x": 1}}, "InvalidParams")
        self.refused("view.update", {"view": view, "updates": [{"op": "deleteItems", "ids": ["nope"]}]}, "ItemNotFound")
        self.assertEqual(self.call("view.get", {"view": view}), during, "refusals during a move change nothing")
        self.assertEqual(self.call("view.updateMove", {"view": view, "point": {"x": 60, "y": 300}})["target"], moving["target"])
        self.call("view.endMove", {"view": view, "commit": False})
        error = self.refused("view.endMove", {"view": view, "commit": False}, "NoActiveMove")
        self.assertEqual(error["code"], -32027)
        after = self.call("view.get", {"view": view})
        self.assertEqual(after["elements"], before["elements"], "cancelled: as before the move")
        # ...and no move during a scrubbed transition.
        self.call("view.beginTransition", {"view": view, "params": {"minimumLineSpacing": 4}})
        self.refused("view.beginMove", {"view": view, "id": "i3"}, "TransitionInProgress")
        self.assertEqual(self.call("view.get", {"view": view})["epoch"], after["epoch"])
        self.call("view.endTransition", {"view": view, "commit": False})

    def test_another_clients_changes_during_a_drag(self):
        view = "shared"
        self.call("view.create", flow_view(view, 40))
        mirror = self.watch(view)
        self.call("view.beginMove", {"view": view, "id": "i4"})
        moved = self.call("view.updateMove", {"view": view, "point": {"x": 330, "y": 250}})
        with Client(self.daemon.path) as other:
            # A client that starts mid-drag learns of the move from its snapshot.
            snapshot = other.call("view.get", {"view": view})["result"]
            self.assertEqual((snapshot["moving"], snapshot["target"], snapshot["autoScroll"]),
                             ("i4", moved["target"], moved["autoScroll"]))
            # A selection keeps the move; the item stays under the finger.
            selected = other.call("view.select", {"view": view, "ids": ["i9"]})["result"]
            self.assertEqual(selected["moving"], "i4")
            # Deleting the moving item ends the move, by name.
            deleted = other.call("view.update", {"view": view, "updates": [{"op": "deleteItems", "ids": ["i4"]}]})["result"]
            self.assertEqual(deleted["moveEnded"], {"id": "i4", "reason": "itemDeleted"})
            self.assertNotIn("moving", deleted)
        self.drain(mirror)
        self.assertEqual(mirror.elements, self.window(view))
        self.refused("view.updateMove", {"view": view, "point": {"x": 1, "y": 1}}, "NoActiveMove")
        # Another drag, ended by a batch that keeps the item: the item goes back first.
        self.call("view.beginMove", {"view": view, "id": "i5"})
        self.call("view.updateMove", {"view": view, "point": {"x": 50, "y": 50}})
        changed = self.call("view.update", {"view": view, "updates": [{"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "n"}]}]})
        self.assertEqual(changed["moveEnded"], {"id": "i5", "reason": "dataChanged"})
        item = self.call("view.item", {"view": view, "id": "i5"})["attributes"]
        self.assertEqual(item["item"], 5, "back where it began, then the insertion before it")
        self.drain(mirror)
        self.assertEqual(mirror.elements, self.window(view))


class WaterfallMoveTests(ProcessTestCase):
    prefix = "layoutd-move-"

    def test_a_move_in_a_waterfall_plugin_view(self):
        """The plugin's adapter answers from frames: the fixture w11 through the socket."""
        if not os.path.exists(WATERFALL):
            self.fail("%s is missing: run `make plugins`" % WATERFALL)
        plugins = os.path.join(self.dir, "plugins")
        os.mkdir(plugins)
        shutil.copy(WATERFALL, os.path.join(plugins, "waterfall.so"))
        daemon = Daemon("--plugin-dir", plugins)
        daemon.start()
        self.addCleanup(daemon.stop)
        with open(os.path.join(ROOT, "Tests", "Fixtures", "waterfall", "w11-move-to-front.json")) as handle:
            fixture = json.load(handle)
        heights = [item[1] for item in fixture["sections"][0]["items"]]
        with Client(daemon.path) as client:
            reply = client.call("view.create", {
                "view": "w", "strategy": "waterfall", "params": fixture["params"], "viewport": {"width": 320, "height": 480},
                "sections": [{"id": "s0", "items": [{"id": "s0-%d" % n, "size": {"width": 100, "height": h}} for n, h in enumerate(heights)]}]})
            self.assertIn("result", reply, reply)
            for step in fixture["steps"]:
                if "beginMove" in step:
                    reply = client.call("view.beginMove", {"view": "w", "id": step["beginMove"]})
                elif "updateMove" in step:
                    x, y = step["updateMove"]
                    reply = client.call("view.updateMove", {"view": "w", "point": {"x": x, "y": y}})
                else:
                    reply = client.call("view.endMove", {"view": "w", "commit": step["endMove"]["commit"]})
                self.assertIn("result", reply, reply)
                expected = step["expected"]
                if "target" in expected:
                    self.assertEqual(reply["result"]["target"], expected["target"])
                if "moveEnded" in expected:
                    self.assertEqual(reply["result"]["moveEnded"]["reason"], expected["moveEnded"])
                elements = {key(e): e for e in client.call("view.query", {"view": "w", "rect": EVERYTHING})["result"]["elements"]}
                for name, frame in expected.get("frames", {}).items():
                    frame = frame["frame"] if isinstance(frame, dict) else frame
                    actual = elements[name]["frame"]
                    self.assertEqual([actual["x"], actual["y"], actual["width"], actual["height"]], frame, name)


if __name__ == "__main__":
    unittest.main()
