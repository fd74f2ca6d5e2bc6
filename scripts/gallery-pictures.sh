#!/usr/bin/env bash
# docs/gtk.md's pictures of liblayoutd-gtk's demo, drawn by the gallery itself
# (clients/gtk/examples/layoutd-gallery --screenshot: it plays the photos page's scene — three
# runs and two single photos selected, then stacked — waits until the view is idle and writes a
# PNG of its window) in Xvfb with GTK's cairo renderer, against a running daemon:
#   scripts/gallery-pictures.sh [OUTPUT_DIR]    (default docs/img)
# The gallery finds the daemon as every client does ($LAYOUTD_SOCKET, else
# $XDG_RUNTIME_DIR/layoutd/ipc.sock, else /run/layoutd/ipc.sock). Builds the C client and
# liblayoutd-gtk first; needs xvfb-run (xvfb, xauth) and python3-gi with gir1.2-gtk-4.0.
set -euo pipefail
out=$(realpath -m "${1:-docs/img}")
cd "$(dirname "$0")/.."
mkdir -p "$out"
make -s -C clients/c build/liblayoutd-client.so.1.0.0
make -s -C clients/gtk
export GI_TYPELIB_PATH="$PWD/clients/gtk/build" LD_LIBRARY_PATH="$PWD/clients/gtk/build:$PWD/clients/c/build"
export GSK_RENDERER=cairo GDK_BACKEND=x11 GTK_A11Y=none
xvfb-run -a -s "-screen 0 1280x1024x24" /usr/bin/python3 clients/gtk/examples/layoutd-gallery \
  --screenshot "$out/gallery-stacks.png" --size 800x600
# The same scene a quarter of a second into the stacking (0.5 s), the transition paused there.
xvfb-run -a -s "-screen 0 1280x1024x24" /usr/bin/python3 clients/gtk/examples/layoutd-gallery \
  --screenshot "$out/gallery-stacking.png" --size 800x600 --transition-at 0.25
