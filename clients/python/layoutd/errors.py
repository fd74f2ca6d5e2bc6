"""Exceptions named after the protocol's errors (protocol/errors.md).

Every error reply becomes a subclass of :class:`LayoutdError`, chosen by the error's ``name``
(clients switch on the name, never on the code). A name this version does not list becomes a
plain :class:`LayoutdError` with that name. The classes, ``ERRORS`` and ``CONNECTION_ERRORS``
are generated from protocol/interface.json (``_errors.py``).
"""
from __future__ import annotations

from typing import Any, Mapping

from . import _errors
from ._errorbase import ClientError, ConnectionClosed, LayoutdError, ProtocolError, SequenceGap, Timeout
from ._errors import *  # noqa: F401,F403 - one class per error name
from ._errors import CONNECTION_ERRORS, ERRORS, LINE_ERRORS

__all__ = ["ClientError", "ConnectionClosed", "LayoutdError", "ProtocolError", "SequenceGap", "Timeout", "ERRORS",
           "CONNECTION_ERRORS", "LINE_ERRORS", "error_from_reply"]
__all__ += _errors.__all__


def error_from_reply(error: Mapping[str, Any], request_id: Any = None) -> LayoutdError:
    """The exception for an error reply's ``error`` object."""
    name = str(error.get("name", ""))
    code = error.get("code", -32000)
    data = error.get("data")
    cls = ERRORS.get(name, LayoutdError)
    whole = isinstance(code, int) and not isinstance(code, bool) or isinstance(code, float) and code.is_integer()
    return cls(int(code) if whole else -32000, name, str(error.get("message", "")),
               data if isinstance(data, dict) else None, request_id)
