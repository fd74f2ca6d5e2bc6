#!/bin/sh
# The GTK collection view's tests, run inside an X server (`make test` runs this under xvfb-run):
# the C test (build/test_view) against a daemon of its own, then the Python suite (tests/test_*.py,
# Debian's python3 with python3-gi), each test starting its own daemon on a temporary socket.
# LAYOUTD_BINARY: the daemon; PYTHON: the interpreter (default /usr/bin/python3); arguments are
# passed to unittest (e.g. test_errors, or -k flow).
set -eu
cd "$(dirname "$0")/.."
: "${LAYOUTD_BINARY:=/tmp/stable/layoutd}"
PYTHON=${PYTHON:-/usr/bin/python3}
export LAYOUTD_BINARY
export GI_TYPELIB_PATH="$PWD/build${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
export LD_LIBRARY_PATH="$PWD/build:$PWD/../c/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GSK_RENDERER="${GSK_RENDERER:-cairo}" GDK_BACKEND=x11 GTK_A11Y=none

if [ $# -eq 0 ] && [ -x build/test_view ] && [ -x build/test_sync ]; then
    dir=$(mktemp -d /tmp/layoutd-gtk-c.XXXXXX)
    "$LAYOUTD_BINARY" --socket "$dir/ipc.sock" --log-level warning --set default-plugin-dir=none >"$dir/log" 2>&1 &
    pid=$!
    trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
    # Poll for the socket (at most 20 s), not a fixed wait.
    "$PYTHON" -c 'import os, sys, time
deadline = time.monotonic() + 20
while not os.path.exists(sys.argv[1]):
    if time.monotonic() > deadline: sys.exit("layoutd did not start")
    time.sleep(0.01)' "$dir/ipc.sock"
    echo "== build/test_view"
    build/test_view "$dir/ipc.sock"
    echo "== build/test_sync (the model diff against the daemon: 400 random edits)"
    build/test_sync "$dir/ipc.sock"
    kill $pid
    wait $pid 2>/dev/null || true
    rm -rf "$dir"
    trap - EXIT
fi
echo "== tests/test_*.py"
if [ $# -eq 0 ]; then
    exec "$PYTHON" -m unittest discover -s tests -t tests -v
fi
cd tests && exec "$PYTHON" -m unittest -v "$@"
