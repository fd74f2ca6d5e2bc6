"""The exception classes the generated ones (``_errors.py``) derive from, and the client's own."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional


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
    """An error reply: ``code``, ``name``, ``message`` and ``data`` as the daemon sent them.

    Each name of protocol/errors.md has a subclass (``NAME``, ``CODE``); a name this version
    does not know is raised as a plain ``LayoutdError`` with that name."""

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
