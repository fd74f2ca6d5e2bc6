"""Drag to reorder (begin_move / update_move / end_move: the model's order after is the daemon's)
and keyboard focus (move_focus_to follows view.neighbor's answers)."""
import unittest

from support import ViewTestCase, drain, items, iterate_until, list_store

FLOW = {"itemSize": {"width": 100, "height": 100}}


def centre(rect):
    x, y, width, height = rect
    return x + width / 2, y + height / 2


class Drag(ViewTestCase):
    def setUp(self):
        super().setUp()
        self.model = list_store(items(24))
        self.view = self.show_view("drag", "flow", FLOW, model=self.model)
        self.moved = []
        self.view.connect("item-moved", self.on_item_moved)

    def on_item_moved(self, view, identifier, section, position):
        self.moved.append((identifier, section, position))
        return False  # the view moves the Gio.ListStore item itself

    def drag(self, source, target, commit, steps=6):
        view = self.view
        (sx, sy), (tx, ty) = centre(self.allocation(view, "cell", source)[0]), centre(self.allocation(view, "cell", target)[0])
        self.assertTrue(view.begin_move(sx, sy), "begin_move on %s" % source)
        for step in range(1, steps + 1):
            view.update_move(sx + (tx - sx) * step / steps, sy + (ty - sy) * step / steps)
            drain(1)
        # No wait for idle here: a move in progress is not idle (the lifted cell follows the
        # finger); end_move goes after the updates in order.
        view.end_move(commit)
        self.wait_idle(view)

    def test_drag_reorders_the_model_as_the_daemon_does(self):
        before = self.model_ids(self.model)
        self.assertEqual(self.data_order("drag"), before)
        self.drag("i0", "i6", commit=True)
        after = self.model_ids(self.model)
        self.assertNotEqual(after, before, "the drop moved the item")
        self.assertEqual(sorted(after), sorted(before))
        self.assertEqual(after, self.data_order("drag"), "the model's order is the daemon's")
        self.assertEqual(len(self.moved), 1, self.moved)
        identifier, section, position = self.moved[0]
        self.assertEqual((identifier, section), ("i0", 0))
        self.assertEqual(after.index("i0"), position)
        self.assertGreater(position, 0)
        self.assert_matches_daemon(self.view, "drag", label="after the drop")
        self.assertEqual(self.errors, [])

    def test_cancelled_drag_keeps_the_order(self):
        before = self.model_ids(self.model)
        self.drag("i2", "i9", commit=False)
        self.assertEqual(self.model_ids(self.model), before)
        self.assertEqual(self.data_order("drag"), before)
        self.assertEqual(self.moved, [])
        self.assert_matches_daemon(self.view, "drag", label="after a cancelled drag")

    def test_begin_move_outside_any_cell_is_refused(self):
        width = self.view.get_width()
        self.assertFalse(self.view.begin_move(width + 50, -40))
        self.wait_idle(self.view)
        self.assertEqual(self.moved, [])
        self.assertEqual(self.model_ids(self.model), self.data_order("drag"))


WATERFALL = {"columnCount": 3}
COMPOSITIONAL = {"section": {"group": {"direction": "horizontal",
                                       "size": {"width": {"fractionalWidth": 1}, "height": {"absolute": 90}},
                                       "subitems": [{"size": {"width": {"fractionalWidth": 0.25}, "height": {"fractionalHeight": 1}}}]}},
                 "sections": {"b": {"list": {"appearance": "plain"}}}}
PATH = ["right", "right", "down", "down", "left", "down", "next", "next", "previous", "up", "right", "right", "right",
        "right", "down", "down", "down", "down", "down", "down", "down", "down", "left", "left", "left", "left", "up", "previous"]

# name: (strategy, parameters, sections, plugins)
KEYBOARD = {
    "flow": ("flow", {"itemSize": {"width": 90, "height": 90}, "headerReferenceSize": {"width": 0, "height": 30}},
             [("a", 13), ("b", 30)], False),
    "display_grid": ("display", {"mode": "grid", "columns": 4}, [("s", 60)], False),
    "collapsible": ("collapsible", {"itemSize": {"width": 80, "height": 80}}, [("a", 10), ("b", 40)], False),
    "compositional": ("compositional", COMPOSITIONAL, [("a", 22), ("b", 10), ("c", 20)], False),
    "waterfall": ("waterfall", WATERFALL, [("s", 80)], True),
}


class KeyboardCase(ViewTestCase):
    def run_keyboard(self, name):
        strategy, parameters, sections, _ = KEYBOARD[name]
        view_name = "keys-" + name
        view = self.show_view(view_name, strategy, parameters, model=list_store(items(0, sections=sections)))
        view.set_focus_id("i1")
        iterate_until(lambda: view.get_focus_id() == "i1", 5, "focus on i1")
        current = "i1"
        for step, direction in enumerate(PATH):
            answer = self.truth.call("view.neighbor", {"view": view_name, "id": current, "direction": direction})["element"]
            expected = answer["id"] if answer else current
            view.move_focus_to(direction)
            if expected == current:
                # At the edge: the view answers with nothing (an error bell); the focus stays.
                self.wait_idle(view)
            else:
                iterate_until(lambda: view.get_focus_id() == expected, 5, "%s step %d: %s from %s to %s (focus is %s)" % (
                    name, step, direction, current, expected, view.get_focus_id()))
            self.assertEqual(view.get_property("focus-id"), expected)
            current = expected
            if step % 6 != 5:
                continue
            # Once the scrolling it started is over, the focused cell is on screen.
            self.wait_idle(view)
            rect, _ = self.allocation(view, "cell", current)
            self.assertIsNotNone(rect, "%s: focused %s has a widget" % (name, current))
            self.assertGreater(rect[1] + rect[3], 0, "%s: focused %s is visible" % (name, current))
            self.assertLess(rect[1], view.get_height(), "%s: focused %s is visible" % (name, current))
        self.assert_matches_daemon(view, view_name, label="after keyboard navigation")
        self.assertEqual(self.errors, [])


class Keyboard(KeyboardCase):
    pass


class PluginKeyboard(KeyboardCase):
    plugins = True


for _name, _case in KEYBOARD.items():
    setattr(PluginKeyboard if _case[3] else Keyboard, "test_" + _name, lambda self, name=_name: self.run_keyboard(name))


if __name__ == "__main__":
    unittest.main()
