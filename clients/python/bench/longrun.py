#!/usr/bin/env python3
"""The Python client's long-run check (issue 37): memory stays flat over a million calls.

    python3 clients/python/bench/longrun.py --socket PATH [--calls 1000000]

Against a real daemon: creates a view (a unique name), subscribes (the subscription's mirror
follows every event, a change callback counts), then makes N calls, one at a time: every tenth
a ``view.scroll`` (its reply applied to the mirror at once, its event taken and applied),
the rest ``daemon.sync``. Samples its own RSS (``/proc/self/status`` VmRSS) every N/20 calls,
deletes its view and prints one JSON line:

    {"client": "python", "calls": N, "events": E, "seconds": S, "rssKiB": [...],
     "rssWarmKiB": (the sample at 10 %), "rssEndKiB": ..., "strays": ...}

Not a timed test: ``make bench`` or the soak runs it; RELIABILITY.md has the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from layoutd import Client, Item, MirrorChange, Point, Section, Viewport  # noqa: E402


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", help="layoutd's socket (default: discovery)")
    parser.add_argument("--calls", type=int, default=1_000_000)
    args = parser.parse_args()
    calls = args.calls
    every = max(1, calls // 20)

    client = Client(args.socket, timeout=30)
    view = "longrun-py-" + uuid.uuid4().hex[:8]
    client.view_create(view, "flow", Viewport(320, 480), params={"itemSize": {"width": 100, "height": 100}},
                       sections=[Section("s", [Item("i%d" % n) for n in range(2000)])])
    subscription = client.subscribe(view)
    changes = {"callbacks": 0, "elements": 0}

    def changed(change: MirrorChange) -> None:
        changes["callbacks"] += 1
        changes["elements"] += len(change.entered) + len(change.changed) + len(change.left)

    subscription.mirror.on_change(changed)
    events = 0
    samples = []
    started = time.monotonic()
    for n in range(calls):
        if n % 10 == 0:
            client.view_scroll(view, Point(0, (n // 10) % 200 * 40))
        else:
            client.daemon_sync()
        events += len(subscription.take_queued())
        if (n + 1) % every == 0:
            samples.append(rss_kib())
    seconds = time.monotonic() - started
    client.daemon_sync()
    events += len(subscription.take_queued())
    client.view_delete(view)
    client.close()
    print(json.dumps({"client": "python", "calls": calls, "events": events, "seconds": round(seconds, 1),
                      "rssKiB": samples, "rssWarmKiB": samples[len(samples) // 10 - 1] if len(samples) >= 10 else samples[0],
                      "rssEndKiB": samples[-1], "strays": client.stray_count, "changeCallbacks": changes["callbacks"]}))


if __name__ == "__main__":
    main()
