"""The client without transcripts: discovery, errors, typed results, pipelining, the asyncio
client, and the transition helper."""
from __future__ import annotations

import asyncio
import json
import os
import re
import unittest
from typing import Dict

from support import ROOT, Daemon

import layoutd
from layoutd import (AsyncClient, Attributes, Client, Item, Mirror, Point, Rect, Section, Segment, Size, Transition,
                     TransitionPlayer, Viewport, socket_path, transition_at)
from layoutd.errors import ERRORS, LayoutdError, error_from_reply

FLOW = {"itemSize": {"width": 100, "height": 100}}


class Discovery(unittest.TestCase):
    def test_order(self) -> None:
        self.assertEqual(socket_path("/x.sock", {"LAYOUTD_SOCKET": "/y", "XDG_RUNTIME_DIR": "/r"}), "/x.sock")
        self.assertEqual(socket_path(None, {"LAYOUTD_SOCKET": "/y", "XDG_RUNTIME_DIR": "/r"}), "/y")
        self.assertEqual(socket_path(None, {"LAYOUTD_SOCKET": "", "XDG_RUNTIME_DIR": "/r"}), "/r/layoutd/ipc.sock")
        self.assertEqual(socket_path(None, {"XDG_RUNTIME_DIR": ""}), "/run/layoutd/ipc.sock")
        self.assertEqual(socket_path(None, {}), "/run/layoutd/ipc.sock")


class Errors(unittest.TestCase):
    def test_one_class_per_documented_name(self) -> None:
        with open(os.path.join(ROOT, "protocol", "errors.md")) as handle:
            text = handle.read()
        documented = set()
        for line in text.splitlines():
            if line.startswith("| `") and "| -32" in line:
                documented.add(line.split("`")[1])
        self.assertEqual(documented, set(ERRORS))
        for name, cls in ERRORS.items():
            self.assertEqual(cls.__name__, name)
            self.assertTrue(issubclass(cls, LayoutdError))
            self.assertIs(getattr(layoutd, name), cls)

    def test_unknown_name_is_the_base(self) -> None:
        error = error_from_reply({"code": -32000, "name": "SomethingNew", "message": "m"})
        self.assertIs(type(error), LayoutdError)
        self.assertEqual((error.code, error.name, error.message, error.data), (-32000, "SomethingNew", "m", {}))


class Live(unittest.TestCase):
    def setUp(self) -> None:
        self.daemon = Daemon().start()
        self.addCleanup(self.daemon.__exit__)
        self.client = Client(self.daemon.path, timeout=10)
        self.addCleanup(self.client.close)

    def create(self, n: int = 4) -> None:
        self.client.view_create("photos", "flow", Viewport(320, 200), params=FLOW,
                                sections=[Section("s", [Item("i%d" % k) for k in range(n)])])

    def test_environment_discovery(self) -> None:
        old = os.environ.get("LAYOUTD_SOCKET")
        os.environ["LAYOUTD_SOCKET"] = self.daemon.path
        try:
            with Client() as client:
                self.assertEqual(client.daemon_hello(protocol=[1])["protocol"], 1)
        finally:
            if old is None:
                del os.environ["LAYOUTD_SOCKET"]
            else:
                os.environ["LAYOUTD_SOCKET"] = old

    def test_typed_results_and_errors(self) -> None:
        self.create()
        snapshot = self.client.view_get("photos")
        self.assertEqual(snapshot.elements[3], Attributes("i3", "cell", 0, Rect(0, 110, 100, 100), item=3))
        change = self.client.view_scroll_to("photos", "i3", align="start")
        self.assertIsNotNone(change.target_content_offset)
        with self.assertRaises(layoutd.ViewNotFound) as caught:
            self.client.view_get("albums")
        self.assertEqual(caught.exception.data, {"view": "albums"})
        with self.assertRaises(layoutd.StaleEpoch) as stale:
            self.client.view_scroll("photos", Point(0, 10), if_epoch=0)
        self.assertEqual(stale.exception.name, "StaleEpoch")
        with self.assertRaises(layoutd.MethodNotFound):
            self.client.call("view.teleport", {"view": "photos"})
        item = self.client.view_item("photos", "i2")
        self.assertEqual(item.frame, Rect(220, 0, 100, 100))
        hit = self.client.view_hit_test("photos", Point(150, 50))
        self.assertEqual(hit and hit.id, "i1")
        self.assertIsNone(self.client.view_hit_test("photos", Point(105, 50)))
        right = self.client.view_neighbor("photos", "i0", "right")
        self.assertEqual(right and right.id, "i1")
        page = self.client.view_query("photos", Rect(0, 0, 320, 400), limit=3)
        self.assertEqual([e.id for e in page.elements], ["i0", "i1", "i2"])
        self.assertIsNotNone(page.next)
        rest = self.client.view_query("photos", Rect(0, 0, 320, 400), after=page.next)
        self.assertEqual([e.id for e in rest.elements], ["i3"])

    def test_every_described_method_is_typed(self) -> None:
        described = self.client.daemon_describe()
        names = [m["name"] for m in described["methods"]]
        self.assertIn("view.scrollTo", names)
        errors = {e["name"] for e in described["errors"]} if "errors" in described else set(ERRORS)
        self.assertLessEqual(errors, set(ERRORS))
        for name in names:
            attribute = "subscribe" if name == "view.subscribe" else re.sub(
                r"([A-Z])", lambda m: "_" + m.group(1).lower(), name.replace(".", "_"))
            self.assertTrue(callable(getattr(Client, attribute, None)), "no typed method for %s" % name)
            self.assertTrue(callable(getattr(AsyncClient, attribute, None)), "no async method for %s" % name)

    def test_pipelined_and_notifications(self) -> None:
        self.create()
        ids = [self.client.send("view.scroll", {"view": "photos", "offset": {"x": 0, "y": y}}) for y in (10, 20, 30)]
        self.client.notify("view.select", {"view": "photos", "ids": ["i0"]})
        results = [self.client.wait_reply(i) for i in reversed(ids)]  # any order of waiting
        self.assertEqual([r["epoch"] for r in results], [3, 2, 1])
        self.assertEqual(self.client.view_get("photos").epoch, 4)

    def test_update_operations(self) -> None:
        self.create()
        change = self.client.view_update("photos", [
            layoutd.InsertItems("s", 1, ["x", Item("y", size=Size(50, 50))]), layoutd.DeleteItems(["i0"]),
            layoutd.MoveItem("i3", "s", 0), layoutd.ReloadItems([Item("i1", size=Size(100, 20))]),
            layoutd.InsertSections(1, [Section("t", ["z"])])])
        self.assertEqual(change.changes and change.changes["insertedItems"], ["x", "y", "z"])
        self.assertEqual(change.changes and change.changes["movedItems"], ["i3"])
        self.client.view_update("photos", [layoutd.MoveSection("t", 0), layoutd.ReloadSections([Section("s", ["i1"])])])
        self.client.view_update("photos", [layoutd.DeleteSections(["t"])])
        snapshot = self.client.view_get("photos")
        self.assertEqual((snapshot.section_count, snapshot.item_count), (1, 1))

    def test_staged_upload(self) -> None:
        self.create()
        upload = self.client.view_stage_begin("photos")["upload"]
        self.client.view_stage_append(upload, [Section("t", ["x", "y"])])
        change = self.client.view_stage_commit(upload)
        self.assertEqual(change.changes and change.changes["insertedSections"], ["t"])
        self.assertEqual(self.client.view_get("photos").item_count, 2)

    def test_async_client(self) -> None:
        self.create(30)

        async def main() -> None:
            async with await AsyncClient.connect(self.daemon.path) as client:
                hello, status = await asyncio.gather(client.daemon_hello(protocol=[1]), client.daemon_status())
                self.assertEqual(hello["protocol"], 1)
                subscription = await client.subscribe("photos")
                change = await client.view_scroll("photos", {"x": 0, "y": 500}, animated=True)
                event = await subscription.next(timeout=10)
                assert event is not None
                self.assertEqual(event.params, change.raw)
                self.assertEqual(subscription.mirror.sorted(), (await client.view_get("photos")).elements)
                with self.assertRaises(layoutd.ItemNotFound):
                    await client.view_item("photos", "nope")
                await client.view_delete("photos")
                names = [e.name async for e in subscription]
                self.assertEqual(names, ["view.deleted"])

        asyncio.run(main())


class ConnectionErrors(unittest.TestCase):
    def test_line_too_long_raises_and_closes(self) -> None:
        with Daemon("--set", "max-line-length=4096") as daemon, Client(daemon.path, timeout=10) as client:
            with self.assertRaises(layoutd.LineTooLong) as caught:
                client.view_create("v", "flow", {"width": 320, "height": 200},
                                   sections=[{"id": "s", "items": [{"id": "item%d" % n} for n in range(1000)]}])
            self.assertEqual(caught.exception.data, {"limit": 4096})
            self.assertTrue(client.closed)

    def test_eof_raises_connection_closed(self) -> None:
        daemon = Daemon().start()
        try:
            client = Client(daemon.path, timeout=10)
            # A round trip first: a connection still in the listen backlog when the daemon
            # stops is never accepted, so it would get no daemon.shutdown.
            client.daemon_hello()
            daemon.stop()
            with self.assertRaises(layoutd.ClientError):
                client.daemon_status()
            self.assertIsNotNone(client.shutdown)  # daemon.shutdown arrived first
            client.close()
        finally:
            daemon.__exit__()


def cell(id: str, x: float, y: float, alpha: float = 1.0) -> Attributes:
    return Attributes(id, "cell", 0, Rect(x, y, 100, 100), item=0, alpha=alpha)


def _attributes_json(x: float) -> Dict[str, object]:
    return {"id": "a", "kind": "cell", "section": 0, "item": 0, "frame": {"x": x, "y": 0, "width": 100, "height": 100},
            "zIndex": 0, "alpha": 1, "hidden": False}


class Transitions(unittest.TestCase):
    def test_interpolation_with_delay_and_segments(self) -> None:
        transition = Transition(1.0, [
            Segment("cell", "a", cell("a", 0, 0), cell("a", 100, 0), 0.0, 0.5),
            Segment("cell", "a", cell("a", 100, 0), cell("a", 100, 200), 0.5, 0.5),
            Segment("cell", "b", cell("b", 0, 0, 0.0), cell("b", 0, 0, 1.0), 0.2, 0.4),
        ])
        at = transition_at(transition, 0.0)
        self.assertEqual(at[("cell", "a")].frame, Rect(0, 0, 100, 100))
        self.assertEqual(at[("cell", "b")].alpha, 0.0)  # before its delay: at its from
        at = transition_at(transition, 0.25)
        self.assertEqual(at[("cell", "a")].frame, Rect(50, 0, 100, 100))
        self.assertAlmostEqual(at[("cell", "b")].alpha, 0.125)
        at = transition_at(transition, 0.75)
        self.assertEqual(at[("cell", "a")].frame, Rect(100, 100, 100, 100))
        self.assertEqual(at[("cell", "b")].alpha, 1.0)
        at = transition_at(transition, 5)
        self.assertEqual(at[("cell", "a")].frame, Rect(100, 200, 100, 100))
        eased = transition_at(transition, 0.25, curve=lambda p: p * p)
        self.assertEqual(eased[("cell", "a")].frame.x, 25)

    def test_each_segment_plays_on_its_curve(self) -> None:
        # Values solved independently on the same control points (protocol/mutations.md's table).
        vectors = {
            "linear": [(0.25, 0.25), (0.5, 0.5)],
            "easeIn": [(0.1, 0.017026609652), (0.25, 0.093464650719), (0.5, 0.315356812573), (0.75, 0.621861869175)],
            "easeOut": [(0.1, 0.160572154238), (0.25, 0.378138130825), (0.5, 0.684643187427), (0.75, 0.906535349281)],
            "easeInOut": [(0.1, 0.019722453548), (0.25, 0.129161931047), (0.5, 0.5), (0.75, 0.870838068953)],
        }
        self.assertEqual(sorted(layoutd.CURVES), sorted(vectors))
        for name, points in vectors.items():
            for x, y in points:
                self.assertAlmostEqual(layoutd.CURVES[name](x), y, places=9, msg="%s(%s)" % (name, x))
            self.assertEqual((layoutd.CURVES[name](0), layoutd.CURVES[name](1)), (0.0, 1.0))
        segment = Segment("cell", "a", cell("a", 0, 0), cell("a", 100, 0), 0.0, 1.0, "easeInOut")
        self.assertAlmostEqual(transition_at(Transition(1.0, [segment]), 0.25)[("cell", "a")].frame.x, 12.9161931047, places=6)
        self.assertEqual(transition_at(Transition(1.0, [segment]), 0.25, curve=layoutd.linear)[("cell", "a")].frame.x, 25)
        with self.assertRaises(ValueError):
            transition_at(Transition(1.0, [Segment("cell", "a", cell("a", 0, 0), cell("a", 9, 0), 0.0, 1.0, "wobbly")]), 0.5)
        wire = {"kind": "cell", "id": "a", "from": _attributes_json(0), "to": _attributes_json(100), "delay": 0, "duration": 1}
        self.assertEqual(Segment.from_json(dict(wire, curve="easeOut")).curve, "easeOut")
        self.assertEqual(Segment.from_json(wire).curve, "linear", "a daemon that names no curve")

    def test_player_keeps_leaving_elements_until_the_end(self) -> None:
        transition = Transition(0.3, [Segment("cell", "gone", cell("gone", 0, 0), cell("gone", 0, 0, 0.0), 0, 0.3)])
        player = TransitionPlayer(transition, {("cell", "stay"): cell("stay", 0, 110)})
        self.assertEqual(set(player.frame(0.1)), {("cell", "stay"), ("cell", "gone")})
        self.assertEqual(set(player.frame(0.3)), {("cell", "stay")})

    def test_daemon_transition(self) -> None:
        with Daemon() as daemon, Client(daemon.path, timeout=10) as client:
            client.view_create("v", "flow", {"width": 320, "height": 200}, params=FLOW,
                               sections=[{"id": "s", "items": [{"id": i} for i in "abcd"]}])
            mirror = Mirror(client.view_get("v"))
            change = client.view_update("v", [{"op": "deleteItems", "ids": ["a"]}], animated=True)
            assert change.transition is not None
            start = {k: v for k, v in mirror.elements.items()}
            mirror.apply(change)
            frames = transition_at(change.transition, 0)
            for segment in change.transition.segments:
                self.assertEqual(frames[segment.key], segment.from_)
                if segment.key in start and segment.from_.alpha > 0:
                    self.assertEqual(segment.from_.frame, start[segment.key].frame)
            end = transition_at(change.transition, change.transition.duration)
            for key, attributes in end.items():
                if key in mirror.elements:
                    self.assertEqual(attributes.frame, mirror.elements[key].frame)
            mid = transition_at(change.transition, change.transition.duration / 2)
            d = mid[("cell", "d")].frame
            self.assertEqual((d.x, d.y), (110.0, 55.0))  # (0,110) → (220,0), half way


class Package(unittest.TestCase):
    def test_size_and_point_wire_forms(self) -> None:
        self.assertEqual(Size(100.0, 37.5).to_json(), {"width": 100, "height": 37.5})
        self.assertEqual(Viewport(320, 200, Point(0, 5)).to_json(), {"width": 320, "height": 200, "offset": {"x": 0, "y": 5}})


if __name__ == "__main__":
    unittest.main()
