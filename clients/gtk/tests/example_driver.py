"""Drives clients/gtk/examples/stacks.py (the README's program) as a user would, in its own
process: test_examples.py runs `python3 example_driver.py` under Xvfb with $LAYOUTD_SOCKET set.

The program is not changed for the test and has no test hooks: this driver patches
Gtk.Window.present to learn the window, runs the program with runpy, and from the GLib main
loop it finds the program's widgets (the Layoutd.CollectionView and the "Stack"
Gtk.ToggleButton), then:
  1. waits until the view is READY and idle; the content is taller than the viewport;
  2. scrolls (the vertical adjustment) far down and back: other photos get widgets;
  3. clicks photo 3 (the view's own click gesture, its "released" signal at the photo's
     centre) and adds 4 and 5: they are the selection, their labels in the :selected state;
  4. toggles "Stack": a transition runs, then 3, 4 and 5 share one frame and 6 took 4's place;
  5. drags photo 8 onto photo 1's place (begin_move / update_move / end_move, what the view's
     long-press gesture calls): the Gio.ListStore's order changes;
  6. quits the application. Prints "example-driver: ok" and exits 0, else a reason and exits 1.
"""
import os
import runpy
import sys
import time
import traceback

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Layoutd", "1")
from gi.repository import GLib, Gtk, Layoutd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(os.path.dirname(HERE), "examples", "stacks.py")
TIMEOUT = float(os.environ.get("EXAMPLE_DRIVER_TIMEOUT", "60"))

state = {"window": None, "failure": None, "done": False}
original_present = Gtk.Window.present


def present(window):
    if state["window"] is None:
        state["window"] = window
        GLib.timeout_add(20, step)
    original_present(window)


Gtk.Window.present = present


def descendants(widget):
    child = widget.get_first_child()
    while child is not None:
        yield child
        yield from descendants(child)
        child = child.get_next_sibling()


def find(kind):
    return [w for w in descendants(state["window"]) if isinstance(w, kind)]


def centre(view, identifier):
    found, rect, _alpha = view.get_element_allocation("cell", identifier)
    assert found, "photo %s has no widget" % identifier
    return rect.get_x() + rect.get_width() / 2, rect.get_y() + rect.get_height() / 2


def frame(view, identifier):
    found, rect, _alpha = view.get_element_allocation("cell", identifier)
    assert found, "photo %s has no widget" % identifier
    return (round(rect.get_x(), 3), round(rect.get_y(), 3), round(rect.get_width(), 3), round(rect.get_height(), 3))


def idle(view):
    return view.get_state() == Layoutd.ViewState.READY and view.is_idle()


def label_of(view, identifier):
    for widget in descendants(view):
        if isinstance(widget, Gtk.Label) and widget.get_label() == identifier and widget.get_mapped():
            return widget
    return None


def scenario():
    """A generator: each yield is a condition to wait for (with a description)."""
    deadline = time.monotonic() + TIMEOUT
    yield lambda: find(Layoutd.CollectionView), "the program's Layoutd.CollectionView"
    view = find(Layoutd.CollectionView)[0]
    yield lambda: idle(view), "the view to be READY and idle"
    assert view.get_model().get_n_items() > 1000, "a big model"
    vadjustment = view.get_vadjustment()
    assert vadjustment.get_upper() > vadjustment.get_page_size() * 4, "the content scrolls"
    first = set(view.list_elements())
    assert "cell/0" in first, first

    # 2. Scroll far down and back.
    vadjustment.set_value(vadjustment.get_upper() / 2)
    yield lambda: idle(view) and "cell/0" not in view.list_elements(), "the view to follow the scroll"
    assert len(set(view.list_elements()) - first) > 10, view.list_elements()
    vadjustment.set_value(0)
    yield lambda: idle(view) and "cell/0" in view.list_elements(), "the view to scroll back"

    # 3. Select 3, 4 and 5: a click on 3 (the view's own Gtk.GestureClick, "released" at 3's
    # centre as GTK emits it), then 4 and 5 added as a ctrl-click would (a signal cannot carry
    # the modifier).
    clicks = [c for c in list(view.observe_controllers()) if isinstance(c, Gtk.GestureClick)]
    assert clicks, "the view's Gtk.GestureClick"
    x, y = centre(view, "3")
    clicks[0].emit("released", 1, x, y)
    yield lambda: idle(view) and view.get_selection() == ["3"], "a click to select photo 3"
    view.select(["4", "5"], "add")
    yield lambda: idle(view), "the selection of 4 and 5"
    assert sorted(view.get_selection()) == ["3", "4", "5"], view.get_selection()
    picked = [label_of(view, p).get_state_flags() & Gtk.StateFlags.SELECTED for p in ("3", "4", "5", "6")]
    assert all(picked[:3]) and not picked[3], "the selected photos are :selected (%s)" % picked

    # 4. Stack, animated.
    before = {p: frame(view, p) for p in ("3", "4", "5", "6")}
    assert len(set(before.values())) == 4, before
    toggles = [b for b in find(Gtk.ToggleButton) if b.get_label() == "Stack"]
    assert toggles, "the program's Stack toggle button"
    toggles[0].set_active(True)
    running = []
    poller = GLib.timeout_add(2, lambda: running.append(view.get_transition_running()) or True)
    yield lambda: any(running), "a transition to run"
    yield lambda: idle(view), "the transition to end"
    GLib.source_remove(poller)
    after = {p: frame(view, p) for p in ("3", "4", "5", "6")}
    if os.environ.get("EXAMPLE_DRIVER_SCREENSHOT"):
        save_png(state["window"], os.environ["EXAMPLE_DRIVER_SCREENSHOT"])
    assert after["3"] == after["4"] == after["5"] == before["3"], after
    assert after["6"] == before["4"], (before, after)

    # 5. Drag 8 to 1's place.
    store = view.get_model()
    order = [store.get_item(i).get_property("id") for i in range(12)]
    (sx, sy), (tx, ty) = centre(view, "8"), centre(view, "1")
    assert view.begin_move(sx, sy), "begin_move on photo 8"
    for index in range(1, 7):
        view.update_move(sx + (tx - sx) * index / 6, sy + (ty - sy) * index / 6)
        yield lambda: True, "a frame"
    view.end_move(True)  # after the step on its way, if one is
    yield lambda: idle(view), "the drop"
    moved = [store.get_item(i).get_property("id") for i in range(12)]
    assert moved != order and moved.index("8") < order.index("8"), (order, moved)
    assert time.monotonic() < deadline
    state["done"] = True


def save_png(window, path):
    """The window's content as a PNG (for a look at the program; the gallery's --screenshot)."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
    from importlib.machinery import SourceFileLoader
    gallery = SourceFileLoader("gallery", os.path.join(os.path.dirname(HERE), "examples", "layoutd-gallery")).load_module()
    widget = window.get_child()
    snapshot = Gtk.Snapshot()
    Gtk.WidgetPaintable.new(widget).snapshot(snapshot, widget.get_width(), widget.get_height())
    gallery.save_png(snapshot, window.get_renderer(), widget.get_width(), widget.get_height(), path)


runner = {"steps": None, "condition": None, "what": None, "deadline": None}


def step():
    try:
        if runner["steps"] is None:
            runner["steps"] = scenario()
            runner["deadline"] = time.monotonic() + TIMEOUT
        while True:
            if runner["condition"] is not None:
                if not runner["condition"]():
                    if time.monotonic() > runner["deadline"]:
                        raise AssertionError("timed out waiting for " + runner["what"])
                    return GLib.SOURCE_CONTINUE
            try:
                runner["condition"], runner["what"] = next(runner["steps"])
            except StopIteration:
                Gtk.Window.get_application(state["window"]).quit()
                return GLib.SOURCE_REMOVE
    except Exception:
        state["failure"] = traceback.format_exc()
        application = state["window"].get_application()
        if application is not None:
            application.quit()
        return GLib.SOURCE_REMOVE


def main():
    errors = []
    sys.argv = [PROGRAM]
    original_init = Layoutd.CollectionView.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.connect("error", lambda view, error: errors.append(error.message))
    Layoutd.CollectionView.__init__ = init
    try:
        runpy.run_path(PROGRAM, run_name="__main__")
    except SystemExit:
        pass
    if state["failure"]:
        print("example-driver: FAILED\n" + state["failure"], file=sys.stderr)
        return 1
    if errors:
        print("example-driver: error signal: %s" % errors, file=sys.stderr)
        return 1
    if not state["done"]:
        print("example-driver: the program ended before the scenario did", file=sys.stderr)
        return 1
    print("example-driver: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
