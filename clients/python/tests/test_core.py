"""The protocol core without a socket (layoutd.core, layoutd.framing): lines cut from any chunks,
replies matched to their callers and then forgotten, stray lines counted within a bound,
connection-level errors, seq gaps, event routing and the own-reply rule."""
from __future__ import annotations

import json
import random
import unittest
from typing import Any, List, Optional

from layoutd import ProtocolError
from layoutd.core import Core, SubscriptionBase
from layoutd.framing import MAX_DEPTH, LineBuffer, _too_deep, decode_line
from layoutd.model import Event, Invalidation, JSONObject, Snapshot


def line(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def snapshot(view: str = "v", epoch: int = 0) -> JSONObject:
    return {"view": view, "strategy": "flow", "params": {}, "epoch": epoch,
            "viewport": {"width": 100, "height": 100, "offset": {"x": 0, "y": 0}}, "windowMargin": 0,
            "window": {"x": 0, "y": 0, "width": 100, "height": 100}, "contentSize": {"width": 100, "height": 100},
            "sectionCount": 1, "itemCount": 1, "elements": []}


def invalidation(view: str, epoch: int, dry_run: bool = False) -> JSONObject:
    value: JSONObject = {"view": view, "epoch": epoch, "contentSize": {"width": 100, "height": 200},
                         "contentOffset": {"x": 0, "y": 10 * epoch},
                         "context": {"everything": False, "dataSourceCounts": False, "invalidated": []},
                         "window": {"x": 0, "y": 10 * epoch, "width": 100, "height": 100},
                         "entered": [{"id": "e%d" % epoch, "kind": "cell", "section": 0, "item": 0,
                                      "frame": {"x": 0, "y": 0, "width": 10, "height": 10}, "zIndex": 0, "alpha": 1,
                                      "hidden": False}],
                         "changed": [], "left": []}
    if dry_run:
        value["dryRun"] = True
    return value


class Recorder(SubscriptionBase):
    def __init__(self, view: str, id: int) -> None:
        super().__init__(view, id, Snapshot.from_json(snapshot(view)))
        self.events: List[Event] = []
        self.ends = 0

    def _deliver(self, event: Event) -> None:
        self.events.append(event)

    def _clear(self) -> None:
        self.events.clear()

    def _queued(self) -> int:
        return len(self.events)

    def _end(self) -> None:
        self.ends += 1


class Lines(unittest.TestCase):
    def test_lines_cut_from_any_chunks(self) -> None:
        data = b'{"id":1}\n{"id":2,"result":{}}\n\n{"event":"x"}\n{"partial'
        for size in (1, 2, 3, 7, len(data)):
            buffer, lines = LineBuffer(), []
            for start in range(0, len(data), size):
                buffer.feed(data[start:start + size])
                while True:
                    taken = buffer.next_line()
                    if taken is None:
                        break
                    lines.append(taken)
            self.assertEqual(lines, [b'{"id":1}', b'{"id":2,"result":{}}', b"", b'{"event":"x"}'], size)
            self.assertEqual(buffer.partial, b'{"partial')
            self.assertEqual(len(buffer), len(b'{"partial'))

    def test_a_long_line_in_small_pieces_and_compaction(self) -> None:
        buffer = LineBuffer()
        long = b"x" * (3 * LineBuffer.COMPACT)
        for start in range(0, len(long), 1000):
            buffer.feed(long[start:start + 1000])
            self.assertIsNone(buffer.next_line())
        self.assertFalse(buffer.has_line())
        buffer.feed(b"\nshort\n" + b"y" * 10)
        self.assertTrue(buffer.has_line())
        self.assertEqual(buffer.next_line(), long)
        buffer.feed(b"yy\n")  # taken bytes are dropped here; what remains stays whole
        self.assertEqual(buffer.next_line(), b"short")
        self.assertEqual(buffer.next_line(), b"y" * 12)
        self.assertEqual(len(buffer), 0)


class Malformed(unittest.TestCase):
    """Whatever the peer writes, the core raises ProtocolError (never a runtime error), ends
    the stream and fails every waiting call with that error."""

    def test_the_line_cap_is_enforced_as_soon_as_it_is_passed(self) -> None:
        buffer = LineBuffer(100)
        buffer.feed(b"x" * 100)  # at the cap, no newline yet: fine
        with self.assertRaises(ProtocolError):
            buffer.feed(b"x")  # one past it: at once, without a newline
        buffer = LineBuffer(100)
        buffer.feed(b"a" * 60 + b"\n" + b"b" * 90)  # a whole short line, then a partial one under the cap
        self.assertEqual(buffer.next_line(), b"a" * 60)
        with self.assertRaises(ProtocolError):
            buffer.feed(b"b" * 11)
        buffer = LineBuffer(100)
        buffer.feed(b"c" * 150 + b"\nok\n")  # a whole line over the cap in one read
        with self.assertRaises(ProtocolError):
            buffer.next_line()
        buffer = LineBuffer(100)
        for _ in range(50):  # lines at the cap, split anywhere, are fine
            buffer.feed(b"d" * 70)
            buffer.feed(b"d" * 30 + b"\n")
            self.assertEqual(buffer.next_line(), b"d" * 100)

    def test_every_malformed_line_is_a_protocol_error(self) -> None:
        deep = b'{"id":1,"result":{"a":' + b"[" * 100000 + b"]" * 100000 + b"}}"
        lines = [b"", b"not json", b"[1,2,3]", b'"text"', b'{"id":1,"result":{', b'{"id":1,"result":{"s":"\xff\xfe"}}', deep,
                 b'{"id":1,"result":NaN}', b'{"id":1,"result":{"n":' + b"9" * 5000 + b"}}", b'{"id":1,"result":"text"}',
                 b'{"id":1,"error":"text"}', b'{"id":1}', b'{"id":1,"result":{},"error":{}}', b'{"id":{"a":1},"result":{}}',
                 b'{"id":true,"result":{}}', b'{"id":[1],"result":{}}', b'{"event":"x","seq":1,"params":7}',
                 b'{"event":"x","seq":"1","params":{}}', b'{"event":"x","seq":1.5,"params":{}}', b'{"event":7,"seq":1,"params":{}}',
                 b'{"event":"x","seq":1,"params":{},"subscription":"s"}', b'{"neither":1}',
                 b'{"event":"view.invalidated","subscription":1,"seq":1,"params":{"epoch":"x"}}']
        for line in lines:
            core = Core()
            heard: List[Optional[JSONObject]] = []
            core.expect(1, heard.append)
            if b'"subscription":1' in line:
                core.register(Recorder("v", 1))
            try:
                core.handle_line(line)
                subscription = core.subscriptions.get(1)
                if subscription is not None:  # the event's params are read when it is taken
                    subscription._take(subscription.events[0])  # type: ignore[attr-defined]
            except ProtocolError as error:
                self.assertIs(core.failure, error, line[:80])
                self.assertTrue(core.ended, line[:80])
                self.assertEqual(heard, [None], line[:80])  # the waiting call heard the end
                self.assertIs(core.closed_error(), error)
                continue
            self.fail("accepted %r" % line[:80])

    def test_nesting_up_to_the_limit_is_accepted(self) -> None:
        inner = b"[" * (MAX_DEPTH - 2) + b"]" * (MAX_DEPTH - 2)
        self.assertEqual(decode_line(b'{"id":1,"result":{"a":' + inner + b'}}')["id"], 1)
        with self.assertRaises(ProtocolError):
            decode_line(b'{"id":1,"result":{"a":[' + inner + b']}}')
        brackets_in_strings = b'{"id":1,"result":{"s":"' + b"[{" * 500 + b'\\"' + b'"}}'
        self.assertEqual(decode_line(brackets_in_strings)["id"], 1)

    def test_well_formed_oddities_are_accepted(self) -> None:
        for line in [b'{"id":null,"error":{"code":-32700,"name":"ParseError","message":"m"}}', b'{"id":"s","result":{}}',
                     b'{"id":1.0,"result":{}}', b'{"event":"x","seq":2.0,"params":{},"extra":[1]}', b'{"id":1,"result":{}} ']:
            decode_line(line)


class Depth(unittest.TestCase):
    """The nesting check without recursion agrees with the nesting of the parsed value, around
    the limit, with brackets, quotes and backslashes inside strings and keys (which it must
    not count) and values side by side."""

    def test_agrees_with_the_parsed_depth(self) -> None:
        rng = random.Random(37)
        texts = ["a[", "]}", '\\"[', "x", '"', "{{", "", "\\", "]", "[]", '"]"']

        def leaf() -> Any:
            return rng.choice([1, None, *texts])

        def chain(levels: int) -> Any:
            value = leaf()
            for _ in range(levels):
                if rng.random() < 0.5:
                    value = [leaf(), value] if rng.random() < 0.5 else [value, leaf()]
                else:
                    value = {rng.choice(texts) + "k": leaf(), rng.choice(texts) + "v": value}
            return value

        def depth(value: Any) -> int:
            deepest, stack = 0, [(value, 0)]
            while stack:
                item, level = stack.pop()
                children = item if isinstance(item, list) else list(item.values()) if isinstance(item, dict) else None
                if children is not None:
                    deepest = max(deepest, level + 1)
                    stack.extend((child, level + 1) for child in children)
            return deepest

        for case in range(600):
            value = [chain(rng.randrange(MAX_DEPTH - 30, MAX_DEPTH + 10)) for _ in range(rng.randrange(1, 4))]
            line = json.dumps(value).encode()
            self.assertEqual(_too_deep(line), depth(value) > MAX_DEPTH, "case %d: %r" % (case, line[:300]))


class Replies(unittest.TestCase):
    def test_a_reply_goes_to_its_caller_and_its_entry_then_goes(self) -> None:
        core = Core()
        first, second = core.request_id(), core.request_id()
        self.assertEqual((first, second), (1, 2))
        core.expect(first)
        core.expect(second)
        core.handle_line(line({"id": 2, "result": {"b": 1}}))
        self.assertIsNone(core.take(first))
        core.handle_line(line({"id": 1, "result": {"a": 1}}))
        self.assertEqual(core.take(first), {"id": 1, "result": {"a": 1}})
        self.assertEqual(core.take(second), {"id": 2, "result": {"b": 1}})
        self.assertFalse(core.waits_for(first) or core.waits_for(second))
        self.assertEqual(core.stray_count, 0)

    def test_a_repeated_id_is_answered_in_request_order(self) -> None:
        core = Core()
        core.expect("same")
        core.expect("same")
        core.handle_line(line({"id": "same", "result": {"n": 1}}))
        core.handle_line(line({"id": "same", "result": {"n": 2}}))
        self.assertEqual([core.take("same"), core.take("same")], [{"id": "same", "result": {"n": 1}},
                                                                 {"id": "same", "result": {"n": 2}}])
        self.assertFalse(core.waits_for("same"))

    def test_callbacks_hear_the_reply_or_the_end(self) -> None:
        core = Core()
        heard: List[Optional[JSONObject]] = []
        core.expect(1, heard.append)
        core.expect(2, heard.append)
        core.handle_line(line({"id": 1, "result": {}}))
        self.assertEqual(heard, [{"id": 1, "result": {}}])
        self.assertFalse(core.waits_for(1))
        core.end()
        self.assertEqual(heard, [{"id": 1, "result": {}}, None])
        self.assertTrue(core.ended)

    def test_strays_are_counted_and_only_the_latest_kept(self) -> None:
        core = Core()
        pending = core.expect(7)
        core.cancel(pending)  # its caller gave up: the reply is stray
        core.handle_line(line({"id": 7, "result": {}}))
        for n in range(100):
            core.handle_line(line({"id": None, "error": {"code": -32700, "name": "ParseError", "message": "m%d" % n}}))
        self.assertEqual(core.stray_count, 101)
        self.assertEqual(len(core.stray), Core.STRAY_KEPT)
        self.assertEqual(core.stray[-1]["error"]["message"], "m99")
        self.assertIsNone(core.connection_error)  # a ParseError answers a line
        self.assertEqual(core._expected, {})

    def test_connection_level_errors(self) -> None:
        for name, closes in (("LineTooLong", True), ("IdleTimeout", True), ("LimitExceeded", True), ("SomethingNew", True),
                             ("ParseError", False), ("InvalidRequest", False)):
            core = Core()
            core.handle_line(line({"id": None, "error": {"code": -32000, "name": name, "message": "m"}}))
            self.assertEqual(core.connection_error is not None, closes, name)
            if closes:
                assert core.connection_error is not None
                self.assertEqual(core.connection_error.name, name)

    def test_next_request_id_is_used_once(self) -> None:
        core = Core()
        core.next_request_id = "mine"
        self.assertEqual([core.request_id(), core.request_id(), core.request_id(9)], ["mine", 1, 9])


class LargeChanges(unittest.TestCase):
    def test_a_change_too_large_to_list_reads_as_counts_not_as_nothing(self) -> None:
        value = invalidation("v", 1)
        value["changes"] = {k: [] for k in ("insertedItems", "deletedItems", "movedItems", "reloadedItems",
                                            "insertedSections", "deletedSections", "movedSections", "reloadedSections")}
        value["omittedIDs"] = {"invalidated": 1000000, "insertedItems": 1000000, "deletedItems": 0, "movedItems": 0,
                               "reloadedItems": 0, "insertedSections": 1, "deletedSections": 0, "movedSections": 0,
                               "reloadedSections": 0}
        change = Invalidation.from_json(value)
        self.assertEqual(change.omitted_ids and change.omitted_ids["insertedItems"], 1000000)
        self.assertEqual(change.changes and change.changes["insertedItems"], [])
        self.assertIsNone(Invalidation.from_json(invalidation("v", 1)).omitted_ids, "a listed change has none")


class Events(unittest.TestCase):
    def test_routing_and_seq(self) -> None:
        core = Core()
        wide: List[Event] = []
        core.on_event = wide.append
        a, b = Recorder("v", 1), Recorder("w", 2)
        core.register(a)
        core.register(b)
        core.handle_line(line({"event": "view.invalidated", "subscription": 1, "seq": 1, "params": invalidation("v", 1)}))
        core.handle_line(line({"event": "view.deleted", "subscription": 2, "seq": 2, "params": {"view": "w"}}))
        core.handle_line(line({"event": "view.invalidated", "subscription": 9, "seq": 3, "params": invalidation("x", 1)}))
        self.assertFalse(core.gap)
        core.handle_line(line({"event": "daemon.shutdown", "seq": 5, "params": {"deadline": 5}}))
        self.assertTrue(core.gap)
        self.assertEqual(core.last_seq, 5)
        self.assertEqual(core.shutdown, {"deadline": 5})
        self.assertEqual([e.name for e in a.events], ["view.invalidated", "daemon.shutdown"])
        self.assertEqual([e.name for e in b.events], ["view.deleted", "daemon.shutdown"])
        self.assertEqual([e.name for e in wide], ["daemon.shutdown"])
        self.assertEqual(core.unrouted_events, 1)
        self.assertTrue(b._take(b.events[0]))
        self.assertTrue(b.ended and b.mirror.deleted)
        self.assertNotIn(2, core.subscriptions)
        core.end()
        self.assertEqual((a.ends, b.ends), (1, 0))

    def test_own_reply_applies_to_the_mirror_when_it_is_the_next_epoch(self) -> None:
        core = Core()
        subscription = Recorder("v", 1)
        core.register(subscription)
        core.expect(1)
        core.handle_line(line({"id": 1, "result": invalidation("v", 1, dry_run=True)}))
        self.assertEqual(subscription.mirror.epoch, 0)  # a dry run changes nothing
        core.handle_line(line({"id": 2, "result": invalidation("v", 3)}))
        self.assertEqual(subscription.mirror.epoch, 0)  # not the next epoch: the event will say
        core.handle_line(line({"id": 3, "result": invalidation("v", 1)}))
        self.assertEqual(subscription.mirror.epoch, 1)
        self.assertIn(("cell", "e1"), subscription.mirror)
        event = Event.from_json({"event": "view.invalidated", "subscription": 1, "seq": 1, "params": invalidation("v", 1)})
        self.assertTrue(subscription._take(event))  # its event is then a no-op
        self.assertEqual(subscription.mirror.epoch, 1)

    def test_restart_replaces_what_was_not_taken(self) -> None:
        subscription = Recorder("v", 1)
        subscription._deliver(Event("view.invalidated", 1, invalidation("v", 1), 1))
        subscription._restart({"subscription": 4, "snapshot": snapshot("v", 7)})
        self.assertEqual(subscription.id, 4)
        self.assertEqual([e.name for e in subscription.events], ["view.resync"])
        subscription._take(subscription.events[0])
        self.assertEqual(subscription.mirror.epoch, 7)


if __name__ == "__main__":
    unittest.main()
