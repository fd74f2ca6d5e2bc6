// The WebSocket transport, in Node, with a fake that has the standard WebSocket API (EventTarget,
// readyState, send, close) and carries each text message to the real daemon as one line — what
// the `layoutctl web` bridge will do. Every transcript whose lines are valid UTF-8 text (a
// WebSocket text message cannot carry anything else) is replayed through it.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { Client, WebSocketTransport, connectWebSocket, Mirror } from "../src/index.js";
import { allTranscripts, readTranscript, replay } from "../testing/transcripts.js";
import { Daemon, ROOT, waitFor } from "../testing/daemon.js";

/** A WebSocket look-alike: `new FakeWebSocket("ws+unix:///path/to/ipc.sock")`. */
class FakeWebSocket extends EventTarget {
  static sent = 0;
  constructor(url) {
    super();
    this.url = url;
    this.readyState = 0;
    this.socket = net.createConnection({ path: new URL(url).pathname });
    let buffer = "";
    this.socket.setEncoding("utf8");
    this.socket.on("connect", () => { this.readyState = 1; this.#fire("open", new Event("open")); });
    this.socket.on("data", (text) => {
      buffer += text;
      let i;
      while ((i = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        this.#fire("message", new MessageEvent("message", { data: line }));
      }
    });
    this.socket.on("end", () => this.socket.end());
    this.socket.on("error", () => {});
    this.socket.on("close", () => {
      const wasOpen = this.readyState === 1 || this.readyState === 2;
      this.readyState = 3;
      if (!wasOpen) this.#fire("error", new Event("error"));
      const event = new Event("close");
      event.code = 1000;
      this.#fire("close", event);
    });
  }
  #fire(name, event) {
    if (typeof this["on" + name] === "function") this["on" + name](event);
    this.dispatchEvent(event);
  }
  send(data) {
    if (this.readyState !== 1) throw new Error("InvalidStateError: not open");
    if (typeof data !== "string" || data.includes("\n")) throw new Error("one protocol line per text message");
    FakeWebSocket.sent++;
    this.socket.write(data + "\n");
  }
  close() {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    this.socket.end();
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const textOnly = (file) => readTranscript(file).every((line) => { try { utf8.decode(line); return true; } catch { return false; } });

test("WebSocket transport: a session through the standard API", async () => {
  const daemon = await new Daemon().start();
  try {
    const client = new Client(await connectWebSocket("ws+unix://" + daemon.path, { WebSocket: FakeWebSocket }));
    const hello = await client.daemon.hello({ protocol: [1] });
    assert.equal(hello.protocol, 1);
    await client.view.create({ view: "v", strategy: "flow", params: { itemSize: { width: 100, height: 100 } },
      viewport: { width: 320, height: 200 }, sections: [{ id: "s", items: [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "d" }] }] });
    const subscription = await client.subscribe("v");
    const mirror = new Mirror();
    const following = mirror.follow(subscription);
    const result = await client.view.scroll({ view: "v", offset: { x: 0, y: 100 } });
    await waitFor(() => mirror.epoch === result.epoch, { what: "the event over the WebSocket" });
    assert.deepEqual(mirror.elements().map((e) => e.id), ["d"]);
    await assert.rejects(client.view.get({ view: "nope" }), { name: "ViewNotFound", code: -32001 });
    await client.close();
    await following;
    assert.equal(client.isClosed, true);
  } finally {
    await daemon.dispose();
  }
});

test("WebSocket transport: lines sent before open wait for it; on* handlers also work", async () => {
  const daemon = await new Daemon().start();
  try {
    const socket = new FakeWebSocket("ws+unix://" + daemon.path);
    socket.addEventListener = undefined; // only the onopen/onmessage/onclose properties
    const client = new Client(new WebSocketTransport(socket));
    const reply = client.daemon.sync();
    assert.equal(socket.readyState, 0);
    assert.deepEqual(await reply, {});
    await client.close();
  } finally {
    await daemon.dispose();
  }
});

const files = allTranscripts().filter(textOnly);
test("WebSocket transport: transcripts to replay", () => {
  assert.ok(files.length >= allTranscripts().length - 2);
});
for (const file of files) {
  test("WebSocket transcript " + path.relative(ROOT, file), async () => {
    const { problems } = await replay(file, { connect: (socketPath) => connectWebSocket("ws+unix://" + socketPath, { WebSocket: FakeWebSocket }) });
    assert.deepEqual(problems, []);
  });
}
