// A flow grid of 100 items from GJS, through the Layoutd-1 typelib, unchanged from Python's use.
// gjs examples/grid.js [SOCKET]   (GI_TYPELIB_PATH and LD_LIBRARY_PATH at the build folders)
// Exits 0 once the view is READY and idle, with the ids of the cells it shows on stdout.
imports.gi.versions.Gtk = "4.0";
const { Gtk, GLib, Gio, Layoutd } = imports.gi;

Gtk.init();
const store = new Gio.ListStore({ item_type: Layoutd.Item });
for (let i = 0; i < 100; i++) store.append(new Layoutd.Item({ id: `g${i}` }));
const factory = new Layoutd.CellFactory();
factory.connect("setup", (f, item) => item.set_child(new Gtk.Label()));
factory.connect("bind", (f, item) => item.get_child().set_label(item.get_id()));
const view = new Layoutd.CollectionView({ socket_path: ARGV[0] ?? null, model: store, factory,
                                          parameters: '{"itemSize":{"width":90,"height":60}}' });
view.connect("error", (v, error) => { printerr(error.message); imports.system.exit(1); });
const window = new Gtk.Window({ default_width: 300, default_height: 200 });
const scrolled = new Gtk.ScrolledWindow();
scrolled.set_child(view);
window.set_child(scrolled);
window.present();

const context = GLib.MainContext.default();
const deadline = Date.now() + 20000;
while (!(view.get_state() === Layoutd.ViewState.READY && view.is_idle())) {
    if (Date.now() > deadline) { printerr("not ready"); imports.system.exit(1); }
    context.iteration(true);
}
print(view.list_elements().join(" "));
