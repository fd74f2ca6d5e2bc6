"""Lines and messages (protocol/README.md §3–§5): a request as one line of compact JSON, a line
of the daemon's as a message, and :class:`LineBuffer`, which cuts the bytes read from a
connection into lines. No I/O."""
from __future__ import annotations

import json
from typing import Any, Mapping, Optional, Union

from ._errorbase import ClientError
from .model import JSONObject, to_wire

RequestId = Union[int, str]


def encode_request(method: str, params: Optional[Mapping[str, Any]], id: Optional[RequestId]) -> bytes:
    """One request line: compact JSON, raw UTF-8, keys ``id``, ``method``, ``params``."""
    message: JSONObject = {} if id is None else {"id": id}
    message["method"] = method
    if params:  # absent means {} (README.md §5)
        message["params"] = to_wire(params)
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode() + b"\n"


def decode_line(line: bytes) -> JSONObject:
    """A line of the daemon's as a message (ValueError when it is not JSON, ClientError when it
    is not an object)."""
    value = json.loads(line.decode("utf-8"))
    if not isinstance(value, dict):
        raise ClientError("the daemon wrote a line that is not an object: %r" % line[:200])
    return value


class LineBuffer:
    """The bytes read so far, cut into lines at ``\\n``.

    ``feed(data)`` appends what a read returned; ``next_line()`` takes the next whole line (its
    bytes without the newline) or returns None while the line is still partial.

    - Complexity: every byte is searched for a newline once: ``_scan`` remembers where the last
      search stopped, so a line that arrives in many pieces costs O(its length), not O(length ×
      pieces). Taken lines are dropped from the front once they are half the buffer or more,
      amortized O(1) a byte.
    """

    __slots__ = ("_data", "_start", "_scan")

    #: Taken bytes are dropped only past this many (small buffers are not worth a move).
    COMPACT = 1 << 16

    def __init__(self) -> None:
        self._data = bytearray()
        self._start = 0  # first byte not yet taken
        self._scan = 0   # no newline in _data[_start:_scan]

    def feed(self, data: bytes) -> None:
        if self._start == len(self._data):
            del self._data[:]
            self._start = self._scan = 0
        elif self._start >= self.COMPACT and 2 * self._start >= len(self._data):
            del self._data[:self._start]
            self._scan -= self._start
            self._start = 0
        self._data += data

    def next_line(self) -> Optional[bytes]:
        """The next whole line without its newline, or None."""
        end = self._data.find(b"\n", self._scan)
        if end < 0:
            self._scan = len(self._data)
            return None
        if end - self._start < self.COMPACT:
            line = bytes(self._data[self._start:end])  # two copies, but the cheaper for a short line
        else:
            with memoryview(self._data) as view:
                line = bytes(view[self._start:end])
        self._start = self._scan = end + 1
        return line

    def has_line(self) -> bool:
        """Whether ``next_line()`` would return a line."""
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
