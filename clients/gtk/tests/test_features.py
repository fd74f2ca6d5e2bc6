"""What the view does besides placing widgets, each against the daemon's own answer: scrolling
sends one view.scroll at a time with the latest offset winning, a fling rests where the strategy
says (ultravisual snaps), model changes within one frame become one view.update, self-sizing
reports the widgets' heights, hit testing agrees with view.hitTest, selection goes through
view.select with selection-changed, named effects reach the cells, and a saved state restores
the offset, selection, focus and strategy in a new view."""
import json
import os
import shutil
import socket
import tempfile
import threading
import unittest
import unittest.mock

import support  # noqa: F401 (gi versions)
from gi.repository import Gtk, Layoutd

from support import ViewTestCase, drain, iterate_until, items, list_store


class Scrolling(ViewTestCase):
    def test_one_scroll_in_flight_and_the_latest_offset_wins(self):
        view = self.show_view("coalesce", parameters={"itemSize": {"width": 100, "height": 100}},
                              model=list_store(items(5000)))
        vadjustment = view.get_vadjustment()
        _, trips_before, _ = view.get_stats()
        epoch_before = self.snapshot("coalesce")["epoch"]
        # 200 offsets set without giving the main loop a turn: at most one request goes out
        # before the first reply, then the latest value.
        for step in range(1, 201):
            vadjustment.set_value(step * 37.0)
        self.wait_idle(view)
        snapshot = self.snapshot("coalesce")
        self.assertEqual(snapshot["viewport"]["offset"]["y"], 200 * 37.0)
        scrolls = snapshot["epoch"] - epoch_before
        self.assertGreaterEqual(scrolls, 1)
        self.assertLessEqual(scrolls, 2, "one view.scroll in flight, then the latest offset")
        self.assert_matches_daemon(view, "coalesce", label="after the burst")

    def test_a_fling_rests_where_ultravisual_snaps(self):
        view = self.show_view("snap", strategy="ultravisual", parameters={"standardHeight": 100, "featuredHeight": 280},
                              model=list_store(items(200)), supplementary=())
        vadjustment = view.get_vadjustment()
        vadjustment.set_value(1000)
        self.wait_idle(view)
        view.fling(0, 900)
        self.wait_idle(view, timeout=30)
        offset = self.snapshot("snap")["viewport"]["offset"]["y"]
        drag = 280 - 100
        self.assertEqual(offset % drag, 0, "resting offset %s is a multiple of %s" % (offset, drag))
        self.assertGreater(offset, 1000, "the fling went forward")
        self.assertAlmostEqual(vadjustment.get_value(), offset, places=3)
        self.assert_matches_daemon(view, "snap", kinds=("cell",), label="at rest")

    def test_effects_reach_the_cells(self):
        seen = {}
        factory = Layoutd.CellFactory()
        factory.connect("setup", lambda f, li: (li.set_child(Gtk.Label()),
                                                li.connect("effects-changed", lambda li: seen.__setitem__(li.get_id(), li.get_effect("coverAlpha", -1)))))
        factory.connect("bind", lambda f, li: seen.__setitem__(li.get_id(), li.get_effect("coverAlpha", -1)))
        view = self.show_view("effects", strategy="ultravisual", model=list_store(items(30)), supplementary=())
        view.set_factory(factory)
        self.wait_idle(view)
        view.get_vadjustment().set_value(90)
        self.wait_idle(view)
        truth = {e["id"]: e["effects"]["coverAlpha"] for e in self.snapshot("effects")["elements"]}
        for identifier, alpha in truth.items():
            self.assertAlmostEqual(seen[identifier], alpha, places=6, msg=identifier)


class Data(ViewTestCase):
    def test_changes_in_one_frame_are_one_update(self):
        model = list_store(items(100))
        view = self.show_view("batch", model=model)
        epoch = self.snapshot("batch")["epoch"]
        # Ten edits before the next frame: deletes, inserts and a move.
        model.remove(0)
        model.remove(10)
        for n in range(5):
            model.insert(3 + n, Layoutd.Item(id="new%d" % n, section="s"))
        moved = model.get_item(50)
        model.remove(50)
        model.insert(1, moved)
        model.append(Layoutd.Item(id="last", section="s"))
        self.wait_idle(view)
        self.assertEqual(self.snapshot("batch")["epoch"], epoch + 1, "one view.update for the frame's changes")
        self.assertEqual(self.data_order("batch"), self.model_ids(model))
        self.assert_matches_daemon(view, "batch", label="after the batch")

    def test_self_sizing_reports_the_widgets_heights(self):
        factory = Layoutd.CellFactory()
        lines = {}

        def bind(f, li):
            label = li.get_child()
            label.set_text("\n".join(["line"] * lines[li.get_id()]))
        factory.connect("setup", lambda f, li: li.set_child(Gtk.Label(yalign=0)))
        factory.connect("bind", bind)
        model = list_store(items(40))
        for i in range(40):
            lines["i%d" % i] = 1 + i % 4
        view = self.show_view("sizing", parameters={"estimatedItemSize": {"width": 380, "height": 30},
                                                   "minimumLineSpacing": 0},
                              model=model, supplementary=(), wait=False, self_sizing=True)
        view.set_factory(factory)
        self.wait_ready(view)
        self.wait_idle(view)
        snapshot = self.snapshot("sizing")
        one = Gtk.Label(label="line")
        line_height = one.measure(Gtk.Orientation.VERTICAL, 380)[1]
        checked = 0
        for element in snapshot["elements"]:
            frame = element["frame"]
            # Within the window the layout holds what the widget measured.
            self.assertAlmostEqual(frame["height"], Gtk.Label(label="\n".join(["line"] * lines[element["id"]])).measure(
                Gtk.Orientation.VERTICAL, int(frame["width"]))[1], delta=0.5, msg=element["id"])
            checked += 1
        self.assertGreater(checked, 3)
        self.assertGreater(line_height, 0)


class Pointer(ViewTestCase):
    def test_hit_testing_agrees_with_the_daemon(self):
        view = self.show_view("hits", strategy="collapsible",
                              parameters={"itemSize": {"width": 70, "height": 70}, "collapsed": True},
                              model=list_store(items(200)), supplementary=())
        view.select(["i3", "i4", "i5"], "set")
        self.wait_idle(view)
        view.get_vadjustment().set_value(55)
        self.wait_idle(view)
        offset = self.snapshot("hits")["viewport"]["offset"]
        for x in range(5, 400, 23):
            for y in range(5, 600, 29):
                truth = self.truth.call("view.hitTest", {"view": "hits", "point": {"x": x + offset["x"], "y": y + offset["y"]},
                                                         "kinds": ["cell"]})["element"]
                self.assertEqual(view.hit_test(x, y), truth["id"] if truth else None, (x, y))

    def test_selection_goes_through_the_daemon(self):
        view = self.show_view("select", model=list_store(items(50)))
        changes = []
        view.connect("selection-changed", lambda v: changes.append(list(v.get_selection())))
        view.select(["i2", "i7"], "set")
        view.select(["i7", "i9"], "toggle")
        self.wait_idle(view)
        self.assertEqual(view.get_selection(), ["i2", "i9"])
        self.assertEqual(changes[-1], ["i2", "i9"])
        daemon = self.truth.call("view.selection", {"view": "select"})
        self.assertEqual(daemon["ids"], ["i2", "i9"])
        view.select(["nope"], "add")
        iterate_until(lambda: self.errors, 5, "the refusal")
        self.assertEqual(self.errors[0].code, -32011)
        self.assertTrue(self.errors[0].message.startswith("ItemNotFound:"), self.errors[0].message)
        self.errors.clear()
        self.assertEqual(view.get_selection(), ["i2", "i9"], "a refused selection changes nothing")


class Moves(ViewTestCase):
    def test_a_drag_at_the_edge_auto_scrolls_and_drops_further_on(self):
        model = list_store(items(3000))
        view = self.show_view("autoscroll", parameters={"itemSize": {"width": 100, "height": 100}}, model=model,
                              supplementary=())
        found, rect, _ = view.get_element_allocation("cell", "i1")
        self.assertTrue(found)
        self.assertTrue(view.begin_move(rect.get_x() + 50, rect.get_y() + 50))
        # The finger rests at the bottom edge: the daemon's autoScroll carries the view (and the
        # item under the finger) down, one frame at a time, with no further pointer motion.
        view.update_move(200, view.get_height() - 4)
        vadjustment = view.get_vadjustment()
        iterate_until(lambda: vadjustment.get_value() > 1500, 30, "auto-scroll to pass 1,500 points")
        view.end_move(True)
        self.wait_idle(view)
        order = self.data_order("autoscroll")
        self.assertEqual(order, self.model_ids(model), "the model follows the daemon's order")
        self.assertGreater(order.index("i1"), 40, "dropped far below where it was picked up")
        self.assertGreater(self.snapshot("autoscroll")["viewport"]["offset"]["y"], 1500)


class Transforms(ViewTestCase):
    """A plugin's transform reaches the widget: the C circle example scales selected items
    (selectedScale) about their centre; no built-in strategy sets a transform."""

    plugins = True

    def setUp(self):
        built = os.path.join(support.ROOT, ".build", "plugins", "debug", "examples", "circle-c.so")
        if not os.path.exists(built):
            self.skipTest("no circle-c.so (make plugins builds it)")
        # Only the C circle: a folder of its own (the Swift circle registers another name).
        folder = tempfile.mkdtemp(prefix="layoutd-circle-")
        self.addCleanup(shutil.rmtree, folder, True)
        shutil.copy(built, os.path.join(folder, "waterfall.so"))
        with unittest.mock.patch.object(support, "plugin_dir", lambda: folder):
            super().setUp()

    def test_a_selected_item_is_drawn_scaled_about_its_centre(self):
        view = self.show_view("circle", strategy="circle-c", parameters={"itemSize": {"width": 60, "height": 40},
                                                                        "selectedScale": 1.5},
                              model=list_store(items(12)), supplementary=())
        view.select(["i3"], "set")
        self.wait_idle(view)
        element = next(e for e in self.snapshot("circle")["elements"] if e["id"] == "i3")
        self.assertEqual(element["transform"], {"a": 1.5, "b": 0, "c": 0, "d": 1.5, "tx": 0, "ty": 0})
        frame = element["frame"]
        child = self.cells["circle"].bound[("cell", "i3")]
        ok, bounds = child.compute_bounds(view)
        self.assertTrue(ok)
        centre_x, centre_y = frame["x"] + frame["width"] / 2, frame["y"] + frame["height"] / 2
        want = (centre_x - frame["width"] * 0.75, centre_y - frame["height"] * 0.75, frame["width"] * 1.5, frame["height"] * 1.5)
        got = (bounds.get_x(), bounds.get_y(), bounds.get_width(), bounds.get_height())
        for a, b, field in zip(got, want, "xywh"):
            self.assertAlmostEqual(a, b, delta=1.0, msg="%s: GTK bounds %s, frame scaled about its centre %s" % (field, got, want))
        plain = self.cells["circle"].bound[("cell", "i4")].compute_bounds(view)[1]
        self.assertAlmostEqual(plain.get_width(), 60, delta=1.0, msg="an unselected item is not scaled")


class FallingBehind(ViewTestCase):
    """A view whose main loop stalls while another client floods its view: the daemon stops
    queueing its events past a tiny output cap and sends one view.resync instead; the view
    replaces its mirror from it and follows the other client's offset."""

    def setUp(self):
        start = support.Daemon.start

        def small_output_cap(daemon):
            daemon.args += ["--set", "output-cap=4096"]
            return start(daemon)
        with unittest.mock.patch.object(support.Daemon, "start", small_output_cap):
            super().setUp()

    def test_a_resync_replaces_the_window_and_the_offset(self):
        view = self.show_view("behind", parameters={"itemSize": {"width": 100, "height": 100}},
                              model=list_store(items(20000)), supplementary=())
        epoch = view.get_epoch()
        # The main loop does not turn while another connection scrolls the view 3,000 times.
        for step in range(1, 3001):
            self.truth.call("view.scroll", {"view": "behind", "offset": {"x": 0, "y": step * 7.0}})
        iterate_until(lambda: view.get_epoch() >= epoch + 3000, 20, "the view to catch up")
        self.wait_idle(view)
        self.assertEqual(view.get_epoch(), self.snapshot("behind")["epoch"])
        self.assertEqual(view.get_vadjustment().get_value(), 3000 * 7.0, "the other client's offset, adopted")
        self.assert_matches_daemon(view, "behind", kinds=("cell",), label="after the resync")


class BrokenPeer(ViewTestCase):
    """A peer at the socket that answers with something no layoutd writes: the view reports the
    client's protocol error through `error`, keeps its state RECONNECTING (it retries), and
    nothing crashes."""

    def test_a_garbage_answer_is_a_protocol_error(self):
        folder = tempfile.mkdtemp(prefix="layoutd-broken-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "ipc.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(16)
        self.addCleanup(listener.close)
        accepted = []

        def serve():
            while True:
                try:
                    peer, _ = listener.accept()
                except OSError:
                    return
                accepted.append(peer)
                peer.sendall(b"this is not json\n")
        threading.Thread(target=serve, daemon=True).start()
        self.addCleanup(lambda: [peer.close() for peer in accepted])
        view = self.show_view("broken", socket_path=path, wait=False)
        iterate_until(lambda: self.errors, 10, "the protocol error")
        self.assertEqual(self.errors[0].code, -3, self.errors[0].message)
        self.assertTrue(self.errors[0].message.startswith("ProtocolError:"), self.errors[0].message)
        iterate_until(lambda: len(accepted) >= 2, 10, "the view to try again")
        self.assertIn(view.get_state(), (Layoutd.ViewState.RECONNECTING, Layoutd.ViewState.CREATING))
        self.errors.clear()


class DeletedElsewhere(ViewTestCase):
    def test_a_view_deleted_by_another_client_fails_by_name_and_sends_no_more(self):
        view = self.show_view("doomed", model=list_store(items(500)))
        vadjustment = view.get_vadjustment()
        # Scrolls on their way while another connection deletes the view: each is refused once,
        # none is retried, and the view.deleted event ends the view.
        for step in range(1, 20):
            vadjustment.set_value(step * 10.0)
        self.truth.call("view.delete", {"view": "doomed"})
        iterate_until(lambda: view.get_state() == Layoutd.ViewState.FAILED, 10, "the view to fail")
        iterate_until(lambda: view.is_idle(), 10, "nothing in flight")
        _, trips, _ = view.get_stats()
        vadjustment.set_value(900)
        drain(3)
        self.assertEqual(view.get_stats()[1], trips, "a failed view sends nothing")
        self.assertTrue(all(error.code == -32001 for error in self.errors), [e.message for e in self.errors])
        self.assertTrue(any(error.message.startswith("ViewNotFound:") for error in self.errors))
        self.assertLessEqual(len(self.errors), 3, [e.message for e in self.errors])
        self.errors.clear()


class State(ViewTestCase):
    def test_a_saved_state_restores_in_a_new_view(self):
        model = list_store(items(400))
        view = self.show_view("saved", strategy="display", parameters={"mode": "list", "rowHeight": 50}, model=model)
        view.get_vadjustment().set_value(1234)
        view.select(["i30", "i31"], "set")
        view.set_focus_id("i30")
        view.configure(json.dumps({"rowHeight": 60}), False)
        self.wait_idle(view)
        saved = view.save_state()
        offset = self.snapshot("saved")["viewport"]["offset"]
        self.close_windows()
        again = Layoutd.CollectionView()
        self.assertTrue(again.restore_state(saved))
        self.assertEqual(again.get_strategy(), "display")
        restored = self.show_view("restored", strategy=again.get_strategy(), parameters=again.get_parameters(),
                                  model=model, wait=False)
        restored.restore_state(saved)
        self.wait_ready(restored)
        self.wait_idle(restored)
        snapshot = self.snapshot("restored")
        self.assertEqual(snapshot["params"]["rowHeight"], 60)
        self.assertEqual(snapshot["params"]["mode"], "list")
        self.assertEqual(snapshot["viewport"]["offset"], offset)
        self.assertEqual(restored.get_selection(), ["i30", "i31"])
        self.assertEqual(restored.get_focus_id(), "i30")
        self.assert_matches_daemon(restored, "restored", kinds=("cell",), label="restored")

    def test_an_unreadable_state_is_refused(self):
        view = Layoutd.CollectionView()
        for text in ["", "{", "[]", '{"version":2,"strategy":"flow","parameters":{}}', '{"version":1,"strategy":"flow"}']:
            with self.assertRaises(Exception, msg=text) as caught:
                view.restore_state(text)
            self.assertIn("InvalidArgument", str(caught.exception))
        self.assertEqual(view.get_strategy(), "flow")


if __name__ == "__main__":
    unittest.main()
