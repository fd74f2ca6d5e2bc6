"""Lines and messages (protocol/README.md §3–§5): a request as one line of compact JSON, a line
of the daemon's as a message, and :class:`LineBuffer`, which cuts the bytes read from a
connection into lines. No I/O."""
from __future__ import annotations

import json
import re
from typing import Any, Mapping, Optional, Union

from ._errorbase import ProtocolError
from .model import JSONObject, to_wire

RequestId = Union[int, str]


def encode_request(method: str, params: Optional[Mapping[str, Any]], id: Optional[RequestId]) -> bytes:
    """One request line: compact JSON, raw UTF-8, keys ``id``, ``method``, ``params``."""
    message: JSONObject = {} if id is None else {"id": id}
    message["method"] = method
    if params:  # absent means {} (README.md §5)
        message["params"] = to_wire(params)
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode() + b"\n"


#: The default line cap: the daemon's default ``output-limit`` (64 MiB), so no legal reply is longer.
DEFAULT_LINE_CAP = 64 << 20
#: How deep the daemon's lines nest at most (protocol/README.md §9); deeper is a protocol error.
MAX_DEPTH = 128

#: Every byte but the brackets and quotes (deleted before the nesting is measured).
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
#: A string, once escapes and all but brackets and quotes are gone.
_STRING = re.compile(rb'"[^"]*"')
#: An innermost pair (one level of nesting).
_INNERMOST = re.compile(rb"\[\]|\{\}")


def _too_deep(line: bytes) -> bool:
    """Whether ``line`` nests more than MAX_DEPTH arrays/objects, without recursion (the
    standard library's parser recurses, so a 100,000-deep line must be refused before it).
    A line with at most MAX_DEPTH opening brackets cannot be too deep (counted in C: the common
    case). Otherwise, all in C: escaped backslashes and quotes go (when there is a backslash),
    then every byte but brackets and quotes. A string without brackets is now ``""``: dropping
    every ``""`` keeps the quotes paired in order (only a pair with nothing between goes, or
    two strings with no bracket between them merge), so only strings holding brackets are left
    for the regular expression, which is what costs (a 2.5 MB reply of 20,000 elements: 6 ms
    instead of 29). Each pass then removes the innermost pairs (one level): anything left
    after MAX_DEPTH passes is deeper (or unbalanced, which is no JSON either)."""
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return False
    if b"\\" in line:
        line = line.replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = line.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    brackets = _STRING.sub(b"", structure) if b'"' in structure else structure
    for _ in range(MAX_DEPTH):
        if not brackets:
            return False
        shorter = _INNERMOST.sub(b"", brackets)
        if len(shorter) == len(brackets):
            return True  # unbalanced: no pair left to remove
        brackets = shorter
    return bool(brackets)


def _no_constant(name: str) -> Any:
    raise ValueError("%s is not JSON" % name)


def decode_line(line: bytes) -> JSONObject:
    """A line of the daemon's as a message, checked (:func:`check_message`); ProtocolError
    when it is not UTF-8, not JSON (RFC 8259: no NaN or Infinity), nests deeper than 128, is
    not an object, or is neither a reply nor an event of the protocol's shape."""
    if _too_deep(line):
        raise ProtocolError("the daemon wrote a line nested deeper than %d: %r" % (MAX_DEPTH, line[:200]))
    try:
        value = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ProtocolError("the daemon wrote a line that is not JSON (%s): %r" % (error, line[:200])) from None
    return check_message(value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) or isinstance(value, float) and value.is_integer()


def check_message(value: Any) -> JSONObject:
    """``value`` if it is a message of the protocol's shape (protocol/README.md §9): a reply
    (``id`` a number, a string or null; exactly one of ``result`` and ``error``, an object) or
    an event (``event`` a string, ``seq`` an integer, ``params`` an object, ``subscription`` an
    integer when present); else ProtocolError."""
    if not isinstance(value, dict):
        raise ProtocolError("the daemon wrote a line that is not an object: %.200r" % (value,))
    if "event" in value:
        problem = ("its name is not a string" if not isinstance(value["event"], str)
                   else "its seq is not an integer" if not _integer(value.get("seq"))
                   else "its params are not an object" if not isinstance(value.get("params"), dict)
                   else "its subscription is not an integer" if "subscription" in value and not _integer(value["subscription"])
                   else None)
        if problem:
            raise ProtocolError("the daemon wrote an event whose %s: %.200r" % (problem[4:], value))
        return value
    if "id" not in value:
        raise ProtocolError("the daemon wrote an object that is neither a reply nor an event: %.200r" % (value,))
    request_id = value["id"]
    if isinstance(request_id, bool) or not (request_id is None or isinstance(request_id, (int, float, str))):
        raise ProtocolError("the daemon wrote a reply whose id is not a number, a string or null: %.200r" % (value,))
    if ("result" in value) == ("error" in value):
        raise ProtocolError("the daemon wrote a reply with %s: %.200r"
                            % ("both result and error" if "result" in value else "neither result nor error", value))
    if not isinstance(value.get("result", value.get("error")), dict):
        raise ProtocolError("the daemon wrote a reply whose %s is not an object: %.200r"
                            % ("result" if "result" in value else "error", value))
    return value


class LineBuffer:
    """The bytes read so far, cut into lines at ``\\n``, none longer than ``cap`` bytes.

    ``feed(data)`` appends what a read returned; ``next_line()`` takes the next whole line (its
    bytes without the newline) or returns None while the line is still partial.

    - Cap: a line longer than ``cap`` (newline excluded) raises ProtocolError as soon as it is
      known: in ``feed`` once the bytes after the last newline pass the cap (without waiting
      for the newline), in ``next_line`` for a whole line over it. So the buffer holds at most
      ``cap`` bytes of a line plus one read's worth.
    - Complexity: every byte is searched for a newline once: ``_scan`` remembers where the last
      search stopped, so a line that arrives in many pieces costs O(its length), not O(length ×
      pieces); ``feed`` looks for the last newline of the new bytes only (``_tail``). Taken lines
      are dropped from the front once they are half the buffer or more, amortized O(1) a byte.
    """

    __slots__ = ("_data", "_start", "_scan", "_tail", "cap")

    #: Taken bytes are dropped only past this many (small buffers are not worth a move).
    COMPACT = 1 << 16

    def __init__(self, cap: int = DEFAULT_LINE_CAP) -> None:
        if cap < 1:
            raise ValueError("a line cap is at least 1 byte")
        self.cap = cap
        self._data = bytearray()
        self._start = 0  # first byte not yet taken
        self._scan = 0   # no newline in _data[_start:_scan]
        self._tail = 0   # no newline in _data[_tail:] (the line still arriving starts here or later)

    def feed(self, data: bytes) -> None:
        if self._start == len(self._data):
            del self._data[:]
            self._start = self._scan = self._tail = 0
        elif self._start >= self.COMPACT and 2 * self._start >= len(self._data):
            del self._data[:self._start]
            self._scan -= self._start
            self._tail = max(0, self._tail - self._start)
            self._start = 0
        newline = data.rfind(b"\n")
        if newline >= 0:
            self._tail = len(self._data) + newline + 1
        self._data += data
        if len(self._data) - max(self._tail, self._start) > self.cap:
            raise ProtocolError("the daemon wrote a line longer than the line cap (%d bytes) without its end" % self.cap)

    def next_line(self) -> Optional[bytes]:
        """The next whole line without its newline, or None (ProtocolError when over the cap)."""
        end = self._data.find(b"\n", self._scan)
        if end < 0:
            self._scan = len(self._data)
            return None
        if end - self._start > self.cap:
            raise ProtocolError("the daemon wrote a line of %d bytes, over the line cap (%d bytes)" % (end - self._start, self.cap))
        if end - self._start < self.COMPACT:
            line = bytes(self._data[self._start:end])  # two copies, but the cheaper for a short line
        else:
            with memoryview(self._data) as view:
                line = bytes(view[self._start:end])
        self._start = self._scan = end + 1
        return line

    def has_line(self) -> bool:
        """Whether ``next_line()`` would return a line (or raise for one over the cap)."""
        end = self._data.find(b"\n", self._scan)
        if end < 0:
            self._scan = len(self._data)
            return False
        self._scan = end  # the newline itself: next_line finds it at once
        return True

    @property
    def partial(self) -> bytes:
        """The bytes after the last whole line (a line still arriving)."""
        return bytes(self._data[self._start:])

    def __len__(self) -> int:
        """Bytes buffered and not yet taken."""
        return len(self._data) - self._start
