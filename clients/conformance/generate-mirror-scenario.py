#!/usr/bin/env python3
"""Writes mirror-scenario.jsonl: the one randomized scenario every client's mirror test replays.

Why one file: the four clients (C, Python, JavaScript, Swift) must keep the same promise, that a
mirror fed only a subscription's events equals `view.query` after every event. A scenario made
once, from a fixed seed, and committed, lets each language's test replay the same requests and
lets a failure in one client be reproduced in another.

The file is line-delimited JSON, one request per line, as a driver connection sends them:
the first line creates the view "mirror", the rest change it (every mutating method, some
animated, some refused by the daemon on purpose: an unknown id, a stale ifEpoch). The test
subscribes its client's mirror to "mirror" before sending line 2 and, after each event,
compares the mirror's window with `view.query` of that window (or `view.get`'s elements).

    generate-mirror-scenario.py [--seed N] [--steps N] [--output FILE]

Standard library only; the output depends only on the seed and the step count.
"""
import argparse
import json
import os
import random

STRATEGIES = {
    "flow": lambda r: {"itemSize": {"width": r.choice([60, 90, 120]), "height": r.choice([40, 60, 90])},
                       "minimumInteritemSpacing": r.choice([0, 8, 10]), "minimumLineSpacing": r.choice([0, 10]),
                       "scrollDirection": r.choice(["vertical", "vertical", "horizontal"])},
    "collapsible": lambda r: {"collapsed": r.choice([True, False])},
    "ultravisual": lambda r: {},
    "display": lambda r: {"mode": r.choice(["grid", "list", "inline"])},
}


def dumps(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Scenario:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.next_id = 0
        self.request = 0
        # The client's idea of the data, to name ids that exist (the daemon is the judge).
        self.sections = {"a": [], "b": [], "c": []}
        self.strategy = "flow"

    def fresh(self):
        self.next_id += 1
        return "i%d" % self.next_id

    def item(self):
        r = self.rng
        item = {"id": self.fresh()}
        kind = r.random()
        if kind < 0.3:
            item["size"] = {"width": r.choice([40, 80, 120, 200]), "height": r.choice([30, 50, 90, 140])}
        elif kind < 0.6:
            item["estimatedSize"] = {"width": r.choice([60, 100]), "height": r.choice([40, 70])}
        return item

    def ids(self):
        return [i for items in self.sections.values() for i in items]

    def line(self, method, params):
        self.request += 1
        return dumps({"id": self.request, "method": method, "params": dict({"view": "mirror"}, **params)})

    def create(self):
        sections = []
        for sid, count in (("a", 40), ("b", 0), ("c", 60)):
            items = [self.item() for _ in range(count)]
            self.sections[sid] = [i["id"] for i in items]
            sections.append({"id": sid, "items": items, "headerSize": {"width": 0, "height": 30}} if sid != "b" else {"id": sid, "items": items})
        return self.line("view.create", {"strategy": "flow", "params": STRATEGIES["flow"](self.rng) | {"scrollDirection": "vertical"},
                                         "viewport": {"width": 320, "height": 480}, "windowMargin": 100, "sections": sections})

    def step(self):
        r = self.rng
        ids = self.ids()
        animated = r.random() < 0.3
        choice = r.choices(
            ["scroll", "scrollEnd", "scrollTo", "measure", "select", "insert", "delete", "move", "resize", "configure",
             "setStrategy", "setWindowMargin", "setAnchor", "setLayoutDirection", "refused"],
            weights=[14, 3, 5, 10, 6, 8, 6, 5, 3, 3, 3, 2, 2, 2, 3])[0]
        if choice == "scroll":
            return self.line("view.scroll", {"offset": {"x": r.choice([0, 0, 40, 400]), "y": r.randint(-50, 3000)}, **({"velocity": {"x": 0, "y": r.choice([-2000, 800, 3000])}} if r.random() < 0.3 else {})})
        if choice == "scrollEnd":
            return self.line("view.scrollEnd", {"proposed": {"x": 0, "y": r.randint(0, 3000)}, "velocity": {"x": 0, "y": r.choice([0, 500, -500])}})
        if choice == "scrollTo" and ids:
            return self.line("view.scrollTo", {"id": r.choice(ids), "align": r.choice(["start", "center", "end", "nearest"])})
        if choice == "measure" and ids:
            sizes = [{"id": r.choice(ids), "size": {"width": r.choice([60, 100, 320]), "height": r.randint(20, 200)}} for _ in range(r.randint(1, 6))]
            return self.line("view.measure", {"sizes": sizes, "animated": animated})
        if choice == "select" and ids:
            return self.line("view.select", {"ids": r.sample(ids, min(len(ids), r.randint(1, 5))), "mode": r.choice(["set", "toggle", "add", "remove"]), "animated": animated})
        if choice == "insert":
            sid = r.choice(list(self.sections))
            items = [self.item() for _ in range(r.randint(1, 8))]
            at = r.randint(0, len(self.sections[sid]))
            self.sections[sid][at:at] = [i["id"] for i in items]
            return self.line("view.update", {"updates": [{"op": "insertItems", "section": sid, "at": at, "items": items}], "animated": animated})
        if choice == "delete" and len(ids) > 10:
            doomed = r.sample(ids, r.randint(1, 4))
            for items in self.sections.values():
                items[:] = [i for i in items if i not in doomed]
            return self.line("view.update", {"updates": [{"op": "deleteItems", "ids": doomed}], "animated": animated})
        if choice == "move" and ids:
            moving = r.choice(ids)
            for items in self.sections.values():
                if moving in items:
                    items.remove(moving)
            sid = r.choice(list(self.sections))
            at = r.randint(0, len(self.sections[sid]))
            self.sections[sid].insert(at, moving)
            return self.line("view.update", {"updates": [{"op": "moveItem", "id": moving, "section": sid, "at": at}], "animated": animated})
        if choice == "resize":
            return self.line("view.resize", {"size": {"width": r.choice([280, 320, 375, 600]), "height": r.choice([300, 480, 667])}, "animated": animated})
        if choice == "configure":
            return self.line("view.configure", {"params": STRATEGIES[self.strategy](r), "animated": animated})
        if choice == "setStrategy":
            name = r.choice(list(STRATEGIES))
            self.strategy = name
            return self.line("view.setStrategy", {"strategy": name, "params": STRATEGIES[name](r), "animated": animated})
        if choice == "setWindowMargin":
            return self.line("view.setWindowMargin", {"margin": r.choice([0, 50, 100, 400])})
        if choice == "setAnchor":
            return self.line("view.setAnchor", {"anchor": r.choice(["firstVisible", "lastVisible", "end", "none"])})
        if choice == "setLayoutDirection":
            return self.line("view.setLayoutDirection", {"layoutDirection": r.choice(["ltr", "rtl"]), "animated": animated})
        # Refused on purpose: the mirror must not move.
        return self.line("view.update", {"updates": [{"op": "deleteItems", "ids": ["no-such-item"]}]})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--output", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "mirror-scenario.jsonl"))
    options = parser.parse_args()
    scenario = Scenario(options.seed)
    lines = [scenario.create()] + [scenario.step() for _ in range(options.steps)]
    with open(options.output, "w") as handle:
        handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
