"""The asyncio client: the same methods as :class:`layoutd.Client`, as coroutines, over the same
:class:`~layoutd.core.Core`. A reader task feeds it what the socket gives; replies wake their
callers (in order for repeated ids) and events go to :class:`AsyncSubscription` queues."""
from __future__ import annotations

import asyncio
import socket
import time
from typing import Any, Awaitable, Callable, Mapping, Optional, TypeVar

from ._methods import AsyncMethods
from ._names import METHOD_VIEW_SUBSCRIBE
from .core import Core, CoreState, SubscriptionBase, read_model
from .discovery import socket_path
from .errors import LayoutdError, ProtocolError, Timeout, error_from_reply
from .framing import DEFAULT_LINE_CAP, RequestId, encode_request
from .model import Event, JSONObject, Snapshot

_END = Event("<end of stream>", 0, {})

#: Bytes asked of one read.
RECEIVE = 1 << 18
#: A ``timeout`` argument meaning "the client's ``timeout``".
CLIENT_TIMEOUT = -1.0

T = TypeVar("T")


class AsyncClient(AsyncMethods, CoreState):
    """``client = await AsyncClient.connect(path)``; ``await client.view_get("photos")``.

    Every awaited call has one deadline for all of it (sending and waiting for the reply):
    ``timeout`` seconds (the client's, 30 s by default, or the call's own ``timeout=``; None:
    none). When it passes the call raises :class:`layoutd.Timeout` and is forgotten (a late
    reply is stray); the connection stays usable. ``line_cap`` as for :class:`layoutd.Client`.
    A line no layoutd writes fails every waiting call with :class:`layoutd.ProtocolError` and
    closes the connection. The reader task never blocks the loop: calls are coroutines."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, *,
                 timeout: Optional[float] = 30.0, line_cap: int = DEFAULT_LINE_CAP) -> None:
        self.path = path
        self.timeout = timeout
        self._reader = reader
        self._writer = writer
        self._core = Core(line_cap)
        self._closing = False
        #: Connection-wide events (``daemon.shutdown``, unknown ones without a subscription) not
        #: yet taken: the Core.EVENTS_KEPT most recent; ``events_dropped`` counts the older ones.
        self.events: "asyncio.Queue[Event]" = asyncio.Queue(Core.EVENTS_KEPT)
        self.events_dropped = 0
        self._core.on_event = self._keep_event
        #: Called with every line read (bytes without the newline), before it is handled.
        self.trace: Optional[Callable[[bytes], None]] = None
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    def _keep_event(self, event: Event) -> None:
        if self.events.full():
            self.events.get_nowait()
            self.events_dropped += 1
        self.events.put_nowait(event)

    @classmethod
    async def connect(cls, path: Optional[str] = None, *, timeout: Optional[float] = 30.0,
                      line_cap: int = DEFAULT_LINE_CAP, limit: int = 1 << 26) -> "AsyncClient":
        """Connects within ``timeout`` (Timeout, or the OSError of a refused connect: a full
        backlog gives BlockingIOError at once); ``timeout`` then stays every call's deadline."""
        resolved = socket_path(path)
        # Connected here, not by asyncio: a Unix connect completes or fails at once, and asyncio
        # would take a full backlog's EAGAIN for a connect in progress and "complete" it.
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            sock.connect(resolved)
            reader, writer = await _within(asyncio.open_unix_connection(sock=sock, limit=limit), timeout,
                                           "connecting to %s" % resolved)
        except BaseException:
            sock.close()
            raise
        return cls(reader, writer, resolved, timeout=timeout, line_cap=line_cap)

    @property
    def line_cap(self) -> int:
        """The longest line accepted from the daemon, in bytes."""
        return self._core.lines.cap

    async def close(self) -> None:
        self._closing = True
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except OSError:
            pass
        self._task.cancel()
        try:
            await self._task
        except (asyncio.CancelledError, Exception):
            pass

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # The protocol state (core.Core) ------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Closed by us, or the stream ended."""
        return self._closing or self._core.ended

    # Requests --------------------------------------------------------------------------------

    async def send_raw(self, data: bytes) -> None:
        if self.closed:
            raise self._core.closed_error()
        self._writer.write(data)
        await self._writer.drain()

    async def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        await self.send_raw(encode_request(method, params, None))

    async def call(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
                   id: Optional[RequestId] = None, timeout: Optional[float] = CLIENT_TIMEOUT) -> JSONObject:
        """Sends a request and returns its ``result``; raises the error reply's exception, or
        Timeout when the reply has not come within ``timeout`` of the call's start."""
        return self._result(await self._request(method, params, id, timeout=timeout))

    async def _invoke(self, method: str, params: JSONObject, timeout: Optional[float] = CLIENT_TIMEOUT) -> JSONObject:
        return await self.call(method, params, timeout=timeout)

    async def _request(self, method: str, params: Optional[Mapping[str, Any]], id: Optional[RequestId],
                       arrived: Optional[Callable[[JSONObject], None]] = None, *,
                       timeout: Optional[float] = CLIENT_TIMEOUT) -> JSONObject:
        """Sends a request and returns its reply message, all within ``timeout``. ``arrived``
        runs in the reader task as the reply is handled, before any later line (a subscription
        registers itself there)."""
        wanted = self.timeout if timeout == CLIENT_TIMEOUT else timeout
        return await _within(self._exchange(method, params, id, arrived), wanted, "%s" % method)

    async def _exchange(self, method: str, params: Optional[Mapping[str, Any]], id: Optional[RequestId],
                        arrived: Optional[Callable[[JSONObject], None]]) -> JSONObject:
        if self.closed:
            raise self._core.closed_error()
        request_id = self._core.request_id(id)
        future: "asyncio.Future[JSONObject]" = asyncio.get_running_loop().create_future()

        def reply(message: Optional[JSONObject]) -> None:
            if future.done():
                return
            if message is None:
                future.set_exception(self._core.closed_error())
                return
            if arrived is not None:
                arrived(message)
            future.set_result(message)

        pending = self._core.expect(request_id, reply)
        try:
            await self.send_raw(encode_request(method, params, request_id))
            return await future
        except BaseException:
            self._core.cancel(pending)  # a deadline or a cancel: a reply that still comes is stray
            raise

    @staticmethod
    def _result(reply: JSONObject) -> JSONObject:
        if "error" in reply:
            raise error_from_reply(reply["error"], reply.get("id"))
        result: JSONObject = reply["result"]
        return result

    async def _read_loop(self) -> None:
        core = self._core
        try:
            while True:
                chunk = await self._reader.read(RECEIVE)
                if not chunk:
                    break
                core.feed(chunk)
                line = core.next_line()
                while line is not None:
                    if self.trace is not None:
                        self.trace(line)
                    core.handle_line(line)
                    line = core.next_line()
        except ProtocolError:
            self._writer.close()  # the core failed every waiting call with it
        except OSError:
            pass  # a broken connection: the stream ends here
        finally:
            core.end()
            self._keep_event(_END)

    # Subscriptions ---------------------------------------------------------------------------

    async def subscribe(self, view: str, *, timeout: Optional[float] = CLIENT_TIMEOUT) -> "AsyncSubscription":
        """``view.subscribe``: an async iterator of its events with a live ``mirror``."""
        made = []

        def register(reply: JSONObject) -> None:
            result = reply.get("result")
            if isinstance(result, dict) and "subscription" in result:
                try:
                    subscription = AsyncSubscription(
                        self, view, read_model(lambda r: int(r["subscription"]), result, "a view.subscribe result"),
                        read_model(lambda r: Snapshot.from_json(r["snapshot"]), result, "a view.subscribe result"))
                except ProtocolError as error:
                    self._core.fail(error)
                    return
                self._core.register(subscription)
                made.append(subscription)

        self._result(await self._request(METHOD_VIEW_SUBSCRIBE, {"view": view}, None, register, timeout=timeout))
        if not made:
            raise self._core.closed_error()
        return made[0]

    view_subscribe = subscribe

    async def _resubscribe_all(self) -> None:
        """After a seq gap: every subscription subscribes again (protocol/subscriptions.md)."""
        self._core.gap = False
        for subscription in list(self._core.subscriptions.values()):
            if not subscription.ended and isinstance(subscription, AsyncSubscription):
                await subscription.resubscribe()

    async def sync(self) -> None:
        await self.daemon_sync()


class AsyncSubscription(SubscriptionBase):
    """``async for event in subscription``: events applied to ``mirror`` as they are taken;
    ends after ``view.deleted``; raises ConnectionClosed at end of file. After a ``seq`` gap
    it subscribes again and yields a synthetic ``view.resync``."""

    def __init__(self, client: AsyncClient, view: str, id: int, snapshot: Snapshot) -> None:
        super().__init__(view, id, snapshot)
        self.client = client
        self._queue: "asyncio.Queue[Event]" = asyncio.Queue()

    def _deliver(self, event: Event) -> None:
        self._queue.put_nowait(event)

    def _clear(self) -> None:
        while not self._queue.empty():
            self._queue.get_nowait()

    def _queued(self) -> int:
        return self._queue.qsize()

    def _end(self) -> None:
        self._queue.put_nowait(_END)

    def __aiter__(self) -> "AsyncSubscription":
        return self

    async def __anext__(self) -> Event:
        event = await self.next()
        if event is None:
            raise StopAsyncIteration
        return event

    def ready(self) -> bool:
        """Whether an event (or the end of the stream) is waiting: ``next()`` returns at once."""
        return not self._queue.empty()

    async def next(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event (applied to ``mirror``), None once the subscription ended; Timeout
        when ``timeout`` (None: no limit) passes first."""
        if self.client.gap:
            await self.client._resubscribe_all()
        if self.ended and self._queue.empty():
            return None
        if self.client.closed and self._queue.empty():
            self._queue.put_nowait(_END)  # ended before this subscription was made
        event = await _within(self._queue.get(), timeout, "the next event of %s" % self.view)
        if event is _END:
            self._queue.put_nowait(_END)
            raise self.client._core.closed_error("the next event")
        if not self._take(event):
            self.mirror.reset(await self.client.view_get(self.view))
        return event

    async def resubscribe(self) -> None:
        """Subscribes again (after lost events); the new snapshot comes as a synthetic
        ``view.resync`` before any event of the new subscription."""
        core = self.client._core
        core.unregister(self)
        try:
            await self.client.view_unsubscribe(self.id)
        except LayoutdError:
            pass

        def restart(reply: JSONObject) -> None:
            result = reply.get("result")
            if isinstance(result, dict) and "subscription" in result:
                self._restart(result)
                core.register(self)

        self.client._result(await self.client._request(METHOD_VIEW_SUBSCRIBE, {"view": self.view}, None, restart))

    async def unsubscribe(self) -> None:
        if not self.ended:
            self.ended = True
            self.client._core.unregister(self)
            await self.client.view_unsubscribe(self.id)


async def _within(awaitable: Awaitable[T], timeout: Optional[float], what: str) -> T:
    """``await awaitable`` within ``timeout`` seconds (None: no limit); Timeout after it (the
    awaitable is cancelled)."""
    if timeout is None:
        return await awaitable
    started = time.monotonic()
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except asyncio.TimeoutError:
        if time.monotonic() - started < timeout * 0.999:
            raise  # not our deadline: one inside the awaitable
        raise Timeout("%s: the deadline (%s s) passed" % (what, timeout)) from None
