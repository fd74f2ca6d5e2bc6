"""The synchronous client: one Unix-socket connection, replies matched by id, events routed to
:class:`Subscription` objects with gapless ``seq`` checking (protocol/README.md §5–§7)."""
from __future__ import annotations

import collections
import json
import select
import socket
from typing import Any, Callable, Deque, Dict, Iterator, List, Mapping, Optional, Union

from ._methods import SyncMethods
from .discovery import socket_path
from .errors import CONNECTION_ERRORS, ClientError, ConnectionClosed, LayoutdError, error_from_reply
from .mirror import Mirror
from .model import Event, Invalidation, JSONObject, Snapshot, to_wire

RequestId = Union[int, str]


def encode_request(method: str, params: Optional[Mapping[str, Any]], id: Optional[RequestId]) -> bytes:
    """One request line: compact JSON, raw UTF-8, keys ``id``, ``method``, ``params``."""
    message: JSONObject = {} if id is None else {"id": id}
    message["method"] = method
    if params:  # absent means {} (README.md §5)
        message["params"] = to_wire(params)
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode() + b"\n"


def decode_line(line: bytes) -> JSONObject:
    value = json.loads(line.decode("utf-8"))
    if not isinstance(value, dict):
        raise ClientError("the daemon wrote a line that is not an object: %r" % line[:200])
    return value


def _apply_own_reply(result: JSONObject, subscriptions: Any) -> None:
    """A mutation's reply is the invalidation its event will carry: mirrors of that view apply
    it now when it is their next epoch (the event is then skipped as already seen)."""
    if "entered" in result and "epoch" in result and not result.get("dryRun"):
        change = None
        for subscription in subscriptions:
            if subscription.view == result.get("view") and not subscription.ended:
                if change is None:
                    change = Invalidation.from_json(result)
                if change.epoch == subscription.mirror.epoch + 1:
                    subscription.mirror.apply(change)


class Client(SyncMethods):
    """A connection to layoutd.

    ``Client()`` connects to the discovered socket (:func:`layoutd.socket_path`); every protocol
    method is a method (``view_create``, ``view_scroll_to``, ``daemon_sync`` …); ``call`` sends
    any method with raw params. Error replies raise the :mod:`layoutd.errors` class of their name.
    One thread at a time: use one client per thread, or :class:`layoutd.AsyncClient`.
    """

    def __init__(self, path: Optional[str] = None, *, timeout: Optional[float] = 30.0) -> None:
        self.path = socket_path(path)
        self.timeout = timeout
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.settimeout(timeout)
            self.sock.connect(self.path)
        except OSError:
            self.sock.close()
            raise
        self._buffer = b""
        self._next_id = 1
        self._replies: Dict[Any, Deque[JSONObject]] = collections.defaultdict(collections.deque)
        self._subscriptions: Dict[int, Subscription] = {}
        self._closed = False
        self.last_seq = 0
        self.gap = False
        #: Connection-wide events (``daemon.shutdown``, unknown ones without a subscription) not yet taken.
        self.events: Deque[Event] = collections.deque()
        #: Replies no call waits for, such as ``id`` null errors of undecodable lines.
        self.stray: List[JSONObject] = []
        #: The connection-level error line that preceded the daemon closing the connection.
        self.connection_error: Optional[LayoutdError] = None
        #: ``daemon.shutdown``'s params once it arrived.
        self.shutdown: Optional[JSONObject] = None
        #: Called with every line read (bytes without the newline), before it is handled.
        self.trace: Optional[Callable[[bytes], None]] = None
        #: The id of the next request, instead of the next counter value (once).
        self.next_request_id: Optional[RequestId] = None

    # Connection ----------------------------------------------------------------------------

    def close(self) -> None:
        self._closed = True
        self.sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def send_raw(self, data: bytes) -> None:
        """Sends bytes as they are (for tests and tools: nothing checks them). When the daemon
        has gone, reads what it still wrote (``daemon.shutdown``, a connection-level error) and
        raises that error or ConnectionClosed."""
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as error:
            try:
                while self.read_message(1.0) is not None:
                    pass
            except (OSError, ValueError):
                pass
            self._closed = True
            raise (self.connection_error or ConnectionClosed("the daemon closed the connection")) from error

    def send(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
             id: Optional[RequestId] = None, notification: bool = False) -> Optional[RequestId]:
        """Sends a request without waiting (pipelining); returns its id (None for a notification)."""
        if notification:
            request_id: Optional[RequestId] = None
        elif id is not None:
            request_id = id
        elif self.next_request_id is not None:
            request_id, self.next_request_id = self.next_request_id, None
        else:
            request_id = self._next_id
            self._next_id += 1
        self.send_raw(encode_request(method, params, request_id))
        return request_id

    def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        """A notification: carried out, never answered."""
        self.send(method, params, notification=True)

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
             id: Optional[RequestId] = None) -> JSONObject:
        """Sends a request and returns its ``result``; raises the error reply's exception."""
        request_id = self.send(method, params, id=id)
        result = self.wait_reply(request_id)
        _apply_own_reply(result, self._subscriptions.values())
        return result

    def _invoke(self, method: str, params: JSONObject) -> JSONObject:
        return self.call(method, params)

    def wait_reply(self, request_id: Optional[RequestId]) -> JSONObject:
        """Reads until the reply to ``request_id``; events met meanwhile are queued."""
        queue = self._replies[request_id]
        while not queue:
            if self.read_message() is None:
                raise self.connection_error or ConnectionClosed("connection closed before the reply to %r" % (request_id,))
        reply = queue.popleft()
        if "error" in reply:
            raise error_from_reply(reply["error"] if isinstance(reply["error"], dict) else {}, request_id)
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    def read_message(self, timeout: Optional[float] = -1.0) -> Optional[JSONObject]:
        """Reads and dispatches one line; None at end of file. ``timeout`` in seconds (None
        blocks; the default is the client's timeout); ``socket.timeout`` when it passes."""
        line = self._read_line(self.timeout if timeout == -1.0 else timeout)
        if line is None:
            return None
        if self.trace is not None:
            self.trace(line)
        message = decode_line(line)
        self._dispatch(message)
        return message

    def pending(self, timeout: float = 0.0) -> bool:
        """Whether a line is (or bytes are) readable within ``timeout`` seconds."""
        if b"\n" in self._buffer:
            return True
        ready, _, _ = select.select([self.sock], [], [], timeout)
        return bool(ready)

    def _read_line(self, timeout: Optional[float]) -> Optional[bytes]:
        self.sock.settimeout(timeout)
        while b"\n" not in self._buffer:
            try:
                chunk = self.sock.recv(1 << 16)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self._closed = True
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _dispatch(self, message: JSONObject) -> None:
        if "event" in message:
            event = Event.from_json(message)
            if event.seq != self.last_seq + 1:
                self.gap = True
            self.last_seq = event.seq
            if event.name == "daemon.shutdown":
                self.shutdown = event.params
            target = self._subscriptions.get(event.subscription) if event.subscription is not None else None
            if target is not None:
                target._queue.append(event)
            elif event.subscription is None:
                self.events.append(event)
                for subscription in self._subscriptions.values():
                    subscription._queue.append(event)
            return
        if "id" in message:
            request_id = message["id"]
            error = message.get("error")
            if request_id is None:
                self.stray.append(message)
                if isinstance(error, dict) and error.get("name") in CONNECTION_ERRORS:
                    self.connection_error = error_from_reply(error)
                return
            self._replies[request_id].append(message)

    def next_event(self, timeout: Optional[float] = -1.0) -> Optional[Event]:
        """The next connection-wide event (``daemon.shutdown`` …); None at end of file."""
        while not self.events:
            if self.read_message(timeout) is None:
                return None
        return self.events.popleft()

    # Subscriptions -------------------------------------------------------------------------

    def subscribe(self, view: str) -> "Subscription":
        """``view.subscribe``: a :class:`Subscription` (an iterator of its events) whose
        ``mirror`` starts from the snapshot and follows every event."""
        result = self.call("view.subscribe", {"view": view})
        subscription = Subscription(self, view, int(result["subscription"]), Snapshot.from_json(result["snapshot"]))
        self._subscriptions[subscription.id] = subscription
        return subscription

    view_subscribe = subscribe

    def _resubscribe_all(self) -> None:
        """After a seq gap: every subscription subscribes again (protocol/subscriptions.md)."""
        self.gap = False
        for subscription in list(self._subscriptions.values()):
            if not subscription.ended:
                subscription.resubscribe()

    def sync(self) -> None:
        """``daemon.sync``: afterwards every event of requests started before it has been read."""
        self.call("daemon.sync")


class Subscription:
    """One subscription: iterate it for its events (``view.invalidated``, ``view.resync``,
    ``view.deleted``, ``daemon.shutdown``, unknown ones); ``mirror`` is kept up to date with
    every event taken. Iteration ends after ``view.deleted`` and raises ConnectionClosed at
    end of file."""

    def __init__(self, client: Client, view: str, id: int, snapshot: Snapshot) -> None:
        self.client = client
        self.view = view
        self.id = id
        self.snapshot = snapshot
        self.mirror = Mirror(snapshot)
        self.ended = False
        self._queue: Deque[Event] = collections.deque()

    def __iter__(self) -> Iterator[Event]:
        return self

    def __next__(self) -> Event:
        event = self.next(timeout=None)
        if event is None:
            raise StopIteration
        return event

    def next(self, timeout: Optional[float] = -1.0) -> Optional[Event]:
        """The next event (applied to ``mirror``), None once the subscription ended;
        ``socket.timeout`` when ``timeout`` passes first."""
        while True:
            if self.client.gap:
                self.client._resubscribe_all()
            if self._queue:
                break
            if self.ended:
                return None
            if self.client.read_message(timeout) is None:
                raise self.client.connection_error or ConnectionClosed("the daemon closed the connection")
        event = self._queue.popleft()
        if not self.mirror.handle(event):
            # Not the next epoch: fetch the view's state now (events up to it are skipped).
            self.mirror.reset(self.client.view_get(self.view))
        if event.name == "view.deleted":
            self.ended = True
            self.client._subscriptions.pop(self.id, None)
        return event

    def poll(self, timeout: float = 0.0) -> List[Event]:
        """Every event readable within ``timeout`` seconds (applied to ``mirror``)."""
        events = []
        while not self.ended:
            if not self._queue and not self.client.pending(timeout):
                break
            event = self.next()
            if event is None:
                break
            events.append(event)
            timeout = 0.0
        return events

    def resubscribe(self) -> None:
        """Subscribes again (after lost events) and replaces the mirror with the new snapshot;
        the new snapshot is also queued as a synthetic ``view.resync`` event."""
        old = self.id
        self.client._subscriptions.pop(old, None)
        try:
            self.client.call("view.unsubscribe", {"subscription": old})
        except LayoutdError:
            pass
        result = self.client.call("view.subscribe", {"view": self.view})
        self.id = int(result["subscription"])
        self.snapshot = Snapshot.from_json(result["snapshot"])
        self._queue.clear()
        self._queue.append(Event("view.resync", 0, {"view": self.view, "skipped": 0, "snapshot": result["snapshot"]}, self.id))
        self.client._subscriptions[self.id] = self

    def unsubscribe(self) -> None:
        if not self.ended:
            self.ended = True
            self.client._subscriptions.pop(self.id, None)
            self.client.call("view.unsubscribe", {"subscription": self.id})
