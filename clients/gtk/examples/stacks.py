# 10,000 photos in 10 sections on layoutd's collapsible grid. Click a photo and shift-click another:
# "Stack" collapses each run of selected photos onto its first, animated; a long press drags one.
import json, gi
gi.require_version("Gtk", "4.0"); gi.require_version("Layoutd", "1")
from gi.repository import Gio, Gtk, Layoutd

CSS = b""".photo { background: #9cc3e6; border-radius: 6px; }
.photo:selected { background: #1c5fb0; color: white; box-shadow: 3px 3px #0d3768; }"""

def activate(app):
    photos = Gio.ListStore(item_type=Layoutd.Item)  # consecutive items of one section: a section
    photos.splice(0, 0, [Layoutd.Item(id=f"{i}", section=f"s{i // 1000}") for i in range(10_000)])
    cells = Layoutd.CellFactory()
    cells.connect("setup", lambda factory, cell: cell.set_child(Gtk.Label(css_classes=["photo"])))
    cells.connect("bind", lambda factory, cell: cell.get_child().set_label(cell.get_id()))
    view = Layoutd.CollectionView(model=photos, factory=cells, strategy="collapsible",
                                  parameters='{"itemSize": {"width": 72, "height": 72}}')
    stack = Gtk.ToggleButton(label="Stack")
    stack.connect("toggled", lambda button: view.configure(json.dumps({"collapsed": button.get_active()}), True))
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    box.append(stack)
    box.append(Gtk.ScrolledWindow(child=view, vexpand=True))
    css = Gtk.CssProvider()
    css.load_from_data(CSS)
    Gtk.StyleContext.add_provider_for_display(box.get_display(), css, 600)
    Gtk.ApplicationWindow(application=app, child=box, default_width=640, default_height=480).present()

app = Gtk.Application(application_id="org.layoutd.Stacks")
app.connect("activate", activate)
app.run()
