"""The exception classes the generated ones (``_errors.py``) derive from, and the client's own."""
from __future__ import annotations

import socket
import sys
from typing import Any, Dict, Mapping, Optional


class ClientError(Exception):
    """A problem on the client's side of the connection (not an error reply)."""


class ConnectionClosed(ClientError):
    """The daemon closed the connection (end of file) before the expected reply."""


class ProtocolError(ClientError):
    """The peer wrote a line no layoutd writes (protocol/README.md §9, "What a client expects
    of the daemon's lines"): longer than the line cap, not UTF-8, not JSON, not an object,
    nested deeper than 128, or a reply or event of the wrong shape. The stream cannot be
    trusted past it: the client closes the connection and every waiting call fails with it."""


if sys.version_info >= (3, 10):
    _TimeoutBase = TimeoutError  # socket.timeout is TimeoutError itself
else:  # pragma: no cover - Python 3.9: socket.timeout is its own class
    class _TimeoutBase(socket.timeout, TimeoutError):
        pass


class Timeout(ClientError, _TimeoutBase):
    """A call's deadline passed before its reply (or a connect's before it connected). The
    call is forgotten (its reply, if it comes, is counted as stray); the connection stays
    usable. Also a ``TimeoutError`` (= ``socket.timeout``), so ``except socket.timeout``
    written for the per-read timeouts of earlier versions still catches it."""


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
