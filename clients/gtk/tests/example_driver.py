"""Drives an example program as a user would, in its own process: test_examples.py runs
`python3 example_driver.py stacks|gallery [ARGS]` under Xvfb with $LAYOUTD_SOCKET set.

The programs are not changed for the test and have no test hooks: this driver patches
Gtk.Window.present to learn the window, runs the program with runpy, and plays a scenario from
the GLib main loop on the program's own widgets, then quits the application. It prints
"example-driver: ok" and exits 0, else a reason and exits 1.

stacks (examples/stacks.py, docs/gtk.md's program; the Layoutd.CollectionView and the "Stack"
Gtk.ToggleButton found in the window):
  1. waits until the view is READY and idle; the content is taller than the viewport;
  2. scrolls (the vertical adjustment) far down and back: other photos get widgets;
  3. clicks photo 3 (the view's own click gesture, its "released" signal at the photo's
     centre) and adds 4 and 5: they are the selection, their labels in the :selected state;
  4. toggles "Stack": a transition runs, then 3, 4 and 5 share one frame and 6 took 4's place;
  5. drags photo 8 onto photo 1's place (begin_move / update_move / end_move, what the view's
     long-press gesture calls): the Gio.ListStore's order changes.
gallery (examples/layoutd-gallery; its pages through Gio.Application.get_default()):
  stacks five photos with the pre-stack transition (the top draws the count) and unstacks them,
  drags a photo (the status line says so), switches the display page to list and inline (the
  frames are the mode's), scrolls the ultravisual page by one step (the next cell is featured)
  and shows the compositional page's headers.
EXAMPLE_DRIVER_SCREENSHOT=FILE: stacks also writes a PNG of its window once stacked.
"""
import os
import runpy
import sys
import time
import traceback

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Layoutd", "1")
from gi.repository import Gio, GLib, Gtk, Layoutd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")
PROGRAMS = {"stacks": os.path.join(EXAMPLES, "stacks.py"), "gallery": os.path.join(EXAMPLES, "layoutd-gallery")}
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


def gallery_scenario():
    """layoutd-gallery: stacks with the pre-stack transition, a drag on the photos page seen by
    the display page (one Gio.ListStore), the display modes, ultravisual and compositional."""
    yield lambda: find(Layoutd.CollectionView), "the gallery's views"
    app = Gio.Application.get_default()
    photos = app.pages["photos"]
    view = photos.view
    yield lambda: idle(view), "the photos view to be READY and idle"
    assert view.get_model().get_n_items() == 30000
    view.select(["p5", "p6", "p7", "p8", "p9", "p12"], "set")
    yield lambda: idle(view), "the selection"
    photos.transition.set_selected(1)  # pre-stack
    yield lambda: idle(view), "the transition parameter"
    before = {p: frame(view, p) for p in ("p5", "p6", "p9", "p10")}
    running = []
    poller = GLib.timeout_add(2, lambda: running.append(view.get_transition_running()) or True)
    photos.stack.set_active(True)
    yield lambda: any(running), "a transition to run"
    yield lambda: idle(view), "the transition to end"
    GLib.source_remove(poller)
    assert frame(view, "p9") == before["p5"] and frame(view, "p10") == before["p6"], (before, frame(view, "p10"))
    assert photos.stack_counts.get("p9") == 5 and photos.stack_counts.get("p5") == 1, photos.stack_counts
    assert photos.cells["p9"].stack_count == 5, "the top of the stack draws its count"
    photos.stack.set_active(False)
    yield lambda: idle(view) and frame(view, "p9") == before["p9"], "unstacking"
    assert photos.stack_counts == {}

    # Drag photo 1 to photo 4's place; the display page shares the store.
    store = view.get_model()
    (sx, sy), (tx, ty) = centre(view, "p1"), centre(view, "p4")
    assert view.begin_move(sx, sy), "begin_move on photo 1"
    for index in range(1, 7):
        view.update_move(sx + (tx - sx) * index / 6, sy + (ty - sy) * index / 6)
        yield lambda: True, "a frame"
    view.end_move(True)
    yield lambda: idle(view), "the drop"
    order = [store.get_item(i).get_property("id") for i in range(6)]
    assert order.index("p1") > 0, order
    assert "Moved photo 1" in app.message.get_label(), app.message.get_label()

    # Display: grid, list, inline.
    app.stack.set_visible_child_name("display")
    display = app.pages["display"]
    yield lambda: idle(display.view), "the display view"
    assert display.view.list_elements()[0:1], display.view.list_elements()
    for button in [w for w in descendants(display.box) if isinstance(w, Gtk.ToggleButton)]:
        if button.get_label() in ("List", "Inline"):
            button.set_active(True)
            mode = button.get_label().lower()
            yield lambda: idle(display.view) and '"mode":"%s"' % mode in display.view.get_parameters().replace(" ", ""), mode
            width = display.view.get_width()
            _, _, w, h = frame(display.view, "p2")
            if mode == "list":
                assert abs(w - width) < 1 and abs(h - 64) < 1, (w, h, width)
            else:
                assert abs(w - 0.42 * width) < 1 and abs(h - 300) < 1, (w, h, width)

    # Ultravisual: scroll by one drag (280 - 100): the second session is featured.
    app.stack.set_visible_child_name("ultravisual")
    ultra = app.pages["ultravisual"].view
    yield lambda: idle(ultra), "the ultravisual view"
    ultra.get_vadjustment().set_value(180)
    yield lambda: idle(ultra) and abs(frame(ultra, "u1")[3] - 280) < 1, "u1 to be featured"

    # Compositional: headers from the supplementary factory.
    app.stack.set_visible_child_name("compositional")
    compositional = app.pages["compositional"].view
    yield lambda: idle(compositional), "the compositional view"
    elements = compositional.list_elements()
    assert "header/featured" in elements and "cell/featured-0" in elements, elements
    state["done"] = True


runner = {"steps": None, "condition": None, "what": None, "deadline": None}


def step():
    try:
        if runner["steps"] is None:
            runner["steps"] = SCENARIOS[state["program"]]()
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


SCENARIOS = {"stacks": scenario, "gallery": gallery_scenario}


def main():
    errors = []
    state["program"] = sys.argv[1] if len(sys.argv) > 1 else "stacks"
    program = PROGRAMS[state["program"]]
    sys.argv = [program] + sys.argv[2:]
    original_init = Layoutd.CollectionView.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.connect("error", lambda view, error: errors.append(error.message))
    Layoutd.CollectionView.__init__ = init
    try:
        runpy.run_path(program, run_name="__main__")
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
