#!/usr/bin/env python3
"""The blocking Client inside a GLib main loop (a GTK program's), never blocking it:
``GLib.io_add_watch`` on ``client.fileno()`` calls ``client.dispatch()`` when the socket is
readable, calls go out with a callback, and the mirror's change callback says which widgets to
touch. Needs PyGObject (Debian: python3-gi and gir1.2-glib-2.0).

    python3 glib_loop.py [--socket PATH] [--scrolls 20]

Creates a view (a unique name), subscribes, scrolls it ``--scrolls`` times, one non-blocking
``view.scroll`` after another's reply, while a GLib timeout ticks; checks the mirror against
``view.get``, deletes the view and prints a JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from typing import Any, Dict, Optional

import gi  # type: ignore[import-not-found, unused-ignore]  # PyGObject ships no stubs

gi.require_version("GLib", "2.0")
from gi.repository import GLib  # type: ignore[import-not-found, unused-ignore]  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from layoutd import Client, Item, JSONObject, MirrorChange, Section, Viewport  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", help="layoutd's socket (default: discovery, as layoutctl)")
    parser.add_argument("--scrolls", type=int, default=20)
    args = parser.parse_args()

    client = Client(args.socket, timeout=10)
    view = "glib-loop-" + uuid.uuid4().hex[:8]
    client.view_create(view, "flow", Viewport(320, 200), params={"itemSize": {"width": 100, "height": 100}},
                       sections=[Section("s", [Item("i%d" % n) for n in range(600)])])
    subscription = client.subscribe(view)
    counts: Dict[str, int] = {"changes": 0, "entered": 0, "changed": 0, "left": 0, "ticks": 0}

    def changed(change: MirrorChange) -> None:  # a real program updates these widgets only
        counts["changes"] += 1
        counts["entered"] += len(change.entered)
        counts["changed"] += len(change.changed)
        counts["left"] += len(change.left)

    subscription.mirror.on_change(changed)
    loop = GLib.MainLoop()
    state: Dict[str, Any] = {"sent": 0, "replies": 0, "error": None}

    def scroll_next() -> None:
        state["sent"] += 1
        client.send("view.scroll", {"view": view, "offset": {"x": 0, "y": 60 * state["sent"]}}, callback=replied)

    def replied(result: Optional[JSONObject], error: Optional[Exception]) -> None:
        if error is not None:
            state["error"] = error
            loop.quit()
            return
        state["replies"] += 1
        if state["sent"] < args.scrolls:
            scroll_next()
        else:
            loop.quit()

    def readable(fd: int, condition: int) -> bool:
        try:
            client.dispatch()              # reads what is there, handles every whole line
            subscription.take_queued()     # events it queued, applied to the mirror
        except Exception as error:         # a protocol error: report it and stop
            state["error"] = error
            loop.quit()
            return False
        if client.closed:
            state["error"] = state["error"] or ConnectionError("the daemon closed the connection")
            loop.quit()
            return False
        return True                        # keep watching

    def buffered() -> bool:
        # Lines a blocking call read ahead wait in the client's buffer, where no fd watch fires.
        if client.has_buffered_lines:
            readable(client.fileno(), GLib.IO_IN)
        return False

    def tick() -> bool:
        counts["ticks"] += 1               # the loop stays responsive meanwhile
        return True

    def give_up() -> bool:
        state["error"] = TimeoutError("no progress within 20 s")
        loop.quit()
        return False

    GLib.io_add_watch(client.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, readable)
    GLib.idle_add(buffered)
    GLib.timeout_add(1, tick)
    GLib.timeout_add_seconds(20, give_up)
    def start() -> bool:
        scroll_next()
        return False                       # once

    GLib.idle_add(start)
    loop.run()
    if state["error"] is not None:
        raise state["error"]

    client.daemon_sync()
    subscription.take_queued()
    current = client.view_get(view)
    consistent = (subscription.mirror.epoch == current.epoch
                  and sorted(subscription.mirror.elements.values(), key=lambda e: e.key) == sorted(current.elements, key=lambda e: e.key))
    client.view_delete(view)
    client.close()
    print(json.dumps({"loop": "glib", "scrolls": state["replies"], "epoch": current.epoch, "consistent": consistent, **counts}))


if __name__ == "__main__":
    main()
