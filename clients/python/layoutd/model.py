"""Dataclasses for the protocol's objects (protocol/views.md, mutations.md, README.md §10).

Every ``from_json`` ignores fields it does not know (the protocol may add some) and keeps the
whole object in ``raw``; every ``to_json`` writes the protocol's keys in the documented order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

JSONObject = Dict[str, Any]

#: An element's key: ``(kind, id)`` (protocol/subscriptions.md, "Keeping a mirror").
ElementKey = Tuple[str, str]


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


@dataclass(frozen=True)
class Point:
    x: float = 0.0
    y: float = 0.0

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Point":
        return cls(_num(value.get("x")), _num(value.get("y")))

    def to_json(self) -> JSONObject:
        return {"x": _wire(self.x), "y": _wire(self.y)}


@dataclass(frozen=True)
class Size:
    width: float = 0.0
    height: float = 0.0

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Size":
        return cls(_num(value.get("width")), _num(value.get("height")))

    def to_json(self) -> JSONObject:
        return {"width": _wire(self.width), "height": _wire(self.height)}


@dataclass(frozen=True)
class Rect:
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Rect":
        return cls(_num(value.get("x")), _num(value.get("y")), _num(value.get("width")), _num(value.get("height")))

    def to_json(self) -> JSONObject:
        return {"x": _wire(self.x), "y": _wire(self.y), "width": _wire(self.width), "height": _wire(self.height)}

    @property
    def max_x(self) -> float:
        return self.x + self.width

    @property
    def max_y(self) -> float:
        return self.y + self.height

    def intersects(self, other: "Rect") -> bool:
        """Overlap with positive area (rects that only touch do not intersect, README.md §10)."""
        return self.x < other.max_x and other.x < self.max_x and self.y < other.max_y and other.y < self.max_y


@dataclass(frozen=True)
class Insets:
    top: float = 0.0
    left: float = 0.0
    bottom: float = 0.0
    right: float = 0.0

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Insets":
        return cls(_num(value.get("top")), _num(value.get("left")), _num(value.get("bottom")), _num(value.get("right")))

    def to_json(self) -> JSONObject:
        return {"top": _wire(self.top), "left": _wire(self.left), "bottom": _wire(self.bottom), "right": _wire(self.right)}


@dataclass(frozen=True)
class Transform:
    """An affine transform as CGAffineTransform, applied about the frame's centre."""
    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    tx: float = 0.0
    ty: float = 0.0

    IDENTITY_TUPLE = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Transform":
        return cls(*(_num(value.get(k, d)) for k, d in zip("a b c d tx ty".split(), cls.IDENTITY_TUPLE)))

    def to_json(self) -> JSONObject:
        return {"a": _wire(self.a), "b": _wire(self.b), "c": _wire(self.c), "d": _wire(self.d),
                "tx": _wire(self.tx), "ty": _wire(self.ty)}

    @property
    def is_identity(self) -> bool:
        return (self.a, self.b, self.c, self.d, self.tx, self.ty) == self.IDENTITY_TUPLE


@dataclass(frozen=True)
class Attributes:
    """One element's layout (views.md, "The attributes object")."""
    id: str
    kind: str
    section: int
    frame: Rect
    item: Optional[int] = None
    z_index: int = 0
    alpha: float = 1.0
    hidden: bool = False
    transform: Optional[Transform] = None
    effects: Dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> ElementKey:
        return (self.kind, self.id)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Attributes":
        item = value.get("item")
        transform = value.get("transform")
        effects = value.get("effects") or {}
        return cls(id=str(value["id"]), kind=str(value["kind"]), section=int(value.get("section", 0)),
                   frame=Rect.from_json(value.get("frame") or {}),
                   item=int(item) if item is not None else None,
                   z_index=int(value.get("zIndex", 0)), alpha=_num(value.get("alpha", 1)),
                   hidden=bool(value.get("hidden", False)),
                   transform=Transform.from_json(transform) if isinstance(transform, dict) else None,
                   effects={str(k): _num(v) for k, v in effects.items()})

    def to_json(self) -> JSONObject:
        out: JSONObject = {"id": self.id, "kind": self.kind, "section": self.section}
        if self.item is not None:
            out["item"] = self.item
        out.update({"frame": self.frame.to_json(), "zIndex": self.z_index, "alpha": _wire(self.alpha),
                    "hidden": self.hidden})
        if self.transform is not None and not self.transform.is_identity:
            out["transform"] = self.transform.to_json()
        if self.effects:
            out["effects"] = {k: _wire(self.effects[k]) for k in sorted(self.effects)}
        return out


@dataclass(frozen=True)
class Item:
    """An item of a section in a request (views.md, view.create)."""
    id: str
    size: Optional[Size] = None
    estimated_size: Optional[Size] = None

    def to_json(self) -> JSONObject:
        out: JSONObject = {"id": self.id}
        if self.size is not None:
            out["size"] = self.size.to_json()
        if self.estimated_size is not None:
            out["estimatedSize"] = self.estimated_size.to_json()
        return out


@dataclass(frozen=True)
class Section:
    """A section in a request: its id, its items and any other documented section fields
    (``extra``, written after ``items``, e.g. header/footer sizes)."""
    id: str
    items: List[Union[Item, str, Mapping[str, Any]]] = field(default_factory=list)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSONObject:
        out: JSONObject = {"id": self.id, "items": [to_wire(i) if not isinstance(i, str) else {"id": i} for i in self.items]}
        out.update({k: to_wire(v) for k, v in self.extra.items()})
        return out


@dataclass(frozen=True)
class Viewport:
    """A viewport in a request (``view.create``) or a snapshot."""
    width: float
    height: float
    offset: Optional[Point] = None
    content_insets: Optional[Insets] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Viewport":
        offset = value.get("offset")
        insets = value.get("contentInsets")
        return cls(_num(value.get("width")), _num(value.get("height")),
                   Point.from_json(offset) if isinstance(offset, dict) else None,
                   Insets.from_json(insets) if isinstance(insets, dict) else None)

    def to_json(self) -> JSONObject:
        out: JSONObject = {"width": _wire(self.width), "height": _wire(self.height)}
        if self.offset is not None:
            out["offset"] = self.offset.to_json()
        if self.content_insets is not None:
            out["contentInsets"] = self.content_insets.to_json()
        return out


@dataclass(frozen=True)
class Snapshot:
    """A view's whole state (views.md, "The snapshot object")."""
    view: str
    strategy: str
    params: JSONObject
    epoch: int
    viewport: Viewport
    window_margin: float
    window: Rect
    content_size: Size
    section_count: int
    item_count: int
    elements: List[Attributes]
    window_truncated: bool = False
    anchor: Any = None
    scroll_target: Optional[JSONObject] = None
    layout_direction: Optional[str] = None
    raw: JSONObject = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Snapshot":
        return cls(view=str(value.get("view", "")), strategy=str(value.get("strategy", "")),
                   params=dict(value.get("params") or {}), epoch=int(value.get("epoch", 0)),
                   viewport=Viewport.from_json(value.get("viewport") or {}),
                   window_margin=_num(value.get("windowMargin")), window=Rect.from_json(value.get("window") or {}),
                   content_size=Size.from_json(value.get("contentSize") or {}),
                   section_count=int(value.get("sectionCount", 0)), item_count=int(value.get("itemCount", 0)),
                   elements=[Attributes.from_json(e) for e in value.get("elements") or []],
                   window_truncated=bool(value.get("windowTruncated", False)), anchor=value.get("anchor"),
                   scroll_target=value.get("scrollTarget"), layout_direction=value.get("layoutDirection"),
                   raw=dict(value))


@dataclass(frozen=True)
class Context:
    everything: bool
    data_source_counts: bool
    invalidated: List[str]
    content_size_adjustment: Size
    content_offset_adjustment: Point

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Context":
        return cls(bool(value.get("everything")), bool(value.get("dataSourceCounts")),
                   [str(i) for i in value.get("invalidated") or []],
                   Size.from_json(value.get("contentSizeAdjustment") or {}),
                   Point.from_json(value.get("contentOffsetAdjustment") or {}))


@dataclass(frozen=True)
class Segment:
    """One piece of an element's animation: from ``from_`` to ``to`` between ``delay`` and
    ``delay + duration`` seconds (mutations.md, ``transition``)."""
    kind: str
    id: str
    from_: Attributes
    to: Attributes
    delay: float
    duration: float
    #: how progress runs over the segment's time: "linear", "easeIn", "easeOut" or "easeInOut"
    #: ("linear" when the daemon names none)
    curve: str = "linear"

    @property
    def key(self) -> ElementKey:
        return (self.kind, self.id)

    @property
    def end(self) -> float:
        return self.delay + self.duration

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Segment":
        return cls(str(value["kind"]), str(value["id"]), Attributes.from_json(value["from"]),
                   Attributes.from_json(value["to"]), _num(value.get("delay")), _num(value.get("duration")),
                   str(value.get("curve", "linear")))


@dataclass(frozen=True)
class Transition:
    duration: float
    segments: List[Segment]

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Transition":
        return cls(_num(value.get("duration")), [Segment.from_json(s) for s in value.get("segments") or []])


@dataclass(frozen=True)
class Invalidation:
    """What a mutation changed (mutations.md, "The invalidation object"): a mutation's result
    and a ``view.invalidated`` event's params."""
    view: str
    epoch: int
    content_size: Size
    content_offset: Point
    context: Context
    window: Rect
    entered: List[Attributes]
    changed: List[Attributes]
    left: List[ElementKey]
    window_truncated: bool = False
    anchor: Optional[str] = None
    target_content_offset: Optional[Point] = None
    changes: Optional[Dict[str, List[str]]] = None
    #: present only for a change too large to list (mutations.md, "Large changes"):
    #: ``context.invalidated`` and every list of ``changes`` are then empty, and this gives the
    #: length each would have had ("invalidated", "insertedItems", ...)
    omitted_ids: Optional[Dict[str, int]] = None
    transition: Optional[Transition] = None
    needs_measure: Optional[List[str]] = None
    dry_run: bool = False
    raw: JSONObject = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Invalidation":
        tco = value.get("targetContentOffset")
        transition = value.get("transition")
        changes = value.get("changes")
        omitted = value.get("omittedIDs")
        needs = value.get("needsMeasure")
        anchor = value.get("anchor")
        return cls(view=str(value.get("view", "")), epoch=int(value.get("epoch", 0)),
                   content_size=Size.from_json(value.get("contentSize") or {}),
                   content_offset=Point.from_json(value.get("contentOffset") or {}),
                   context=Context.from_json(value.get("context") or {}),
                   window=Rect.from_json(value.get("window") or {}),
                   entered=[Attributes.from_json(e) for e in value.get("entered") or []],
                   changed=[Attributes.from_json(e) for e in value.get("changed") or []],
                   left=[(str(k["kind"]), str(k["id"])) for k in value.get("left") or []],
                   window_truncated=bool(value.get("windowTruncated", False)),
                   anchor=str(anchor) if anchor is not None else None,
                   target_content_offset=Point.from_json(tco) if isinstance(tco, dict) else None,
                   changes={str(k): [str(i) for i in v] for k, v in changes.items()} if isinstance(changes, dict) else None,
                   omitted_ids={str(k): int(v) for k, v in omitted.items()} if isinstance(omitted, dict) else None,
                   transition=Transition.from_json(transition) if isinstance(transition, dict) else None,
                   needs_measure=[str(i) for i in needs] if isinstance(needs, list) else None,
                   dry_run=bool(value.get("dryRun", False)), raw=dict(value))


@dataclass(frozen=True)
class Event:
    """One event line: ``name`` (``view.invalidated``, ``view.resync``, ``view.deleted``,
    ``daemon.shutdown`` or one this version does not know), its subscription, seq and params."""
    name: str
    seq: int
    params: JSONObject
    subscription: Optional[int] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "Event":
        sub = value.get("subscription")
        return cls(str(value.get("event")), int(value.get("seq", 0)), dict(value.get("params") or {}),
                   int(sub) if sub is not None else None)

    @property
    def invalidation(self) -> Invalidation:
        """``params`` of a ``view.invalidated`` event."""
        return Invalidation.from_json(self.params)

    @property
    def snapshot(self) -> Snapshot:
        """The snapshot of a ``view.resync`` event."""
        return Snapshot.from_json(self.params.get("snapshot") or {})


def _wire(value: float) -> Union[int, float]:
    """Whole numbers as JSON integers (as the daemon writes them), others as floats."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value


def to_wire(value: Any) -> Any:
    """A request value as JSON: dataclasses of this module through ``to_json``; mappings and
    lists element by element (their key order is kept); everything else as it is."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, Mapping):
        return {str(k): to_wire(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_wire(v) for v in value]
    return value


@dataclass(frozen=True)
class QueryPage:
    """``view.query``'s result: the page's elements sorted by key, the selected cells among
    them, and ``next`` (the cursor for the following page, None on the last one)."""
    elements: List[Attributes]
    selected: List[str]
    next: Optional[JSONObject] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> "QueryPage":
        nxt = value.get("next")
        return cls([Attributes.from_json(e) for e in value.get("elements") or []],
                   [str(i) for i in value.get("selected") or []], dict(nxt) if isinstance(nxt, dict) else None)


def key_to_json(value: Union[ElementKey, Mapping[str, Any]]) -> Any:
    """An element key as a request writes it: ``{"kind", "id"}`` from a ``(kind, id)`` tuple;
    a mapping as it is."""
    if isinstance(value, tuple):
        kind, id = value
        return {"kind": kind, "id": id}
    return to_wire(value)


def optional_attributes(value: Any) -> Optional[Attributes]:
    """An attributes object, or None for JSON null."""
    return Attributes.from_json(value) if isinstance(value, dict) else None
