"""The asyncio client: the same methods as :class:`layoutd.Client`, as coroutines. A reader
task matches replies to requests by id (in order for repeated ids) and routes events to
:class:`AsyncSubscription` queues, checking ``seq``."""
from __future__ import annotations

import asyncio
import collections
from typing import Any, Deque, Dict, List, Optional, Mapping

from ._methods import AsyncMethods
from .client import RequestId, _apply_own_reply, decode_line, encode_request
from .discovery import socket_path
from .errors import CONNECTION_ERRORS, ConnectionClosed, LayoutdError, error_from_reply
from .mirror import Mirror
from .model import Event, JSONObject, Snapshot

_END = Event("<end of stream>", 0, {})


class AsyncClient(AsyncMethods):
    """``client = await AsyncClient.connect(path)``; ``await client.view_get("photos")``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> None:
        self.path = path
        self._reader = reader
        self._writer = writer
        self._next_id = 1
        self._waiting: Dict[Any, Deque["asyncio.Future[JSONObject]"]] = collections.defaultdict(collections.deque)
        self._subscriptions: Dict[int, AsyncSubscription] = {}
        self._early: Dict[int, List[Event]] = {}
        self.events: "asyncio.Queue[Event]" = asyncio.Queue()
        self.stray: List[JSONObject] = []
        self.connection_error: Optional[LayoutdError] = None
        self.shutdown: Optional[JSONObject] = None
        self.last_seq = 0
        self.gap = False
        self.closed = False
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def connect(cls, path: Optional[str] = None, *, limit: int = 1 << 26) -> "AsyncClient":
        resolved = socket_path(path)
        reader, writer = await asyncio.open_unix_connection(resolved, limit=limit)
        return cls(reader, writer, resolved)

    async def close(self) -> None:
        self.closed = True
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

    async def send_raw(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        await self.send_raw(encode_request(method, params, None))

    async def call(self, method: str, params: Optional[Mapping[str, Any]] = None, *,
                   id: Optional[RequestId] = None) -> JSONObject:
        """Sends a request and returns its ``result``; raises the error reply's exception."""
        if self.closed:
            raise self.connection_error or ConnectionClosed("the connection is closed")
        request_id: RequestId
        if id is None:
            request_id = self._next_id
            self._next_id += 1
        else:
            request_id = id
        future: "asyncio.Future[JSONObject]" = asyncio.get_running_loop().create_future()
        self._waiting[request_id].append(future)
        await self.send_raw(encode_request(method, params, request_id))
        reply = await future
        if "error" in reply:
            raise error_from_reply(reply["error"] if isinstance(reply["error"], dict) else {}, request_id)
        result = reply.get("result")
        result = result if isinstance(result, dict) else {}
        _apply_own_reply(result, list(self._subscriptions.values()))
        return result

    async def _invoke(self, method: str, params: JSONObject) -> JSONObject:
        return await self.call(method, params)

    async def _read_loop(self) -> None:
        try:
            while True:
                line = await self._reader.readline()
                if not line.endswith(b"\n"):
                    break
                self._dispatch(decode_line(line[:-1]))
        except (OSError, ValueError):
            pass
        finally:
            self.closed = True
            error = self.connection_error or ConnectionClosed("the daemon closed the connection")
            for futures in self._waiting.values():
                for future in futures:
                    if not future.done():
                        future.set_exception(error)
            self._waiting.clear()
            for subscription in self._subscriptions.values():
                subscription._queue.put_nowait(_END)
            self.events.put_nowait(_END)

    def _dispatch(self, message: JSONObject) -> None:
        if "event" in message:
            event = Event.from_json(message)
            if event.seq != self.last_seq + 1:
                self.gap = True
            self.last_seq = event.seq
            if event.name == "daemon.shutdown":
                self.shutdown = event.params
            if event.subscription is None:
                self.events.put_nowait(event)
                for subscription in self._subscriptions.values():
                    subscription._queue.put_nowait(event)
            elif event.subscription in self._subscriptions:
                self._subscriptions[event.subscription]._queue.put_nowait(event)
            else:
                # A subscription whose reply the caller has not taken yet (or an ended one).
                self._early.setdefault(event.subscription, []).append(event)
            return
        request_id = message.get("id")
        if request_id is None:
            self.stray.append(message)
            error = message.get("error")
            if isinstance(error, dict) and error.get("name") in CONNECTION_ERRORS:
                self.connection_error = error_from_reply(error)
            return
        futures = self._waiting.get(request_id)
        if futures:
            future = futures.popleft()
            if not futures:
                del self._waiting[request_id]
            if not future.done():
                future.set_result(message)
        else:
            self.stray.append(message)

    async def subscribe(self, view: str) -> "AsyncSubscription":
        """``view.subscribe``: an async iterator of its events with a live ``mirror``."""
        result = await self.call("view.subscribe", {"view": view})
        subscription = AsyncSubscription(self, view, int(result["subscription"]), Snapshot.from_json(result["snapshot"]))
        self._register(subscription)
        return subscription

    def _register(self, subscription: "AsyncSubscription") -> None:
        self._subscriptions[subscription.id] = subscription
        for event in self._early.pop(subscription.id, []):
            subscription._queue.put_nowait(event)

    view_subscribe = subscribe

    async def sync(self) -> None:
        await self.call("daemon.sync")


class AsyncSubscription:
    """``async for event in subscription``: events applied to ``mirror`` as they are taken;
    ends after ``view.deleted``; raises ConnectionClosed at end of file. After a ``seq`` gap
    it subscribes again and yields a synthetic ``view.resync``."""

    def __init__(self, client: AsyncClient, view: str, id: int, snapshot: Snapshot) -> None:
        self.client = client
        self.view = view
        self.id = id
        self.snapshot = snapshot
        self.mirror = Mirror(snapshot)
        self.ended = False
        self._queue: "asyncio.Queue[Event]" = asyncio.Queue()

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
            self.client.gap = False
            for subscription in list(self.client._subscriptions.values()):
                await subscription.resubscribe()
        if self.ended and self._queue.empty():
            return None
        event = await asyncio.wait_for(self._queue.get(), timeout)
        if event is _END:
            self._queue.put_nowait(_END)
            raise self.client.connection_error or ConnectionClosed("the daemon closed the connection")
        if not self.mirror.handle(event):
            self.mirror.reset(await self.client.view_get(self.view))
        if event.name == "view.deleted":
            self.ended = True
            self.client._subscriptions.pop(self.id, None)
        return event

    async def resubscribe(self) -> None:
        old = self.id
        self.client._subscriptions.pop(old, None)
        try:
            await self.client.call("view.unsubscribe", {"subscription": old})
        except LayoutdError:
            pass
        result = await self.client.call("view.subscribe", {"view": self.view})
        self.id = int(result["subscription"])
        self.snapshot = Snapshot.from_json(result["snapshot"])
        while not self._queue.empty():
            self._queue.get_nowait()
        self._queue.put_nowait(Event("view.resync", 0, {"view": self.view, "skipped": 0, "snapshot": result["snapshot"]}, self.id))
        self.client._register(self)

    async def unsubscribe(self) -> None:
        if not self.ended:
            self.ended = True
            self.client._subscriptions.pop(self.id, None)
            await self.client.call("view.unsubscribe", {"subscription": self.id})
