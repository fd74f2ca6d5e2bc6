"""The protocol without I/O (protocol/README.md §5–§7, subscriptions.md): what one connection
to layoutd knows, shared by the blocking :class:`~layoutd.Client` and the asyncio
:class:`~layoutd.AsyncClient`, which only read and write bytes.

A client feeds :class:`Core` the bytes it read (``core.lines``) and hands it each whole line
(``handle_line``); the core then

- matches a reply to the request waiting for its id (``expect``, then ``take`` or a callback),
  in request order for a repeated id; a reply nobody waits for, and every ``id`` null line, is
  counted in ``stray_count`` and only the most recent ones are kept (``stray``);
- applies a successful mutation's reply at once to the mirrors of that view's subscriptions
  (when it is their next epoch: the event that follows is then skipped as already seen);
- routes each event to its subscription (connection-wide ones to ``on_event`` and to every
  subscription), checking that ``seq`` runs 1, 2, 3, … without a gap (``gap``);
- keeps ``shutdown`` (``daemon.shutdown``'s params) and ``connection_error`` (the error line
  that comes before the daemon closes the connection);
- at end of stream (``end()``), tells every request still waiting and every subscription.
"""
from __future__ import annotations

import collections
from typing import Any, Callable, Deque, Dict, Optional

from ._errorbase import LayoutdError
from ._errors import CONNECTION_ERRORS, LINE_ERRORS
from ._names import EVENT_DAEMON_SHUTDOWN, EVENT_VIEW_DELETED, EVENT_VIEW_RESYNC
from .errors import error_from_reply
from .framing import LineBuffer, RequestId, decode_line
from .mirror import Mirror
from .model import Event, Invalidation, JSONObject, Snapshot

#: Called with a reply when it arrives, or with None when the connection ended first.
ReplyCallback = Callable[[Optional[JSONObject]], None]


class Pending:
    """One request waiting for its reply: ``message`` once it arrived."""

    __slots__ = ("id", "message", "callback")

    def __init__(self, request_id: RequestId, callback: Optional[ReplyCallback]) -> None:
        self.id = request_id
        self.message: Optional[JSONObject] = None
        self.callback = callback


class SubscriptionBase:
    """What the core and both clients share of a subscription: its view, id, snapshot and
    mirror, and the rules for the events taken (protocol/subscriptions.md, "Keeping a mirror").
    A subclass queues delivered events (``_deliver``) and takes them with its own I/O."""

    def __init__(self, view: str, id: int, snapshot: Snapshot) -> None:
        self.view = view
        self.id = id
        self.snapshot = snapshot
        self.mirror = Mirror(snapshot)
        self.ended = False
        self._core: Optional[Core] = None

    def _deliver(self, event: Event) -> None:
        """An event arrived for this subscription (not yet taken)."""
        raise NotImplementedError

    def _clear(self) -> None:
        """Drops the events not yet taken."""
        raise NotImplementedError

    def _end(self) -> None:
        """The connection ended."""

    def _take(self, event: Event) -> bool:
        """Applies a taken event to the mirror; False when the mirror needs a fresh snapshot
        (an invalidation that is not its next epoch). ``view.deleted`` ends the subscription."""
        applied = self.mirror.handle(event)
        if event.name == EVENT_VIEW_DELETED:
            self.ended = True
            if self._core is not None:
                self._core.unregister(self)
        return applied

    def _restart(self, result: JSONObject) -> None:
        """A new ``view.subscribe`` reply for the same view (after lost events): the new id and
        snapshot, delivered as a synthetic ``view.resync`` in place of everything not taken."""
        self.id = int(result["subscription"])
        self.snapshot = Snapshot.from_json(result["snapshot"])
        self._clear()
        self._deliver(Event(EVENT_VIEW_RESYNC, 0, {"view": self.view, "skipped": 0, "snapshot": result["snapshot"]}, self.id))


class Core:
    """One connection's protocol state. Not thread-safe: one client, one thread (or loop)."""

    #: How many stray messages ``stray`` keeps (the most recent).
    STRAY_KEPT = 16

    def __init__(self) -> None:
        self.lines = LineBuffer()
        #: The ``seq`` of the last event; a gap sets ``gap`` (events were lost).
        self.last_seq = 0
        self.gap = False
        #: ``daemon.shutdown``'s params once it arrived.
        self.shutdown: Optional[JSONObject] = None
        #: The connection-level error line that came before the daemon closed the connection.
        self.connection_error: Optional[LayoutdError] = None
        #: Whether the stream ended.
        self.ended = False
        #: The id of the next request, instead of the next counter value (once).
        self.next_request_id: Optional[RequestId] = None
        #: Replies nobody waited for and ``id`` null lines: the most recent, and how many in all.
        self.stray: Deque[JSONObject] = collections.deque(maxlen=self.STRAY_KEPT)
        self.stray_count = 0
        #: Events for a subscription this connection holds but no subscription object has
        #: (one made with a raw ``view.subscribe``): counted, not kept.
        self.unrouted_events = 0
        #: Called with each connection-wide event (``daemon.shutdown``, unknown ones).
        self.on_event: Callable[[Event], None] = lambda event: None
        self.subscriptions: Dict[int, SubscriptionBase] = {}
        self._counter = 1
        self._expected: Dict[Any, Deque[Pending]] = {}

    # Requests --------------------------------------------------------------------------------

    def request_id(self, explicit: Optional[RequestId] = None) -> RequestId:
        """``explicit``, else ``next_request_id`` (once), else the next counter value."""
        if explicit is not None:
            return explicit
        if self.next_request_id is not None:
            request_id, self.next_request_id = self.next_request_id, None
            return request_id
        request_id = self._counter
        self._counter += 1
        return request_id

    def expect(self, request_id: RequestId, callback: Optional[ReplyCallback] = None) -> Pending:
        """Keeps the next reply to ``request_id`` for its caller: handed to ``callback`` as it
        arrives, else kept until ``take``. Replies to one id come in request order."""
        pending = Pending(request_id, callback)
        self._expected.setdefault(request_id, collections.deque()).append(pending)
        return pending

    def waits_for(self, request_id: RequestId) -> bool:
        return request_id in self._expected

    def take(self, request_id: RequestId) -> Optional[JSONObject]:
        """The oldest reply to ``request_id`` if it arrived (its entry goes with it), else None."""
        queue = self._expected.get(request_id)
        if not queue or queue[0].message is None:
            return None
        message = queue.popleft().message
        if not queue:
            del self._expected[request_id]
        return message

    def cancel(self, pending: Pending) -> None:
        """Its caller no longer waits: a reply that comes later is stray."""
        queue = self._expected.get(pending.id)
        if queue is not None and pending in queue:
            queue.remove(pending)
            if not queue:
                del self._expected[pending.id]

    # Input -----------------------------------------------------------------------------------

    def handle_line(self, line: bytes) -> JSONObject:
        """Decodes one line and handles it (ValueError when it is not JSON)."""
        message = decode_line(line)
        self.handle(message)
        return message

    def handle(self, message: JSONObject) -> None:
        """A reply (it has ``id``) or an event (it has ``event``)."""
        if "event" in message:
            self._event(message)
        elif "id" in message:
            self._reply(message)

    def end(self) -> None:
        """End of stream: every request still waiting hears None, every subscription ``_end``."""
        if self.ended:
            return
        self.ended = True
        expected, self._expected = self._expected, {}
        for queue in expected.values():
            for pending in queue:
                if pending.callback is not None:
                    pending.callback(None)
        for subscription in list(self.subscriptions.values()):
            subscription._end()

    # Subscriptions ---------------------------------------------------------------------------

    def register(self, subscription: SubscriptionBase) -> None:
        subscription._core = self
        self.subscriptions[subscription.id] = subscription

    def unregister(self, subscription: SubscriptionBase) -> None:
        if self.subscriptions.get(subscription.id) is subscription:
            del self.subscriptions[subscription.id]

    # Internals -------------------------------------------------------------------------------

    def _reply(self, message: JSONObject) -> None:
        request_id = message["id"]
        error = message.get("error")
        if request_id is None:
            self._stray(message)
            if isinstance(error, dict) and self._closes_connection(error):
                self.connection_error = error_from_reply(error)
            return
        result = message.get("result")
        if isinstance(result, dict):
            self._apply_own_reply(result)
        try:
            queue = self._expected.get(request_id)
        except TypeError:  # an id that cannot be a key (the daemon echoes what it was sent)
            queue = None
        pending = next((p for p in queue if p.message is None), None) if queue else None
        if pending is None:
            self._stray(message)
            return
        pending.message = message
        if pending.callback is not None:
            self.cancel(pending)
            pending.callback(message)

    @staticmethod
    def _closes_connection(error: JSONObject) -> bool:
        """An ``id`` null error is the connection's own (§9) unless it answers an unreadable line."""
        name = error.get("name")
        return name in CONNECTION_ERRORS or name not in LINE_ERRORS

    def _stray(self, message: JSONObject) -> None:
        self.stray.append(message)
        self.stray_count += 1

    def _apply_own_reply(self, result: JSONObject) -> None:
        """A mutation's reply is the invalidation its event will carry: mirrors of that view
        apply it now when it is their next epoch (the event is then skipped as already seen)."""
        if "entered" not in result or "epoch" not in result or result.get("dryRun"):
            return
        change = None
        for subscription in self.subscriptions.values():
            if subscription.view == result.get("view") and not subscription.ended:
                if change is None:
                    change = Invalidation.from_json(result)
                if change.epoch == subscription.mirror.epoch + 1:
                    subscription.mirror.apply(change)

    def _event(self, message: JSONObject) -> None:
        event = Event.from_json(message)
        if event.seq != self.last_seq + 1:
            self.gap = True
        self.last_seq = event.seq
        if event.name == EVENT_DAEMON_SHUTDOWN:
            self.shutdown = event.params
        if event.subscription is None:
            self.on_event(event)
            for subscription in list(self.subscriptions.values()):
                subscription._deliver(event)
            return
        target = self.subscriptions.get(event.subscription)
        if target is not None:
            target._deliver(event)
        else:
            self.unrouted_events += 1


class CoreState:
    """What both clients show of their protocol core (``self._core``): the same state,
    whichever does the I/O."""

    _core: Core

    @property
    def last_seq(self) -> int:
        return self._core.last_seq

    @last_seq.setter
    def last_seq(self, value: int) -> None:
        self._core.last_seq = value

    @property
    def gap(self) -> bool:
        """A ``seq`` gap was seen (events lost): the next read of a subscription subscribes again."""
        return self._core.gap

    @property
    def stray(self) -> Deque[JSONObject]:
        """The most recent replies no call waited for, such as ``id`` null errors of undecodable
        lines (``stray_count`` counts them all)."""
        return self._core.stray

    @property
    def stray_count(self) -> int:
        return self._core.stray_count

    @property
    def connection_error(self) -> Optional[LayoutdError]:
        """The connection-level error line that preceded the daemon closing the connection."""
        return self._core.connection_error

    @property
    def shutdown(self) -> Optional[JSONObject]:
        """``daemon.shutdown``'s params once it arrived."""
        return self._core.shutdown
