"""The blocking client: one Unix-socket connection whose protocol state is a
:class:`~layoutd.core.Core` (replies matched by id, events routed to :class:`Subscription`
objects with gapless ``seq`` checking); this module only reads and writes the socket."""
from __future__ import annotations

import collections
import select
import socket
from typing import Any, Callable, Deque, Iterator, List, Mapping, Optional

from ._methods import SyncMethods
from ._names import METHOD_VIEW_SUBSCRIBE
from .core import Core, CoreState, SubscriptionBase
from .discovery import socket_path
from .errors import ConnectionClosed, LayoutdError, error_from_reply
from .framing import RequestId, decode_line, encode_request
from .model import Event, JSONObject, Snapshot

__all__ = ["Client", "RequestId", "Subscription", "decode_line", "encode_request"]

#: Bytes asked of one recv.
RECEIVE = 1 << 18


class Client(SyncMethods, CoreState):
    """A connection to layoutd.

    ``Client()`` connects to the discovered socket (:func:`layoutd.socket_path`); ``Client(sock=s)``
    takes a Unix socket already connected. Every protocol method is a method (``view_create``,
    ``view_scroll_to``, ``daemon_sync`` …); ``call`` sends any method with raw params. Error
    replies raise the :mod:`layoutd.errors` class of their name. One thread at a time: use one
    client per thread, or :class:`layoutd.AsyncClient`.

    A ``timeout`` argument of -1 (the default) means the client's ``timeout``; None blocks.
    """

    def __init__(self, path: Optional[str] = None, *, timeout: Optional[float] = 30.0,
                 sock: Optional[socket.socket] = None) -> None:
        self.timeout = timeout
        if sock is None:
            self.path = socket_path(path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(self.path)
            except OSError:
                sock.close()
                raise
        else:
            self.path = path if path is not None else str(sock.getpeername() or "")
            sock.settimeout(timeout)
        self.sock = sock
        self._core = Core()
        self._closed = False
        #: Connection-wide events (``daemon.shutdown``, unknown ones without a subscription) not yet taken.
        self.events: Deque[Event] = collections.deque()
        self._core.on_event = self.events.append
        #: Called with every line ``read_message`` reads (bytes without the newline), before it is handled.
        self.trace: Optional[Callable[[bytes], None]] = None

    # Connection ------------------------------------------------------------------------------

    def close(self) -> None:
        self._closed = True
        self.sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """Closed by us, or the stream ended."""
        return self._closed or self._core.ended

    # The protocol state (core.Core) ------------------------------------------------------------

    @property
    def next_request_id(self) -> Optional[RequestId]:
        """The id of the next request, instead of the next counter value (once)."""
        return self._core.next_request_id

    @next_request_id.setter
    def next_request_id(self, value: Optional[RequestId]) -> None:
        self._core.next_request_id = value

    # Requests --------------------------------------------------------------------------------

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
        """Sends a request without waiting (pipelining); returns its id (None for a
        notification), whose reply ``wait_reply`` takes."""
        if notification:
            self.send_raw(encode_request(method, params, None))
            return None
        request_id = self._core.request_id(id)
        pending = self._core.expect(request_id)
        try:
            self.send_raw(encode_request(method, params, request_id))
        except BaseException:
            self._core.cancel(pending)
            raise
        return request_id

    def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        """A notification: carried out, never answered."""
        self.send(method, params, notification=True)

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
             id: Optional[RequestId] = None) -> JSONObject:
        """Sends a request and returns its ``result``; raises the error reply's exception."""
        return self.wait_reply(self.send(method, params, id=id))

    def _invoke(self, method: str, params: JSONObject) -> JSONObject:
        return self.call(method, params)

    def wait_reply(self, request_id: Optional[RequestId]) -> JSONObject:
        """Reads until the reply to ``request_id`` (an id ``send`` returned) and returns its
        ``result``, or raises its error; events met meanwhile are queued."""
        if request_id is None:
            raise ValueError("a notification has no reply")
        if not self._core.waits_for(request_id):
            self._core.expect(request_id)  # sent with send_raw: its reply may still come
        while True:
            reply = self._core.take(request_id)
            if reply is not None:
                break
            if self.read_message() is None:
                raise self.connection_error or ConnectionClosed("connection closed before the reply to %r" % (request_id,))
        if "error" in reply:
            raise error_from_reply(reply["error"] if isinstance(reply["error"], dict) else {}, request_id)
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    # Reading ---------------------------------------------------------------------------------

    def read_line(self, timeout: Optional[float] = -1.0) -> Optional[bytes]:
        """The next line's bytes without the newline, None at end of stream; ``socket.timeout``
        when ``timeout`` passes first, and a reset raises ConnectionResetError. The line is not
        handled (no reply matched, no event routed or ``seq`` checked): for tools that read
        lines themselves. ``read_message`` is the same read, handled."""
        lines = self._core.lines
        line = lines.next_line()
        if line is not None:
            return line
        wanted = self.timeout if timeout == -1.0 else timeout
        if self.sock.gettimeout() != wanted:
            self.sock.settimeout(wanted)
        while line is None:
            chunk = self.sock.recv(RECEIVE)
            if not chunk:
                self._core.end()
                return None
            lines.feed(chunk)
            line = lines.next_line()
        return line

    def read_message(self, timeout: Optional[float] = -1.0) -> Optional[JSONObject]:
        """Reads and handles one line (a reply kept for its caller, an event routed); returns
        it, or None at end of stream (a reset counts as one). ``socket.timeout`` when
        ``timeout`` passes first."""
        try:
            line = self.read_line(timeout)
        except ConnectionResetError:
            line = None
            self._core.end()
        if line is None:
            return None
        if self.trace is not None:
            self.trace(line)
        return self._core.handle_line(line)

    def pending(self, timeout: float = 0.0) -> bool:
        """Whether a line is (or bytes are) readable within ``timeout`` seconds."""
        if self._core.lines.has_line():
            return True
        ready, _, _ = select.select([self.sock], [], [], timeout)
        return bool(ready)

    @property
    def buffered(self) -> bytes:
        """The bytes read after the last whole line (a line still arriving)."""
        return self._core.lines.partial

    def next_event(self, timeout: Optional[float] = -1.0) -> Optional[Event]:
        """The next connection-wide event (``daemon.shutdown`` …); None at end of file."""
        while not self.events:
            if self.read_message(timeout) is None:
                return None
        return self.events.popleft()

    # Subscriptions ---------------------------------------------------------------------------

    def subscribe(self, view: str) -> "Subscription":
        """``view.subscribe``: a :class:`Subscription` (an iterator of its events) whose
        ``mirror`` starts from the snapshot and follows every event."""
        result = self.call(METHOD_VIEW_SUBSCRIBE, {"view": view})
        # Registered before anything after the reply is read: its events find it.
        subscription = Subscription(self, view, int(result["subscription"]), Snapshot.from_json(result["snapshot"]))
        self._core.register(subscription)
        return subscription

    view_subscribe = subscribe

    def _resubscribe_all(self) -> None:
        """After a seq gap: every subscription subscribes again (protocol/subscriptions.md)."""
        self._core.gap = False
        for subscription in list(self._core.subscriptions.values()):
            if not subscription.ended and isinstance(subscription, Subscription):
                subscription.resubscribe()

    def sync(self) -> None:
        """``daemon.sync``: afterwards every event of requests started before it has been read."""
        self.daemon_sync()


class Subscription(SubscriptionBase):
    """One subscription: iterate it for its events (``view.invalidated``, ``view.resync``,
    ``view.deleted``, ``daemon.shutdown``, unknown ones); ``mirror`` is kept up to date with
    every event taken. Iteration ends after ``view.deleted`` and raises ConnectionClosed at
    end of file."""

    def __init__(self, client: Client, view: str, id: int, snapshot: Snapshot) -> None:
        super().__init__(view, id, snapshot)
        self.client = client
        self._queue: Deque[Event] = collections.deque()

    def _deliver(self, event: Event) -> None:
        self._queue.append(event)

    def _clear(self) -> None:
        self._queue.clear()

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
        if not self._take(event):
            # Not the next epoch: fetch the view's state now (events up to it are skipped).
            self.mirror.reset(self.client.view_get(self.view))
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
        core = self.client._core
        core.unregister(self)
        try:
            self.client.view_unsubscribe(self.id)
        except LayoutdError:
            pass
        self._restart(self.client.call(METHOD_VIEW_SUBSCRIBE, {"view": self.view}))
        core.register(self)

    def unsubscribe(self) -> None:
        if not self.ended:
            self.ended = True
            self.client._core.unregister(self)
            self.client.view_unsubscribe(self.id)
