"""Playing a transition (protocol/mutations.md, ``transition``): the attributes of every
element with segments at a time ``t`` seconds after the animation started.

Each segment interpolates its element's frame, alpha, transform and effects from ``from`` to
``to`` between ``delay`` and ``delay + duration``, at the progress its ``curve`` gives for the
elapsed fraction: UIKit's curves, cubic Béziers with CSS's control points (``CURVES``). Pass
``curve`` (a function from 0…1 to 0…1) to play every segment on one curve instead. Before an
element's first segment it sits at that segment's ``from``; between segments at the previous
``to``; after its last segment at its last ``to``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Dict, List, Optional

from .model import Attributes, ElementKey, Rect, Segment, Transform, Transition

Curve = Callable[[float], float]


def linear(progress: float) -> float:
    return progress


def cubic_bezier(x1: float, y1: float, x2: float, y2: float) -> Curve:
    """CSS's cubic-bezier(): y where x is the elapsed fraction, on the Bézier from (0, 0) to
    (1, 1) with inner points (x1, y1), (x2, y2); x solved by Newton's method, bisection as the
    fallback."""
    def at(t: float, p1: float, p2: float) -> float:
        return 3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t

    def slope(t: float, p1: float, p2: float) -> float:
        return 3 * (1 - t) * (1 - t) * p1 + 6 * (1 - t) * t * (p2 - p1) + 3 * t * t * (1 - p2)

    def ease(x: float) -> float:
        if x <= 0:
            return 0.0
        if x >= 1:
            return 1.0
        t = x
        for _ in range(8):
            error = at(t, x1, x2) - x
            if abs(error) < 1e-12:
                return at(t, y1, y2)
            d = slope(t, x1, x2)
            if abs(d) < 1e-9:
                break
            t -= error / d
        low, high, t = 0.0, 1.0, x
        for _ in range(60):
            value = at(t, x1, x2)
            if abs(value - x) < 1e-12:
                break
            if value < x:
                low = t
            else:
                high = t
            t = (low + high) / 2
        return at(t, y1, y2)
    return ease


#: The protocol's curves (``segments[].curve``) by name: each segment plays on its own.
CURVES: Dict[str, Curve] = {
    "linear": lambda p: min(1.0, max(0.0, p)),
    "easeIn": cubic_bezier(0.42, 0, 1, 1),
    "easeOut": cubic_bezier(0, 0, 0.58, 1),
    "easeInOut": cubic_bezier(0.42, 0, 0.58, 1),
}


def _curve_of(segment: Segment, override: Optional[Curve]) -> Curve:
    if override is not None:
        return override
    try:
        return CURVES[segment.curve]
    except KeyError:
        raise ValueError("unknown curve %r" % segment.curve) from None


def _lerp(a: float, b: float, p: float) -> float:
    return a + (b - a) * p


def interpolate(start: Attributes, end: Attributes, progress: float) -> Attributes:
    """Attributes ``progress`` (0…1) of the way from ``start`` to ``end``. Discrete fields
    (section, item, zIndex, hidden) are ``start``'s until the end, then ``end``'s."""
    if progress <= 0:
        return start
    if progress >= 1:
        return end
    f, g = start.frame, end.frame
    frame = Rect(_lerp(f.x, g.x, progress), _lerp(f.y, g.y, progress),
                 _lerp(f.width, g.width, progress), _lerp(f.height, g.height, progress))
    transform: Optional[Transform] = None
    if start.transform is not None or end.transform is not None:
        s, e = start.transform or Transform(), end.transform or Transform()
        transform = Transform(_lerp(s.a, e.a, progress), _lerp(s.b, e.b, progress), _lerp(s.c, e.c, progress),
                              _lerp(s.d, e.d, progress), _lerp(s.tx, e.tx, progress), _lerp(s.ty, e.ty, progress))
    effects: Dict[str, float] = {}
    for key in sorted(set(start.effects) | set(end.effects)):
        a = start.effects.get(key, end.effects.get(key, 0.0))
        b = end.effects.get(key, a)
        effects[key] = _lerp(a, b, progress)
    return replace(start, frame=frame, alpha=_lerp(start.alpha, end.alpha, progress), transform=transform, effects=effects)


def segments_by_element(transition: Transition) -> Dict[ElementKey, List[Segment]]:
    out: Dict[ElementKey, List[Segment]] = {}
    for segment in transition.segments:
        out.setdefault(segment.key, []).append(segment)
    for segments in out.values():
        segments.sort(key=lambda s: s.delay)
    return out


def attributes_at(segments: List[Segment], t: float, curve: Optional[Curve] = None) -> Attributes:
    """One element's attributes at ``t`` from its segments (ordered by delay), each on its own
    curve unless ``curve`` is given."""
    for segment in segments:
        if t < segment.delay:
            # Before its first segment, or between two (each starts where the previous ended).
            return segment.from_
        if segment.duration > 0 and t < segment.end:
            ease = _curve_of(segment, curve)
            return interpolate(segment.from_, segment.to, ease((t - segment.delay) / segment.duration))
    return segments[-1].to

def transition_at(transition: Transition, t: float, curve: Optional[Curve] = None) -> Dict[ElementKey, Attributes]:
    """Every element with segments, keyed by ``(kind, id)``, as drawn at ``t`` seconds.
    Elements without segments do not move: draw them from the mirror."""
    return {key: attributes_at(segments, t, curve) for key, segments in segments_by_element(transition).items()}


class TransitionPlayer:
    """A transition over a mirror: ``frame(t)`` is what to draw at ``t`` — the mirror's
    elements (the state after the change) with the animated ones replaced, plus elements that
    left the window but still have segments running. ``done(t)`` once ``t`` ≥ duration."""

    def __init__(self, transition: Transition, after: Dict[ElementKey, Attributes], curve: Optional[Curve] = None) -> None:
        self.transition = transition
        self.after = dict(after)
        self.curve = curve
        self._segments = segments_by_element(transition)

    def frame(self, t: float) -> Dict[ElementKey, Attributes]:
        drawn = dict(self.after)
        for key, segments in self._segments.items():
            drawn[key] = attributes_at(segments, t, self.curve)
        if self.done(t):
            for key in self._segments:
                if key not in self.after:
                    del drawn[key]
        return drawn

    def done(self, t: float) -> bool:
        return t >= self.transition.duration
