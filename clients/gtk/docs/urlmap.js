// Where gi-docgen links the types of other namespaces (layoutd-gtk.toml: urlmap_file).
baseURLs = [
  [ 'GLib', 'https://docs.gtk.org/glib/' ],
  [ 'GObject', 'https://docs.gtk.org/gobject/' ],
  [ 'Gio', 'https://docs.gtk.org/gio/' ],
  [ 'Gdk', 'https://docs.gtk.org/gdk4/' ],
  [ 'Gsk', 'https://docs.gtk.org/gsk4/' ],
  [ 'Gtk', 'https://docs.gtk.org/gtk4/' ],
  [ 'Pango', 'https://docs.gtk.org/Pango/' ],
  [ 'Graphene', 'https://ebassi.github.io/graphene/docs/' ],
]
