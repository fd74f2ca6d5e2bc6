#!/usr/bin/env python3
"""Bounded soak test for layoutd: many well-behaved clients and every kind of hostile client
against one daemon for a fixed time, then strict checks, then an exact replay.

Why: the e2e tests exercise one behaviour at a time; a daemon serving many clients for a long
time fails differently (reply order under pipelining and contention, events lost under
coalescing, drifting state, growing memory, a stuck connection). Every check can fail: the
well-behaved clients accept only the errors a concurrent world explains, and every mutation of
a shared view is logged so that a fresh daemon replaying the log must reach identical state.

    soak.py [--seconds N] [--clients N] [--views N] [--seed N] [--daemon PATH]
            [--report FILE] [--max-rss-mib N]

Importable: run(seconds, clients, views, ...) -> report dict. Standard library only.
"""
import argparse
import collections
import hashlib
import itertools
import json
import os
import random
import re
import select
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
import harness  # noqa: E402  (Daemon: one layoutd on a temporary socket)
import layoutd  # noqa: E402  (the Python client: every connection here is its)

STRATEGIES = ("flow", "collapsible", "ultravisual", "display")
# The methods whose success moves their view's epoch (daemon.describe's `mutates`, limited to
# those named by a `view` parameter), read from the daemon at setup (`Soak.phases`).
MUTATIONS = frozenset()
# Mutations the driver sends with animated: true now and then (the rest are immediate).
ANIMATED = frozenset()
# Per method, the errors it may answer with (daemon.describe: its own and the request-level ones).
REQUEST_ERRORS = frozenset()
DECLARED_ERRORS = {}
NOT_ANIMATED = frozenset(("view.scroll", "view.scrollEnd", "view.setWindowMargin"))
MAX_LINE = 65536
SETTINGS = ("partial-line-timeout=1", "write-stall-timeout=2", "output-cap=262144", "max-line-length=%d" % MAX_LINE)
HANG = 30.0  # seconds without an expected reply, event or close: the daemon hangs
THINK = 0.4  # mean seconds a well-behaved client waits (reading events) between batches
LOG_ALARMS = ("Fatal error", "fatal", "Assertion", "Segmentation")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def dumps(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def tail_digest(line, key):
    """Digest of the object after `key` in a reply or event line: the daemon writes keys in a
    fixed order, so an event's params and the reply's result compare byte for byte."""
    index = line.find(key)
    return hashlib.blake2b(line[index + len(key):-1] if index >= 0 else line, digest_size=12).digest()


def replay_digest(method, line, result):
    """What a replayed reply must equal: the same bytes, except that view.select lists newly
    deselected ids "in no particular order" (mutations.md), so there the list is sorted."""
    if method != "view.select":
        return tail_digest(line, b',"result":')
    context = dict(result["context"], invalidated=sorted(result["context"]["invalidated"]))
    return hashlib.blake2b(dumps(dict(result, context=context)).encode(), digest_size=12).digest()


def flatten(value, path="$"):
    if isinstance(value, (dict, list)):
        for key, item in (value.items() if isinstance(value, dict) else enumerate(value)):
            yield from flatten(item, "%s.%s" % (path, key) if isinstance(value, dict) else "%s[%d]" % (path, key))
    else:
        yield path, dumps(value)


def first_difference(a, b):
    """The first leaf (path and value) where two JSON values differ, or None."""
    for x, y in itertools.zip_longest(flatten(a), flatten(b)):
        if x != y:
            return "%s != %s" % ("%s = %s" % x if x else "nothing", "%s = %s" % y if y else "nothing")
    return None


# --- random realistic content --------------------------------------------------------------

def rsize(rng, low=30, high=160):
    return {"width": rng.randint(low, high), "height": rng.randint(low, high)}


def ritem(rng, iid):
    item, roll = {"id": iid}, rng.random()
    if roll < 0.5:
        item["size"] = rsize(rng)
    elif roll < 0.7:
        item["estimatedSize"] = rsize(rng)
    if rng.random() < 0.15:
        item["selectedSize"] = rsize(rng, 100, 240)
    return item


def rviewport(rng):
    viewport = {"width": rng.choice([320, 375, 390, 414, 768]), "height": rng.choice([568, 667, 844, 1024])}
    if rng.random() < 0.3:
        viewport["contentInsets"] = {"top": rng.choice([0, 20, 44]), "bottom": rng.choice([0, 34])}
    return viewport


def rparams(rng, strategy, partial=False):
    """Valid parameters for `strategy`; `partial`: a few of them, as view.configure sends."""
    gap = lambda: rng.choice([0, 4, 8, 10, 12.5])  # noqa: E731
    pick = rng.choice
    if strategy == "flow":
        params = {"itemSize": rsize(rng, 40, 150), "minimumInteritemSpacing": gap(), "minimumLineSpacing": gap(),
                  "sectionInset": {"top": gap(), "left": gap()}, "estimatedItemSize": pick([None, rsize(rng, 40, 120)]),
                  "headerReferenceSize": {"width": 0, "height": pick([0, 30, 44])},
                  "footerReferenceSize": {"width": 0, "height": pick([0, 20])},
                  "scrollDirection": pick(["vertical"] * 4 + ["horizontal"]), "sectionHeadersPinToVisibleBounds": rng.random() < 0.3,
                  "lastLineAlignment": pick(["automatic", "gridAligned", "leading", "centered", "justified"]),
                  "spacingMode": pick(["justified", "fixed"]), "lineAlignment": pick(["leading", "center", "trailing"]),
                  "itemAlignment": pick(["automatic", "start", "center", "end"])}
    elif strategy == "collapsible":
        params = {"itemSize": rsize(rng, 40, 120), "itemSpacing": gap(), "rowSpacing": gap(), "sectionSpacing": gap(),
                  "collapsed": rng.random() < 0.4, "transition": pick(["basic", "preStack"]), "animationDuration": pick([0, 0.25, 1])}
    elif strategy == "display":
        params = {"mode": pick(["grid", "list", "inline"]), "columns": rng.randint(1, 6), "rowHeight": pick([44, 80, 130]),
                  "inlineWidthFraction": pick([0.5, 0.9, 1.2]), "inlineHeight": pick([150, 300]), "interitemSpacing": gap(),
                  "lineSpacing": gap(), "animationDuration": pick([0, 0.3, 0.6])}
    else:
        standard = pick([60, 80, 100, 120])
        params = {"standardHeight": standard, "featuredHeight": standard + pick([60, 120, 180]),
                  "maximumCoverAlpha": pick([0.5, 0.75, 1]), "minimumCoverAlpha": pick([0, 0.3]),
                  "minimumTitleScale": pick([0, 0.5, 1]), "snapping": rng.random() < 0.7}
    if partial:
        keys = rng.sample(sorted(params), rng.randint(1, 3))
        if "standardHeight" in keys or "featuredHeight" in keys:  # checked together: send both
            keys += [k for k in ("standardHeight", "featuredHeight") if k not in keys]
        params = {k: params[k] for k in keys}
    return params


def shared_view_params(rng, index):
    """view.create params of shared view `index`: 2-5 sections, 50-400 items, varied sizes."""
    strategy, total, count = STRATEGIES[index % len(STRATEGIES)], rng.randint(50, 400), rng.randint(2, 5)
    cuts = sorted(rng.sample(range(1, total), count - 1))
    sections = [{"id": "s%d" % n, "items": [ritem(rng, "v%d-i%d" % (index, i)) for i in range(a, b)]}
                for n, (a, b) in enumerate(zip([0] + cuts, cuts + [total]))]
    return {"view": "shared-%02d" % index, "strategy": strategy, "params": rparams(rng, strategy),
            "viewport": rviewport(rng), "windowMargin": rng.choice([0, 50, 200]), "sections": sections}


# --- connections and events -----------------------------------------------------------------

class Conn:
    """One connection of the soak: the layoutd package's Client (its socket, line framing and
    reads; timeouts, never busy-loops) used for raw lines, since the soak checks every byte
    itself. The socket is made here so that a small receive buffer is set before connect."""

    def __init__(self, path, timeout=HANG, rcvbuf=None):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if rcvbuf:  # before connect, so the window stays small
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            sock.settimeout(timeout)
            sock.connect(path)
        except OSError:
            sock.close()
            raise
        self.client = layoutd.Client(path, timeout=timeout, sock=sock)
        self.sock = sock

    def send(self, data):
        """Raw bytes: a closed connection raises BrokenPipeError (or a reset) as the socket does."""
        self.sock.sendall(data)

    def line(self, timeout=-1.0):
        """The next line without its newline; None at end of stream (a partial tail is dropped).
        `timeout` in seconds, by default the connection's (HANG)."""
        return self.client.read_line(timeout)

    def call(self, request):
        self.send(dumps(request).encode() + b"\n")
        line = self.line()
        if line is None:
            raise AssertionError("closed before the reply to %s" % request["method"])
        return json.loads(line)

    def close(self, reset=False):
        try:
            if reset:  # SO_LINGER 0: the close sends a reset, not an end of stream
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
            self.client.close()
        except OSError:
            pass


class Sub:
    __slots__ = ("view", "epoch", "shared", "owed", "late", "expect_deleted")

    def __init__(self, view, epoch, shared=True):
        self.view, self.epoch, self.shared = view, epoch, shared
        self.owed = self.late = 0
        self.expect_deleted = False


class EventChecker:
    """One connection's events: `seq` is 1, 2, 3, ... across all of them; per subscription,
    view.invalidated epochs go up by exactly 1 and view.resync resets to its snapshot's epoch.
    Digests of shared-view invalidations are kept to compare with the mutating replies."""

    def __init__(self, soak, where):
        self.soak, self.where = soak, where
        self.seq = self.events = self.resyncs = self.gaps = self.unknown = 0
        self.subs, self.ended, self.digests = {}, set(), {}

    def feed(self, line, msg):
        self.events += 1
        seq, name, sid = msg.get("seq"), msg.get("event"), msg.get("subscription")
        if seq != self.seq + 1:
            self.gaps += 1
            self.soak.fail("%s: event seq %r after %d" % (self.where, seq, self.seq))
        self.seq = seq if isinstance(seq, int) else self.seq + 1
        if name not in ("view.invalidated", "view.resync", "view.deleted"):
            self.unknown += name != "daemon.shutdown"  # unknown events are ignored, not errors
            if name == "daemon.shutdown":
                self.soak.fail("%s: daemon.shutdown during the soak" % self.where)
            return
        sub, params = self.subs.get(sid), msg["params"]
        if sub is None:
            self.soak.fail("%s: %s (epoch %s) for subscription %r %s" % (
                self.where, name, params.get("epoch"), sid,
                "after its view.unsubscribe reply" if sid in self.ended else "that this connection does not hold"))
        elif name == "view.invalidated":
            if params["epoch"] != sub.epoch + 1:
                self.soak.fail("%s: subscription %d on %s: epoch %d after %d" % (self.where, sid, sub.view, params["epoch"], sub.epoch))
            sub.epoch = params["epoch"]
            if sub.shared:
                self.digests[(sub.view, sub.epoch)] = tail_digest(line, b',"params":')
        elif name == "view.resync":
            self.resyncs += 1
            if params["snapshot"]["epoch"] < sub.epoch or params["view"] != sub.view:
                self.soak.fail("%s: resync of %s to epoch %d after %d" % (self.where, params["view"], params["snapshot"]["epoch"], sub.epoch))
            sub.epoch = params["snapshot"]["epoch"]
            if sub.late and sub.epoch >= sub.late:
                sub.late = 0  # the own event was coalesced into this resync
        else:
            del self.subs[sid]
            if not sub.expect_deleted:
                self.soak.fail("%s: unexpected view.deleted for %s" % (self.where, sub.view))


def read_events(conn, checker, seconds, done=lambda: False):
    """Reads events for up to `seconds` or until done(); False at end of stream. A reply
    here (no request outstanding) is a failure."""
    deadline = time.monotonic() + seconds
    try:
        while not done() and time.monotonic() < deadline:
            try:
                line = conn.line(max(0.001, min(0.2, deadline - time.monotonic())))
            except socket.timeout:
                continue
            except ConnectionResetError:
                return False
            if line is None:
                return False
            msg = json.loads(line)
            if "event" not in msg:
                raise AssertionError("a reply with no request outstanding: %s" % line[:200])
            checker.feed(line, msg)
        return True
    finally:
        conn.sock.settimeout(HANG)  # for the sends that follow


class Request:
    """One request of a batch. `expect`: an invalid request's acceptable error names;
    `allowed`: the errors concurrency explains for a valid one; `hook(result)`: False fails."""
    __slots__ = ("id", "method", "params", "view", "shared", "expect", "allowed", "hook", "notify", "pj", "cover")

    def __init__(self, method, params=None, view=None, shared=False, expect=None, allowed=(), hook=None, notify=False):
        self.method, self.params, self.view, self.shared, self.hook = method, params, view, shared, hook
        self.expect, self.allowed, self.notify, self.id, self.pj, self.cover = expect, allowed, notify, None, None, False


class ViewModel:
    """The driver's approximate picture of one shared view, fed by every successful reply.

    Replies from different clients are processed in no particular order, so each fact carries
    the epoch it came from and only newer facts win; ids are never reused, so a deleted id stays
    dead. It only serves to make realistic requests: a stale picture costs a counted
    concurrency error, never a false failure. Section ids never change on shared views."""

    def __init__(self, params, snapshot):
        self.lock, self.sections = threading.Lock(), [s["id"] for s in params["sections"]]
        self.loc, self.ids, self.index, self.dead = {}, [], {}, set()
        self.counts = collections.Counter()
        self.strategy, self.content = (params["strategy"], 0), (snapshot["contentSize"], 0)
        self.viewport = ((snapshot["viewport"]["width"], snapshot["viewport"]["height"]), 0)
        for section in params["sections"]:
            for item in section["items"]:
                self._place(item["id"], section["id"], 0)

    def _place(self, iid, section, epoch):
        old = self.loc.get(iid)
        if iid in self.dead or (old and old[1] >= epoch):
            return
        if old:
            self.counts[old[0]] -= 1
        else:
            self.index[iid] = len(self.ids)
            self.ids.append(iid)
        self.loc[iid] = (section, epoch)
        self.counts[section] += 1

    def _kill(self, iid):
        self.dead.add(iid)
        old = self.loc.pop(iid, None)
        if old:
            self.counts[old[0]] -= 1
            position, last = self.index.pop(iid), self.ids.pop()
            if last != iid:
                self.ids[position], self.index[last] = last, position

    def pick(self, rng, count):
        with self.lock:
            return rng.sample(self.ids, min(count, len(self.ids)))

    def state(self):
        with self.lock:
            return self.strategy[0], self.content[0], self.viewport[0], len(self.ids), dict(self.counts)

    def apply(self, method, params, result, epoch):
        with self.lock:
            if "contentSize" in result and epoch > self.content[1]:
                self.content = (result["contentSize"], epoch)
            placed = []
            if method == "view.setData":
                placed = [(i["id"], s["id"]) for s in params["sections"] for i in s["items"]]
            elif method == "view.update":
                for op in params["updates"]:
                    if op["op"] == "insertItems":
                        placed += [(i["id"], op["section"]) for i in op["items"]]
                    elif op["op"] == "moveItem":
                        placed.append((op["id"], op["section"]))
                    elif op["op"] == "reloadSections":
                        placed += [(i["id"], s["id"]) for s in op["sections"] for i in s["items"]]
            elif method in ("view.setStrategy", "view.get") and epoch > self.strategy[1]:
                self.strategy = (params["strategy"] if params else result["strategy"], epoch)
            if method in ("view.resize", "view.get") and epoch > self.viewport[1]:
                size = params["size"] if params else result["viewport"]
                self.viewport = ((size["width"], size["height"]), epoch)
            for iid, section in placed:
                self._place(iid, section, epoch)
            for iid in result.get("changes", {}).get("deletedItems", ()):
                self._kill(iid)


# --- well-behaved clients -------------------------------------------------------------------

class WellBehavedClient(threading.Thread):
    """One ordinary application on its own connection: pipelines 1-8 realistic requests, then
    reads every reply, checking it comes in request order with its id; checks its events;
    accepts only the errors a request deserves (invalid ones) or concurrency explains."""

    WEIGHTS = {"view.scroll": 12, "view.query": 8, "view.get": 4, "view.item": 6, "view.select": 6, "view.measure": 5,
               "view.update": 10, "view.setData": 0.6, "view.resize": 3, "view.configure": 3, "view.setStrategy": 0.8,
               "view.setWindowMargin": 2, "view.scrollEnd": 5,
               "view.scrollSection": 1, "view.scrollSectionEnd": 1, "view.list": 2, "daemon.sync": 3, "daemon.status": 2,
               "daemon.hello": 1, "strategy.list": 1, "daemon.describe": 0.03, "daemon.reload": 0.1,
               "view.scrollTo": 2, "view.setAnchor": 0.5, "view.setLayoutDirection": 0.3, "view.hitTest": 3, "view.neighbor": 3,
               "view.selection": 2,
               # Drawn, each brings a whole interactive transition on a private view (transition_batch).
               "view.beginTransition": 0.3, "view.updateTransition": 0.3, "view.endTransition": 0.3,
               "view.beginMove": 0.6, "view.updateMove": 2, "view.endMove": 0.6}
    GESTURES = frozenset(("view.beginTransition", "view.updateTransition", "view.endTransition"))
    MOVES = ("view.beginMove", "view.updateMove", "view.endMove")

    def __init__(self, soak, number):
        super().__init__(name="client-%d" % number, daemon=True)
        self.soak, self.number, self.rng = soak, number, random.Random(soak.seed * 1000003 + number)
        self.home, self.subscriber = soak.view_names[number % len(soak.view_names)], number % 4 == 0
        self.coverage, self.log, self.latencies, self.last_epoch = [], [], [], {}
        self.calls, self.ok, self.concurrent, self.counts = (collections.Counter() for _ in range(4))
        self.next_id = self.fresh = self.scratch_serial = 0
        self.scratch_epoch = self.conn = None
        self.events = EventChecker(soak, self.name)
        self.methods = list(self.WEIGHTS)
        self.cum = [sum(list(self.WEIGHTS.values())[:n + 1]) for n in range(len(self.WEIGHTS))]

    def run(self):
        healthy = False
        try:
            self.conn = Conn(self.soak.path)
            if self.subscriber:
                self.exchange([self.subscribe(self.home)])
            while time.monotonic() < self.soak.deadline:
                self.exchange(self.plan())
                # Think time, as an application has, still reading events: the daemon drops a
                # reader that makes no progress for 2 s, and a saturated driver starves threads.
                read_events(self.conn, self.events, self.rng.uniform(0, 2 * THINK))
            healthy = True
        except Exception as error:  # noqa: BLE001 - any escape is a soak failure
            self.soak.fail("%s: %s: %s" % (self.name, type(error).__name__, error))
        try:
            self.soak.arrive()
            if healthy:  # keep reading while the others finish: a stalled reader would be dropped
                read_events(self.conn, self.events, 2 * HANG, self.soak.all_done.is_set)
                self.finish()
        except Exception as error:  # noqa: BLE001
            self.soak.fail("%s: at the end: %s: %s" % (self.name, type(error).__name__, error))
        if self.conn:
            self.conn.close()

    def plan(self):
        """The next batch: first this client's share of method coverage, then random."""
        rng = self.rng
        if self.coverage:
            return self.for_method(self.coverage.pop())
        roll = rng.random()
        if roll < 0.025:
            return self.scratch_batch() if roll < 0.008 else self.staged_batch() if roll < 0.01 else self.churn_batch()
        batch = []
        for _ in range(rng.randint(1, 8)):
            method = rng.choices(self.methods, cum_weights=self.cum)[0]
            batch += [self.invalid()] if rng.random() < 0.1 else self.transition_batch() if method in self.GESTURES else [self.valid(method)]
        if rng.random() < 0.03:  # a notification: carried out, never answered
            batch.insert(rng.randint(0, len(batch)), Request("daemon.sync", notify=True))
        return batch

    def for_method(self, method):
        if method in ("view.create", "view.delete"):
            return self.scratch_batch()
        if method.startswith("view.stage."):
            return self.staged_batch()
        if method in ("view.export", "view.import"):
            return self.export_batch()
        if method in ("view.subscribe", "view.unsubscribe"):
            if method == "view.unsubscribe" and not self.shared_subs():
                self.coverage.append(method)  # next batch, once we hold one
            return self.churn_batch()
        if method not in self.WEIGHTS:
            # A read that needs at most a view goes as it is, with a view every client shares
            # (it must succeed); a change needs a request of its own here, to keep the models.
            described = self.soak.described[method]
            required = {p["name"] for p in described["params"] if p["required"]}
            if described["mutates"] or not required <= {"view"}:
                self.soak.fail("the driver does not know method %s (from daemon.describe)" % method)
                return [Request("daemon.sync")]
            request = Request(method, {"view": self.home} if "view" in required else None)
            request.cover = True
            return [request]
        if method in self.GESTURES:
            return self.transition_batch()
        if method in self.MOVES:
            # A whole drag on one view, so the covered step finds a move in force (its own, or
            # another client's: views are shared).
            view = self.home
            batch = [self.move_request(name, view) for name in self.MOVES]
            batch[self.MOVES.index(method)].cover = True
            return batch
        request = self.valid(method)
        request.cover = True  # retried until it succeeds once
        return [request]

    def exchange(self, batch):
        lines = []
        for req in batch:
            req.pj = dumps(req.params) if req.params is not None else None
            head = '{"method":"%s"' % req.method
            if not req.notify:
                self.next_id += 1
                req.id = self.next_id if self.next_id % 5 else "c%d-%d" % (self.number, self.next_id)
                head = '{"id":%s,"method":"%s"' % (dumps(req.id), req.method)
            if self.rng.random() < 0.02:
                head += ',"jsonrpc":"2.0"'
            lines.append(head + (',"params":%s}' % req.pj if req.pj is not None else "}"))
        started = time.monotonic()
        self.conn.send(("\n".join(lines) + "\n").encode())
        self.counts["requests"] += len(batch)
        for req in batch:
            if not req.notify:
                self.check(req, *self.next_reply())
        self.latencies.append(time.monotonic() - started)

    def next_reply(self):
        while True:
            try:
                line = self.conn.line()
            except socket.timeout:
                raise AssertionError("no reply within %.0f s (hang)" % HANG)
            if line is None:
                raise AssertionError("the daemon closed the connection")
            msg = json.loads(line)
            if "event" in msg:
                self.events.feed(line, msg)
                continue
            for sub in self.events.subs.values():  # a request's own events precede the next reply
                if sub.owed > sub.epoch:
                    sub.late = max(sub.late, sub.owed)
                if sub.expect_deleted:
                    self.soak.fail("%s: view.deleted of %s did not precede the next reply" % (self.name, sub.view))
                    sub.expect_deleted = False
                sub.owed = 0
            return line, msg

    def check(self, req, line, msg):
        if msg.get("id") != req.id or ("result" in msg) == ("error" in msg):
            raise AssertionError("reply out of order or malformed: wanted id %r (%s), got %s" % (req.id, req.method, line[:200]))
        self.counts["replies"] += 1
        self.calls[req.method] += 1
        if "result" in msg:
            self.ok[req.method] += 1
            if req.expect is not None:
                self.soak.fail("%s: invalid %s succeeded (wanted %s): %s" % (self.name, req.method, sorted(req.expect), req.pj[:200]))
            if req.method in MUTATIONS:
                self.mutated(req, line, msg["result"])
            if req.hook and req.hook(msg["result"]) is False:
                self.soak.fail("%s: unexpected result of %s %s: %s" % (self.name, req.method, (req.pj or "")[:100], line[:200]))
            return
        name = msg["error"].get("name")
        if name not in DECLARED_ERRORS.get(req.method, REQUEST_ERRORS):
            self.soak.fail("%s: %s answered %s, which protocol/interface.json does not declare for it: %s" % (
                self.name, req.method, name, (req.pj or "")[:200]))
        if req.expect is not None:
            if name not in req.expect:
                self.soak.fail("%s: invalid %s got %s, wanted %s: %s" % (self.name, req.method, name, sorted(req.expect), (req.pj or "")[:200]))
            self.counts["errors_expected"] += 1
        elif name in req.allowed:
            self.concurrent[name] += 1
            if req.cover:
                self.coverage.append(req.method)
        else:
            self.soak.fail("%s: %s failed with %s: %s (params %s)" % (self.name, req.method, name, msg["error"].get("message"), (req.pj or "")[:300]))

    def saw_epoch(self, view, epoch, strictly=False):
        """On one connection, a view's epoch never goes back (requests run in order)."""
        last = self.last_epoch.get(view, -1)
        if epoch < last or (strictly and epoch == last):
            self.soak.fail("%s: %s went from epoch %d to %d on one connection" % (self.name, view, last, epoch))
        self.last_epoch[view] = max(epoch, last)

    def mutated(self, req, line, result):
        epoch = result["epoch"]
        if result.get("view") != req.view:
            self.soak.fail("%s: %s reply names view %r, not %r" % (self.name, req.method, result.get("view"), req.view))
        self.saw_epoch(req.view, epoch, strictly=True)
        if req.shared:
            self.log.append((req.view, epoch, req.method, req.pj, tail_digest(line, b',"result":'), replay_digest(req.method, line, result)))
            self.soak.models[req.view].apply(req.method, req.params, result, epoch)
        elif self.scratch_epoch is not None:  # a private view: epochs exactly 1, 2, 3, ...
            if epoch != self.scratch_epoch + 1:
                self.soak.fail("%s: scratch %s epoch %d after %d" % (self.name, req.view, epoch, self.scratch_epoch))
            self.scratch_epoch = epoch
        for sub in self.events.subs.values():
            if sub.view == req.view and sub.epoch < epoch:
                sub.owed = max(sub.owed, epoch)

    # -- subscriptions --
    def shared_subs(self):
        return [sid for sid, sub in self.events.subs.items() if sub.shared]

    def subscribe(self, view, shared=True):
        def hook(result):
            self.saw_epoch(view, result["snapshot"]["epoch"])
            self.events.subs[result["subscription"]] = Sub(view, result["snapshot"]["epoch"], shared)
        return Request("view.subscribe", {"view": view}, hook=hook)

    def unsubscribe(self, sid):
        def hook(result):
            self.events.subs.pop(sid, None)
            self.events.ended.add(sid)
        return Request("view.unsubscribe", {"subscription": sid}, hook=hook)

    def churn_batch(self):
        """Subscriber clients move their subscription to another view; others toggle one."""
        held = self.shared_subs()
        batch = [self.unsubscribe(sid) for sid in held]
        if self.subscriber or not held:
            batch.append(self.subscribe(self.home if self.rng.random() < 0.5 else self.rng.choice(self.soak.view_names)))
        return batch

    # -- valid requests --
    def mutation(self, method, view, params, allowed=()):
        if self.rng.random() < 0.2 and method in ANIMATED:
            params["animated"] = True
        if self.rng.random() < 0.05 and view in self.last_epoch:  # optimistic concurrency
            params["ifEpoch"] = self.last_epoch[view]
            allowed = tuple(allowed) + ("StaleEpoch",)
        return Request(method, dict(params, view=view), view=view, shared=True, allowed=frozenset(allowed))

    def point(self, model):
        _, content, viewport, _, _ = model.state()
        return {"x": round(self.rng.uniform(0, max(0, content["width"] - viewport[0])), 1),
                "y": round(self.rng.uniform(-20, max(0, content["height"] - viewport[1])), 1)}

    def fresh_id(self):
        self.fresh += 1
        return "c%d-n%d" % (self.number, self.fresh)

    def valid(self, method):
        """A realistic request: offsets and rects inside the content, existing ids, fresh ids
        for new items, parameters valid for the view's (last known) strategy. The interactive
        transition methods (`GESTURES`) have none of their own here: `plan` and `for_method`
        send each as a whole `transition_batch` on a private view."""
        assert method not in self.GESTURES, "interactive transitions run as transition_batch"
        rng = self.rng
        view = self.home if rng.random() < 0.7 else rng.choice(self.soak.view_names)
        model = self.soak.models[view]
        if method == "view.scroll":
            params = {"offset": self.point(model)}
            if rng.random() < 0.3:  # a finger's velocity: the reply names prefetch
                params["velocity"] = {"x": 0, "y": rng.choice([-3000, -400, 0, 800, 5000])}
            return self.mutation(method, view, params)
        if method == "view.scrollTo":
            iid = (model.pick(rng, 1) or ["none"])[0]
            params = {"id": iid, "align": rng.choice(["start", "center", "end", "nearest"]), "offset": rng.choice([0, 0, 12.5, -8])}
            return self.mutation(method, view, params, ["ItemNotFound"])
        if method == "view.setAnchor":
            return self.mutation(method, view, {"anchor": rng.choice(["firstVisible", "firstVisible", "lastVisible", "end", "none"])})
        if method == "view.setLayoutDirection":
            return self.mutation(method, view, {"layoutDirection": rng.choice(["ltr", "ltr", "rtl"])})
        if method in self.MOVES:
            return self.move_request(method, view)
        if method == "view.hitTest":
            return Request(method, {"view": view, "point": self.point(model)}, hook=lambda r: "element" in r)
        if method == "view.neighbor":
            iid = (model.pick(rng, 1) or ["none"])[0]
            direction = rng.choice(["up", "down", "left", "right", "next", "previous"])
            return Request(method, {"view": view, "id": iid, "direction": direction}, hook=lambda r: "element" in r,
                           allowed=frozenset(["ItemNotFound"]))
        if method == "view.scrollEnd":
            return self.mutation(method, view, {"proposed": self.point(model), "velocity": {"x": 0, "y": rng.choice([-900, 0, 300, 2500])}})
        if method in ("view.scrollSection", "view.scrollSectionEnd"):
            # The soak's strategies have no orthogonal sections: every one is refused, and must
            # change nothing (the replay checks it).
            offset = {"offset": rng.choice([0, 40, 300])} if method == "view.scrollSection" else {"velocity": rng.choice([-900, 900])}
            return self.mutation(method, view, dict(offset, section=rng.choice(["s0", "s1", "nope"])), ["SectionNotOrthogonal", "SectionNotFound"])
        if method == "view.select":
            ids = model.pick(rng, rng.randint(1, 5))
            return self.mutation(method, view, {"ids": ids, "mode": rng.choice(["set", "add", "remove", "toggle"])}, ["ItemNotFound"])
        if method == "view.measure":
            return self.mutation(method, view, {"sizes": [{"id": i, "size": rsize(rng)} for i in model.pick(rng, rng.randint(1, 6))]}, ["ItemNotFound"])
        if method == "view.update":
            return self.mutation(method, view, {"updates": self.batch_updates(model)}, ["ItemNotFound", "IndexOutOfRange"])
        if method == "view.setData":
            sections, total = rng.sample(model.sections, len(model.sections)), rng.randint(50, 400)
            items = [ritem(rng, self.fresh_id()) for _ in range(total)]
            cuts = sorted(rng.sample(range(total + 1), len(sections) - 1))
            return self.mutation(method, view, {"sections": [{"id": s, "items": items[a:b]} for s, a, b in zip(sections, [0] + cuts, cuts + [total])]})
        if method == "view.resize":
            return self.mutation(method, view, {"size": {"width": rng.choice([320, 375, 414, 600, 768]), "height": rng.choice([500, 667, 900])}})
        if method == "view.configure":  # the strategy may change under us: UnknownParameter
            return self.mutation(method, view, {"params": rparams(rng, model.state()[0], partial=True)}, ["UnknownParameter"])
        if method == "view.setStrategy":
            strategy = rng.choice(STRATEGIES)
            return self.mutation(method, view, {"strategy": strategy, "params": rparams(rng, strategy, partial=rng.random() < 0.5)})
        if method == "view.setWindowMargin":
            return self.mutation(method, view, {"margin": rng.choice([0, 25, 100, 300.5])})
        if method == "view.query":
            corner = self.point(model)
            rect = {"x": corner["x"], "y": max(0, corner["y"]), "width": rng.randint(0, 800), "height": rng.randint(0, 1200)}
            return Request(method, {"view": view, "rect": rect})
        if method == "view.get":
            return Request(method, {"view": view}, hook=lambda r: [self.saw_epoch(view, r["epoch"]), model.apply(method, None, r, r["epoch"])])
        if method == "view.item":
            iid = (model.pick(rng, 1) or ["none"])[0]
            return Request(method, {"view": view, "id": iid}, hook=lambda r: r["attributes"]["id"] == iid, allowed=frozenset(["ItemNotFound"]))
        if method == "view.selection":
            # A page from a random item on: at most limit ids, of count; the item may be gone.
            params = {"view": view, "limit": rng.choice([1, 5, 100])}
            if rng.random() < 0.5:
                params["after"] = (model.pick(rng, 1) or ["none"])[0]
            return Request(method, params, allowed=frozenset(["ItemNotFound"]), hook=lambda r: [
                self.saw_epoch(view, r["epoch"]), len(r["ids"]) <= min(params["limit"], r["count"])][1])
        if method == "view.list":
            return Request(method, hook=lambda r: [self.saw_epoch(v["view"], v["epoch"]) for v in r["views"] if v["view"] in self.soak.models])
        if method == "daemon.hello":
            return Request(method, {"protocol": rng.choice([[1], [1, 2]])}, hook=lambda r: r["protocol"] == 1)
        if method == "strategy.list":
            # Every strategy the soak drives is listed (the daemon has more, such as compositional).
            return Request(method, hook=lambda r: set(STRATEGIES) <= {s["name"] for s in r["strategies"]})
        return Request(method)  # daemon.sync, daemon.status, daemon.describe, daemon.reload

    def move_request(self, method, view):
        """A drag's step on a shared view: another client may hold the move (MoveInProgress), or
        have ended it, or a change ended it (NoActiveMove); an item may be gone (ItemNotFound)."""
        rng, model = self.rng, self.soak.models[view]
        if method == "view.beginMove":
            iid = (model.pick(rng, 1) or ["none"])[0]
            return self.mutation(method, view, {"id": iid}, ["ItemNotFound", "MoveInProgress"])
        if method == "view.updateMove":
            _, _, viewport, _, _ = model.state()
            point = {"x": round(rng.uniform(-10, viewport[0] + 10), 1), "y": round(rng.uniform(-10, viewport[1] + 10), 1)}
            return self.mutation(method, view, {"point": point}, ["NoActiveMove"])
        return self.mutation(method, view, {"commit": rng.random() < 0.6}, ["NoActiveMove"])

    def batch_updates(self, model):
        """1-4 item operations naming each id once, at positions well inside their sections
        (only a concurrent change can put them out of range); rarely a section move or reload."""
        rng = self.rng
        count, counts = model.state()[3:]
        if rng.random() < 0.04:
            items = [ritem(rng, self.fresh_id()) for _ in range(rng.randint(5, 40))]
            return [{"op": "reloadSections", "sections": [{"id": rng.choice(model.sections), "items": items}]}]
        if rng.random() < 0.05:
            return [{"op": "moveSection", "id": rng.choice(model.sections), "at": rng.randrange(len(model.sections))}]
        ops, named = [], set()
        for _ in range(rng.randint(1, 4)):
            section, kind = rng.choice(model.sections), rng.random()
            at = rng.randint(0, max(0, (counts.get(section, 0) - 12) // 2))  # a batch names at most 12 ids
            if kind < (0.35 if count < 250 else 0.15):
                ops.append({"op": "insertItems", "section": section, "at": at, "items": [ritem(rng, self.fresh_id()) for _ in range(rng.randint(1, 5))]})
                continue
            ids = [i for i in model.pick(rng, rng.randint(1, 3)) if i not in named]
            named.update(ids)
            if not ids:
                continue
            if kind < 0.6:
                ops.append({"op": "deleteItems", "ids": ids})
            elif kind < 0.8:
                ops.append({"op": "moveItem", "id": ids[0], "section": section, "at": at})
            else:
                ops.append({"op": "reloadItems", "items": [ritem(rng, i) for i in ids]})
        return ops

    def scratch_batch(self):
        """Creates, uses and deletes a private view (maybe subscribed): no one else touches it,
        so every step must succeed, its epochs must be 0, 1, 2, ... and the subscription must
        get view.deleted before the next reply."""
        rng, name = self.rng, "scratch-%d-%d" % (self.number, self.scratch_serial + 1)
        self.scratch_serial += 1
        items = lambda n: [ritem(rng, self.fresh_id()) for _ in range(n)]  # noqa: E731
        first = items(20)

        def created(result):
            self.saw_epoch(name, result["epoch"])
            self.scratch_epoch = result["epoch"]

        def deleted(result):
            self.scratch_epoch = None
            for sub in self.events.subs.values():
                sub.expect_deleted |= sub.view == name
        strategy = rng.choice(STRATEGIES)
        batch = [Request("view.create", {"view": name, "strategy": strategy, "params": rparams(rng, strategy), "viewport": rviewport(rng),
                                         "sections": [{"id": "a", "items": first}]}, hook=created)]
        if rng.random() < 0.5:
            batch.append(self.subscribe(name, shared=False))
        for updates in ([{"op": "insertSections", "at": 1, "sections": [{"id": "b", "items": items(10)}]}],
                        [{"op": "moveSection", "id": "b", "at": 0}, {"op": "deleteItems", "ids": [first[0]["id"]]}],
                        [{"op": "deleteSections", "ids": ["b"]}]):
            batch.append(Request("view.update", {"view": name, "updates": updates, "animated": rng.random() < 0.5}, view=name))
        batch.append(Request("view.setData", {"view": name, "sections": [{"id": "c", "items": items(15)}, {"id": "d", "items": items(5)}]}, view=name))
        return batch + [Request("view.delete", {"view": name}, hook=deleted)]

    def transition_batch(self):
        """An interactive transition on a private view (on a shared view, a transition would
        make its scroll replies carry pairs the replay daemon, which never began it, does not
        have): begin (no epoch step), scrub, scroll (a re-plan), a second begin refused, scrub,
        end (commit or revert: the next epoch, its transition present), then no transition."""
        rng, name = self.rng, "gesture-%d-%d" % (self.number, self.scratch_serial + 1)
        self.scratch_serial += 1
        strategy, target = rng.choice(STRATEGIES), rng.choice(STRATEGIES)
        items = [ritem(rng, self.fresh_id()) for _ in range(rng.randint(0, 80))]
        begin = {"strategy": target, "params": rparams(rng, target)} if rng.random() < 0.6 else {"params": rparams(rng, strategy, partial=True)}
        progress = [round(rng.random(), 3) for _ in range(2)]

        def scrubbed(p):  # every pair at p, in key order: cells, headers, footers, each by id
            keys = lambda r: [({"cell": 0, "header": 1, "footer": 2}[e["kind"]], e["id"]) for e in r["elements"]]  # noqa: E731
            return lambda r: r["progress"] == p and keys(r) == sorted(keys(r))
        return [
            Request("view.create", {"view": name, "strategy": strategy, "params": rparams(rng, strategy), "viewport": rviewport(rng),
                                    "windowMargin": rng.choice([0, 50]), "sections": [{"id": "a", "items": items}]},
                    hook=lambda r: self.saw_epoch(name, r["epoch"])),
            Request("view.beginTransition", dict(begin, view=name), hook=lambda r: r["epoch"] == 0 and r["progress"] == 0),
            Request("view.updateTransition", {"view": name, "progress": progress[0]}, hook=scrubbed(progress[0])),
            Request("view.scroll", {"view": name, "offset": {"x": 0, "y": round(rng.uniform(0, 400), 1)}}, view=name,
                    hook=lambda r: r["epoch"] == 1 and r["interactiveTransition"]["progress"] == progress[0]),
            Request("view.beginTransition", dict(begin, view=name), expect=frozenset(["TransitionInProgress"])),
            Request("view.updateTransition", {"view": name, "progress": progress[1]}, hook=scrubbed(progress[1])),
            Request("view.endTransition", {"view": name, "commit": rng.random() < 0.5}, view=name,
                    hook=lambda r: r["epoch"] == 2 and "transition" in r),
            Request("view.updateTransition", {"view": name, "progress": 0.5}, expect=frozenset(["NoActiveTransition"])),
            Request("view.delete", {"view": name}),
        ]

    def staged_batch(self):
        """A staged upload into a private view: two uploads begun (their ids come back in the
        first exchange), one filled in two parts, previewed by a dry-run commit (the epoch it
        would reach, nothing applied) and committed (exactly the next epoch), the other aborted;
        then the view is deleted."""
        rng, name = self.rng, "staged-%d-%d" % (self.number, self.scratch_serial + 1)
        self.scratch_serial += 1
        uploads = []

        def created(result):
            self.saw_epoch(name, result["epoch"])
            self.scratch_epoch = result["epoch"]

        self.exchange([
            Request("view.create", {"view": name, "strategy": rng.choice(STRATEGIES), "viewport": rviewport(rng),
                                    "sections": [{"id": "a", "items": [ritem(rng, self.fresh_id()) for _ in range(10)]}]}, hook=created),
            Request("view.stage.begin", {"view": name}, hook=lambda result: uploads.append(result["upload"])),
            Request("view.stage.begin", {"view": name}, hook=lambda result: uploads.append(result["upload"])),
        ])
        if len(uploads) != 2:
            self.soak.fail("%s: view.stage.begin gave %r" % (self.name, uploads))
            return [Request("view.delete", {"view": name})]
        upload, aborted = uploads
        parts = [[{"id": "a", "items": [ritem(rng, self.fresh_id()) for _ in range(rng.randint(1, 30))]}],
                 [{"id": "b", "items": [ritem(rng, self.fresh_id()) for _ in range(rng.randint(0, 30))]},
                  {"id": "a", "items": [ritem(rng, self.fresh_id()) for _ in range(rng.randint(0, 10))]}]]

        def previewed(result):
            return result.get("dryRun") is True and result["epoch"] == self.scratch_epoch + 1

        def committed(result):
            if "dryRun" in result or result["epoch"] != self.scratch_epoch + 1:
                return False
            self.saw_epoch(name, result["epoch"], strictly=True)
            self.scratch_epoch = result["epoch"]

        def deleted(result):
            self.scratch_epoch = None
        return [Request("view.stage.append", {"upload": upload, "sections": part}) for part in parts] + [
            Request("view.stage.commit", {"upload": upload, "dryRun": True}, hook=previewed),
            Request("view.stage.commit", {"upload": upload, "animated": rng.random() < 0.5}, hook=committed),
            Request("view.stage.abort", {"upload": aborted}, hook=lambda result: result == {} or False),
            Request("view.delete", {"view": name}, hook=deleted),
        ]

    def export_batch(self):
        """A shared view exported in parts while the others change it (every part from the
        first part's snapshot: one epoch), imported under a private name part by part (the
        export's epoch and item count), then deleted."""
        rng, view = self.rng, self.rng.choice(self.soak.view_names)
        name = "imported-%d-%d" % (self.number, self.scratch_serial + 1)
        self.scratch_serial += 1
        limit = rng.choice([None, 1000, 4000])
        params = {"view": view} if limit is None else {"view": view, "limit": limit}
        parts = []

        def part(result):
            if parts and (result["epoch"] != parts[0]["epoch"] or result["part"] != len(parts) + 1):
                return False
            parts.append(result)
        self.exchange([Request("view.export", params, hook=part)])
        while parts and parts[-1]["next"] is not None and len(parts) < 100:
            self.exchange([Request("view.export", dict(params, cursor=parts[-1]["next"]), hook=part)])
        if not parts or parts[-1]["next"] is not None:
            self.soak.fail("%s: the export of %s did not end (%d parts)" % (self.name, view, len(parts)))
            return []
        pending = []

        def taken(result):
            pending.append(result.get("importId"))
        for blob in parts[:-1]:
            opened = {"view": name, "blob": blob} if not pending else {"importId": pending[-1], "blob": blob}
            self.exchange([Request("view.import", opened, hook=taken)])

        def imported(result):
            snapshot = result["snapshot"]
            if snapshot["epoch"] != parts[0]["epoch"] or snapshot["itemCount"] != parts[0]["itemCount"]:
                return False
            self.saw_epoch(name, snapshot["epoch"])
        last = {"view": name, "blob": parts[-1]} if not pending else {"importId": pending[-1], "blob": parts[-1]}
        return [Request("view.import", last, hook=imported), Request("view.delete", {"view": name})]

    def invalid(self):
        """A request that must be refused with one particular error, whatever others do."""
        rng = self.rng
        view = rng.choice(self.soak.view_names)
        vp, base = {"width": 300, "height": 300}, {"view": view}
        cases = [
            ("view.item", dict(base, id="missing-%d" % rng.randint(0, 99)), "ItemNotFound"),
            ("view.select", dict(base, ids=["missing-x"]), "ItemNotFound"),
            # No shared view ever has an interactive transition (transition_batch).
            ("view.updateTransition", dict(base, progress=0.5), "NoActiveTransition"),
            ("view.endTransition", dict(base, commit=True), "NoActiveTransition"),
            ("view.scroll", dict(base, offset={"x": 0, "y": 10}, ifEpoch=1 << 50), "StaleEpoch"),
            ("view.update", dict(base, updates=[{"op": "insertItems", "section": "s0", "at": 0,
                                                 "items": [{"id": self.fresh_id(), "size": {"width": -1, "height": 5}}]}]), "InvalidSize"),
            ("view.create", {"view": "neg-%d" % self.number, "strategy": "flow", "viewport": vp,
                             "sections": [{"id": "s", "items": [{"id": "a", "estimatedSize": {"width": 5, "height": -5}}]}]}, "InvalidSize"),
            ("view.resize", dict(base, size={"width": 300, "height": -1}), "InvalidViewport"),
            ("view.query", dict(base, rect={"x": 0, "y": 0, "width": 10, "height": 10}, limit=0), "InvalidParams"),
            ("view.scroll", dict(base, offest={"x": 0, "y": 0}), "InvalidParams"),
            ("view.query", dict(base, rect={"x": 0, "y": 0, "width": -10, "height": 10}), "InvalidParams"),
            ("view.select", dict(base, ids=[], mode="flip"), "InvalidParams"),
            ("view.setWindowMargin", dict(base, margin=-5), "InvalidParameter"),
            ("view.configure", dict(base, params={"itemSzie": {"width": 1, "height": 1}}), "UnknownParameter"),
            ("view.setStrategy", dict(base, strategy="masonry"), "UnknownStrategy"),
            ("view.create", {"view": view, "strategy": "flow", "viewport": vp}, "ViewExists"),
            ("view.get", {"view": "no-such-view"}, "ViewNotFound"),
            ("view.nonsense", {}, "MethodNotFound"),
            ("daemon.hello", {"protocol": [2]}, "UnsupportedVersion"),
            ("daemon.status", {"verbose": True}, "InvalidParams"),
            ("view.unsubscribe", {"subscription": 1 << 40}, "InvalidParams"),
            ("view.setData", dict(base, sections=[{"id": "d", "items": [{"id": "dup"}, {"id": "dup"}]}]), "DuplicateItemID"),
        ]
        method, params, expect = rng.choice(cases)
        return Request(method, params, view=view, shared=method in MUTATIONS, expect=frozenset([expect]))

    def finish(self):
        """Once no one mutates any more: every subscription must reach its view's final epoch
        (through events or a resync) and no own event may have been late without a resync."""
        finals = {}
        views = sorted({sub.view for sub in self.events.subs.values() if sub.shared})
        if views:
            self.exchange([Request("daemon.sync")] + [Request("view.get", {"view": v}, hook=lambda r: finals.__setitem__(r["view"], r["epoch"])) for v in views])
            behind = lambda: any(s.epoch < finals.get(s.view, -1) for s in self.events.subs.values())  # noqa: E731
            read_events(self.conn, self.events, 5, lambda: not behind())  # a coalesced subscriber's resync
        for sid, sub in self.events.subs.items():
            if sub.epoch != finals.get(sub.view, sub.epoch):
                self.soak.fail("%s: subscription %d on %s ended at epoch %d, the view is at %d" % (self.name, sid, sub.view, sub.epoch, finals[sub.view]))
            if sub.late:
                self.soak.fail("%s: own event for %s epoch %d did not precede the next reply (no resync explains it)" % (self.name, sub.view, sub.late))


# --- hostile clients ------------------------------------------------------------------------

class Hostile(threading.Thread):
    """Base of the hostile clients: repeats `round()` until the soak ends. They mutate only
    their own scratch views (the shared views' history must stay replayable)."""
    kind, pause = "hostile", 1.0

    def __init__(self, soak, number):
        super().__init__(name="%s-%d" % (self.kind, number), daemon=True)
        self.soak, self.rng, self.serial = soak, random.Random(soak.seed * 7919 + number), 0

    def run(self):
        while not self.soak.stop.is_set():
            try:
                self.round()
                self.soak.count(self.kind)
            except Exception as error:  # noqa: BLE001
                self.soak.fail("%s: %s: %s" % (self.name, type(error).__name__, error))
            self.soak.stop.wait(self.pause * self.rng.uniform(0.5, 1.5))

    def reply(self, conn, wanted):
        msg = json.loads(conn.line() or b"null")
        if not msg or msg.get("id") != wanted or "result" not in msg:
            raise AssertionError("wanted the result of request %r, got %r" % (wanted, msg))
        self.soak.count("hostile_replies_verified")
        return msg["result"]

    def expect_close(self, conn, name, data):
        """The connection-level error `name` (id null, this `data`), then end of stream."""
        try:
            msg = json.loads(conn.line() or b"null")
            if not msg or msg.get("id", 0) is not None or msg.get("error", {}).get("name") != name:
                raise AssertionError("wanted %s, got %r" % (name, msg))
            if msg["error"].get("data") != data:
                raise AssertionError("%s data %r, wanted %r" % (name, msg["error"].get("data"), data))
            if conn.line() is not None:
                raise AssertionError("a line after %s" % name)
        except socket.timeout:
            raise AssertionError("no %s and no close within %.0f s (hang)" % (name, HANG))
        self.soak.count("hostile_replies_verified")


class NeverReader(Hostile):
    """Subscribes to a busy shared view with a 4 KiB receive buffer and never reads again: the
    daemon must coalesce its backlog or drop it after the write stall without slowing anyone.
    When it finally reads, whatever arrived must still be in order and gapless."""
    kind, pause = "never_reading", 0.3

    def round(self):
        conn, checker = Conn(self.soak.path, rcvbuf=4096), EventChecker(self.soak, self.name)
        view = self.rng.choice(self.soak.view_names)
        conn.send(b'{"id":1,"method":"view.subscribe","params":{"view":"%s"}}\n' % view.encode())
        self.soak.stop.wait(self.rng.uniform(3, 6))
        result = self.reply(conn, 1)  # written at once; still readable even if dropped since
        checker.subs[result["subscription"]] = Sub(view, result["snapshot"]["epoch"])
        alive = read_events(conn, checker, 2)
        conn.close()
        self.soak.absorb(checker)
        self.soak.count("never_reading_alive" if alive else "never_reading_dropped")


class HalfLineStaller(Hostile):
    """Half a request line, then nothing: IdleTimeout (id null) and end of stream after about
    the 1 s partial-line timeout; a complete request sent before it is still answered."""
    kind, pause = "half_line_staller", 0.5

    def round(self):
        conn, whole = Conn(self.soak.path), self.rng.random() < 0.5
        conn.send((b'{"id":1,"method":"daemon.sync"}\n' if whole else b"") + b'{"id":2,"method":"view.li')
        started = time.monotonic()
        if whole:
            self.reply(conn, 1)
        self.expect_close(conn, "IdleTimeout", {"timeout": 1})
        if time.monotonic() - started < 0.8:
            raise AssertionError("IdleTimeout after only %.2f s" % (time.monotonic() - started))
        conn.close()


class Garbage(Hostile):
    """Random bytes, invalid UTF-8, NUL, huge numbers, 10000 '[', duplicate keys, fuzzed
    requests: each line must get exactly one reply (an error, except fuzzed lines), in order,
    and the connection must survive to answer a final daemon.sync."""
    kind, pause = "garbage", 0.3
    FIXED = [b'{"id":1,"method":"\xff\xfe"}', b'{"id":1e999,"method":"daemon.sync"}', b"[" * 10000, b"\x00\x00\x00",
             b'{"id":2,"id":3,"method":"daemon.sync"}', b'{"id":null,"method":"daemon.sync"}', b"[1,2,3]", b'"\xc0\xaf"',
             b'{"id":4,"method":"view.get","params":{"view":"\\ud800"}}', b'{"id":5,"method":"daemon.sync"} x',
             b'{"id":6,"method":"view.scroll","params":{"view":"x","offset":{"x":1e400,"y":0}}}', b'{"method":""}',
             b'{"id":7,"method":"daemon.sync","params":null}', b'{"a":' * 70 + b"1" + b"}" * 70]
    BASES = [b'{"id":9,"method":"daemon.sync","params":{}}', b'{"id":10,"method":"view.get","params":{"view":"shared-00"}}',
             b'{"id":11,"method":"daemon.status"}']  # no byte flip turns these into a mutation

    def line(self):
        rng, roll = self.rng, self.rng.random()
        if roll < 0.4:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300))).replace(b"\n", b"x")
            return (data if data.strip(b" \t\r") else b"x"), False  # a blank line gets no reply
        if roll < 0.7:
            return rng.choice(self.FIXED), False
        data = bytearray(rng.choice(self.BASES))
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.choice(b'{}[]",:0\\ \xff\x00a')
        return bytes(data), True

    def round(self):
        conn, lines = Conn(self.soak.path), [self.line() for _ in range(self.rng.randint(1, 20))]
        conn.send(b"".join(line + b"\n" for line, _ in lines) + b'{"id":"end","method":"daemon.sync"}\n')
        self.soak.count("hostile_lines", len(lines) + 1)
        try:
            for line, fuzzed in lines:
                msg = json.loads(conn.line() or b"null")
                if not msg or "event" in msg or msg.get("id") == "end" or ("error" not in msg and not fuzzed):
                    raise AssertionError("garbage %r answered with %r" % (line[:60], msg))
                self.soak.count("hostile_replies_verified")
            self.reply(conn, "end")
        except socket.timeout:
            raise AssertionError("no reply to garbage within %.0f s (hang)" % HANG)
        conn.close()


class Oversized(Hostile):
    """A line over max-line-length (with or without its newline, maybe after a valid request):
    that request is answered, then LineTooLong (id null), then end of stream."""
    kind, pause = "oversized", 0.5

    def round(self):
        conn, before = Conn(self.soak.path), self.rng.random() < 0.5
        big = b'{"id":3,"method":"daemon.hello","params":{"pad":"' + b"x" * self.rng.randint(MAX_LINE + 10, 100000) + b'"}}'
        try:
            conn.send((b'{"id":1,"method":"daemon.sync"}\n' if before else b"") + big + (b"\n" if self.rng.random() < 0.5 else b""))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the daemon may close early; what it wrote must still be readable
        if before:
            self.reply(conn, 1)
        self.expect_close(conn, "LineTooLong", {"limit": MAX_LINE})
        conn.close()


class ConnectStorm(Hostile):
    """Bursts of 50 connections that all close at once: silent, after half a request, after a
    whole unread request, or with a reset. A fresh client must then be answered."""
    kind, pause = "connect_storm", 2.0

    def round(self):
        conns = [Conn(self.soak.path) for _ in range(50)]
        for conn in conns:
            roll = self.rng.random()
            if roll < 0.6:
                conn.send(b'{"id":1,"method":"view.get","para' if roll < 0.3 else b'{"id":1,"method":"view.get","params":{"view":"shared-00"}}\n')
        for conn in conns:
            conn.close(reset=self.rng.random() < 0.3)
        probe = Conn(self.soak.path)
        probe.send(b'{"id":1,"method":"daemon.sync"}\n')
        self.reply(probe, 1)
        probe.close()


KILL_SCRIPT = r"""
import socket, sys, time
path, view, mode = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path)
if mode == "burst":
    data = "".join('{"id":%d,"method":"view.scroll","params":{"view":"%s","offset":{"x":0,"y":%d}}}\n' % (i, view, i) for i in range(2000))
else:
    items = ",".join('{"id":"k%d"}' % i for i in range(3500))
    data = '{"id":1,"method":"view.setData","params":{"view":"%s","sections":[{"id":"s","items":[%s]}]}}\n' % (view, items)
data = data.encode()
if mode == "partial": data = data[:len(data) * 2 // 3]
sys.stdout.write("go\n"); sys.stdout.flush()
s.sendall(data)
sys.stdout.write("sent\n"); sys.stdout.flush()
time.sleep(60)
"""


class KilledClient(Hostile):
    """A separate process sends a large request to a scratch view (a 3500-item setData, whole
    or cut, or a burst of 2000 scrolls) and is SIGKILLed mid-way or right after: the view must
    show all or nothing of the setData, and the daemon must carry on."""
    kind, pause = "killed_mid_request", 0.5

    def round(self):
        self.serial += 1
        view, conn, mode = "%s-%d" % (self.name, self.serial), Conn(self.soak.path), self.rng.choice(["full", "partial", "burst"])
        conn.send(dumps({"id": 1, "method": "view.create", "params": {"view": view, "strategy": "flow", "viewport": {"width": 375, "height": 667},
                                                                        "sections": [{"id": "s", "items": [{"id": "a%d" % i} for i in range(10)]}]}}).encode() + b"\n")
        self.reply(conn, 1)
        proc = subprocess.Popen([PYTHON, "-c", KILL_SCRIPT, self.soak.path, view, mode], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        try:
            wanted, deadline = self.rng.choice([b"go\n", b"sent\n"]), time.monotonic() + 10
            while time.monotonic() < deadline and not self.soak.stop.is_set():
                if select.select([proc.stdout], [], [], 0.5)[0] and proc.stdout.readline() in (wanted, b""):
                    break
            time.sleep(self.rng.uniform(0, 0.02))
        finally:
            os.kill(proc.pid, 9)
            proc.wait()
            proc.stdout.close()
        conn.send(dumps({"id": 2, "method": "view.get", "params": {"view": view}}).encode() + b"\n")
        state = self.reply(conn, 2)
        epoch, items = state["epoch"], state["itemCount"]
        if not {"full": (epoch, items) in ((0, 10), (1, 3500)), "partial": (epoch, items) == (0, 10), "burst": epoch <= 2000 and items == 10}[mode]:
            raise AssertionError("%s after a killed %s request: epoch %d, %d items" % (view, mode, epoch, items))
        conn.send(dumps({"id": 3, "method": "view.delete", "params": {"view": view}}).encode() + b"\n")
        self.reply(conn, 3)
        conn.close()


class SubscribeChurn(Hostile):
    """Subscribes to a few shared views, maybe reads a little, then disconnects (sometimes with
    a reset): subscriptions must end with their connection (checked at the end)."""
    kind, pause = "subscribe_churn", 0.1

    def round(self):
        conn, checker = Conn(self.soak.path), EventChecker(self.soak, self.name)
        views = self.rng.sample(self.soak.view_names, self.rng.randint(1, min(3, len(self.soak.view_names))))
        conn.send(b"".join(b'{"id":%d,"method":"view.subscribe","params":{"view":"%s"}}\n' % (n, v.encode()) for n, v in enumerate(views)))
        for n, view in enumerate(views):
            line = conn.line()
            while line and b'"event"' in line[:10]:
                checker.feed(line, json.loads(line))
                line = conn.line()
            msg = json.loads(line or b"null")
            if not msg or msg.get("id") != n or "result" not in msg:
                raise AssertionError("subscribe reply %d: %r" % (n, msg))
            checker.subs[msg["result"]["subscription"]] = Sub(view, msg["result"]["snapshot"]["epoch"])
            self.soak.count("hostile_replies_verified")
        if not read_events(conn, checker, self.rng.uniform(0, 0.3)):
            raise AssertionError("closed while subscribed")
        conn.close(reset=self.rng.random() < 0.3)
        self.soak.absorb(checker)


class CpuBurner(Hostile):
    """Requests that are all CPU: pipelined lines of wide objects (parse work, then refused
    for the unknown field) and whole-view queries on a 20,000-item scratch view, every reply
    read and checked. Before the reactor was split from the request threads, two such
    clients froze everyone for seconds; the others' round trips (batch latency) and the
    watchdog must not notice them now."""
    kind, pause = "cpu_burner", 0.2
    WIDE = ('{"id":%d,"method":"daemon.status","params":{"x":[' + ",".join(
        ["{" + ",".join('"k%d":%d' % (n, n) for n in range(1000)) + "}"] * 5) + ']}}\n')
    ITEMS, BATCH = 20000, 3000

    def round(self):
        conn = Conn(self.soak.path)
        self.serial += 1
        view = "cpu-%s-%d" % (self.name, self.serial)
        created = conn.call({"id": 1, "method": "view.create", "params": {
            "view": view, "strategy": "flow", "params": {"itemSize": {"width": 10, "height": 10}},
            "viewport": {"width": 400, "height": 400}, "sections": [{"id": "s", "items": []}]}})
        if "result" not in created:
            raise AssertionError("scratch view refused: %r" % created)
        for start in range(0, self.ITEMS, self.BATCH):
            items = [{"id": "c%d" % n} for n in range(start, min(self.ITEMS, start + self.BATCH))]
            self.expect_result(conn.call({"id": 2, "method": "view.update", "params": {
                "view": view, "updates": [{"op": "insertItems", "section": "s", "at": start, "items": items}]}}), 2)
        wide = self.rng.randint(5, 20)
        conn.send("".join(self.WIDE % (100 + n) for n in range(wide)).encode())
        conn.send(b"".join(b'{"id":%d,"method":"view.query","params":{"view":"%s","rect":{"x":0,"y":0,"width":400,"height":1e6}}}\n'
                           % (200 + n, view.encode()) for n in range(3)))
        for n in range(wide):
            msg = json.loads(conn.line() or b"null")
            if not msg or msg.get("id") != 100 + n or msg.get("error", {}).get("name") != "InvalidParams":
                raise AssertionError("wide line %d answered with %r" % (n, msg and str(msg)[:200]))
            self.soak.count("hostile_replies_verified")
        for n in range(3):
            result = self.expect_result(json.loads(conn.line() or b"null"), 200 + n)
            if len(result["elements"]) != self.ITEMS:
                raise AssertionError("a whole-view query gave %d elements" % len(result["elements"]))
        self.expect_result(conn.call({"id": 3, "method": "view.delete", "params": {"view": view}}), 3)
        self.soak.count("hostile_lines", wide + 3)
        conn.close()

    def expect_result(self, msg, wanted):
        if not msg or msg.get("id") != wanted or "result" not in msg:
            raise AssertionError("wanted the result of request %r, got %r" % (wanted, msg and str(msg)[:200]))
        self.soak.count("hostile_replies_verified")
        return msg["result"]


HOSTILES = [NeverReader, NeverReader, NeverReader, HalfLineStaller, Garbage, Oversized, ConnectStorm, KilledClient, SubscribeChurn,
            CpuBurner, CpuBurner]


# --- the soak -------------------------------------------------------------------------------

class Soak:
    """One run: a daemon, the clients, the final checks and the replay."""

    def __init__(self, seconds, clients, views, seed, binary, max_rss_mib, say):
        self.seconds, self.clients, self.views, self.max_rss_mib, self.say = seconds, clients, views, max_rss_mib, say
        self.seed = seed if seed is not None else random.randrange(1 << 30)
        self.binary = binary or default_binary()
        self.lock, self.stop, self.all_done, self.rss_stop = threading.Lock(), threading.Event(), threading.Event(), threading.Event()
        self.failures, self.arrived = {}, 0  # failure pattern (numbers hidden) -> [first message, count]
        self.counts, self.digests = collections.Counter(), {}
        self.rss_peak, self.rss_final, self.rss_timeline = 0.0, 0.0, []  # timeline: one sample per 10 s

    def fail(self, message):
        """Records a failed check; failures that differ only in numbers are counted together."""
        with self.lock:
            key = re.sub(r"\d+", "#", message)
            if key not in self.failures and len(self.failures) >= 100:
                key, message = "other", "further kinds of failure"
            self.failures.setdefault(key, [message, 0])[1] += 1

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def arrive(self):
        """A well-behaved client finished its last batch; the last one releases the others."""
        with self.lock:
            self.arrived += 1
            if self.arrived == self.clients:
                self.all_done.set()

    def absorb(self, checker):
        """Merges one connection's event counts; subscribers must agree on each epoch's bytes."""
        with self.lock:
            for key in ("events", "resyncs", "gaps", "unknown"):
                self.counts[key] += getattr(checker, key)
            differ = [key for key, value in checker.digests.items() if self.digests.setdefault(key, value) != value]
        if differ:
            self.fail("%s: view.invalidated params differ from another subscriber's for %s epoch %d" % ((checker.where,) + differ[0]))

    def start_daemon(self):
        # Daemon passes --log-level debug first; the later flag wins.
        return harness.Daemon(*[a for s in SETTINGS for a in ("--set", s)], "--log-level", "info", binary=self.binary).start()

    def sample_rss(self, pid):
        while not self.rss_stop.wait(0.5):
            try:
                mib = harness.resident_bytes(pid) / (1 << 20)
                self.rss_final, self.rss_peak = mib, max(self.rss_peak, mib)
                if len(self.rss_timeline) < (time.monotonic() - self.rss_started) / 10:
                    self.rss_timeline.append(round(mib, 1))
            except (OSError, KeyError):
                pass  # the daemon is gone: the end-of-run checks say so

    def run(self):
        started, cpu, daemon = time.monotonic(), os.times(), self.start_daemon()
        self.started = started
        try:
            return self.phases(daemon, started, cpu)
        finally:  # after an unexpected error too: no thread or daemon is left running
            self.stop.set()
            self.rss_stop.set()
            if daemon.process.poll() is None:
                daemon.stop()

    def phases(self, daemon, started, cpu):
        """Setup, the soak with every client, the checks at rest, the replay, the report."""
        self.path, rng = daemon.path, random.Random(self.seed)
        self.say("layoutd %s (pid %d), seed %d: %g s, %d clients, %d views" % (self.binary, daemon.process.pid, self.seed, self.seconds, self.clients, self.views))
        setup = Conn(daemon.path)
        description = setup.call({"id": 1, "method": "daemon.describe"})["result"]
        described = description["methods"]
        self.methods = [m["name"] for m in described]
        self.described = {m["name"]: m for m in described}
        global MUTATIONS, ANIMATED, REQUEST_ERRORS, DECLARED_ERRORS
        MUTATIONS = frozenset(m["name"] for m in described if m["mutates"] and any(p["name"] == "view" for p in m["params"]))
        # What each method may answer with: the request-level errors and the method's own.
        REQUEST_ERRORS = frozenset(description["requestErrors"])
        DECLARED_ERRORS = {m["name"]: REQUEST_ERRORS | frozenset(m["errors"]) for m in described}
        ANIMATED = MUTATIONS - NOT_ANIMATED
        self.creates, self.models = [], {}
        for index in range(self.views):
            params = shared_view_params(rng, index)
            result = setup.call({"id": 2, "method": "view.create", "params": params})["result"]
            self.creates.append((params, result))
            self.models[params["view"]] = ViewModel(params, result)
        self.view_names = sorted(self.models)
        self.rss_started = time.monotonic()
        sampler = threading.Thread(target=self.sample_rss, args=(daemon.process.pid,), daemon=True)
        sampler.start()
        self.deadline = time.monotonic() + self.seconds
        clients = [WellBehavedClient(self, n) for n in range(self.clients)]
        for index, method in enumerate(self.methods):
            clients[index % len(clients)].coverage.append(method)
        hostiles = [kind(self, n) for n, kind in enumerate(HOSTILES)]
        for thread in clients + hostiles:
            thread.start()
        self.stop.wait(max(0, self.deadline - time.monotonic()))
        self.stop.set()  # hostile clients end their last round while the others finish
        for thread in clients:
            thread.join(max(1, self.deadline + 4 * HANG - time.monotonic()))
        for thread in hostiles:
            thread.join(2 * HANG)
        for thread in clients + hostiles:
            if thread.is_alive():
                self.fail("%s did not finish (hang)" % thread.name)
        soak_seconds = time.monotonic() - started
        self.say("soak phase over after %.1f s; checking the daemon at rest" % soak_seconds)
        log = collections.defaultdict(list)
        for client in clients:
            for view, *entry in client.log:
                log[view].append(tuple(entry))
            self.absorb(client.events)
            self.counts.update({k: client.counts[k] for k in ("requests", "replies", "errors_expected")})
        for entries in log.values():
            entries.sort()
        try:
            final, status = self.at_rest(setup, log, daemon)
        except (OSError, AssertionError, KeyError, ValueError) as error:
            self.fail("the soak daemon no longer answers at the end: %s: %s" % (type(error).__name__, error))
            final, status = {}, None
        setup.close()
        self.rss_stop.set()
        sampler.join()
        self.stop_daemon(daemon, "soak daemon")
        if self.rss_peak > self.max_rss_mib:
            self.fail("peak RSS %.1f MiB exceeds %g MiB" % (self.rss_peak, self.max_rss_mib))
        try:
            replayed, matching = self.replay(log, final)
        except (OSError, AssertionError, KeyError, ValueError) as error:
            self.fail("replay: %s: %s" % (type(error).__name__, error))
            replayed = matching = 0
        cpu = sum(os.times()[:2]) - sum(cpu[:2])
        return self.report(clients, status, soak_seconds, replayed, matching, time.monotonic() - started, cpu)

    def at_rest(self, conn, log, daemon):
        """The soak daemon once every client is gone: alive and answering, nothing leaked; each
        shared view's logged epochs are exactly 1..E; events equal their replies; final state."""
        if daemon.process.poll() is not None or "result" not in conn.call({"id": 3, "method": "daemon.sync"}):
            raise AssertionError("exit status %s" % daemon.process.poll())
        deadline = time.monotonic() + 10  # closed connections are noticed asynchronously
        while True:
            status = conn.call({"id": 4, "method": "daemon.status"})["result"]
            if (status["connections"]["open"], status["subscriptions"]) == (1, 0) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if (status["connections"]["open"], status["subscriptions"], status["views"]) != (1, 0, self.views):
            self.fail("leak once all clients closed: %d connections, %d subscriptions, %d views (want 1, 0, %d)"
                      % (status["connections"]["open"], status["subscriptions"], status["views"], self.views))
        if status["connections"]["dropped"] < self.counts["half_line_staller"]:
            self.fail("daemon.status counts %d dropped connections, fewer than %d IdleTimeouts" % (status["connections"]["dropped"], self.counts["half_line_staller"]))
        if status["requests"] < self.counts["replies"]:
            self.fail("daemon.status counts %d requests, fewer than the %d replies verified" % (status["requests"], self.counts["replies"]))
        final, replies = {}, {}
        for params, _ in self.creates:
            view = params["view"]
            snapshot = conn.call({"id": 5, "method": "view.get", "params": {"view": view}})["result"]
            rect = dict(x=0, y=0, **snapshot["contentSize"])
            final[view] = (snapshot, conn.call({"id": 6, "method": "view.query", "params": {"view": view, "rect": rect}})["result"], rect)
            epochs = [entry[0] for entry in log[view]]
            if epochs != list(range(1, snapshot["epoch"] + 1)):
                seen = collections.Counter(epochs)
                self.fail("%s: final epoch %d but %d logged mutations; missing %s, duplicate or extra %s" % (
                    view, snapshot["epoch"], len(epochs), [e for e in range(1, snapshot["epoch"] + 1) if e not in seen][:5],
                    [e for e, n in seen.items() if n > 1 or e > snapshot["epoch"]][:5]))
            replies.update({(view, entry[0]): entry[3] for entry in log[view]})
        differ = [key for key, value in self.digests.items() if replies.get(key, value) != value]
        orphans = [key for key in self.digests if key not in replies]
        if differ or orphans:
            self.fail("view.invalidated params differ from the mutating reply for %d epochs (first %s); %d events match no reply (first %s)"
                      % (len(differ), differ[:1], len(orphans), orphans[:1]))
        return final, status

    def stop_daemon(self, daemon, what):
        code = daemon.stop()
        if code != 0:
            self.fail("%s exited with status %s after SIGTERM" % (what, code))
        text = daemon.read_log()
        for alarm in LOG_ALARMS:
            if alarm in text:
                self.fail("%s log (%s) contains %r: %s" % (what, daemon.log_path, alarm, next(l for l in text.splitlines() if alarm in l)[:300]))

    def replay(self, log, final):
        """A fresh daemon gets the same views and, from one pipelined connection, every logged
        mutation in epoch order: each must succeed with the same epoch and result, and each view
        must end identical (view.get, and view.query over the whole content)."""
        daemon, entries, bad, matching = self.start_daemon(), [(v, e) for v in sorted(log) for e in log[v]], 0, 0
        self.say("%.1f s: replaying %d mutations on a fresh daemon" % (time.monotonic() - self.started, len(entries)))
        try:
            conn = Conn(daemon.path, timeout=4 * HANG)
            for params, result in self.creates:
                if conn.call({"id": 0, "method": "view.create", "params": params}).get("result") != result:
                    self.fail("replay: view.create of %s differs" % params["view"])
            data = "".join('{"id":%d,"method":"%s","params":%s}\n' % (n, e[1], e[2]) for n, (_, e) in enumerate(entries)).encode()
            threading.Thread(target=conn.send, args=(data,), daemon=True).start()
            for n, (view, (epoch, method, _, _, wanted)) in enumerate(entries):
                line = conn.line()
                msg = json.loads(line or b"null") or {}
                result = msg.get("result") or {}
                if msg.get("id") != n or result.get("epoch") != epoch or replay_digest(method, line, result) != wanted:
                    bad += 1
                    if bad <= 3:
                        self.fail("replay: %s %s epoch %d: %s" % (view, method, epoch, "error %s" % msg.get("error") if "error" in msg else
                                  "epoch %r" % result.get("epoch") if result.get("epoch") != epoch else "a different result"))
                if line is None:
                    raise AssertionError("the replay daemon closed the connection")
            for view, (snapshot, query, rect) in sorted(final.items()):
                again = conn.call({"id": 1, "method": "view.get", "params": {"view": view}})["result"]
                queried = conn.call({"id": 2, "method": "view.query", "params": {"view": view, "rect": rect}})["result"]
                diff = first_difference(snapshot, again) or first_difference(query, queried)
                if diff:
                    self.fail("replay: %s differs from the soak daemon: %s" % (view, diff))
                matching += not diff
            conn.close()
        finally:
            self.stop_daemon(daemon, "replay daemon")
        return len(entries) - bad, matching

    def report(self, clients, status, soak_seconds, replayed, matching, total_seconds, cpu):
        calls, ok, concurrent, latencies = collections.Counter(), collections.Counter(), collections.Counter(), []
        for client in clients:
            calls.update(client.calls)
            ok.update(client.ok)
            concurrent.update(client.concurrent)
            latencies += client.latencies
        for method in self.methods:
            # The soak's strategies have no orthogonal sections: these are driven for their
            # refusals only (a success needs a compositional carousel; the fixtures and the
            # property tests cover those).
            if method in ("view.scrollSection", "view.scrollSectionEnd") and calls[method]:
                continue
            if not ok[method]:
                self.fail("method %s never succeeded (%d calls)" % (method, calls[method]))
        latencies.sort()
        quantile = lambda f: round(1000 * latencies[min(len(latencies) - 1, int(f * len(latencies)))], 1) if latencies else 0  # noqa: E731
        c = self.counts
        return {
            "seed": self.seed, "daemon": self.binary, "seconds": round(soak_seconds, 1), "total_seconds": round(total_seconds, 1),
            "driver_cpu_seconds": round(cpu, 1), "clients": self.clients, "views": self.views,
            "requests": c["requests"], "replies_verified": c["replies"], "hostile_lines": c["hostile_lines"],
            "hostile_replies_verified": c["hostile_replies_verified"], "errors_expected": c["errors_expected"],
            "errors_concurrent": sum(concurrent.values()), "errors_concurrent_by_name": dict(sorted(concurrent.items())),
            "methods": {m: {"calls": calls[m], "ok": ok[m]} for m in sorted(set(calls) | set(self.methods))},
            "batch_latency_ms": {"p50": quantile(0.5), "p99": quantile(0.99), "max": quantile(1.0)},
            "events": c["events"], "resyncs": c["resyncs"], "seq_gaps": c["gaps"], "unknown_events": c["unknown"],
            "mutations_logged": sum(len(client.log) for client in clients), "mutations_replayed": replayed, "views_matching": matching,
            "hostile": {kind: c[kind] for kind in sorted({h.kind for h in HOSTILES})},
            "never_reading_dropped": c["never_reading_dropped"], "never_reading_alive": c["never_reading_alive"],
            "peak_rss_mib": round(self.rss_peak, 1), "final_rss_mib": round(self.rss_final, 1), "rss_mib_every_10s": self.rss_timeline,
            "daemon_status": status,
            "failure_count": sum(n for _, n in self.failures.values()),
            "failures": [m + (" (and %d similar)" % (n - 1) if n > 1 else "") for m, n in self.failures.values()],
        }


def default_binary():
    if os.environ.get("LAYOUTD_BIN"):
        return os.environ["LAYOUTD_BIN"]
    release = os.path.join(harness.ROOT, ".build", "release", "layoutd")
    return release if os.path.exists(release) else os.path.join(harness.ROOT, ".build", "debug", "layoutd")


def run(seconds=180, clients=64, views=16, seed=None, daemon_binary=None, max_rss_mib=1024, say=None):
    """Runs one soak; returns the report dict (`failures` is empty when every check held)."""
    return Soak(seconds, clients, views, seed, daemon_binary, max_rss_mib, say or (lambda text: None)).run()


def summary(report):
    """The report as a table for people."""
    r = report
    rows = [("soak / total seconds, driver CPU s", "%s / %s, %s" % (r["seconds"], r["total_seconds"], r["driver_cpu_seconds"])),
            ("clients / views / seed", "%d / %d / %d" % (r["clients"], r["views"], r["seed"])),
            ("requests / replies verified", "%d / %d" % (r["requests"], r["replies_verified"])),
            ("hostile lines / replies verified", "%d / %d" % (r["hostile_lines"], r["hostile_replies_verified"])),
            ("errors expected / concurrent", "%d / %d %s" % (r["errors_expected"], r["errors_concurrent"], r["errors_concurrent_by_name"])),
            ("batch round trip p50 / p99 / max ms", "%(p50)s / %(p99)s / %(max)s" % r["batch_latency_ms"]),
            ("events / resyncs / seq gaps", "%d / %d / %d" % (r["events"], r["resyncs"], r["seq_gaps"])),
            ("mutations logged / replayed", "%d / %d" % (r["mutations_logged"], r["mutations_replayed"])),
            ("views matching after replay", "%d / %d" % (r["views_matching"], r["views"])),
            ("daemon RSS peak / final MiB", "%s / %s" % (r["peak_rss_mib"], r["final_rss_mib"])),
            ("daemon RSS every 10 s, MiB", " ".join("%g" % v for v in r["rss_mib_every_10s"][:40]))]
    rows += [("hostile " + kind, str(count)) for kind, count in r["hostile"].items()]
    rows.append(("never-readers dropped / alive", "%d / %d" % (r["never_reading_dropped"], r["never_reading_alive"])))
    width = max(len(name) for name, _ in rows)
    lines = ["%-*s  %s" % (width, name, value) for name, value in rows] + ["", "%-24s %8s %8s" % ("method", "calls", "ok")]
    lines += ["%-24s %8d %8d" % (m, c["calls"], c["ok"]) for m, c in r["methods"].items()] + [""]
    if not r["failures"]:
        return "\n".join(lines + ["PASSED: every check held"])
    lines.append("FAILED: %d failed check(s), %d kind(s):" % (r["failure_count"], len(r["failures"])))
    return "\n".join(lines + ["  - " + failure for failure in r["failures"]])


def main(argv=None):
    parser = argparse.ArgumentParser(description="Bounded soak test for layoutd (exit status 1 when a check fails).")
    parser.add_argument("--seconds", type=float, default=180, help="length of the soak phase (default 180)")
    parser.add_argument("--clients", type=int, default=64, help="well-behaved clients (default 64)")
    parser.add_argument("--views", type=int, default=16, help="shared views (default 16)")
    parser.add_argument("--seed", type=int, help="random seed (default: random, printed)")
    parser.add_argument("--daemon", help="layoutd binary (default $LAYOUTD_BIN, else the release build, else debug)")
    parser.add_argument("--report", help="write the JSON report here")
    parser.add_argument("--max-rss-mib", type=float, default=1024, help="bound on the daemon's peak RSS (default 1024)")
    args = parser.parse_args(argv)
    report = run(args.seconds, args.clients, args.views, args.seed, args.daemon, args.max_rss_mib, say=print)
    if args.report:
        with open(args.report, "w") as handle:
            json.dump(report, handle, indent=2)
    print(summary(report))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
