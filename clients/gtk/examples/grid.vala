// A flow grid of 100 items from Vala, through a vapi that vapigen makes from Layoutd-1.gir:
//   vapigen --library layoutd-gtk-1 --pkg gtk4 Layoutd-1.gir
//   valac --vapidir . --pkg layoutd-gtk-1 --pkg gtk4 -X -llayoutd-gtk-1 grid.vala
// ./grid [SOCKET] exits 0 once the view is READY and idle, with the cells it shows on stdout.
int main (string[] args) {
    Gtk.init ();
    var store = new GLib.ListStore (typeof (Layoutd.Item));
    for (int i = 0; i < 100; i++) store.append (new Layoutd.Item ("v%d".printf (i), null));
    var factory = new Layoutd.CellFactory ();
    factory.setup.connect ((li) => li.set_child (new Gtk.Label (null)));
    factory.bind.connect ((li) => ((Gtk.Label) li.get_child ()).label = li.get_id ());
    var view = new Layoutd.CollectionView ();
    view.socket_path = args.length > 1 ? args[1] : null;
    view.parameters = "{\"itemSize\":{\"width\":90,\"height\":60}}";
    view.model = store;
    view.factory = factory;
    var sw = new Gtk.ScrolledWindow ();
    sw.child = view;
    var win = new Gtk.Window ();
    win.set_default_size (300, 200);
    win.child = sw;
    win.present ();
    var ctx = MainContext.default ();
    int64 end = get_monotonic_time () + 20000000;
    while (!(view.get_state () == Layoutd.ViewState.READY && view.is_idle ())) {
        if (get_monotonic_time () > end) {
            printerr ("not ready: %s\n", view.get_state ().to_string ());
            return 1;
        }
        ctx.iteration (true);
    }
    print ("%s\n", string.joinv (" ", view.list_elements ()));
    return 0;
}
