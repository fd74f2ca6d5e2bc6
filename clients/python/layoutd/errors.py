"""Exceptions named after the protocol's errors (protocol/errors.md).

Every error reply becomes a subclass of :class:`LayoutdError`, chosen by the error's ``name``
(clients switch on the name, never on the code). A name this version does not list becomes a
plain :class:`LayoutdError` with that name.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type


class ClientError(Exception):
    """A problem on the client's side of the connection (not an error reply)."""


class ConnectionClosed(ClientError):
    """The daemon closed the connection (end of file) before the expected reply."""


class SequenceGap(ClientError):
    """An event's ``seq`` was not the previous one + 1: events were lost (re-subscribe)."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__("event seq %d arrived, %d was expected" % (actual, expected))
        self.expected = expected
        self.actual = actual


class LayoutdError(Exception):
    """An error reply: ``code``, ``name``, ``message`` and ``data`` as the daemon sent them."""

    NAME = ""
    CODE = -32000

    def __init__(self, code: int, name: str, message: str, data: Optional[Mapping[str, Any]] = None,
                 request_id: Any = None) -> None:
        super().__init__("%s (%d): %s" % (name, code, message))
        self.code = code
        self.name = name
        self.message = message
        self.data: Dict[str, Any] = dict(data or {})
        self.request_id = request_id


class ParseError(LayoutdError):
    NAME, CODE = "ParseError", -32700


class LineTooLong(LayoutdError):
    NAME, CODE = "LineTooLong", -32700


class InvalidRequest(LayoutdError):
    NAME, CODE = "InvalidRequest", -32600


class MethodNotFound(LayoutdError):
    NAME, CODE = "MethodNotFound", -32601


class InvalidParams(LayoutdError):
    NAME, CODE = "InvalidParams", -32602


class InternalError(LayoutdError):
    NAME, CODE = "InternalError", -32603


class ViewNotFound(LayoutdError):
    NAME, CODE = "ViewNotFound", -32001


class ViewExists(LayoutdError):
    NAME, CODE = "ViewExists", -32002


class UnknownStrategy(LayoutdError):
    NAME, CODE = "UnknownStrategy", -32003


class UnknownParameter(LayoutdError):
    NAME, CODE = "UnknownParameter", -32004


class InvalidParameter(LayoutdError):
    NAME, CODE = "InvalidParameter", -32005


class InvalidViewport(LayoutdError):
    NAME, CODE = "InvalidViewport", -32006


class InvalidSize(LayoutdError):
    NAME, CODE = "InvalidSize", -32007


class InvalidID(LayoutdError):
    NAME, CODE = "InvalidID", -32008


class DuplicateItemID(LayoutdError):
    NAME, CODE = "DuplicateItemID", -32009


class DuplicateSectionID(LayoutdError):
    NAME, CODE = "DuplicateSectionID", -32010


class ItemNotFound(LayoutdError):
    NAME, CODE = "ItemNotFound", -32011


class SectionNotFound(LayoutdError):
    NAME, CODE = "SectionNotFound", -32012


class InvalidBatch(LayoutdError):
    NAME, CODE = "InvalidBatch", -32013


class IndexOutOfRange(LayoutdError):
    NAME, CODE = "IndexOutOfRange", -32014


class StaleEpoch(LayoutdError):
    NAME, CODE = "StaleEpoch", -32015


class LimitExceeded(LayoutdError):
    NAME, CODE = "LimitExceeded", -32016


class PermissionDenied(LayoutdError):
    NAME, CODE = "PermissionDenied", -32017


class UnsupportedVersion(LayoutdError):
    NAME, CODE = "UnsupportedVersion", -32018


class DuplicateStrategy(LayoutdError):
    NAME, CODE = "DuplicateStrategy", -32019


class ReloadFailed(LayoutdError):
    NAME, CODE = "ReloadFailed", -32020


class IdleTimeout(LayoutdError):
    NAME, CODE = "IdleTimeout", -32021


class OutputOverflow(LayoutdError):
    NAME, CODE = "OutputOverflow", -32022


class ElementNotFound(LayoutdError):
    NAME, CODE = "ElementNotFound", -32023


class TransitionInProgress(LayoutdError):
    NAME, CODE = "TransitionInProgress", -32024


class NoActiveTransition(LayoutdError):
    NAME, CODE = "NoActiveTransition", -32025


class MoveInProgress(LayoutdError):
    NAME, CODE = "MoveInProgress", -32026


class NoActiveMove(LayoutdError):
    NAME, CODE = "NoActiveMove", -32027


class SectionNotOrthogonal(LayoutdError):
    NAME, CODE = "SectionNotOrthogonal", -32028


ERRORS: Dict[str, Type[LayoutdError]] = {
    cls.NAME: cls for cls in (
        ParseError, LineTooLong, InvalidRequest, MethodNotFound, InvalidParams, InternalError,
        ViewNotFound, ViewExists, UnknownStrategy, UnknownParameter, InvalidParameter,
        InvalidViewport, InvalidSize, InvalidID, DuplicateItemID, DuplicateSectionID,
        ItemNotFound, SectionNotFound, InvalidBatch, IndexOutOfRange, StaleEpoch, LimitExceeded,
        PermissionDenied, UnsupportedVersion, DuplicateStrategy, ReloadFailed, IdleTimeout,
        OutputOverflow, ElementNotFound, TransitionInProgress, NoActiveTransition, MoveInProgress, NoActiveMove, SectionNotOrthogonal)}

#: Errors that, written with ``id`` null, precede the daemon closing the connection
#: (protocol/README.md §9; ``LimitExceeded`` with ``id`` null comes only at accept).
CONNECTION_ERRORS = frozenset({"LineTooLong", "IdleTimeout", "OutputOverflow", "PermissionDenied", "LimitExceeded"})


def error_from_reply(error: Mapping[str, Any], request_id: Any = None) -> LayoutdError:
    """The exception for an error reply's ``error`` object."""
    name = str(error.get("name", ""))
    code = error.get("code", -32000)
    data = error.get("data")
    cls = ERRORS.get(name, LayoutdError)
    return cls(int(code) if isinstance(code, (int, float)) else -32000, name, str(error.get("message", "")),
               data if isinstance(data, dict) else None, request_id)
