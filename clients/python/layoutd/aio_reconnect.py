"""Surviving a daemon restart, for asyncio: :class:`AsyncReconnector` keeps the same contract
as :class:`layoutd.Reconnector`. For each of the caller's views it holds a function returning
the caller's own last data (``view.create`` params); when the connection ends (end of file, a
reset, ``daemon.shutdown``) it waits for the daemon to serve again, creates the views again
from that data, subscribes again and resets each view's :class:`~layoutd.Mirror` (the same
object across reconnects) from the new snapshot."""
from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Callable, Dict, List, Optional, TypeVar

from ._names import EVENT_DAEMON_SHUTDOWN, METHOD_VIEW_CREATE, PROTOCOL_VERSIONS
from .aio import AsyncClient, AsyncSubscription
from .discovery import socket_path
from .errors import ClientError, LayoutdError, Timeout, ViewExists
from .mirror import Mirror
from .model import Event
from .reconnect import ViewData

T = TypeVar("T")

#: What a lost connection raises: the socket's errors, and the client's own (end of file).
RETRYABLE = (OSError, ClientError)


async def wait_until_serving_async(path: Optional[str] = None, timeout: float = 30.0, interval: float = 0.02, *,
                                   call_timeout: Optional[float] = 30.0) -> AsyncClient:
    """A new connected client once ``daemon.hello`` is answered on ``path``; the last error
    once ``timeout`` seconds pass. The client's calls then have ``call_timeout`` (its ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client = await AsyncClient.connect(path, timeout=max(0.1, deadline - time.monotonic()))
            try:
                await client.daemon_hello(protocol=list(PROTOCOL_VERSIONS))
                client.timeout = call_timeout
                return client
            except BaseException:
                await client.close()
                raise
        except (OSError, ClientError, LayoutdError, asyncio.TimeoutError):
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(interval)


class AsyncReconnector:
    """``r = await AsyncReconnector.connect(path)``; ``mirror = await r.add_view("photos",
    lambda: my_create_params)``; ``await r.poll(0.05)`` keeps the mirrors current and
    reconnects when needed; ``await r.run(fn)`` awaits ``fn(client)``, reconnecting and
    retrying once if the connection ends meanwhile."""

    def __init__(self, client: AsyncClient, path: str, restart_timeout: float) -> None:
        self.client = client
        self.path = path
        self.restart_timeout = restart_timeout
        self.views: Dict[str, ViewData] = {}
        self.mirrors: Dict[str, Mirror] = {}
        self.subscriptions: Dict[str, AsyncSubscription] = {}
        self.reconnects = 0
        #: Awaited with the new client after each reconnect (views restored, subscriptions renewed).
        self.on_reconnect: Optional[Callable[[AsyncClient], Awaitable[None]]] = None

    @classmethod
    async def connect(cls, path: Optional[str] = None, *, restart_timeout: float = 30.0) -> "AsyncReconnector":
        resolved = socket_path(path)
        return cls(await wait_until_serving_async(resolved, restart_timeout), resolved, restart_timeout)

    async def add_view(self, name: str, data: ViewData) -> Mirror:
        """Creates ``name`` from ``data()`` unless it exists, subscribes, returns its mirror."""
        self.views[name] = data
        self.mirrors[name] = Mirror()
        await self._restore(name)
        return self.mirrors[name]

    async def remove_view(self, name: str) -> None:
        self.views.pop(name, None)
        self.mirrors.pop(name, None)
        subscription = self.subscriptions.pop(name, None)
        if subscription is not None and not subscription.ended:
            await subscription.unsubscribe()

    async def _restore(self, name: str) -> None:
        params = dict(self.views[name]())
        params["view"] = name
        try:
            await self.client.call(METHOD_VIEW_CREATE, params)
        except ViewExists:
            pass
        subscription = await self.client.subscribe(name)
        # One mirror per view across reconnects: the caller holds on to it.
        subscription.mirror = self.mirrors[name]
        subscription.mirror.reset(subscription.snapshot)
        self.subscriptions[name] = subscription

    async def reconnect(self) -> AsyncClient:
        """A new connection (waiting for the daemon), every view restored and subscribed."""
        await self.client.close()
        self.client = await wait_until_serving_async(self.path, self.restart_timeout)
        self.subscriptions = {}
        for name in list(self.views):
            await self._restore(name)
        self.reconnects += 1
        if self.on_reconnect is not None:
            await self.on_reconnect(self.client)
        return self.client

    async def run(self, action: Callable[[AsyncClient], Awaitable[T]]) -> T:
        """``await action(client)``; after a lost connection, reconnects and awaits it once more."""
        try:
            return await action(self.client)
        except Timeout:
            raise  # a slow daemon is not a lost connection
        except RETRYABLE:
            await self.reconnect()
            return await action(self.client)

    async def poll(self, timeout: float = 0.0) -> List[Event]:
        """Every event that arrives within ``timeout`` seconds (applied to the mirrors as it is
        taken); reconnects when the connection ended or the daemon announced its shutdown."""
        events: List[Event] = []
        try:
            for subscription in list(self.subscriptions.values()):
                while True:
                    if timeout <= 0 and not subscription.ready():
                        break
                    try:
                        event = await subscription.next(timeout if timeout > 0 else None)
                    except (asyncio.TimeoutError, Timeout):
                        break
                    if event is None:
                        break
                    events.append(event)
                    timeout = 0.0
                timeout = 0.0
            if self.client.shutdown is not None or self.client.closed:
                raise ClientError(EVENT_DAEMON_SHUTDOWN)
        except RETRYABLE:
            await self.reconnect()
        return events

    async def close(self) -> None:
        await self.client.close()
