// Replays protocol transcripts (protocol/examples, protocol/conformance) through the JS client,
// comparing what the daemon writes back exactly as system-tests/e2e/transcripts.py does.
//
// Each request line goes through the client's API (the method's function, or call() for a method
// the client does not name) when the client would write that very line (same bytes); any other
// line (invalid JSON or UTF-8, duplicate keys, number forms, whitespace, extra fields) through sendRaw.
import fs from "node:fs";
import path from "node:path";
import { Client, PROTOCOL_METHODS } from "../src/client.js";
import { LayoutdError } from "../src/errors.js";
import { connectUnix } from "../src/transport-node.js";
import { CONFORMANCE_FLAGS, Daemon, ROOT } from "./daemon.js";

const WILDCARD = "<any>";
const CLOSING_ERRORS = ["LineTooLong", "IdleTimeout"];
const utf8 = new TextDecoder("utf-8", { fatal: true });

export function allTranscripts() {
  const out = [];
  for (const folder of ["examples", "conformance"]) {
    const base = path.join(ROOT, "protocol", folder);
    if (!fs.existsSync(base)) continue;
    for (const name of fs.readdirSync(base).sort()) if (name.endsWith(".jsonl")) out.push(path.join(base, name));
  }
  return out;
}

export const flagsFor = (file) => (file.includes(path.sep + "conformance" + path.sep) ? CONFORMANCE_FLAGS : []);

function parse(bytes) {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return undefined;
  }
}

function isExpected(bytes) {
  const value = parse(bytes);
  return value !== null && typeof value === "object" && !Array.isArray(value) && ("result" in value || "error" in value || "event" in value);
}

/** Lines of a file as Buffers (whitespace-only lines are kept and sent; empty ones dropped). */
export function readTranscript(file) {
  const data = fs.readFileSync(file);
  const lines = [];
  let start = 0;
  for (let i = data.indexOf(10); i >= 0; i = data.indexOf(10, start)) {
    if (i > start) lines.push(data.subarray(start, i));
    start = i + 1;
  }
  if (start < data.length) lines.push(data.subarray(start));
  return lines;
}

export function steps(lines) {
  const result = [];
  let requests = [], expected = [];
  for (const line of lines) {
    if (isExpected(line)) expected.push(line);
    else {
      if (expected.length) {
        result.push([requests, expected]);
        requests = [];
        expected = [];
      }
      requests.push(line);
    }
  }
  if (requests.length || expected.length) result.push([requests, expected]);
  return result;
}

export function matches(expected, actual) {
  if (expected === WILDCARD) return true;
  if (Array.isArray(expected)) return Array.isArray(actual) && expected.length === actual.length && expected.every((e, i) => matches(e, actual[i]));
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    const ek = Object.keys(expected), ak = Object.keys(actual);
    return ek.length === ak.length && ek.every((k, i) => k === ak[i] && matches(expected[k], actual[k]));
  }
  return expected === actual;
}

function sameLine(expected, actual) {
  if (!expected.includes(WILDCARD)) return expected === actual;
  try {
    return matches(JSON.parse(expected), JSON.parse(actual));
  } catch {
    return false;
  }
}

/** The API form of a request line, when the client would write exactly these bytes; else undefined. */
export function apiRequest(bytes) {
  let text;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  const value = parse(bytes);
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const allowed = ["id", "method", "params"].filter((k) => k in value);
  if (keys.join() !== allowed.join() || typeof value.method !== "string") return undefined;
  if ("id" in value && !(typeof value.id === "string" || Number.isInteger(value.id))) return undefined;
  if ("params" in value && (value.params === null || typeof value.params !== "object" || Array.isArray(value.params))) return undefined;
  const rebuilt = {};
  if ("id" in value) rebuilt.id = value.id;
  rebuilt.method = value.method;
  if ("params" in value) rebuilt.params = value.params;
  if (JSON.stringify(rebuilt) !== text) return undefined;
  return value;
}

/** Sends one request through the client's API; returns the call's promise (undefined for raw lines). */
function send(client, bytes, stats) {
  const request = apiRequest(bytes);
  if (!request) {
    stats.raw++;
    client.sendRaw(bytes);
    return undefined;
  }
  const options = "id" in request ? { id: request.id } : { notify: true };
  let fn;
  if (PROTOCOL_METHODS.includes(request.method)) {
    const parts = request.method.split(".");
    let target = client;
    for (const part of parts.slice(0, -1)) target = target[part];
    fn = target[parts[parts.length - 1]];
    stats.api++;
  } else {
    fn = (params, opts) => client.call(request.method, params, opts);
    stats.call++;
  }
  const promise = fn(request.params, options);
  return { id: request.id, notify: !("id" in request), promise: promise.then((value) => ({ value }), (error) => ({ error })) };
}

class LineReader {
  constructor(client) {
    this.lines = [];
    this.all = [];
    this.waiter = null;
    this.closed = false;
    client.on("line", (line) => {
      this.lines.push(line);
      this.all.push(line);
      if (this.waiter) this.waiter();
    });
    client.closed.then(() => {
      this.closed = true;
      if (this.waiter) this.waiter();
    });
  }

  async next(timeout = 10000) {
    const deadline = Date.now() + timeout;
    while (!this.lines.length) {
      if (this.closed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return "<timeout>";
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => { clearTimeout(timer); resolve(); };
      });
      this.waiter = null;
    }
    return this.lines.shift();
  }
}

/**
 * Replays one transcript; returns {problems, stats}. `connect(socketPath)` makes a LineTransport
 * (default: the Unix socket transport).
 */
export async function replay(file, { connect = connectUnix } = {}) {
  const problems = [];
  const stats = { api: 0, call: 0, raw: 0, lines: 0 };
  const daemon = await new Daemon(flagsFor(file)).start();
  const clients = [];
  const calls = [];
  const open = async () => {
    const client = new Client(await connect(daemon.path));
    clients.push({ client, reader: new LineReader(client) });
    return clients[clients.length - 1];
  };
  try {
    let { client, reader } = await open();
    let number = 0;
    outer: for (const [requests, expected] of steps(readTranscript(file))) {
      number++;
      for (const request of requests) {
        const call = send(client, request, stats);
        if (call) calls.push({ ...call, connection: clients.length - 1 });
      }
      for (const wantBytes of expected) {
        const want = wantBytes.toString("utf8");
        let got = await reader.next();
        if (got === undefined) got = "<end of stream>";
        stats.lines++;
        if (!sameLine(want, got)) {
          const last = requests.length ? requests[requests.length - 1].toString("utf8").slice(0, 200) : "(start)";
          problems.push(`step ${number} after ${last}\n  expected: ${want}\n  actual:   ${got}`);
          break outer;
        }
      }
      const lastExpected = expected.length ? parse(expected[expected.length - 1]) : undefined;
      if (lastExpected && lastExpected.error && CLOSING_ERRORS.includes(lastExpected.error.name)) {
        await client.closed;
        if (reader.lines.length) problems.push("line after the closing error: " + reader.lines[0]);
        ({ client, reader } = await open());
      }
    }
    if (!problems.length) {
      // Nothing more may arrive: a barrier's reply must be the next line.
      const barrier = client.call("daemon.sync", undefined, { id: "replay-end" });
      const got = await reader.next();
      if (got !== '{"id":"replay-end","result":{}}') problems.push("unexpected extra line: " + got);
      await barrier;
    }
    for (const { client: c } of clients) await c.close();
    // Every API call settled as its reply said: a result, or a LayoutdError of that name.
    if (!problems.length) {
      for (const call of calls) {
        if (call.notify) continue;
        const outcome = await call.promise;
        const replies = clients[call.connection].reader.all.map((l) => { try { return JSON.parse(l); } catch { return {}; } })
          .filter((m) => "id" in m && !("event" in m) && m.id === call.id);
        if (!replies.length) {
          if (!outcome.error) problems.push(`call ${JSON.stringify(call.id)} resolved without a reply`);
          continue;
        }
        const ok = replies.some((reply) => "error" in reply
          ? outcome.error instanceof LayoutdError && outcome.error.name === reply.error.name && outcome.error.code === reply.error.code
          : !outcome.error && (outcome.value === reply.result || JSON.stringify(outcome.value) === JSON.stringify(reply.result) ||
            (outcome.value && outcome.value.result && JSON.stringify(outcome.value.result) === JSON.stringify(reply.result))));
        if (!ok) problems.push(`call ${JSON.stringify(call.id)} settled as ${outcome.error ? outcome.error.name : "a result"} against its reply`);
      }
    }
  } finally {
    for (const { client: c } of clients) c.close();
    await daemon.dispose();
  }
  return { problems, stats };
}
