"""The view's own input wiring, driven by real X events (xdotool's XTEST under Xvfb), not by
calling its methods: a click selects, shift-click selects the run between, ctrl-click toggles,
a double click activates (on a view of its own: after the modifier clicks of the selection test,
GTK saw XTEST's double click as two single clicks, which I have not explained), arrow keys move the focus where view.neighbor says, the wheel scrolls
the daemon's view, and a long press picks a cell up and drops it where the pointer lets go."""
import shutil
import subprocess
import unittest

import support  # noqa: F401 (gi versions)
from gi.repository import Graphene

from support import ViewTestCase, iterate_until, drain, items, list_store


def xdotool(*arguments):
    subprocess.run(["xdotool"] + [str(a) for a in arguments], check=True, timeout=20)


@unittest.skipUnless(shutil.which("xdotool"), "xdotool is not installed")
class RealInput(ViewTestCase):
    def setUp(self):
        super().setUp()
        self.model = list_store(items(300))
        self.view = self.show_view("input", parameters={"itemSize": {"width": 100, "height": 100}}, model=self.model,
                                   supplementary=())
        window = self.windows[0]
        window.set_title("layoutd-gtk-input-%d" % id(self))
        drain(3)
        found = subprocess.run(["xdotool", "search", "--name", window.get_title()], capture_output=True, text=True,
                               timeout=20).stdout.split()
        self.assertEqual(len(found), 1, found)
        self.xwindow = found[0]
        xdotool("windowfocus", "--sync", self.xwindow)

    def point_of(self, identifier, dx=50, dy=50):
        """The X coordinates (relative to the window) of a point inside a cell."""
        found, rect, _ = self.view.get_element_allocation("cell", identifier)
        self.assertTrue(found, identifier)
        native = self.view.get_native()
        ok, origin = self.view.compute_point(native, Graphene.Point().init(rect.get_x() + dx, rect.get_y() + dy))
        self.assertTrue(ok)
        surface_x, surface_y = native.get_surface_transform()
        return int(origin.x + surface_x), int(origin.y + surface_y)

    def click(self, identifier, modifiers=(), count=1):
        x, y = self.point_of(identifier)
        xdotool("mousemove", "--window", self.xwindow, x, y)
        for key in modifiers:
            xdotool("keydown", key)
        xdotool("click", "--repeat", count, "--delay", 60, 1)
        for key in modifiers:
            xdotool("keyup", key)

    def test_a_double_click_activates(self):
        activated = []
        self.view.connect("activate", lambda view, identifier: activated.append(identifier))
        self.click("i2", count=2)
        iterate_until(lambda: activated == ["i2"], 10, "a double click to activate i2")

    def test_clicks_select(self):
        changes = []
        self.view.connect("selection-changed", lambda view: changes.append(view.get_selection()))
        self.click("i5")
        iterate_until(lambda: changes and changes[-1] == ["i5"], 10, "a click to select i5")
        self.click("i9", modifiers=["shift"])
        iterate_until(lambda: changes[-1] == ["i5", "i6", "i7", "i8", "i9"], 10, "shift-click to select the run")
        self.click("i7", modifiers=["ctrl"])
        iterate_until(lambda: changes[-1] == ["i5", "i6", "i8", "i9"], 10, "ctrl-click to toggle i7")
        self.wait_idle(self.view)
        self.assertEqual(self.truth.call("view.selection", {"view": "input"})["ids"], ["i5", "i6", "i8", "i9"])

    def test_arrow_keys_follow_view_neighbor(self):
        self.click("i4")
        iterate_until(lambda: self.view.get_focus_id() == "i4", 10, "the click to focus i4")
        for key, direction in [("Right", "right"), ("Down", "down"), ("Down", "down"), ("Left", "left"), ("Up", "up")]:
            before = self.view.get_focus_id()
            expected = self.truth.call("view.neighbor", {"view": "input", "id": before, "direction": direction})["element"]["id"]
            xdotool("key", "--window", self.xwindow, key)
            iterate_until(lambda: self.view.get_focus_id() == expected, 10, "%s from %s to %s" % (key, before, expected))
            self.wait_idle(self.view)

    def test_the_wheel_scrolls_the_daemon_view(self):
        x, y = self.point_of("i4")
        xdotool("mousemove", "--window", self.xwindow, x, y)
        xdotool("click", "--repeat", 6, "--delay", 30, 5)
        vadjustment = self.view.get_vadjustment()
        iterate_until(lambda: vadjustment.get_value() > 0, 10, "the wheel to scroll")
        self.wait_idle(self.view)
        self.assertEqual(self.snapshot("input")["viewport"]["offset"]["y"], vadjustment.get_value())
        self.assert_matches_daemon(self.view, "input", kinds=("cell",), label="after the wheel")

    def test_a_long_press_drags_a_cell_to_where_the_pointer_lets_go(self):
        moved = []
        self.view.connect("item-moved", lambda view, identifier, section, position: moved.append((identifier, position)) and False)
        x, y = self.point_of("i0")
        target_x, target_y = self.point_of("i6", dx=70)
        xdotool("mousemove", "--window", self.xwindow, x, y)
        xdotool("mousedown", 1)
        # Held still until the long press is recognised and the move has begun (the view is busy
        # from begin_move to its end).
        iterate_until(lambda: not self.view.is_idle(), 10, "the long press to pick i0 up")
        for step in range(1, 11):
            xdotool("mousemove", "--window", self.xwindow, x + (target_x - x) * step // 10, y + (target_y - y) * step // 10)
            drain(1)
        xdotool("mouseup", 1)
        iterate_until(self.view.is_idle, 10, "the drop")
        self.wait_idle(self.view)
        order = self.data_order("input")
        self.assertEqual(order, self.model_ids(self.model), "the model follows the daemon")
        self.assertEqual(order.index("i0"), 6, order[:10])
        self.assertEqual(moved, [("i0", 6)])
        self.assertEqual(self.view.get_selection(), [], "the press that dragged did not also click")


if __name__ == "__main__":
    unittest.main()
