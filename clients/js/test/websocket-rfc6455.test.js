// The WebSocket transport with a real WebSocket: Node's own (undici, `--experimental-websocket` on
// Node 20, global on 22+) in a child process, talking to a minimal RFC 6455 server written here that
// bridges each text message to one line of the daemon's socket and back — the shape of the
// `layoutctl web` bridge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Daemon } from "../testing/daemon.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

function frame(opcode, payload) {
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x80 | opcode, length])
    : length < 65536 ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 255])
    : Buffer.concat([Buffer.from([0x80 | opcode, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b; })()]);
  return Buffer.concat([header, payload]);
}

/** A minimal RFC 6455 server: text messages ⇄ lines of the daemon's socket. */
function bridge(socketPath) {
  const server = http.createServer((request, response) => { response.writeHead(426); response.end(); });
  server.stats = { messages: 0, lines: 0 };
  server.on("upgrade", (request, socket) => {
    const key = request.headers["sec-websocket-key"];
    if (request.headers.upgrade.toLowerCase() !== "websocket" || !key) return socket.destroy();
    const accept = crypto.createHash("sha1").update(key + GUID).digest("base64");
    socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`);
    const daemon = net.createConnection({ path: socketPath });
    let fromDaemon = "", input = Buffer.alloc(0), message = [], closing = false;
    daemon.setEncoding("utf8");
    daemon.on("data", (text) => {
      fromDaemon += text;
      for (let i; (i = fromDaemon.indexOf("\n")) >= 0;) {
        socket.write(frame(1, Buffer.from(fromDaemon.slice(0, i))));
        fromDaemon = fromDaemon.slice(i + 1);
        server.stats.lines++;
      }
    });
    daemon.on("end", () => { if (!closing) { closing = true; socket.end(frame(8, Buffer.from([0x03, 0xe8]))); } });
    daemon.on("error", () => socket.destroy());
    socket.on("data", (chunk) => {
      input = Buffer.concat([input, chunk]);
      for (;;) {
        if (input.length < 2) return;
        const fin = input[0] & 0x80, opcode = input[0] & 0x0f, masked = input[1] & 0x80;
        let length = input[1] & 0x7f, offset = 2;
        if (length === 126) { if (input.length < 4) return; length = input.readUInt16BE(2); offset = 4; }
        else if (length === 127) { if (input.length < 10) return; length = Number(input.readBigUInt64BE(2)); offset = 10; }
        if (!masked) return socket.destroy(); // clients must mask (RFC 6455 §5.3)
        if (input.length < offset + 4 + length) return;
        const mask = input.subarray(offset, offset + 4);
        const payload = Buffer.from(input.subarray(offset + 4, offset + 4 + length));
        for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
        input = input.subarray(offset + 4 + length);
        if (opcode === 8) {
          if (!closing) { closing = true; socket.end(frame(8, payload.subarray(0, 2))); }
          daemon.end();
        } else if (opcode === 9) socket.write(frame(10, payload));
        else if (opcode === 1 || opcode === 0) {
          message.push(payload);
          if (fin) {
            server.stats.messages++;
            daemon.write(Buffer.concat([...message, Buffer.from("\n")]));
            message = [];
          }
        }
      }
    });
    socket.on("close", () => daemon.destroy());
    socket.on("error", () => daemon.destroy());
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const CHILD = (entry, url) => `
import { Client, connectWebSocket, Mirror } from ${JSON.stringify(entry)};
const client = new Client(await connectWebSocket(${JSON.stringify(url)}));
const out = {};
out.hello = (await client.daemon.hello({ protocol: [1] })).protocol;
await client.view.create({ view: "w", strategy: "flow", params: { itemSize: { width: 100, height: 100 } },
  viewport: { width: 320, height: 200 }, sections: [{ id: "s", items: ["a", "b", "c", "d"].map((id) => ({ id })) }] });
const subscription = await client.subscribe("w");
const mirror = new Mirror();
const following = mirror.follow(subscription);
// 6000 items: a message over 65535 bytes (the 64-bit length form).
const big = Array.from({ length: 6000 }, (_, i) => ({ id: "n" + i }));
const inserted = await client.view.update({ view: "w", updates: [{ op: "insertItems", section: "s", at: 4, items: big }] });
await client.view.scroll({ view: "w", offset: { x: 0, y: 100 } });
await client.daemon.sync();
const snapshot = await client.view.get({ view: "w" });
out.itemCount = snapshot.itemCount;
out.mirrorEqual = JSON.stringify(mirror.elements()) === JSON.stringify(snapshot.elements) && mirror.epoch === snapshot.epoch;
try { await client.view.get({ view: "nope" }); } catch (error) { out.error = error.name; }
await subscription.unsubscribe();
await following;
await client.close();
out.closed = client.isClosed;
console.log(JSON.stringify(out));
`;

// Node's WebSocket client exists from 20.10 (behind --experimental-websocket until 22); Debian 12's
// Node 18 has none, so there the fake-socket test (websocket.test.js) stands alone.
const [major, minor] = process.versions.node.split(".").map(Number);
const nodeHasWebSocket = major > 20 || (major === 20 && minor >= 10);

test("WebSocket transport with a real WebSocket client and an RFC 6455 bridge",
  { skip: nodeHasWebSocket ? false : `Node ${process.versions.node} has no WebSocket client` }, async () => {
  const daemon = await new Daemon().start();
  const server = await bridge(daemon.path);
  try {
    const url = `ws://127.0.0.1:${server.address().port}/`;
    const file = path.join(daemon.dir, "child.mjs");
    fs.writeFileSync(file, CHILD(pathToFileURL(path.join(HERE, "..", "src", "index.js")).href, url));
    const hasGlobal = typeof globalThis.WebSocket === "function";
    const child = spawn(process.execPath, [...(hasGlobal ? [] : ["--experimental-websocket"]), file], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    const status = await new Promise((resolve) => child.once("exit", resolve));
    assert.equal(status, 0, err);
    assert.deepEqual(JSON.parse(out), { hello: 1, itemCount: 6004, mirrorEqual: true, error: "ViewNotFound", closed: true });
    assert.ok(server.stats.messages >= 9 && server.stats.lines >= 9, JSON.stringify(server.stats));
  } finally {
    server.close();
    await daemon.dispose();
  }
});
