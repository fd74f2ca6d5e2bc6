#!/usr/bin/env python3
"""Loads a CSV of item sizes, lays them out with layoutd and draws the result as SVG.

    python3 csv_picture.py sizes.csv picture.svg [--socket PATH] [--width 480] [--strategy flow]

The CSV has a header line with ``width`` and ``height`` columns (and optionally ``id`` and
``section``). Every item's frame is read back with paged ``view.query`` over the whole content.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
from typing import Dict, List, Optional
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from layoutd import Attributes, Client, Item, JSONObject, Rect, Section, Size, Viewport  # noqa: E402


def load(path: str) -> List[Section]:
    sections: Dict[str, List[Item]] = {}
    with open(path, newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle), 1):
            section = row.get("section") or "s"
            sections.setdefault(section, []).append(
                Item(row.get("id") or "item%d" % number, size=Size(float(row["width"]), float(row["height"]))))
    return [Section(name, list(items)) for name, items in sections.items()]


def all_elements(client: Client, view: str, content: Rect) -> List[Attributes]:
    elements: List[Attributes] = []
    after: Optional[JSONObject] = None
    while True:
        page = client.view_query(view, content, limit=500, after=after)
        elements += page.elements
        if page.next is None:
            return elements
        after = page.next


def svg(elements: List[Attributes], width: float, height: float) -> str:
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g">' % (width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    for n, e in enumerate(elements):
        f = e.frame
        hue = (n * 47) % 360
        out.append('<rect class="%s" x="%g" y="%g" width="%g" height="%g" fill="hsl(%d,60%%,75%%)" stroke="#333"/>'
                   % (e.kind, f.x, f.y, f.width, f.height, hue))
        out.append('<text x="%g" y="%g" font-size="10" text-anchor="middle">%s</text>'
                   % (f.x + f.width / 2, f.y + f.height / 2 + 3, escape(e.id)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("csv")
    parser.add_argument("svg")
    parser.add_argument("--socket", help="the daemon's socket (else LAYOUTD_SOCKET, XDG_RUNTIME_DIR, /run/layoutd)")
    parser.add_argument("--width", type=float, default=480)
    parser.add_argument("--strategy", default="flow")
    parser.add_argument("--view", default="csv-picture-%d" % os.getpid())
    args = parser.parse_args(argv)

    sections = load(args.csv)
    with Client(args.socket) as client:
        client.daemon_hello(protocol=[1])
        params = {"minimumInteritemSpacing": 8, "minimumLineSpacing": 8} if args.strategy == "flow" else {}
        snapshot = client.view_create(args.view, args.strategy, Viewport(args.width, 400), params=params, sections=sections)
        try:
            content = Rect(0, 0, snapshot.content_size.width, snapshot.content_size.height)
            elements = all_elements(client, args.view, content)
        finally:
            client.view_delete(args.view)
    with open(args.svg, "w") as handle:
        handle.write(svg(elements, max(args.width, content.width), content.height))
    print("%d elements, content %gx%g, written to %s" % (len(elements), content.width, content.height, args.svg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
