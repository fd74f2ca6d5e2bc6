"""Surviving a daemon restart. Views live in the daemon's memory: a restarted daemon has none
(protocol/README.md §9, "Closing"). A :class:`Reconnector` holds, for each of the caller's
views, a function returning the caller's own last data for it (``view.create`` params); when
the connection ends (end of file, a reset, ``daemon.shutdown``) it waits for the daemon to
serve again, creates the views again from that data, subscribes again and resets each view's
:class:`~layoutd.Mirror` (the same object across reconnects) from the new snapshot."""
from __future__ import annotations

import socket
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, TypeVar

from ._names import EVENT_DAEMON_SHUTDOWN, METHOD_VIEW_CREATE, PROTOCOL_VERSIONS
from .client import Client, Subscription
from .discovery import socket_path
from .errors import ClientError, LayoutdError, ViewExists
from .mirror import Mirror
from .model import Event

T = TypeVar("T")
ViewData = Callable[[], Mapping[str, Any]]

RETRYABLE = (OSError, ClientError)


def wait_until_serving(path: Optional[str] = None, timeout: float = 30.0, interval: float = 0.02, *,
                       call_timeout: Optional[float] = 30.0) -> Client:
    """A new connected client once ``daemon.hello`` is answered on ``path``; the last error
    once ``timeout`` seconds pass. The client's calls then have ``call_timeout`` (its ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client = Client(path, timeout=max(0.1, min(10.0, deadline - time.monotonic())))
            try:
                client.daemon_hello(protocol=list(PROTOCOL_VERSIONS))
                client.timeout = call_timeout
                return client
            except BaseException:
                client.close()
                raise
        except (OSError, ClientError, LayoutdError):
            if time.monotonic() >= deadline:
                raise
            time.sleep(interval)


class Reconnector:
    """``r = Reconnector(path)``; ``r.add_view("photos", lambda: my_create_params)``;
    ``r.poll()`` keeps the mirrors current and reconnects when needed; ``r.run(fn)`` runs
    ``fn(client)``, reconnecting and retrying once if the connection ends meanwhile."""

    def __init__(self, path: Optional[str] = None, *, restart_timeout: float = 30.0) -> None:
        self.path = socket_path(path)
        self.restart_timeout = restart_timeout
        self.client = wait_until_serving(self.path, restart_timeout)
        self.views: Dict[str, ViewData] = {}
        self.mirrors: Dict[str, Mirror] = {}
        self.subscriptions: Dict[str, Subscription] = {}
        self.reconnects = 0
        #: Called with the new client after each reconnect (views restored, subscriptions renewed).
        self.on_reconnect: Optional[Callable[[Client], None]] = None

    def add_view(self, name: str, data: ViewData) -> Mirror:
        """Creates ``name`` from ``data()`` unless it exists, subscribes, returns its mirror."""
        self.views[name] = data
        self.mirrors[name] = Mirror()
        self._restore(name)
        return self.mirrors[name]

    def remove_view(self, name: str) -> None:
        self.views.pop(name, None)
        self.mirrors.pop(name, None)
        subscription = self.subscriptions.pop(name, None)
        if subscription is not None and not subscription.ended:
            subscription.unsubscribe()

    def _restore(self, name: str) -> None:
        params = dict(self.views[name]())
        params["view"] = name
        try:
            self.client.call(METHOD_VIEW_CREATE, params)
        except ViewExists:
            pass
        subscription = self.client.subscribe(name)
        subscription.mirror = self.mirrors[name]
        subscription.mirror.reset(subscription.snapshot)
        self.subscriptions[name] = subscription

    def reconnect(self) -> Client:
        """A new connection (waiting for the daemon), every view restored and subscribed."""
        try:
            self.client.close()
        except OSError:
            pass
        self.client = wait_until_serving(self.path, self.restart_timeout)
        self.subscriptions = {}
        for name in list(self.views):
            self._restore(name)
        self.reconnects += 1
        if self.on_reconnect is not None:
            self.on_reconnect(self.client)
        return self.client

    def run(self, action: Callable[[Client], T]) -> T:
        """``action(client)``; after a lost connection, reconnects and runs it once more."""
        try:
            return action(self.client)
        except socket.timeout:
            raise  # a slow daemon is not a lost connection
        except RETRYABLE:
            self.reconnect()
            return action(self.client)

    def poll(self, timeout: float = 0.0) -> List[Event]:
        """Every event readable within ``timeout`` (applied to the mirrors); reconnects when
        the connection ended or the daemon announced its shutdown."""
        events: List[Event] = []
        try:
            for subscription in list(self.subscriptions.values()):
                events += subscription.poll(timeout)
                timeout = 0.0
            if self.client.shutdown is not None or self.client.closed:
                raise ClientError(EVENT_DAEMON_SHUTDOWN)
        except socket.timeout:
            raise
        except RETRYABLE:
            self.reconnect()
        return events

    def close(self) -> None:
        self.client.close()
