"""The operations of a ``view.update`` batch (protocol/mutations.md, "view.update") as
dataclasses; pass them (or plain mappings) in ``updates``. Positions are final positions."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Mapping, Union

from .model import Item, JSONObject, Section, to_wire

ItemLike = Union[Item, str, Mapping[str, Any]]
SectionLike = Union[Section, Mapping[str, Any]]


def _items(items: List[ItemLike]) -> List[Any]:
    return [{"id": i} if isinstance(i, str) else to_wire(i) for i in items]


@dataclass(frozen=True)
class InsertItems:
    section: str
    at: int
    items: List[ItemLike] = field(default_factory=list)

    def to_json(self) -> JSONObject:
        return {"op": "insertItems", "section": self.section, "at": self.at, "items": _items(self.items)}


@dataclass(frozen=True)
class DeleteItems:
    ids: List[str]

    def to_json(self) -> JSONObject:
        return {"op": "deleteItems", "ids": list(self.ids)}


@dataclass(frozen=True)
class MoveItem:
    id: str
    section: str
    at: int

    def to_json(self) -> JSONObject:
        return {"op": "moveItem", "id": self.id, "section": self.section, "at": self.at}


@dataclass(frozen=True)
class ReloadItems:
    items: List[ItemLike]

    def to_json(self) -> JSONObject:
        return {"op": "reloadItems", "items": _items(self.items)}


@dataclass(frozen=True)
class InsertSections:
    at: int
    sections: List[SectionLike]

    def to_json(self) -> JSONObject:
        return {"op": "insertSections", "at": self.at, "sections": [to_wire(s) for s in self.sections]}


@dataclass(frozen=True)
class DeleteSections:
    ids: List[str]

    def to_json(self) -> JSONObject:
        return {"op": "deleteSections", "ids": list(self.ids)}


@dataclass(frozen=True)
class MoveSection:
    id: str
    at: int

    def to_json(self) -> JSONObject:
        return {"op": "moveSection", "id": self.id, "at": self.at}


@dataclass(frozen=True)
class ReloadSections:
    sections: List[SectionLike]

    def to_json(self) -> JSONObject:
        return {"op": "reloadSections", "sections": [to_wire(s) for s in self.sections]}


Update = Union[InsertItems, DeleteItems, MoveItem, ReloadItems, InsertSections, DeleteSections, MoveSection,
               ReloadSections]
