// The client's bounds without a daemon (protocol/README.md §9, "What a client expects of the
// daemon's lines"): line caps in both transports, every malformed line as a ProtocolError that
// closes the connection, whole-call deadlines, strays counted and bounded, a subscription's queue
// bounded by a resync.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import {
  Client, SocketTransport, WebSocketTransport, LayoutdError, ProtocolError, CallTimeoutError, ConnectionClosedError,
  STRAYS_KEPT, DEFAULT_LINE_CAP, DEFAULT_TIMEOUT, MAXIMUM_DEPTH,
} from "../src/node.js";
import { deeperThan } from "../src/wire.js";

/** A LineTransport the test plays the daemon on; close(reason) is recorded. */
class ScriptedTransport {
  constructor() { this.sent = []; this.closed = false; this.reason = undefined; }
  start(handlers) { this.handlers = handlers; }
  send(line) { this.sent.push(typeof line === "string" ? line : Buffer.from(line).toString()); }
  close(reason) { if (!this.closed) { this.closed = true; this.reason = reason; this.handlers.onClose(); } }
  receive(message) { this.handlers.onLine(typeof message === "string" ? message : JSON.stringify(message)); }
  last() { return JSON.parse(this.sent[this.sent.length - 1]); }
}

/** The part of net.Socket SocketTransport uses, fed chunks by the test. */
class FakeSocket extends EventEmitter {
  constructor() { super(); this.destroyed = false; this.written = []; this.writableLength = 0; }
  write(data) { this.written.push(String(data)); return true; }
  end() {}
  destroy() { if (!this.destroyed) { this.destroyed = true; queueMicrotask(() => this.emit("close")); } }
  feed(...chunks) { for (const chunk of chunks) this.emit("data", Buffer.from(chunk)); }
}

function socketTransport(lineCap) {
  const socket = new FakeSocket();
  const transport = new SocketTransport(socket, { lineCap });
  const lines = [], closes = [];
  transport.start({ onLine: (line) => lines.push(line), onClose: (error) => closes.push(error) });
  return { socket, transport, lines, closes };
}

test("the defaults are the documented ones", () => {
  assert.equal(DEFAULT_LINE_CAP, 64 * 1024 * 1024);
  assert.equal(DEFAULT_TIMEOUT, 30000);
  assert.equal(MAXIMUM_DEPTH, 128);
  assert.equal(STRAYS_KEPT, 16);
  assert.equal(new SocketTransport(new FakeSocket()).lineCap, DEFAULT_LINE_CAP);
  assert.throws(() => new SocketTransport(new FakeSocket(), { lineCap: 0 }), RangeError);
  assert.throws(() => new Client(new ScriptedTransport(), { timeout: -1 }), RangeError);
});

test("socket transport: lines split at any chunk boundary; a line of exactly the cap passes", () => {
  const { socket, lines, closes } = socketTransport(8);
  socket.feed('{"a":1}\n{"b"', ':2}\r\n', "1234", "5678\n", "x\ny\n");
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', "12345678", "x", "y"]);
  assert.deepEqual(closes, []);
});

test("socket transport: a line over the cap is refused as soon as the cap is passed, without its newline", () => {
  const { socket, transport, lines, closes } = socketTransport(8);
  socket.feed("ok\n12345", "678");
  assert.deepEqual(closes, []);
  socket.feed("9"); // the ninth byte of a line that has no newline yet
  assert.equal(closes.length, 1);
  assert.ok(closes[0] instanceof ProtocolError && closes[0].kind === "line-cap", String(closes[0]));
  assert.ok(socket.destroyed);
  socket.feed("\nlater\n");
  assert.deepEqual(lines, ["ok"], "nothing is delivered after the refusal");
  assert.equal(transport.partialBytes, 0);

  const whole = socketTransport(8);
  whole.socket.feed("123456789\n"); // a whole line over the cap in one chunk
  assert.equal(whole.closes[0].kind, "line-cap");
  assert.deepEqual(whole.lines, []);
});

test("socket transport: memory while reading a line stays within the cap, whatever the chunk sizes", () => {
  const cap = 1 << 16;
  const { socket, transport, lines, closes } = socketTransport(cap);
  const line = '{"pad":"' + "é".repeat((cap - 10) / 2) + '"}';
  const bytes = Buffer.from(line);
  assert.ok(bytes.length <= cap);
  let most = 0;
  for (let i = 0; i < bytes.length; i += 7) {
    socket.emit("data", bytes.subarray(i, Math.min(bytes.length, i + 7)));
    most = Math.max(most, transport.buffer.length);
  }
  assert.ok(most <= cap, `buffer grew to ${most} bytes for a cap of ${cap}`);
  socket.feed("\n");
  assert.deepEqual(closes, []);
  assert.equal(lines.length, 1);
  assert.equal(lines[0], line, "multi-byte characters split across chunks decode whole");
});

test("socket transport: bytes that are not UTF-8 are refused", () => {
  const { socket, lines, closes } = socketTransport(64);
  socket.emit("data", Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
  assert.deepEqual(lines, []);
  assert.equal(closes[0].kind, "utf8");
});

test("WebSocket transport: the cap is checked per message in UTF-8 bytes; binary messages are refused", () => {
  const play = (lineCap, ...messages) => {
    const socket = new EventEmitter();
    Object.assign(socket, { readyState: 1, bufferedAmount: 0, send() {}, close() {}, addEventListener: socket.on.bind(socket) });
    const transport = new WebSocketTransport(socket, { lineCap });
    const lines = [], closes = [];
    transport.start({ onLine: (line) => lines.push(line), onClose: (error) => closes.push(error) });
    for (const data of messages) socket.emit("message", { data });
    return { lines, closes };
  };
  // "é" is two bytes: four of them are eight bytes, the cap; five are over it.
  assert.deepEqual(play(8, "éééé", "ab\ncd").lines, ["éééé", "ab", "cd"]);
  const over = play(8, "ok", "ééééé", "later");
  assert.deepEqual(over.lines, ["ok"]);
  assert.equal(over.closes[0].kind, "line-cap");
  const binary = play(8, new ArrayBuffer(2));
  assert.equal(binary.closes[0].kind, "utf8");
  const loneSurrogate = play(8, "\ud800");
  assert.equal(loneSurrogate.closes[0].kind, "utf8");
});

// Every line protocol/README.md §9 says no layoutd writes, with the ProtocolError kind it gets.
const MALFORMED = [
  ["not JSON", '{"id":1,"result":{', "json"],
  ["not an object", "[1,2,3]", "shape"],
  ["a JSON string", '"text"', "shape"],
  ["null", "null", "shape"],
  ["nested 100,000 deep", '{"id":1,"result":{"a":' + "[".repeat(100000) + "]".repeat(100000) + "}}", "depth"],
  ["nested 129 deep", "[".repeat(129) + "]".repeat(129), "depth"],
  ["an id that is an object", '{"id":{"a":1},"result":{}}', "shape"],
  ["an id that is a boolean", '{"id":true,"result":{}}', "shape"],
  ["neither result nor error", '{"id":1}', "shape"],
  ["both result and error", '{"id":1,"result":{},"error":{"code":1,"name":"X","message":"m"}}', "shape"],
  ["a result that is a string", '{"id":1,"result":"text"}', "shape"],
  ["a result that is an array", '{"id":1,"result":[]}', "shape"],
  ["an error that is a string", '{"id":1,"error":"text"}', "shape"],
  ["an error without a name", '{"id":1,"error":{"code":1,"message":"m"}}', "shape"],
  ["event params that are a number", '{"event":"view.invalidated","seq":1,"params":7}', "shape"],
  ["an event without seq", '{"event":"view.invalidated","params":{}}', "shape"],
  ["an event whose seq is not an integer", '{"event":"view.invalidated","seq":1.5,"params":{}}', "shape"],
  ["an event whose subscription is a string", '{"event":"view.invalidated","seq":1,"subscription":"1","params":{}}', "shape"],
  ["an event whose name is a number", '{"event":5,"seq":1,"params":{}}', "shape"],
  ["an object that is neither", '{"hello":1}', "shape"],
  // What a mirror reads, checked before the application's mirror would throw a TypeError on it.
  ["a result whose entered is a number", '{"id":1,"result":{"view":"v","epoch":2,"entered":5,"changed":[],"left":[]}}', "shape"],
  ["a result whose epoch is a string", '{"id":1,"result":{"view":"v","epoch":"two"}}', "shape"],
  ["a subscribe result without a snapshot object", '{"id":1,"result":{"subscription":1,"snapshot":7}}', "shape"],
  ["a snapshot whose elements are not objects", '{"id":1,"result":{"subscription":1,"snapshot":{"epoch":1,"elements":[1,2]}}}', "shape"],
  ["an invalidation event whose left is null", '{"event":"view.invalidated","seq":1,"subscription":1,"params":{"view":"v","epoch":2,"entered":[],"changed":[],"left":null}}', "shape"],
  ["a resync event whose snapshot is a string", '{"event":"view.resync","seq":1,"subscription":1,"params":{"view":"v","snapshot":"s"}}', "shape"],
];

for (const [what, line, kind] of MALFORMED) {
  test(`a line that is ${what}: ProtocolError (${kind}), the connection closed, every waiting call failed with it`, async () => {
    const transport = new ScriptedTransport();
    const client = new Client(transport);
    const first = client.daemon.sync(), second = client.view.get({ view: "v" });
    transport.receive(line);
    const error = await first.then(() => assert.fail("resolved"), (e) => e);
    assert.ok(error instanceof ProtocolError, `${what}: ${error && error.stack}`);
    assert.equal(error.kind, kind);
    await assert.rejects(second, (e) => e === error, "the same error for every waiting call");
    assert.equal(transport.reason, error, "the transport was closed with the error (at once, no half-close)");
    assert.equal(client.protocolError, error);
    assert.ok(client.isClosed);
    assert.equal(client.pendingCount, 0);
    await assert.rejects(client.daemon.sync(), (e) => e instanceof ConnectionClosedError && e.cause === error);
    assert.equal(await client.closed, error, "closed resolves with why");
  });
}

test("the depth scan counts brackets outside strings only, without recursion", () => {
  assert.equal(deeperThan("[".repeat(128) + "]".repeat(128), 128), false);
  assert.equal(deeperThan("[".repeat(129) + "]".repeat(129), 128), true);
  assert.equal(deeperThan(JSON.stringify({ s: "[".repeat(500) + '\\"[' }), 128), false);
  assert.equal(deeperThan("[".repeat(10_000_000), 128), true);
});

test("an error name that is a member of Object.prototype makes a plain LayoutdError", () => {
  for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    const error = LayoutdError.from({ code: -1, name, message: "m" });
    assert.equal(error.constructor, LayoutdError, name);
  }
});

test("a call's deadline: rejects with CallTimeoutError, forgets the call, a late reply is a stray", async () => {
  const transport = new ScriptedTransport();
  const client = new Client(transport, { timeout: 40 });
  const started = performance.now();
  const late = client.daemon.sync();
  const quick = client.daemon.sync(undefined, { timeout: 10 });
  const patient = client.daemon.sync(undefined, { timeout: Infinity });
  await assert.rejects(quick, (e) => e instanceof CallTimeoutError && e.operation === "daemon.sync" && e.timeout === 10);
  await assert.rejects(late, (e) => e instanceof CallTimeoutError && e.timeout === 40);
  assert.ok(performance.now() - started >= 39);
  assert.equal(client.pendingCount, 1, "only the call without a deadline waits");
  transport.receive({ id: 1, result: {} });
  transport.receive({ id: 2, result: {} });
  assert.equal(client.strayCount, 2);
  assert.deepEqual(client.strays.map((s) => s.id), [1, 2]);
  transport.receive({ id: 3, result: { ok: 1 } });
  assert.deepEqual(await patient, { ok: 1 });
  assert.equal(client.isClosed, false, "the connection stays usable");
  const next = client.daemon.sync();
  transport.receive({ id: 4, result: {} });
  assert.deepEqual(await next, {});
  assert.equal(client.pending.size, 0);
  assert.throws(() => client.daemon.sync(undefined, { timeout: 0 }), RangeError);
  await client.close();
});

test("timers do not outlive the calls: closing rejects pending calls and clears their deadlines", async () => {
  const before = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const transport = new ScriptedTransport();
  const client = new Client(transport, { timeout: 60000 });
  const calls = Array.from({ length: 10 }, () => client.daemon.sync());
  assert.equal(process.getActiveResourcesInfo().filter((r) => r === "Timeout").length, before + 10);
  transport.close();
  for (const call of calls) await assert.rejects(call, ConnectionClosedError);
  assert.equal(process.getActiveResourcesInfo().filter((r) => r === "Timeout").length, before);
});

test("strays: counted, the 16 most recent kept, an id-null error that closes is not one", () => {
  const transport = new ScriptedTransport();
  const client = new Client(transport);
  const replies = [];
  client.on("reply", (message) => replies.push(message.id));
  for (let i = 0; i < 40; i++) transport.receive({ id: 1000 + i, result: { pad: "x".repeat(1000) } });
  transport.receive({ id: null, error: { code: -32700, name: "ParseError", message: "not JSON" } });
  assert.equal(client.strayCount, 41);
  assert.equal(client.strays.length, STRAYS_KEPT);
  assert.deepEqual(client.strays.map((s) => s.id), [...Array.from({ length: 15 }, (_, i) => 1025 + i), null]);
  assert.ok(client.strays.every((s) => s.line.length <= 257), "kept lines are cut");
  assert.equal(replies.length, 41, "reply listeners still see each");
  transport.receive({ id: null, error: { code: -32021, name: "IdleTimeout", message: "idle", data: { timeout: 5 } } });
  assert.equal(client.strayCount, 41);
  assert.equal(client.connectionError.name, "IdleTimeout");
});

test("events nobody takes are counted, not kept", () => {
  const transport = new ScriptedTransport();
  const client = new Client(transport);
  for (let seq = 1; seq <= 100; seq++) transport.receive({ event: "test.flood", seq, params: { pad: "x" } });
  assert.equal(client.droppedEventCount, 100);
  const seen = [];
  client.on("event", (message) => seen.push(message.seq));
  transport.receive({ event: "test.flood", seq: 101, params: {} });
  assert.equal(client.droppedEventCount, 100);
  assert.deepEqual(seen, [101]);
});

test("a subscription nobody reads holds at most eventQueueLimit events, then resyncs", async () => {
  const transport = new ScriptedTransport();
  const client = new Client(transport, { eventQueueLimit: 4 });
  const subscribing = client.subscribe("v");
  const snapshot = (epoch) => ({ view: "v", epoch, elements: [], window: { x: 0, y: 0, width: 1, height: 1 }, contentSize: { width: 1, height: 1 } });
  transport.receive({ id: 1, result: { subscription: 1, snapshot: snapshot(0) } });
  const subscription = await subscribing;
  for (let seq = 1; seq <= 4; seq++) transport.receive({ event: "view.invalidated", subscription: 1, seq, params: { view: "v", epoch: seq } });
  assert.equal(subscription.queue.length, 4);
  transport.receive({ event: "view.invalidated", subscription: 1, seq: 5, params: { view: "v", epoch: 5 } });
  assert.equal(subscription.queue.length, 0);
  assert.equal(subscription.droppedEventCount, 5);
  assert.deepEqual(transport.last(), { id: 2, method: "view.subscribe", params: { view: "v" } });
  transport.receive({ event: "view.invalidated", subscription: 1, seq: 6, params: { view: "v", epoch: 6 } });
  transport.receive({ id: 2, result: { subscription: 2, snapshot: snapshot(6) } });
  const resync = subscription.drain();
  assert.equal(resync.length, 1, "the old subscription's events are dropped for the snapshot");
  assert.equal(resync[0].event, "view.resync");
  assert.equal(resync[0].params.snapshot.epoch, 6);
  assert.equal(subscription.id, 2);
});

test("strays and errors keep a copy of a line's start, not the line behind a slice of it", async () => {
  const v8 = await import("node:v8"), vm = await import("node:vm");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  const transport = new ScriptedTransport();
  const client = new Client(transport);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < STRAYS_KEPT; i++) transport.receive(`{"id":${1000 + i},"result":{"pad":"${"x".repeat(4 << 20)}"}}`);
  gc();
  const grown = (process.memoryUsage().heapUsed - before) / (1 << 20);
  assert.equal(client.strays.length, STRAYS_KEPT);
  assert.ok(grown < 16, `16 strays of 4 MiB lines keep ${grown.toFixed(1)} MiB`);
});
