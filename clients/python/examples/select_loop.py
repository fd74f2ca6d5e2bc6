#!/usr/bin/env python3
"""The blocking Client inside a ``select`` loop, never blocking it: calls are sent with a
callback, ``select`` watches ``client.fileno()``, and ``client.dispatch()`` handles what
arrived. A front end's loop looks the same, with its own work between the waits.

    python3 select_loop.py [--socket PATH] [--scrolls 20]

Creates a view (a unique name), subscribes, scrolls it ``--scrolls`` times, one non-blocking
``view.scroll`` after another's reply, counts what the mirror's change callback reports, checks
the mirror against ``view.get``, deletes the view and prints a JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import select
import sys
import time
import uuid
from typing import Dict, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from layoutd import Client, Item, JSONObject, MirrorChange, Section, Viewport  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", help="layoutd's socket (default: discovery, as layoutctl)")
    parser.add_argument("--scrolls", type=int, default=20)
    args = parser.parse_args()

    client = Client(args.socket, timeout=10)
    view = "select-loop-" + uuid.uuid4().hex[:8]
    client.view_create(view, "flow", Viewport(320, 200), params={"itemSize": {"width": 100, "height": 100}},
                       sections=[Section("s", [Item("i%d" % n) for n in range(600)])])
    subscription = client.subscribe(view)
    counts: Dict[str, int] = {"changes": 0, "entered": 0, "changed": 0, "left": 0}

    def changed(change: MirrorChange) -> None:  # only these widgets need touching
        counts["changes"] += 1
        counts["entered"] += len(change.entered)
        counts["changed"] += len(change.changed)
        counts["left"] += len(change.left)

    subscription.mirror.on_change(changed)
    state = {"sent": 0, "replies": 0}
    failure: Dict[str, Exception] = {}

    def scroll_next() -> None:
        state["sent"] += 1
        client.send("view.scroll", {"view": view, "offset": {"x": 0, "y": 60 * state["sent"]}}, callback=replied)

    def replied(result: Optional[JSONObject], error: Optional[Exception]) -> None:
        if error is not None:
            failure["error"] = error
            return
        state["replies"] += 1
        if state["sent"] < args.scrolls:
            scroll_next()  # the next call, from the reply's callback: nothing waits

    scroll_next()
    give_up = time.monotonic() + 20
    while state["replies"] < args.scrolls and not failure and not client.closed:
        # Lines already in the client's buffer raise no fd event: dispatch them first.
        if not client.has_buffered_lines:
            select.select([client], [], [], max(0.0, give_up - time.monotonic()))  # the loop's wait
        if time.monotonic() > give_up:
            sys.exit("no progress within 20 s")
        client.dispatch()                  # reads what is there, handles every whole line
        subscription.take_queued()         # events queued by dispatch, applied to the mirror
    if failure:
        raise failure["error"]

    client.daemon_sync()                   # every event of the scrolls has arrived ...
    subscription.take_queued()             # ... and been applied
    current = client.view_get(view)
    consistent = (subscription.mirror.epoch == current.epoch
                  and sorted(subscription.mirror.elements.values(), key=lambda e: e.key) == sorted(current.elements, key=lambda e: e.key))
    client.view_delete(view)
    client.close()
    print(json.dumps({"loop": "select", "scrolls": state["replies"], "epoch": current.epoch,
                      "consistent": consistent, **counts}))


if __name__ == "__main__":
    main()
