"""The blocking client: one Unix-socket connection whose protocol state is a
:class:`~layoutd.core.Core` (replies matched by id, events routed to :class:`Subscription`
objects with gapless ``seq`` checking); this module only reads and writes the socket."""
from __future__ import annotations

import collections
import math
import select
import socket
import time
from typing import Any, Callable, Deque, Iterator, List, Mapping, Optional

from ._methods import SyncMethods
from ._names import METHOD_VIEW_SUBSCRIBE
from .core import Core, CoreState, SubscriptionBase, read_model
from .discovery import socket_path
from .errors import ConnectionClosed, LayoutdError, ProtocolError, Timeout, error_from_reply
from .framing import DEFAULT_LINE_CAP, RequestId, decode_line, encode_request
from .model import Event, JSONObject, Snapshot

__all__ = ["Client", "RequestId", "ReplyHandler", "Subscription", "decode_line", "encode_request"]

#: Bytes asked of one recv.
RECEIVE = 1 << 18
#: At most this many bytes are read by one ``dispatch()`` (a flood cannot hold the caller's loop).
DISPATCH_BYTES = 1 << 20
#: A ``timeout`` argument meaning "the client's ``timeout``".
CLIENT_TIMEOUT = -1.0

#: A non-blocking call's callback: ``(result, None)`` for a result, ``(None, error)`` for an
#: error reply (its LayoutdError), or when the connection ended first (ConnectionClosed, the
#: connection-level error, or the ProtocolError that ended it).
ReplyHandler = Callable[[Optional[JSONObject], Optional[Exception]], None]


class Client(SyncMethods, CoreState):
    """A connection to layoutd.

    ``Client()`` connects to the discovered socket (:func:`layoutd.socket_path`); ``Client(sock=s)``
    takes a Unix socket already connected. Every protocol method is a method (``view_create``,
    ``view_scroll_to``, ``daemon_sync`` …); ``call`` sends any method with raw params. Error
    replies raise the :mod:`layoutd.errors` class of their name. One thread at a time: use one
    client per thread, or :class:`layoutd.AsyncClient`.

    Deadlines: every call (``call``, the typed methods, ``wait_reply``, ``read_line`` …) has
    one deadline for all of it — sending, and every read until its reply — ``timeout`` seconds
    from when it starts (the client's ``timeout``, 30 s by default, or the call's own
    ``timeout=``; None waits forever). Connecting has one too (``timeout``). When it passes the
    call raises :class:`layoutd.Timeout` and is forgotten (its late reply is counted as stray);
    the connection stays usable. A ``timeout`` argument of -1 (the default) means the client's
    ``timeout``. The socket's own timeout is left as it was (``sock.settimeout`` by the
    caller is not changed): the client waits with ``poll`` on a monotonic deadline.

    ``line_cap``: the longest line accepted from the daemon (bytes; default 64 MiB, the
    daemon's default ``output-limit``); a longer one is a :class:`layoutd.ProtocolError`.
    """

    def __init__(self, path: Optional[str] = None, *, timeout: Optional[float] = 30.0,
                 sock: Optional[socket.socket] = None, line_cap: int = DEFAULT_LINE_CAP) -> None:
        self.timeout = timeout
        if sock is None:
            self.path = socket_path(path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                # A Unix connect completes or fails at once (a full backlog: BlockingIOError, as
                # EAGAIN); the timeout bounds it wherever it would wait.
                sock.settimeout(timeout)
                try:
                    sock.connect(self.path)
                except socket.timeout:
                    raise Timeout("could not connect to %s within %s s" % (self.path, timeout)) from None
            except OSError:
                sock.close()
                raise
        else:
            self.path = path if path is not None else str(sock.getpeername() or "")
            sock.settimeout(timeout)
        self.sock = sock
        self._poll = select.poll()
        self._core = Core(line_cap)
        self._closed = False
        #: Connection-wide events (``daemon.shutdown``, unknown ones without a subscription) not
        #: yet taken: the Core.EVENTS_KEPT most recent; ``events_dropped`` counts the older ones.
        self.events: Deque[Event] = collections.deque(maxlen=Core.EVENTS_KEPT)
        self.events_dropped = 0
        self._core.on_event = self._keep_event
        #: Called with every line ``read_message`` reads (bytes without the newline), before it is handled.
        self.trace: Optional[Callable[[bytes], None]] = None

    def _keep_event(self, event: Event) -> None:
        if len(self.events) == self.events.maxlen:
            self.events_dropped += 1
        self.events.append(event)

    # Connection ------------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the connection; calls still waiting with a callback hear ConnectionClosed."""
        self._closed = True
        self.sock.close()
        self._core.end()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """Closed by us, or the stream ended."""
        return self._closed or self._core.ended

    @property
    def line_cap(self) -> int:
        """The longest line accepted from the daemon, in bytes."""
        return self._core.lines.cap

    # The protocol state (core.Core) ------------------------------------------------------------

    @property
    def next_request_id(self) -> Optional[RequestId]:
        """The id of the next request, instead of the next counter value (once)."""
        return self._core.next_request_id

    @next_request_id.setter
    def next_request_id(self, value: Optional[RequestId]) -> None:
        self._core.next_request_id = value

    # Deadlines and the socket ------------------------------------------------------------------

    def deadline(self, timeout: Optional[float] = CLIENT_TIMEOUT) -> Optional[float]:
        """The ``time.monotonic()`` by which a call started now must end (None: never)."""
        wanted = self.timeout if timeout == CLIENT_TIMEOUT else timeout
        return None if wanted is None else time.monotonic() + wanted

    def _wait(self, events: int, deadline: Optional[float], what: str) -> None:
        """Until the socket is ready for ``events``; Timeout once ``deadline`` passes."""
        while True:
            if deadline is None:
                wait = -1
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise Timeout("%s: the deadline passed" % what)
                wait = max(1, math.ceil(remaining * 1000))
            self._poll.register(self.sock, events)
            if self._poll.poll(wait):
                return

    def _receive(self, deadline: Optional[float], what: str = "reading") -> bool:
        """One read into the line buffer by ``deadline``; False at end of stream (ProtocolError
        past the line cap, after which the connection is closed)."""
        self._wait(select.POLLIN, deadline, what)
        try:
            chunk = self.sock.recv(RECEIVE, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return True  # woken without data: wait again
        if not chunk:
            self._core.end()
            return False
        try:
            self._core.feed(chunk)
        except ProtocolError:
            self._abandon()
            raise
        return True

    def _send_all(self, data: bytes, deadline: Optional[float]) -> None:
        """Writes ``data`` by ``deadline``. Timeout before the first byte leaves the connection
        usable; after part of a line was written it is closed (the stream is cut mid-line)."""
        with memoryview(data) as view:
            sent = 0
            while sent < len(view):
                try:
                    self._wait(select.POLLOUT, deadline, "sending")
                except Timeout:
                    if sent:
                        self._abandon()
                    raise
                try:
                    sent += self.sock.send(view[sent:], socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue

    def _abandon(self) -> None:
        """The stream cannot go on (a protocol error, a line cut by a timeout): closed."""
        self._closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def fileno(self) -> int:
        """The socket's file descriptor: watch it for input (``GLib.io_add_watch``,
        ``loop.add_reader``, ``select``), then call ``dispatch()``. Lines already read into the
        client's buffer raise no event on it: check ``has_buffered_lines`` too."""
        return self.sock.fileno()

    @property
    def has_buffered_lines(self) -> bool:
        """Whether whole lines wait in the client's buffer (read but not handled): a watch on
        ``fileno()`` will not report them, ``dispatch()`` handles them."""
        return not self.closed and self._core.lines.has_line()

    def dispatch(self) -> int:
        """One non-blocking step for a main loop: reads what the socket has now (at most
        DISPATCH_BYTES), handles every whole line — replies go to their callbacks (``send(...,
        callback=)``) or wait for ``wait_reply``, events to their subscriptions' queues and
        ``events`` — and returns how many lines it handled. At end of stream the waiting calls'
        callbacks hear ConnectionClosed and ``closed`` turns true. A line no layoutd writes:
        every waiting call fails with the ProtocolError, the connection is closed, and it is
        raised here."""
        if self._closed:
            return 0
        read = 0
        while read < DISPATCH_BYTES and not self._core.ended:
            self._poll.register(self.sock, select.POLLIN)
            if not self._poll.poll(0):
                break
            try:
                chunk = self.sock.recv(RECEIVE, socket.MSG_DONTWAIT)
            except BlockingIOError:
                break
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self._core.end()
                break
            read += len(chunk)
            try:
                self._core.feed(chunk)
            except ProtocolError:
                self._abandon()
                raise
        try:
            return self._core.handle_buffered()
        except ProtocolError:
            self._abandon()
            raise

    # Requests --------------------------------------------------------------------------------

    def send_raw(self, data: bytes, *, timeout: Optional[float] = CLIENT_TIMEOUT) -> None:
        """Sends bytes as they are (for tests and tools: nothing checks them). When the daemon
        has gone, reads what it still wrote (``daemon.shutdown``, a connection-level error) and
        raises that error or ConnectionClosed."""
        self._send(data, self.deadline(timeout))

    def _send(self, data: bytes, deadline: Optional[float]) -> None:
        try:
            self._send_all(data, deadline)
        except (BrokenPipeError, ConnectionResetError) as error:
            try:
                while self.read_message(1.0) is not None:
                    pass
            except (OSError, ProtocolError):
                pass
            self._closed = True
            raise (self.connection_error or ConnectionClosed("the daemon closed the connection")) from error

    def send(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
             id: Optional[RequestId] = None, notification: bool = False,
             callback: Optional[ReplyHandler] = None,
             timeout: Optional[float] = CLIENT_TIMEOUT) -> Optional[RequestId]:
        """Sends a request without waiting for its reply (pipelining); returns its id (None for
        a notification). Without ``callback`` its reply waits for ``wait_reply(id)``. With one,
        the reply goes to ``callback(result, error)`` as ``dispatch()`` (or any read) handles
        it, and nothing else needs taking: the non-blocking call for a main loop (``forget(id)``
        drops it). ``timeout`` bounds the sending only."""
        deadline = self.deadline(timeout)
        if notification:
            self._send(encode_request(method, params, None), deadline)
            return None
        if self.closed:
            raise self._core.closed_error()
        request_id = self._core.request_id(id)
        pending = self._core.expect(request_id, None if callback is None else self._handler(request_id, callback))
        try:
            self._send(encode_request(method, params, request_id), deadline)
        except BaseException:
            self._core.cancel(pending)
            raise
        return request_id

    def _handler(self, request_id: RequestId, callback: ReplyHandler) -> Callable[[Optional[JSONObject]], None]:
        def arrived(reply: Optional[JSONObject]) -> None:
            if reply is None:
                callback(None, self._core.closed_error())
            elif "error" in reply:
                callback(None, error_from_reply(reply["error"], request_id))
            else:
                callback(reply["result"], None)
        return arrived

    def forget(self, request_id: RequestId) -> None:
        """Stops waiting for ``request_id`` (the oldest such call): its callback is not called,
        its reply, when it comes, is counted as stray."""
        self._core.forget(request_id)

    def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        """A notification: carried out, never answered."""
        self.send(method, params, notification=True)

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
             id: Optional[RequestId] = None, timeout: Optional[float] = CLIENT_TIMEOUT) -> JSONObject:
        """Sends a request and returns its ``result``; raises the error reply's exception, or
        Timeout when the reply has not come within ``timeout`` of the call's start."""
        deadline = self.deadline(timeout)
        if self.closed:
            raise self._core.closed_error()
        request_id = self._core.request_id(id)
        pending = self._core.expect(request_id)
        try:
            self._send(encode_request(method, params, request_id), deadline)
        except BaseException:
            self._core.cancel(pending)
            raise
        return self._wait_reply(request_id, deadline)

    def _invoke(self, method: str, params: JSONObject, timeout: Optional[float] = CLIENT_TIMEOUT) -> JSONObject:
        return self.call(method, params, timeout=timeout)

    def wait_reply(self, request_id: Optional[RequestId], *, timeout: Optional[float] = CLIENT_TIMEOUT) -> JSONObject:
        """Reads until the reply to ``request_id`` (an id ``send`` returned) and returns its
        ``result``, or raises its error; events met meanwhile are queued. Timeout when it has
        not come within ``timeout`` (the call is then forgotten)."""
        if request_id is None:
            raise ValueError("a notification has no reply")
        return self._wait_reply(request_id, self.deadline(timeout))

    def _wait_reply(self, request_id: RequestId, deadline: Optional[float]) -> JSONObject:
        core = self._core
        if not core.waits_for(request_id):
            core.expect(request_id)  # sent with send_raw: its reply may still come
        try:
            while True:
                reply = core.take(request_id)
                if reply is not None:
                    break
                if core.ended or self._closed:
                    raise core.closed_error("the reply to %r" % (request_id,))
                self._read_more(deadline, "the reply to %r" % (request_id,))
        except BaseException:  # Timeout above all: a reply that still comes is stray
            core.forget(request_id)
            raise
        if "error" in reply:
            raise error_from_reply(reply["error"], request_id)
        result: JSONObject = reply["result"]
        return result

    def _read_more(self, deadline: Optional[float], what: str) -> None:
        """Handles the next buffered line, else reads once (by ``deadline``)."""
        line = self._core.next_line() if not self._closed else None
        if line is None:
            try:
                self._receive(deadline, what)
            except ConnectionResetError:
                self._core.end()
            return
        self._handle(line)

    def _handle(self, line: bytes) -> JSONObject:
        if self.trace is not None:
            self.trace(line)
        try:
            return self._core.handle_line(line)
        except ProtocolError:
            self._abandon()
            raise

    # Reading ---------------------------------------------------------------------------------

    def read_line(self, timeout: Optional[float] = CLIENT_TIMEOUT) -> Optional[bytes]:
        """The next line's bytes without the newline, None at end of stream; Timeout (a
        ``socket.timeout``) when ``timeout`` passes first, and a reset raises
        ConnectionResetError. The line is not handled (no reply matched, no event routed or
        ``seq`` checked): for tools that read lines themselves. ``read_message`` is the same
        read, handled. A line over the line cap raises ProtocolError (the connection closes)."""
        return self._read_line(self.deadline(timeout))

    def _read_line(self, deadline: Optional[float]) -> Optional[bytes]:
        core = self._core
        while True:
            try:
                line = core.next_line()
            except ProtocolError:
                self._abandon()
                raise
            if line is not None:
                return line
            if core.ended or self._closed:
                return None
            self._receive(deadline)

    def read_message(self, timeout: Optional[float] = CLIENT_TIMEOUT) -> Optional[JSONObject]:
        """Reads and handles one line (a reply kept for its caller, an event routed); returns
        it, or None at end of stream (a reset counts as one). Timeout when ``timeout`` passes
        first; ProtocolError for a line no layoutd writes (the connection closes)."""
        return self._read_message(self.deadline(timeout))

    def _read_message(self, deadline: Optional[float]) -> Optional[JSONObject]:
        try:
            line = self._read_line(deadline)
        except ConnectionResetError:
            line = None
            self._core.end()
        if line is None:
            return None
        return self._handle(line)

    def pending(self, timeout: float = 0.0) -> bool:
        """Whether a line is (or bytes are) readable within ``timeout`` seconds."""
        if self._core.lines.has_line():
            return True
        if self._closed:
            return False
        ready, _, _ = select.select([self.sock], [], [], timeout)
        return bool(ready)

    @property
    def buffered(self) -> bytes:
        """The bytes read and not yet taken as lines (a line still arriving)."""
        return self._core.lines.partial

    def next_event(self, timeout: Optional[float] = CLIENT_TIMEOUT) -> Optional[Event]:
        """The next connection-wide event (``daemon.shutdown`` …); None at end of file."""
        deadline = self.deadline(timeout)
        while not self.events:
            if self._read_message(deadline) is None:
                return None
        return self.events.popleft()

    # Subscriptions ---------------------------------------------------------------------------

    def subscribe(self, view: str, *, timeout: Optional[float] = CLIENT_TIMEOUT) -> "Subscription":
        """``view.subscribe``: a :class:`Subscription` (an iterator of its events) whose
        ``mirror`` starts from the snapshot and follows every event."""
        result = self.call(METHOD_VIEW_SUBSCRIBE, {"view": view}, timeout=timeout)
        # Registered before anything after the reply is read: its events find it.
        subscription = Subscription(self, view, read_model(lambda r: int(r["subscription"]), result, "a view.subscribe result"),
                                    read_model(lambda r: Snapshot.from_json(r["snapshot"]), result, "a view.subscribe result"))
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

    def _queued(self) -> int:
        return len(self._queue)

    def __iter__(self) -> Iterator[Event]:
        return self

    def __next__(self) -> Event:
        event = self.next(timeout=None)
        if event is None:
            raise StopIteration
        return event

    def next(self, timeout: Optional[float] = CLIENT_TIMEOUT) -> Optional[Event]:
        """The next event (applied to ``mirror``), None once the subscription ended;
        Timeout when ``timeout`` passes first."""
        deadline = self.client.deadline(timeout)
        while True:
            if self.client.gap:
                self.client._resubscribe_all()
            if self._queue:
                break
            if self.ended:
                return None
            if self.client._read_message(deadline) is None:
                raise self.client._core.closed_error("the next event")
        return self._apply(self._queue.popleft())

    def take_queued(self) -> List[Event]:
        """Every event already queued (by ``dispatch()`` or another read), applied to
        ``mirror``, without reading: for a main loop after ``dispatch()``."""
        events = []
        while self._queue or self.client.gap:
            if self.client.gap:
                self.client._resubscribe_all()
                continue
            events.append(self._apply(self._queue.popleft()))
        return events

    def _apply(self, event: Event) -> Event:
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
