#!/usr/bin/env python3
"""Benchmark Taffy (the Rust flexbox/grid engine) on layoutd's "flow" workload.

Taffy is driven through its Python binding `stretchable` (PyPI; pinned in
scripts/requirements-bench.txt). Run it with the bench virtualenv:

    python3 -m venv .bench-venv
    .bench-venv/bin/pip install -r scripts/requirements-bench.txt
    .bench-venv/bin/python scripts/bench_taffy.py --counts 1000,10000 --repetitions 3

Workload (mirrored in Swift by layout-bench; keep the two in step):
  * container: width 390, height auto, flex-direction row, flex-wrap wrap,
    column gap 10 and row gap 10, align-items / align-content /
    justify-content flex-start, no padding -- our "fixed spacing" flow mode;
  * N children, child i (0-based) of fixed size
    width = 40 + (i * 37) % 121, height = 30 + (i * 53) % 91, flex-shrink 0.

Measurements (each: one warm-up, then --repetitions timed repetitions;
reported as median, low = min, high = max):
  1. "taffy flow full layout"              ns/item
  2. "taffy relayout after one size change" µs/op
Output: one JSON object per line on stdout; progress and warnings on stderr.

What exactly is timed, and why
------------------------------
stretchable's public `Node.compute_layout()` does two things: the native call
`taffylib.node_compute_layout_with_measure(...)` (Taffy's
`TaffyTree::compute_layout_with_measure`, the whole layout algorithm), and then
`Node._update_layout()`, a pure-Python walk that copies every node's result
into Python `Box` objects. The second part is binding overhead, not Taffy, so
the timed region is only the native call, made exactly as `Node.compute_layout`
makes it (same function, same root, same available space, rounding off as is
`compute_layout`'s default). No node has a measure function, so the measure
callback is never entered (the script checks this).

The tree is built with stretchable's low-level module (`stretchable.taffylib`:
`node_create` / `node_add_child` on a private `stretchable.core.Taffy` tree),
with every style dict produced by stretchable's own `Style(...).to_dict()`.
Building 1,000,000 public `Node` objects would cost minutes and gigabytes of
Python objects and changes nothing in what Taffy computes; at the smallest N the
script also builds the same tree through the public `Node` API and checks that
both give the same frames.

Caching (Taffy 0.7, as bundled by stretchable 1.1.x)
----------------------------------------------------
Every Taffy node keeps a layout cache (a final-layout entry and measure
entries). `compute_layout` on a clean root is a cache hit and returns almost at
once (measured: well under 1 ns/item), and marking only the root dirty
(`node_mark_dirty(root)`) still lets every child answer its measure/layout
requests from its own cache. `mark_dirty(node)` clears that node's cache and
its ancestors' (stopping at an ancestor that is already clear); `set_style`
does the same. So before each timed full layout the script marks *every* child
dirty (outside the timed region), which clears every cache in the tree --
the state of a freshly built tree -- and asserts that root and children really
are dirty. That makes each repetition a full computation.

The relayout measurement changes one child's size with `node_set_style` (which
marks that child and the root dirty; outside the timed region) and times the
following compute call. Taffy then re-runs the flexbox algorithm for the root,
with every other child's size coming from its cache: that is Taffy's real
incremental cost (still O(N): a wrapping flex container re-breaks and
re-positions all its lines). The changed child alternates among children near
the middle, and its size toggles between the original and a larger one, so
every operation changes the layout.

Correctness: once per N the computed frames (x, y, width, height) of the first
50 children, 17 children around the middle and the last child are compared
with an independent Python model of the fixed-spacing flow (greedy lines: x
advances by width + 10; an item wraps when x + width > 390, an item wider than
the line starts its own line; y advances by the line's tallest item + 10).
They are compared again after the relayout phase (with the changed sizes).
The tolerance is absolute 0.01 plus relative 1e-6; a larger difference prints
a warning on stderr and sets "verified": false, and never makes the script fail.
Expect "verified": false at 1,000,000 items: Taffy works in f32 and lines past
y = 2^24 (about item 480,000) land up to ~8,600 pt away from the exact model
(the last line is at y ~ 3.5e7) through accumulated rounding, while x, width
and height still match; the warning says so when that is the only difference.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import re
import statistics
import sys
import time
from importlib import metadata

try:
    from stretchable import Node, Style, taffylib
    from stretchable.context import taffy as taffy_context
    from stretchable.core import Taffy
    from stretchable.style import (
        AUTO,
        AlignContent,
        AlignItems,
        Display,
        FlexDirection,
        FlexWrap,
        JustifyContent,
    )
    from stretchable.style.geometry.length import LengthAvailableSpace
    from stretchable.style.geometry.size import SizeAvailableSpace, SizePointsPercentAuto
except ImportError as error:  # pragma: no cover - environment problem
    sys.exit(
        f"bench_taffy: cannot import stretchable ({error}); run with the bench venv: "
        "python3 -m venv .bench-venv && .bench-venv/bin/pip install -r scripts/requirements-bench.txt"
    )

CONTAINER_WIDTH = 390.0
SPACING = 10.0
GROUP = "taffy"
FULL_NAME = "taffy flow full layout"
RELAYOUT_NAME = "taffy relayout after one size change"
# Relayout: the size change applied to the chosen child (toggled on and off).
GROW_W, GROW_H = 23.0, 17.0
# Children near the middle that the relayout measurement alternates among.
MID_OFFSETS = (0, 1, -1, 2, -2, 3, -3, 4)
# The public-Node-API cross-check runs once, at the first N not above this.
CROSSCHECK_MAX_N = 20000


def item_size(i: int) -> tuple[float, float]:
    return float(40 + (i * 37) % 121), float(30 + (i * 53) % 91)


def log(message: str) -> None:
    print(f"[bench_taffy] {message}", file=sys.stderr, flush=True)


def emit(record: dict) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)


def summary(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def bundled_taffy_version() -> str:
    """The Taffy crate version compiled into stretchable's extension (from its panic paths)."""
    try:
        with open(taffylib.__file__, "rb") as handle:
            found = re.search(rb"taffy-(\d+\.\d+\.\d+)", handle.read())
        return found.group(1).decode() if found else "unknown"
    except OSError:
        return "unknown"


# ---------------------------------------------------------------- expected model


def expected_frames(widths: list[float], heights: list[float], wanted: list[int]) -> dict:
    """Fixed-spacing flow, computed independently of Taffy (exact, in Python floats)."""
    wanted_set = set(wanted)
    frames = {}
    x = y = line_height = 0.0
    line_empty = True
    for i, (w, h) in enumerate(zip(widths, heights)):
        if not line_empty and x + w > CONTAINER_WIDTH:
            y += line_height + SPACING
            x, line_height, line_empty = 0.0, 0.0, True
        if i in wanted_set:
            frames[i] = (x, y, w, h)
        x += w + SPACING
        line_height = max(line_height, h)
        line_empty = False
    return frames


def sample_indices(n: int) -> list[int]:
    mid = n // 2
    picked = set(range(min(50, n)))
    picked.update(i for i in range(mid - 8, mid + 9) if 0 <= i < n)
    picked.add(n - 1)
    return sorted(picked)


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 0.01 + 1e-6 * abs(b)


F32_EXACT_LIMIT = float(2**24)  # beyond this, f32 cannot hold every integer


def check_frames(label: str, actual: dict, expected: dict) -> bool:
    bad = [i for i in expected if not all(close(a, e) for a, e in zip(actual[i], expected[i]))]
    for i in bad[:5]:
        log(f"WARNING: {label}: child {i} frame {actual[i]} != expected {expected[i]}")
    if bad:
        log(f"WARNING: {label}: {len(bad)} of {len(expected)} sampled frames differ")
        only_y = all(
            close(actual[i][k], expected[i][k]) for i in bad for k in (0, 2, 3)
        )
        worst = max(abs(actual[i][1] - expected[i][1]) for i in bad)
        if only_y and all(expected[i][1] > F32_EXACT_LIMIT for i in bad):
            log(f"WARNING: {label}: x, width and height of every sampled frame match; only y "
                f"differs, by up to {worst:.0f} pt, and only beyond y = 2^24 -- Taffy's f32 "
                "accumulation, not a different layout")
    return not bad


# ---------------------------------------------------------------- the tree


class StyleDicts:
    """Child style dicts as stretchable's `Style(size=(w, h), flex_shrink=0).to_dict()` makes them.

    A full `Style(...)` costs about 2 ms in attrs converters, so one is built and
    only its "size" entry is replaced, with stretchable's own
    `SizePointsPercentAuto(w, h).to_dict()`; one dict per distinct size (11,011).
    """

    def __init__(self) -> None:
        self._base = Style(size=(40.0, 30.0), flex_shrink=0.0).to_dict()
        self._cache: dict[tuple[float, float], dict] = {}

    def child(self, w: float, h: float) -> dict:
        key = (w, h)
        style = self._cache.get(key)
        if style is None:
            style = dict(self._base)
            style["size"] = SizePointsPercentAuto(w, h).to_dict()
            self._cache[key] = style
        return style


def container_style() -> Style:
    return Style(
        display=Display.FLEX,
        flex_direction=FlexDirection.ROW,
        flex_wrap=FlexWrap.WRAP,
        gap=SPACING,  # column gap and row gap
        align_items=AlignItems.FLEX_START,
        align_content=AlignContent.FLEX_START,
        justify_content=JustifyContent.FLEX_START,
        padding=0.0,
        size=(CONTAINER_WIDTH, AUTO),
    )


def available_space() -> SizeAvailableSpace:
    return SizeAvailableSpace(
        LengthAvailableSpace.definite(CONTAINER_WIDTH), LengthAvailableSpace.max_content()
    )


class FlowTree:
    def __init__(self, n: int, styles: StyleDicts) -> None:
        self.n = n
        self.taffy = Taffy()  # a private TaffyTree, freed when this object goes
        self.taffy.use_rounding = False  # Node.compute_layout's default
        ptr = self.taffy._ptr
        self.root = taffylib.node_create(ptr, container_style().to_dict())
        self.widths: list[float] = []
        self.heights: list[float] = []
        self.children: list[int] = []
        create, add = taffylib.node_create, taffylib.node_add_child
        for i in range(n):
            w, h = item_size(i)
            child = create(ptr, styles.child(w, h))
            add(ptr, self.root, child)
            self.children.append(child)
            self.widths.append(w)
            self.heights.append(h)
        self.available = available_space().to_dict()
        self.measure_calls = 0
        self._layout = taffylib.PyLayout()

    def _measure(self, *_args):  # never called: no node has a measure context
        self.measure_calls += 1
        return (math.nan, math.nan)

    def compute(self) -> int:
        """The timed call: Taffy's compute_layout on the root, as Node.compute_layout makes it."""
        ptr, root, space, measure = self.taffy._ptr, self.root, self.available, self._measure
        gc.disable()
        start = time.perf_counter_ns()
        ok = taffylib.node_compute_layout_with_measure(ptr, root, space, measure)
        elapsed = time.perf_counter_ns() - start
        gc.enable()
        if not ok:
            raise RuntimeError("taffy compute_layout failed")
        return elapsed

    def invalidate_all(self) -> None:
        """Clear every node's cache (see the module docstring), outside any timed region."""
        ptr, mark = self.taffy._ptr, taffylib.node_mark_dirty
        for child in self.children:
            mark(ptr, child)
        mark(ptr, self.root)
        dirty = taffylib.node_dirty
        probe = (self.children[0], self.children[self.n // 2], self.children[-1])
        if not dirty(ptr, self.root) or not all(dirty(ptr, c) for c in probe):
            raise RuntimeError("taffy nodes are not dirty after mark_dirty")

    def set_size(self, i: int, w: float, h: float, styles: StyleDicts) -> None:
        taffylib.node_set_style(self.taffy._ptr, self.children[i], styles.child(w, h))
        self.widths[i], self.heights[i] = w, h

    def frames(self, indices: list[int]) -> dict:
        out, layout, ptr = {}, self._layout, self.taffy._ptr
        for i in indices:
            taffylib.node_get_layout(ptr, self.children[i], layout)
            out[i] = (layout.x, layout.y, layout.width, layout.height)
        return out

    def verify(self, label: str) -> bool:
        wanted = sample_indices(self.n)
        return check_frames(label, self.frames(wanted), expected_frames(self.widths, self.heights, wanted))


def public_api_crosscheck(n: int, tree: FlowTree) -> bool:
    """Same tree through stretchable's public Node API; its frames must equal ours."""
    root = Node(style=container_style())
    for i in range(n):
        w, h = item_size(i)
        root.add(Node(style=Style(size=(w, h), flex_shrink=0.0)))
    if not root.compute_layout(available_space()):
        log("WARNING: public API: compute_layout failed")
        return False
    wanted = sample_indices(n)
    public = {}
    for i in wanted:
        box = root[i].get_box()
        public[i] = (box.x, box.y, box.width, box.height)
    ok = check_frames(f"n={n} public Node API vs taffylib tree", public, tree.frames(wanted))
    taffylib.node_drop_all(taffy_context._ptr)  # free the public API's nodes (global tree)
    return ok


# ---------------------------------------------------------------- measurements


def measure_full(tree: FlowTree, repetitions: int) -> list[float]:
    samples = []
    for _ in range(repetitions):
        tree.invalidate_all()  # every cache cleared: a real full layout (not timed)
        samples.append(tree.compute() / tree.n)
    return samples


def measure_relayout(tree: FlowTree, repetitions: int, ops: int, styles: StyleDicts) -> list[float]:
    n, mid = tree.n, tree.n // 2
    grown: set[int] = set()
    op_counter = 0

    def one_repetition() -> float:
        nonlocal op_counter
        total = 0
        for _ in range(ops):
            i = min(max(mid + MID_OFFSETS[op_counter % len(MID_OFFSETS)], 0), n - 1)
            op_counter += 1
            w, h = item_size(i)
            if i in grown:
                grown.discard(i)
            else:
                grown.add(i)
                w, h = w + GROW_W, h + GROW_H
            tree.set_size(i, w, h, styles)  # marks child + root dirty; not timed
            total += tree.compute()
        return total / ops / 1000.0  # µs per operation

    one_repetition()  # warm-up
    return [one_repetition() for _ in range(repetitions)]


def run_count(n: int, args, styles: StyleDicts, state: dict) -> None:
    limit = args.max_layout_seconds
    predicted = state.get("ns_per_item", 0.0) * n * 1.5 / 1e9
    if predicted > limit:
        reason = f"predicted full layout {predicted:.3g} s > {limit:.3g} s limit"
        log(f"n={n}: skipped ({reason})")
        for name in (FULL_NAME, RELAYOUT_NAME):
            emit({"name": name, "group": GROUP, "n": n, "skipped": reason})
        return

    log(f"n={n}: building tree")
    start = time.perf_counter()
    tree = FlowTree(n, styles)
    log(f"n={n}: built in {time.perf_counter() - start:.2f} s; warm-up layout")

    warmup_ns = tree.compute()
    log(f"n={n}: warm-up full layout {warmup_ns / 1e9:.3f} s ({warmup_ns / n:.1f} ns/item)")
    if warmup_ns / 1e9 > limit:
        reason = f"one full layout took {warmup_ns / 1e9:.3g} s > {limit:.3g} s limit"
        for name in (FULL_NAME, RELAYOUT_NAME):
            emit({"name": name, "group": GROUP, "n": n, "skipped": reason})
        return

    verified = tree.verify(f"n={n} full layout")
    if n <= CROSSCHECK_MAX_N and state.pop("crosscheck", False):
        verified = public_api_crosscheck(n, tree) and verified
        log(f"n={n}: public Node API cross-check done")

    cached_ns = tree.compute()  # nothing dirty: a pure cache hit, for the log only
    log(f"n={n}: (cache-hit compute on a clean tree: {cached_ns / n:.3f} ns/item, not reported)")

    full = measure_full(tree, args.repetitions)
    med, low, high = summary(full)
    state["ns_per_item"] = med
    log(f"n={n}: full layout median {med:.1f} ns/item")

    tree.invalidate_all()
    tree.compute()  # a clean, fully laid-out tree before the relayout phase
    relayout = measure_relayout(tree, args.repetitions, args.relayout_ops, styles)
    r_med, r_low, r_high = summary(relayout)
    log(f"n={n}: relayout median {r_med:.2f} µs/op")

    relayout_ok = tree.verify(f"n={n} after relayouts")
    if tree.measure_calls:
        log(f"WARNING: n={n}: measure callback entered {tree.measure_calls} times")
    verified = verified and relayout_ok

    emit({"name": FULL_NAME, "group": GROUP, "n": n, "unit": "ns/item",
          "median": round(med, 3), "low": round(low, 3), "high": round(high, 3), "verified": verified})
    emit({"name": RELAYOUT_NAME, "group": GROUP, "n": n, "unit": "µs/op",
          "median": round(r_med, 3), "low": round(r_low, 3), "high": round(r_high, 3), "verified": verified})


def parse_counts(text: str) -> list[int]:
    try:
        counts = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}")
    if not counts or any(c < 1 for c in counts):
        raise argparse.ArgumentTypeError("counts must be positive integers")
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", type=parse_counts, default=[1000, 10000, 100000, 1000000],
                        help="comma-separated item counts (default 1000,10000,100000,1000000)")
    parser.add_argument("--repetitions", type=int, default=5,
                        help="timed repetitions after one warm-up (default 5)")
    parser.add_argument("--relayout-ops", type=int, default=20,
                        help="size changes timed per relayout repetition (default 20)")
    parser.add_argument("--max-layout-seconds", type=float, default=60.0,
                        help="skip an N whose single full layout takes (or is predicted "
                             "to take) longer than this (default 60)")
    args = parser.parse_args()
    if args.repetitions < 1 or args.relayout_ops < 1:
        parser.error("--repetitions and --relayout-ops must be at least 1")

    log(f"stretchable {metadata.version('stretchable')} (bundled Taffy {bundled_taffy_version()}), "
        f"Python {sys.version.split()[0]}; counts {args.counts}, {args.repetitions} repetitions")
    styles = StyleDicts()
    state = {"crosscheck": True}
    for n in sorted(args.counts):
        run_count(n, args, styles, state)
        gc.collect()
    return 0


if __name__ == "__main__":
    sys.exit(main())
