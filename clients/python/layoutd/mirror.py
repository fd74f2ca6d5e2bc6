"""The client's copy of a view's window (protocol/subscriptions.md, "Keeping a mirror").

A :class:`Mirror` does no I/O: it is fed snapshots, invalidations and events, and says when it
cannot apply one (an epoch that is not the next one), so whoever owns the connection fetches a
fresh snapshot (:class:`layoutd.Subscription` does that itself).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional

from ._names import EVENT_VIEW_DELETED, EVENT_VIEW_INVALIDATED, EVENT_VIEW_RESYNC
from .model import Attributes, ElementKey, Event, Invalidation, Point, Rect, Size, Snapshot


@dataclass
class MirrorChange:
    """What one applied change did to a mirror's elements, for a front end that touches only
    those widgets: ``entered`` (new keys), ``changed`` (same key, new attributes) and ``left``
    (keys gone). Applying it to a copy of the elements before gives the elements after:
    remove ``left``, then store ``entered`` and ``changed``. ``cause`` says what was applied
    (``invalidated``, ``reset`` — a snapshot or ``view.resync`` — or ``deleted``); ``epoch``
    is the mirror's epoch after it."""
    cause: str
    epoch: int
    entered: List[Attributes] = field(default_factory=list)
    changed: List[Attributes] = field(default_factory=list)
    left: List[ElementKey] = field(default_factory=list)


ChangeCallback = Callable[[MirrorChange], None]


class Mirror:
    """Elements keyed by ``(kind, id)`` with the view's epoch, window, content size and offset.

    ``on_change(callback)``: ``callback(change)`` (a :class:`MirrorChange`) after each applied
    invalidation, reset (a snapshot, ``view.resync``) and ``view.deleted``."""

    def __init__(self, snapshot: Optional[Snapshot] = None) -> None:
        self._listeners: List[ChangeCallback] = []
        self.view: Optional[str] = None
        self.epoch: int = -1
        self.window = Rect()
        self.content_size = Size()
        self.content_offset = Point()
        self.window_truncated = False
        self.deleted = False
        self.elements: Dict[ElementKey, Attributes] = {}
        if snapshot is not None:
            self.reset(snapshot)

    def on_change(self, callback: ChangeCallback) -> Callable[[], None]:
        """Calls ``callback(change)`` after each applied change from now on; returns the
        function that stops it."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _tell(self, cause: str, before: Dict[ElementKey, Attributes], keys: Iterable[ElementKey]) -> None:
        """Tells the listeners what happened to ``keys`` (those that may have changed)."""
        change = MirrorChange(cause, self.epoch)
        for key in keys:
            old, new = before.get(key), self.elements.get(key)
            if new is None:
                if old is not None:
                    change.left.append(key)
            elif old is None:
                change.entered.append(new)
            elif old != new:
                change.changed.append(new)
        for listener in list(self._listeners):
            listener(change)

    def reset(self, snapshot: Snapshot) -> None:
        """Replaces everything with ``snapshot`` (a subscribe reply, a ``view.resync``, ``view.get``)."""
        before = self.elements
        self.view = snapshot.view
        self.elements = {e.key: e for e in snapshot.elements}
        self.epoch = snapshot.epoch
        self.window = snapshot.window
        self.content_size = snapshot.content_size
        self.content_offset = snapshot.viewport.offset or Point()
        self.window_truncated = snapshot.window_truncated
        self.deleted = False
        if self._listeners:
            self._tell("reset", before, list(before) + [key for key in self.elements if key not in before])

    def apply(self, change: Invalidation) -> bool:
        """Applies an invalidation. An epoch already seen (the mutating client's own reply and
        its event) is skipped and counts as applied; one that is not the next epoch is not
        applied and returns False: the mirror needs a fresh snapshot."""
        if change.dry_run or change.epoch <= self.epoch:
            return True
        if change.epoch != self.epoch + 1:
            return False
        touched: List[ElementKey] = []
        before: Dict[ElementKey, Attributes] = {}
        if self._listeners:
            touched = list(change.left) + [e.key for e in change.entered] + [e.key for e in change.changed]
            touched = list(dict.fromkeys(touched))
            before = {key: self.elements[key] for key in touched if key in self.elements}
        for key in change.left:
            self.elements.pop(key, None)
        for element in change.entered:
            self.elements[element.key] = element
        for element in change.changed:
            self.elements[element.key] = element
        self.epoch = change.epoch
        self.window = change.window
        self.content_size = change.content_size
        self.content_offset = change.content_offset
        self.window_truncated = change.window_truncated
        if self._listeners:
            self._tell("invalidated", before, touched)
        return True

    def handle(self, event: Event) -> bool:
        """Applies one event; False when the mirror needs a fresh snapshot. Events of other
        views and events this version does not know are ignored."""
        if event.name == EVENT_VIEW_INVALIDATED:
            change = event.invalidation
            return self.view is not None and change.view != self.view or self.apply(change)
        if event.name == EVENT_VIEW_RESYNC:
            self.reset(event.snapshot)
        elif event.name == EVENT_VIEW_DELETED and event.params.get("view") == self.view:
            before, self.elements = self.elements, {}
            self.deleted = True
            if self._listeners:
                self._tell("deleted", before, before)
        return True

    def __iter__(self) -> Iterator[Attributes]:
        """The elements sorted by key, as ``view.get`` lists them."""
        return iter(self.sorted())

    def sorted(self) -> List[Attributes]:
        return [self.elements[key] for key in sorted(self.elements, key=_sort_key)]

    def __len__(self) -> int:
        return len(self.elements)

    def __contains__(self, key: object) -> bool:
        return key in self.elements

    def get(self, kind: str, id: str) -> Optional[Attributes]:
        return self.elements.get((kind, id))


_KIND_ORDER = {"cell": 0, "header": 1, "footer": 2}


def _sort_key(key: ElementKey) -> tuple[int, str, str]:
    return (_KIND_ORDER.get(key[0], 3), key[0], key[1])
