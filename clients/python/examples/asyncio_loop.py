#!/usr/bin/env python3
"""layoutd inside an asyncio loop, two ways, neither blocking the loop:

- ``--face async`` (the default): :class:`layoutd.AsyncClient`, every call a coroutine with its
  own deadline, events taken with ``async for``;
- ``--face reader``: the blocking :class:`layoutd.Client` driven by the loop:
  ``loop.add_reader(client.fileno(), client.dispatch)`` and calls sent with a callback.

    python3 asyncio_loop.py [--socket PATH] [--face async|reader] [--scrolls 20]

Either way it creates a view (a unique name), subscribes, scrolls it ``--scrolls`` times while
a ticker task keeps running (proof the loop is never blocked), counts the mirror's change
callbacks, checks the mirror against ``view.get``, deletes the view and prints a JSON summary.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from typing import Any, Dict, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from layoutd import AsyncClient, Client, Item, JSONObject, Mirror, MirrorChange, Section, Viewport  # noqa: E402

FLOW = {"itemSize": {"width": 100, "height": 100}}
SECTIONS = [Section("s", [Item("i%d" % n) for n in range(600)])]


def counter(mirror: Mirror) -> Dict[str, int]:
    counts = {"changes": 0, "entered": 0, "changed": 0, "left": 0}

    def changed(change: MirrorChange) -> None:
        counts["changes"] += 1
        counts["entered"] += len(change.entered)
        counts["changed"] += len(change.changed)
        counts["left"] += len(change.left)

    mirror.on_change(changed)
    return counts


def same(mirror: Mirror, elements: Any, epoch: int) -> bool:
    return mirror.epoch == epoch and sorted(mirror.elements.values(), key=lambda e: e.key) == sorted(elements, key=lambda e: e.key)


async def ticker(ticks: Dict[str, int]) -> None:
    while True:
        ticks["n"] += 1
        await asyncio.sleep(0.001)


async def with_async_client(path: Optional[str], scrolls: int) -> Dict[str, Any]:
    async with await AsyncClient.connect(path, timeout=10) as client:
        view = "asyncio-loop-" + uuid.uuid4().hex[:8]
        await client.view_create(view, "flow", Viewport(320, 200), params=FLOW, sections=SECTIONS)
        subscription = await client.subscribe(view)
        counts = counter(subscription.mirror)
        for n in range(1, scrolls + 1):
            await client.view_scroll(view, {"x": 0, "y": 60 * n}, timeout=5)  # a deadline of its own
        taken = 0
        async for event in subscription:   # the scrolls' events (already applied: each was its reply)
            taken += 1
            if event.name == "view.invalidated" and event.invalidation.epoch == scrolls:
                break
        current = await client.view_get(view)
        consistent = same(subscription.mirror, current.elements, current.epoch)
        await client.view_delete(view)
        return {"events": taken, "epoch": current.epoch, "consistent": consistent, **counts}


async def with_reader(path: Optional[str], scrolls: int) -> Dict[str, Any]:
    client = Client(path, timeout=10)
    view = "asyncio-reader-" + uuid.uuid4().hex[:8]
    # Blocking calls before the loop takes over are fine; from here on, nothing blocks.
    client.view_create(view, "flow", Viewport(320, 200), params=FLOW, sections=SECTIONS)
    subscription = client.subscribe(view)
    counts = counter(subscription.mirror)
    loop = asyncio.get_running_loop()
    done: "asyncio.Future[None]" = loop.create_future()
    sent = [0]

    def scroll_next() -> None:
        sent[0] += 1
        client.send("view.scroll", {"view": view, "offset": {"x": 0, "y": 60 * sent[0]}}, callback=replied)

    def replied(result: Optional[JSONObject], error: Optional[Exception]) -> None:
        if error is not None:
            if not done.done():
                done.set_exception(error)
        elif sent[0] < scrolls:
            scroll_next()
        elif not done.done():
            done.set_result(None)

    def readable() -> None:
        client.dispatch()
        subscription.take_queued()

    loop.add_reader(client.fileno(), readable)
    try:
        if client.has_buffered_lines:   # lines a blocking call read ahead: no fd event for them
            readable()
        scroll_next()
        await asyncio.wait_for(done, 20)
    finally:
        loop.remove_reader(client.fileno())
    client.daemon_sync()
    events = len(subscription.take_queued())
    current = client.view_get(view)
    consistent = same(subscription.mirror, current.elements, current.epoch)
    client.view_delete(view)
    client.close()
    return {"events": events, "epoch": current.epoch, "consistent": consistent, **counts}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", help="layoutd's socket (default: discovery, as layoutctl)")
    parser.add_argument("--face", choices=("async", "reader"), default="async")
    parser.add_argument("--scrolls", type=int, default=20)
    args = parser.parse_args()
    ticks = {"n": 0}
    beat = asyncio.ensure_future(ticker(ticks))
    run = with_async_client if args.face == "async" else with_reader
    summary = await run(args.socket, args.scrolls)
    beat.cancel()
    print(json.dumps({"loop": "asyncio-" + args.face, "scrolls": args.scrolls, "ticks": ticks["n"], **summary}))


if __name__ == "__main__":
    asyncio.run(main())
