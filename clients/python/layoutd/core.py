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
- at end of stream (``end()``), tells every request still waiting and every subscription;
- on a line no layoutd writes (over the line cap, not JSON, the wrong shape: ProtocolError),
  ends the same way (``fail``), keeping the error in ``failure`` for every waiting call.

Every table here is bounded: a reply entry lives from ``expect`` until its caller takes it (or
cancels), strays keep the STRAY_KEPT most recent, the line buffer holds at most a line cap.
"""
from __future__ import annotations

import collections
from typing import Any, Callable, Deque, Dict, Optional, TypeVar

from ._errorbase import ConnectionClosed, LayoutdError, ProtocolError
from ._errors import CONNECTION_ERRORS, LINE_ERRORS
from ._names import EVENT_DAEMON_SHUTDOWN, EVENT_VIEW_DELETED, EVENT_VIEW_RESYNC
from .errors import error_from_reply
from .framing import DEFAULT_LINE_CAP, LineBuffer, RequestId, check_message, decode_line
from .mirror import Mirror
from .model import Event, Invalidation, JSONObject, Snapshot

#: Called with a reply when it arrives, or with None when the connection ended first.
ReplyCallback = Callable[[Optional[JSONObject]], None]

T = TypeVar("T")
#: What reading the daemon's values into the model's dataclasses raises on a wrong type.
MODEL_ERRORS = (KeyError, TypeError, ValueError, AttributeError, OverflowError)


def read_model(read: Callable[[Any], T], value: Any, what: str) -> T:
    """``read(value)``, or ProtocolError when the daemon's value has the wrong shape for it."""
    try:
        return read(value)
    except MODEL_ERRORS as error:
        raise ProtocolError("the daemon wrote %s of the wrong shape (%s: %s)" % (what, type(error).__name__, error)) from None


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

    def _queued(self) -> int:
        """How many events were delivered and not yet taken."""
        raise NotImplementedError

    def _end(self) -> None:
        """The connection ended."""

    def _take(self, event: Event) -> bool:
        """Applies a taken event to the mirror; False when the mirror needs a fresh snapshot
        (an invalidation that is not its next epoch). ``view.deleted`` ends the subscription."""
        try:
            applied = read_model(self.mirror.handle, event, "a %s event" % event.name)
        except ProtocolError as error:
            if self._core is not None:
                self._core.fail(error)
            raise
        if event.name == EVENT_VIEW_DELETED:
            self.ended = True
            if self._core is not None:
                self._core.unregister(self)
        return applied

    def _restart(self, result: JSONObject) -> None:
        """A new ``view.subscribe`` reply for the same view (after lost events): the new id and
        snapshot, delivered as a synthetic ``view.resync`` in place of everything not taken."""
        self.id = read_model(lambda r: int(r["subscription"]), result, "a view.subscribe result")
        self.snapshot = read_model(lambda r: Snapshot.from_json(r["snapshot"]), result, "a view.subscribe result")
        self._clear()
        self._deliver(Event(EVENT_VIEW_RESYNC, 0, {"view": self.view, "skipped": 0, "snapshot": result["snapshot"]}, self.id))


class Core:
    """One connection's protocol state. Not thread-safe: one client, one thread (or loop)."""

    #: How many stray messages ``stray`` keeps (the most recent).
    STRAY_KEPT = 16
    #: How many events a subscription holds before nobody taking them counts as falling behind.
    SUBSCRIPTION_EVENTS_KEPT = 4096
    #: How many connection-wide events nobody took a client keeps (the most recent).
    EVENTS_KEPT = 1024

    def __init__(self, line_cap: int = DEFAULT_LINE_CAP) -> None:
        self.lines = LineBuffer(line_cap)
        #: The ``seq`` of the last event; a gap sets ``gap`` (events were lost).
        self.last_seq = 0
        self.gap = False
        #: ``daemon.shutdown``'s params once it arrived.
        self.shutdown: Optional[JSONObject] = None
        #: The connection-level error line that came before the daemon closed the connection.
        self.connection_error: Optional[LayoutdError] = None
        #: Whether the stream ended.
        self.ended = False
        #: The ProtocolError that ended the stream (``fail``), else None.
        self.failure: Optional[ProtocolError] = None
        #: The id of the next request, instead of the next counter value (once).
        self.next_request_id: Optional[RequestId] = None
        #: Replies nobody waited for and ``id`` null lines: the most recent, and how many in all.
        self.stray: Deque[JSONObject] = collections.deque(maxlen=self.STRAY_KEPT)
        self.stray_count = 0
        #: Events for a subscription this connection holds but no subscription object has
        #: (one made with a raw ``view.subscribe``): counted, not kept.
        self.unrouted_events = 0
        #: Events dropped from subscriptions that fell SUBSCRIPTION_EVENTS_KEPT behind (each then resubscribes).
        self.subscription_events_dropped = 0
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

    @property
    def waiting(self) -> int:
        """How many requests wait for their reply, or hold one not yet taken (per-call state)."""
        return sum(len(queue) for queue in self._expected.values())

    def take(self, request_id: RequestId) -> Optional[JSONObject]:
        """The oldest reply to ``request_id`` if it arrived (its entry goes with it), else None."""
        queue = self._expected.get(request_id)
        if not queue or queue[0].message is None:
            return None
        message = queue.popleft().message
        if not queue:
            del self._expected[request_id]
        return message

    def forget(self, request_id: RequestId) -> None:
        """The oldest caller waiting for ``request_id`` (the one ``take`` serves) gives up: a
        reply that comes later is stray."""
        queue = self._expected.get(request_id)
        if queue:
            self.cancel(queue[0])

    def cancel(self, pending: Pending) -> None:
        """Its caller no longer waits: a reply that comes later is stray."""
        queue = self._expected.get(pending.id)
        if queue is not None and pending in queue:
            queue.remove(pending)
            if not queue:
                del self._expected[pending.id]

    # Input -----------------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Bytes read from the connection (ProtocolError, and ``fail``, past the line cap)."""
        try:
            self.lines.feed(data)
        except ProtocolError as error:
            self.fail(error)
            raise

    def next_line(self) -> Optional[bytes]:
        """The next whole line, not handled, or None (ProtocolError, and ``fail``, over the cap)."""
        try:
            return self.lines.next_line()
        except ProtocolError as error:
            self.fail(error)
            raise

    def handle_line(self, line: bytes) -> JSONObject:
        """Decodes one line and handles it; ProtocolError (and ``fail``) when it is not a
        message of the protocol's shape."""
        try:
            message = decode_line(line)
            self._route(message)
        except ProtocolError as error:
            self.fail(error)
            raise
        return message

    def handle_buffered(self) -> int:
        """Handles every whole line already fed; returns how many."""
        handled = 0
        while True:
            line = self.next_line()
            if line is None:
                return handled
            self.handle_line(line)
            handled += 1

    def handle(self, message: JSONObject) -> None:
        """A reply (it has ``id``) or an event (it has ``event``), checked as ``decode_line``
        checks a line's (ProtocolError, and ``fail``, when it has the wrong shape)."""
        try:
            self._route(check_message(message))
        except ProtocolError as error:
            self.fail(error)
            raise

    def _route(self, message: JSONObject) -> None:
        if "event" in message:
            self._event(message)
        else:
            self._reply(message)

    def fail(self, error: ProtocolError) -> None:
        """The peer broke the protocol: the stream ends, every waiting request hears of it
        (``failure`` is the error its caller raises)."""
        if self.failure is None and not self.ended:
            self.failure = error
        self.end()

    def closed_error(self, what: str = "the reply") -> Exception:
        """What a call whose reply will not come raises: the ProtocolError that ended the
        stream, the connection-level error line before the close, or ConnectionClosed."""
        if self.failure is not None:
            return self.failure
        if self.connection_error is not None:
            return self.connection_error
        return ConnectionClosed("the daemon closed the connection before %s" % what)

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
        queue = self._expected.get(request_id)
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
                    change = read_model(Invalidation.from_json, result, "a mutation's result")
                if change.epoch == subscription.mirror.epoch + 1:
                    subscription.mirror.apply(change)

    def _event(self, message: JSONObject) -> None:
        event = read_model(Event.from_json, message, "an event")
        if event.seq != self.last_seq + 1:
            self.gap = True
        self.last_seq = event.seq
        if event.name == EVENT_DAEMON_SHUTDOWN:
            self.shutdown = event.params
        if event.subscription is None:
            self.on_event(event)
            for subscription in list(self.subscriptions.values()):
                self._queue_event(subscription, event)
            return
        target = self.subscriptions.get(event.subscription)
        if target is not None:
            self._queue_event(target, event)
        else:
            self.unrouted_events += 1

    def _queue_event(self, subscription: SubscriptionBase, event: Event) -> None:
        """Queues an event for a subscription. One whose events nobody takes does not grow
        without bound: past SUBSCRIPTION_EVENTS_KEPT its queue is dropped and the subscription
        subscribes again when it is next read, as after a ``seq`` gap (its mirror then starts
        from a fresh snapshot, so nothing dropped is missed)."""
        if subscription._queued() >= self.SUBSCRIPTION_EVENTS_KEPT:
            self.subscription_events_dropped += subscription._queued()
            subscription._clear()
            self.gap = True
        subscription._deliver(event)


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
