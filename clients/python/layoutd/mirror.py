"""The client's copy of a view's window (protocol/subscriptions.md, "Keeping a mirror").

A :class:`Mirror` does no I/O: it is fed snapshots, invalidations and events, and says when it
cannot apply one (an epoch that is not the next one), so whoever owns the connection fetches a
fresh snapshot (:class:`layoutd.Subscription` does that itself).
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional

from ._names import EVENT_VIEW_DELETED, EVENT_VIEW_INVALIDATED, EVENT_VIEW_RESYNC
from .model import Attributes, ElementKey, Event, Invalidation, Point, Rect, Size, Snapshot


class Mirror:
    """Elements keyed by ``(kind, id)`` with the view's epoch, window, content size and offset."""

    def __init__(self, snapshot: Optional[Snapshot] = None) -> None:
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

    def reset(self, snapshot: Snapshot) -> None:
        """Replaces everything with ``snapshot`` (a subscribe reply, a ``view.resync``, ``view.get``)."""
        self.view = snapshot.view
        self.elements = {e.key: e for e in snapshot.elements}
        self.epoch = snapshot.epoch
        self.window = snapshot.window
        self.content_size = snapshot.content_size
        self.content_offset = snapshot.viewport.offset or Point()
        self.window_truncated = snapshot.window_truncated
        self.deleted = False

    def apply(self, change: Invalidation) -> bool:
        """Applies an invalidation. An epoch already seen (the mutating client's own reply and
        its event) is skipped and counts as applied; one that is not the next epoch is not
        applied and returns False: the mirror needs a fresh snapshot."""
        if change.dry_run or change.epoch <= self.epoch:
            return True
        if change.epoch != self.epoch + 1:
            return False
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
            self.elements = {}
            self.deleted = True
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
