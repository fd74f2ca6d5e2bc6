// Client behaviour against a scripted transport (no daemon): error classes for every name of
// protocol/errors.md, reply matching, seq gaps, unknown events, connection-level errors,
// socket discovery, and the mirror's epoch checks.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import * as api from "../src/index.js";
import { discoverSocketPath } from "../src/node.js";
import { ROOT } from "../testing/daemon.js";

const { Client, LayoutdError, Mirror, errorClasses, ERROR_CODES, isLayoutdError, ConnectionClosedError, PROTOCOL_METHODS } = api;

/** A LineTransport the test plays the daemon on. */
class ScriptedTransport {
  constructor() { this.sent = []; this.closed = false; }
  start(handlers) { this.handlers = handlers; }
  send(line) { this.sent.push(typeof line === "string" ? line : Buffer.from(line).toString()); }
  close() { if (!this.closed) { this.closed = true; this.handlers.onClose(); } }
  receive(message) { this.handlers.onLine(typeof message === "string" ? message : JSON.stringify(message)); }
  last() { return JSON.parse(this.sent[this.sent.length - 1]); }
}

const snapshot = (epoch, ids) => ({ view: "v", epoch, window: { x: 0, y: 0, width: 10, height: 10 }, contentSize: { width: 10, height: 10 },
  viewport: { width: 10, height: 10, offset: { x: 0, y: 0 } }, elements: ids.map((id) => cell(id)) });
const cell = (id, x = 0) => ({ id, kind: "cell", section: 0, item: 0, frame: { x, y: 0, width: 1, height: 1 }, zIndex: 0, alpha: 1, hidden: false });
const invalidation = (epoch, changes) => ({ view: "v", epoch, window: { x: 0, y: 0, width: 10, height: 10 }, contentSize: { width: 10, height: 10 },
  contentOffset: { x: 0, y: 0 }, entered: [], changed: [], left: [], ...changes });

test("every error name of protocol/errors.md has its class and code", () => {
  const table = fs.readFileSync(path.join(ROOT, "protocol", "errors.md"), "utf8");
  const rows = [...table.matchAll(/^\| `(\w+)`(?: ⏏)? \| (-\d+) \|/gm)];
  assert.ok(rows.length >= 29);
  for (const [, name, code] of rows) {
    assert.equal(ERROR_CODES[name], Number(code), name);
    const error = LayoutdError.from({ code: Number(code), name, message: "m", data: { x: 1 } }, { id: 3, method: "view.get" });
    assert.ok(error instanceof errorClasses[name] && error instanceof LayoutdError && error instanceof Error, name);
    assert.equal(error.name, name);
    assert.equal(error.code, Number(code));
    assert.deepEqual(error.data, { x: 1 });
    assert.equal(error.id, 3);
    assert.ok(isLayoutdError(error, name) && !isLayoutdError(error, name + "X"));
  }
  assert.equal(Object.keys(errorClasses).length, rows.length);
  const unknown = LayoutdError.from({ code: -32000, name: "SomethingNew", message: "new" });
  assert.equal(unknown.constructor, LayoutdError);
  assert.equal(unknown.name, "SomethingNew");
});

test("every method of daemon.describe has a function", () => {
  const describe = fs.readFileSync(path.join(ROOT, "protocol", "examples", "describe.jsonl"), "utf8").split("\n")
    .map((l) => { try { return JSON.parse(l); } catch { return null; } }).find((m) => m && m.result && m.result.methods);
  const names = describe.result.methods.map((m) => m.name).sort();
  assert.deepEqual([...PROTOCOL_METHODS].sort(), names);
  const client = new Client(new ScriptedTransport());
  for (const name of names) {
    let target = client;
    for (const part of name.split(".")) target = target[part];
    assert.equal(typeof target, "function", name);
  }
});

test("replies resolve by id, errors reject with their class, notifications send no id", async () => {
  const transport = new ScriptedTransport();
  const client = new Client(transport);
  const first = client.view.get({ view: "a" });
  const second = client.call("view.future", { x: 1 }, { id: "s-1" });
  assert.deepEqual(JSON.parse(transport.sent[0]), { id: 1, method: "view.get", params: { view: "a" } });
  assert.equal(transport.sent[1], '{"id":"s-1","method":"view.future","params":{"x":1}}');
  await client.notify("view.select", { view: "a", ids: ["x"] });
  assert.equal(transport.sent[2], '{"method":"view.select","params":{"view":"a","ids":["x"]}}');
  transport.receive({ id: 1, error: { code: -32001, name: "ViewNotFound", message: "no view named 'a'", data: { view: "a" } } });
  transport.receive({ id: "s-1", result: { ok: true } });
  await assert.rejects(first, (e) => e instanceof api.ViewNotFoundError && e.data.view === "a" && e.method === "view.get");
  assert.deepEqual(await second, { ok: true });
  const replies = [];
  client.on("reply", (m) => replies.push(m));
  transport.receive({ id: null, error: { code: -32700, name: "ParseError", message: "bad" } });
  assert.equal(replies.length, 1);
});

test("a connection-level error line rejects what is pending with it; close rejects the rest", async () => {
  const transport = new ScriptedTransport();
  const client = new Client(transport);
  const pending = client.daemon.status();
  transport.receive({ id: null, error: { code: -32700, name: "LineTooLong", message: "long", data: { limit: 64 } } });
  transport.close();
  await assert.rejects(pending, (e) => e instanceof api.LineTooLongError && e.data.limit === 64);
  await assert.rejects(client.daemon.sync(), ConnectionClosedError);
  const other = new ScriptedTransport();
  const second = new Client(other);
  const waiting = second.daemon.sync();
  other.receive({ event: "daemon.shutdown", seq: 1, params: { reason: "SIGTERM", deadline: 5 } });
  other.close();
  await assert.rejects(waiting, (e) => e instanceof ConnectionClosedError && e.shutdown === true);
});

test("subscriptions: events in order, unknown events ignored but counted, a seq gap resubscribes", async () => {
  const transport = new ScriptedTransport();
  const client = new Client(transport);
  const subscribing = client.subscribe("v");
  transport.receive({ id: 1, result: { subscription: 4, snapshot: snapshot(0, ["a"]) } });
  // In the same read as the reply: must reach the subscription.
  transport.receive({ event: "view.invalidated", subscription: 4, seq: 1, params: invalidation(1, { entered: [cell("b")] }) });
  const subscription = await subscribing;
  const mirror = new Mirror();
  const following = mirror.follow(subscription);
  transport.receive({ event: "some.future.event", seq: 2, params: {} });
  transport.receive({ event: "view.invalidated", subscription: 4, seq: 3, params: invalidation(2, { left: [{ kind: "cell", id: "a" }] }) });
  await new Promise((r) => setImmediate(r));
  assert.equal(mirror.epoch, 2);
  assert.deepEqual(mirror.elements().map((e) => e.id), ["b"]);
  // seq 5 after 3: lost events. The client subscribes again and replaces the mirror.
  const gaps = [];
  client.on("gap", (m) => gaps.push(m.seq));
  transport.receive({ event: "view.invalidated", subscription: 4, seq: 5, params: invalidation(4, {}) });
  assert.deepEqual(gaps, [5]);
  assert.deepEqual(transport.last(), { id: 2, method: "view.subscribe", params: { view: "v" } });
  transport.receive({ id: 2, result: { subscription: 9, snapshot: snapshot(7, ["c", "d"]) } });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(transport.last(), { id: 3, method: "view.unsubscribe", params: { subscription: 4 } });
  transport.receive({ id: 3, result: {} });
  assert.equal(subscription.id, 9);
  assert.equal(mirror.epoch, 7);
  assert.deepEqual(mirror.elements().map((e) => e.id), ["c", "d"]);
  transport.receive({ event: "view.deleted", subscription: 9, seq: 6, params: { view: "v" } });
  await following;
  assert.equal(mirror.deleted, true);
  assert.equal(mirror.size, 0);
});

test("mirror: an epoch gap resubscribes; dry runs and old epochs are not applied; resync replaces", async () => {
  const mirror = new Mirror().reset(snapshot(3, ["a", "b"]));
  assert.equal(mirror.apply(invalidation(4, { dryRun: true, left: [{ kind: "cell", id: "a" }] })), false);
  assert.equal(mirror.handle({ event: "view.invalidated", params: invalidation(3, {}) }), "ignored");
  assert.equal(mirror.handle({ event: "view.invalidated", params: invalidation(6, {}) }), "gap");
  assert.equal(mirror.handle({ event: "view.invalidated", params: invalidation(4, { changed: [cell("b", 5)], windowTruncated: true }) }), "applied");
  assert.equal(mirror.cell("b").frame.x, 5);
  assert.equal(mirror.windowTruncated, true);
  assert.equal(mirror.handle({ event: "view.resync", params: { view: "v", skipped: 10, snapshot: snapshot(20, ["z"]) } }), "reset");
  assert.deepEqual([...mirror].map((e) => e.id), ["z"]);
  assert.equal(mirror.epoch, 20);

  const transport = new ScriptedTransport();
  const client = new Client(transport);
  const subscribing = client.subscribe("v");
  transport.receive({ id: 1, result: { subscription: 1, snapshot: snapshot(0, ["a"]) } });
  const subscription = await subscribing;
  const follower = new Mirror();
  follower.follow(subscription);
  transport.receive({ event: "view.invalidated", subscription: 1, seq: 1, params: invalidation(2, {}) });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(transport.last(), { id: 2, method: "view.subscribe", params: { view: "v" } });
});

test("elements sort as the protocol does: cells, headers, footers; ids in Unicode scalar order", () => {
  const mirror = new Mirror().reset({ ...snapshot(0, []), elements: [
    { ...cell("\u{1F600}") }, { ...cell("\uFF21") }, { ...cell("b") }, { ...cell("a") },
    { ...cell("s"), kind: "footer" }, { ...cell("s"), kind: "header" }] });
  assert.deepEqual(mirror.elements().map((e) => e.kind + ":" + e.id), ["cell:a", "cell:b", "cell:\uFF21", "cell:\u{1F600}", "header:s", "footer:s"]);
});

test("socket discovery follows protocol/README.md §1", () => {
  assert.equal(discoverSocketPath({ socket: "/x.sock", env: { LAYOUTD_SOCKET: "/y.sock" } }), "/x.sock");
  assert.equal(discoverSocketPath({ env: { LAYOUTD_SOCKET: "/y.sock", XDG_RUNTIME_DIR: "/run/user/1" } }), "/y.sock");
  assert.equal(discoverSocketPath({ env: { LAYOUTD_SOCKET: "", XDG_RUNTIME_DIR: "/run/user/1" } }), "/run/user/1/layoutd/ipc.sock");
  assert.equal(discoverSocketPath({ env: { XDG_RUNTIME_DIR: "" } }), "/run/layoutd/ipc.sock");
  assert.equal(discoverSocketPath({ env: {} }), "/run/layoutd/ipc.sock");
});
