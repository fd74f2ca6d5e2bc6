"""The asyncio client: the same methods as :class:`layoutd.Client`, as coroutines, over the same
:class:`~layoutd.core.Core`. A reader task feeds it what the socket gives; replies wake their
callers (in order for repeated ids) and events go to :class:`AsyncSubscription` queues."""
from __future__ import annotations

import asyncio
from typing import Any, Callable, Deque, Mapping, Optional

from ._methods import AsyncMethods
from ._names import METHOD_VIEW_SUBSCRIBE
from .core import Core, CoreState, SubscriptionBase
from .discovery import socket_path
from .errors import ClientError, ConnectionClosed, LayoutdError, error_from_reply
from .framing import RequestId, encode_request
from .model import Event, JSONObject, Snapshot

_END = Event("<end of stream>", 0, {})

#: Bytes asked of one read.
RECEIVE = 1 << 18


class AsyncClient(AsyncMethods, CoreState):
    """``client = await AsyncClient.connect(path)``; ``await client.view_get("photos")``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> None:
        self.path = path
        self._reader = reader
        self._writer = writer
        self._core = Core()
        self._closing = False
        #: Connection-wide events (``daemon.shutdown``, unknown ones without a subscription).
        self.events: "asyncio.Queue[Event]" = asyncio.Queue()
        self._core.on_event = self.events.put_nowait
        #: Called with every line read (bytes without the newline), before it is handled.
        self.trace: Optional[Callable[[bytes], None]] = None
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def connect(cls, path: Optional[str] = None, *, limit: int = 1 << 26) -> "AsyncClient":
        resolved = socket_path(path)
        reader, writer = await asyncio.open_unix_connection(resolved, limit=limit)
        return cls(reader, writer, resolved)

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
        self._writer.write(data)
        await self._writer.drain()

    async def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        await self.send_raw(encode_request(method, params, None))

    async def call(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
                   id: Optional[RequestId] = None) -> JSONObject:
        """Sends a request and returns its ``result``; raises the error reply's exception."""
        return self._result(await self._request(method, params, id))

    async def _invoke(self, method: str, params: JSONObject) -> JSONObject:
        return await self.call(method, params)

    async def _request(self, method: str, params: Optional[Mapping[str, Any]], id: Optional[RequestId],
                       arrived: Optional[Callable[[JSONObject], None]] = None) -> JSONObject:
        """Sends a request and returns its reply message. ``arrived`` runs in the reader task as
        the reply is handled, before any later line (a subscription registers itself there)."""
        if self.closed:
            raise self.connection_error or ConnectionClosed("the connection is closed")
        request_id = self._core.request_id(id)
        future: "asyncio.Future[JSONObject]" = asyncio.get_running_loop().create_future()

        def reply(message: Optional[JSONObject]) -> None:
            if future.done():
                return
            if message is None:
                future.set_exception(self.connection_error or ConnectionClosed("the daemon closed the connection"))
                return
            if arrived is not None:
                arrived(message)
            future.set_result(message)

        pending = self._core.expect(request_id, reply)
        try:
            await self.send_raw(encode_request(method, params, request_id))
            return await future
        except BaseException:
            self._core.cancel(pending)  # a reply that still comes is stray
            raise

    @staticmethod
    def _result(reply: JSONObject) -> JSONObject:
        if "error" in reply:
            raise error_from_reply(reply["error"] if isinstance(reply["error"], dict) else {}, reply.get("id"))
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    async def _read_loop(self) -> None:
        core = self._core
        try:
            while True:
                chunk = await self._reader.read(RECEIVE)
                if not chunk:
                    break
                core.lines.feed(chunk)
                line = core.lines.next_line()
                while line is not None:
                    if self.trace is not None:
                        self.trace(line)
                    core.handle_line(line)
                    line = core.lines.next_line()
        except (OSError, ValueError, TypeError, ClientError):
            pass  # a broken connection, or a line that is not a message: the stream ends here
        finally:
            core.end()
            self.events.put_nowait(_END)

    # Subscriptions ---------------------------------------------------------------------------

    async def subscribe(self, view: str) -> "AsyncSubscription":
        """``view.subscribe``: an async iterator of its events with a live ``mirror``."""
        made = []

        def register(reply: JSONObject) -> None:
            result = reply.get("result")
            if isinstance(result, dict) and "subscription" in result:
                subscription = AsyncSubscription(self, view, int(result["subscription"]), Snapshot.from_json(result["snapshot"]))
                self._core.register(subscription)
                made.append(subscription)

        self._result(await self._request(METHOD_VIEW_SUBSCRIBE, {"view": view}, None, register))
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
        if self.client.gap:
            await self.client._resubscribe_all()
        if self.ended and self._queue.empty():
            return None
        if self.client.closed and self._queue.empty():
            self._queue.put_nowait(_END)  # ended before this subscription was made
        event = await asyncio.wait_for(self._queue.get(), timeout)
        if event is _END:
            self._queue.put_nowait(_END)
            raise self.client.connection_error or ConnectionClosed("the daemon closed the connection")
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
