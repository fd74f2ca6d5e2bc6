"""Screenshots of the view through GTK's own rendering (Gtk.WidgetPaintable -> snapshot -> the
window's Gsk renderer -> gdk_texture_save_to_png) into clients/gtk/build/screenshots/, and what
their pixels say: each cell drawn in its own colour where the daemon's frame minus the offset
puts it, and nothing drawn in the gaps between cells."""
import ctypes
import os
import unittest

from support import SCREENSHOTS, GdkPixbuf, Gtk, ViewTestCase, color_for, items, list_store

FLOW = {"itemSize": {"width": 90, "height": 70}, "minimumInteritemSpacing": 12, "minimumLineSpacing": 14,
        "sectionInset": {"top": 6, "left": 8, "bottom": 6, "right": 8}}


class _Rect(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("width", ctypes.c_float), ("height", ctypes.c_float)]


def _gtk():
    """GSK render nodes are a fundamental type PyGObject 3.42 cannot pass, so the node goes
    from GtkSnapshot to the renderer and the texture to PNG through libgtk's own C functions."""
    gtk = ctypes.CDLL("libgtk-4.so.1")
    gtk.gtk_snapshot_to_node.restype = ctypes.c_void_p
    gtk.gtk_snapshot_to_node.argtypes = [ctypes.c_void_p]
    gtk.gsk_renderer_render_texture.restype = ctypes.c_void_p
    gtk.gsk_renderer_render_texture.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(_Rect)]
    gtk.gdk_texture_save_to_png.restype = ctypes.c_int
    gtk.gdk_texture_save_to_png.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    gtk.gsk_render_node_unref.argtypes = [ctypes.c_void_p]
    gtk.g_object_unref.argtypes = [ctypes.c_void_p]
    return gtk


def _pointer(gobject):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get(gobject.__gpointer__, None)


def render_png(widget, path):
    """Gtk.WidgetPaintable -> Gtk.Snapshot -> render node -> the window's Gsk renderer ->
    texture -> PNG; returns the PNG as a GdkPixbuf."""
    gtk = _gtk()
    width, height = widget.get_width(), widget.get_height()
    paintable = Gtk.WidgetPaintable.new(widget)
    snapshot = Gtk.Snapshot.new()
    paintable.snapshot(snapshot, width, height)
    node = gtk.gtk_snapshot_to_node(_pointer(snapshot))
    assert node, "the widget drew nothing"
    texture = gtk.gsk_renderer_render_texture(_pointer(widget.get_native().get_renderer()), node, ctypes.byref(_Rect(0, 0, width, height)))
    gtk.gsk_render_node_unref(node)
    assert texture, "the renderer made no texture"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    saved = gtk.gdk_texture_save_to_png(texture, path.encode())
    gtk.g_object_unref(texture)
    assert saved, path
    return GdkPixbuf.Pixbuf.new_from_file(path)


class Image:
    def __init__(self, pixbuf):
        self.pixbuf = pixbuf
        self.width, self.height = pixbuf.get_width(), pixbuf.get_height()
        self.stride, self.channels = pixbuf.get_rowstride(), pixbuf.get_n_channels()
        self.data = pixbuf.get_pixels()

    def at(self, x, y):
        offset = int(y) * self.stride + int(x) * self.channels
        pixel = self.data[offset:offset + self.channels]
        return tuple(pixel) + ((255,) if self.channels == 3 else ())


def rgb255(color):
    return tuple(round(c * 255) for c in color)


def close(pixel, color, tolerance=3):
    return pixel[3] == 255 and all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], color))


KIND_ORDER = {"cell": 0, "header": 1, "footer": 2}


def topmost(elements, x, y):
    """The element drawn on top at a content point: higher zIndex, then cells before headers
    before footers, then by section and item (protocol/views.md, view.hitTest)."""
    covering = [e for e in elements if not e["hidden"] and e["alpha"] >= 0.01
                and e["frame"]["x"] <= x < e["frame"]["x"] + e["frame"]["width"]
                and e["frame"]["y"] <= y < e["frame"]["y"] + e["frame"]["height"]]
    return max(covering, key=lambda e: (e["zIndex"], KIND_ORDER.get(e["kind"], 3), e["section"], e.get("item", -1)))


class Screenshots(ViewTestCase):
    def check_cells(self, view, name, image):
        snapshot = self.snapshot(name)
        offset = snapshot["viewport"]["offset"]
        checked = 0
        for element in snapshot["elements"]:
            if element["kind"] != "cell" or element["hidden"] or element["alpha"] < 1:
                continue
            frame = element["frame"]
            x, y = frame["x"] - offset["x"], frame["y"] - offset["y"]
            points = [(x + frame["width"] / 2, y + frame["height"] / 2), (x + 3, y + 3), (x + frame["width"] - 4, y + frame["height"] - 4)]
            for px, py in points:
                if 0 <= px < image.width and 0 <= py < image.height:
                    # Where cells overlap (ultravisual), the one on top is seen: view.hitTest's order.
                    top = topmost(snapshot["elements"], px + offset["x"], py + offset["y"])
                    want = rgb255(color_for(top["id"]))
                    pixel = image.at(px, py)
                    self.assertTrue(close(pixel, want), "%s: %s at (%.0f, %.0f) is %s, the colour of %s %s" % (
                        name, element["id"], px, py, pixel, top["id"], want))
                    checked += 1
        self.assertGreater(checked, 10)
        return snapshot

    def check_gaps(self, snapshot, image):
        """Points just outside every visible cell, in the spacing, are no cell's colour."""
        offset = snapshot["viewport"]["offset"]
        colours = [rgb255(color_for(e["id"])) for e in snapshot["elements"]]
        gaps = 0
        for element in snapshot["elements"]:
            frame = element["frame"]
            gx = frame["x"] + frame["width"] + 5 - offset["x"]
            gy = frame["y"] + frame["height"] / 2 - offset["y"]
            if 0 <= gx < image.width and 0 <= gy < image.height:
                pixel = image.at(gx, gy)
                self.assertFalse(any(close(pixel, c) for c in colours), "gap right of %s at (%.0f, %.0f) is painted %s" % (
                    element["id"], gx, gy, pixel))
                gaps += 1
        self.assertGreater(gaps, 3)

    def shoot(self, name, strategy, parameters, rtl=False, scroll=0, sections=(("s", 200),)):
        view = self.show_view(name, strategy, parameters, model=list_store(items(0, sections=list(sections))), rtl=rtl)
        if scroll:
            view.get_vadjustment().set_value(scroll)
            self.wait_idle(view)
        self.assert_matches_daemon(view, name, label="screenshot " + name)
        image = Image(render_png(view, os.path.join(SCREENSHOTS, name + ".png")))
        self.assertEqual((image.width, image.height), (view.get_width(), view.get_height()))
        return view, image

    def test_flow_grid(self):
        view, image = self.shoot("flow", "flow", FLOW)
        self.check_gaps(self.check_cells(view, "flow", image), image)

    def test_flow_grid_scrolled(self):
        view, image = self.shoot("flow-scrolled", "flow", FLOW, scroll=1001.5)
        self.check_gaps(self.check_cells(view, "flow-scrolled", image), image)

    def test_flow_grid_rtl(self):
        view, image = self.shoot("flow-rtl", "flow", dict(FLOW, sectionInset={"left": 40}), rtl=True)
        snapshot = self.check_cells(view, "flow-rtl", image)
        self.check_gaps(snapshot, image)
        # Mirrored: the first item is at the right edge.
        first = next(e for e in snapshot["elements"] if e["id"] == "i0")["frame"]
        self.assertGreater(first["x"], view.get_width() / 2)

    def test_ultravisual(self):
        view, image = self.shoot("ultravisual", "ultravisual", {}, scroll=250)
        self.check_cells(view, "ultravisual", image)

    def test_compositional(self):
        parameters = {"section": {"group": {"direction": "horizontal", "size": {"width": {"fractionalWidth": 1}, "height": {"absolute": 100}},
                                            "subitems": [{"size": {"width": {"fractionalWidth": 0.3}, "height": {"fractionalHeight": 1}}}],
                                            "interItemSpacing": 10},
                                  "interGroupSpacing": 10}}
        view, image = self.shoot("compositional", "compositional", parameters, sections=(("a", 30), ("b", 30)))
        self.check_gaps(self.check_cells(view, "compositional", image), image)


if __name__ == "__main__":
    unittest.main()
