// Every method of protocol/interface.json (read here, not through the generated src/protocol.js) is a
// function on a connected Client that sends that method, and has typed params and result in the
// declarations (checked by compiling a probe with tsc); or it is in the client's RAW_ONLY table
// (reachable with call() only) with a reason.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, RAW_ONLY } from "../src/client.js";
import { LayoutdError } from "../src/errors.js";
import { connectUnix } from "../src/transport-node.js";
import { Daemon, ROOT } from "../testing/daemon.js";

const INTERFACE = JSON.parse(fs.readFileSync(path.join(ROOT, "protocol", "interface.json"), "utf8"));
const DEFS = JSON.parse(fs.readFileSync(path.join(ROOT, "protocol", "schemas", "common.json"), "utf8")).$defs;
const METHODS = INTERFACE.methods;
const TYPED = METHODS.filter((m) => !Object.hasOwn(RAW_ONLY, m.name));
// Functions that resolve to something richer than the method's result, and the declared type of it.
const WRAPPED = { "view.subscribe": "Subscription" };

/** The value at a method's path on `client` (client.view.stage.commit for view.stage.commit). */
function functionOf(client, name) {
  let target = client;
  for (const part of name.split(".")) target = target == null ? undefined : target[part];
  return target;
}

let daemon;
before(async () => { daemon = await new Daemon().start(); });
after(async () => { if (daemon) await daemon.dispose(); });

test("RAW_ONLY names only methods of protocol/interface.json, each with a reason", () => {
  const names = new Set(METHODS.map((m) => m.name));
  assert.ok(names.size > 0);
  for (const [name, reason] of Object.entries(RAW_ONLY)) {
    assert.ok(names.has(name), `RAW_ONLY names ${name}, which protocol/interface.json does not describe`);
    assert.ok(typeof reason === "string" && reason.trim().length > 0, `RAW_ONLY gives no reason for ${name}`);
  }
});

test("every method is a function on a connected Client that sends that method (RAW_ONLY ones are not)", async (t) => {
  const transport = await connectUnix(daemon.path);
  const sent = [];
  const send = transport.send.bind(transport);
  transport.send = (line) => { sent.push(String(line)); send(line); };
  const client = new Client(transport);
  try {
    const { methods: served } = await client.daemon.describe();
    const known = new Set(served.map((m) => m.name));
    const missing = TYPED.filter((m) => typeof functionOf(client, m.name) !== "function").map((m) => m.name);
    assert.deepEqual(missing, [], "methods of protocol/interface.json with no function on the Client (and not in RAW_ONLY)");
    for (const name of Object.keys(RAW_ONLY)) {
      assert.notEqual(typeof functionOf(client, name), "function", `${name} is in RAW_ONLY but has a function`);
    }
    // Each function with empty params: the line names its method, and the daemon (for the methods it
    // serves: the binary may be older than the description) never answers MethodNotFound.
    const outcomes = [];
    for (const [index, method] of TYPED.entries()) {
      const id = "coverage-" + index;
      const settled = functionOf(client, method.name)({}, { id }).then(() => null, (error) => error);
      const line = JSON.parse(sent[sent.length - 1]);
      assert.deepEqual({ id: line.id, method: line.method }, { id, method: method.name }, method.name);
      outcomes.push([method.name, settled]);
    }
    let checked = 0;
    for (const [name, settled] of outcomes) {
      const error = await settled;
      if (error !== null) assert.ok(error instanceof LayoutdError, `${name}: ${error}`);
      if (!known.has(name)) continue;
      assert.notEqual(error && error.name, "MethodNotFound", `${name}: the daemon does not know the method the function sent`);
      checked++;
    }
    assert.ok(checked > 0, "the daemon serves none of the methods");
    const unknown = TYPED.map((m) => m.name).filter((name) => !known.has(name));
    if (unknown.length) t.diagnostic(`not served by ${daemon.path}'s daemon (older than the description): ${unknown.join(", ")}`);
  } finally {
    await client.close();
  }
});

/** {properties, required} of an object schema (through $ref and allOf), or null for a union. */
function shape(schema) {
  if (schema.$ref) return shape(DEFS[schema.$ref.split("/").pop()]);
  if (schema.oneOf || schema.anyOf) return null;
  const properties = new Set(Object.keys(schema.properties || {}));
  const required = new Set(schema.required || []);
  for (const part of schema.allOf || []) {
    const inner = shape(part);
    if (!inner) return null;
    for (const name of inner.properties) properties.add(name);
    for (const name of inner.required) required.add(name);
  }
  return { properties, required };
}

const keys = (names) => (names.size ? [...names].sort().map((n) => JSON.stringify(n)).join(" | ") : "never");
const access = (name) => "Client" + name.split(".").map((part) => `[${JSON.stringify(part)}]`).join("");

/**
 * A TypeScript program that compiles only if every typed method's function is declared on Client with
 * params that are the schema's fields exactly (required ones required, no index signature) and the
 * result of ProtocolMethods (its known fields the schema's, the required ones required), and every
 * raw-only method has no declared function. Returns the text and, per line, the method it checks.
 */
function probe() {
  const index = path.join(ROOT, "clients", "js", "index");
  const lines = [
    `import type { Client, ProtocolMethods, Subscription } from ${JSON.stringify(index)};`,
    "type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;",
    "type Expect<T extends true> = T;",
    "type IsAny<T> = 0 extends 1 & T ? true : false;",
    "type Known<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };",
    "type RequiredKnown<T> = { [K in Known<T>]-?: {} extends Pick<T, K> ? never : K }[Known<T>];",
    // An index signature other than Record<string, never>'s (params without fields) lets any field through.
    "type Open<T> = string extends keyof T ? ([T[string]] extends [never] ? false : true) : false;",
    "export type Checks = [",
  ];
  const owner = [];
  const add = (text, method) => { lines.push(text); owner[lines.length] = method; };
  for (const method of TYPED) {
    const fn = access(method.name);
    const declared = `ProtocolMethods[${JSON.stringify(method.name)}]`;
    const params = `Exclude<Parameters<${fn}>[0], string | undefined>`;
    const result = shape(method.result);
    add(`  Expect<Equal<IsAny<${params}>, false>>, Expect<Equal<${params}, ${declared}["params"]>>,`, method.name);
    add(`  Expect<Equal<Known<${params}>, ${keys(new Set(Object.keys(method.params.properties || {})))}>>,`, method.name);
    add(`  Expect<Equal<RequiredKnown<${params}>, ${keys(new Set(method.params.required || []))}>>, Expect<Equal<Open<${params}>, false>>,`, method.name);
    add(`  Expect<Equal<Awaited<ReturnType<${fn}>>, ${WRAPPED[method.name] || `${declared}["result"]`}>>, Expect<Equal<IsAny<${declared}["result"]>, false>>,`, method.name);
    if (result) {
      add(`  Expect<Equal<Known<${declared}["result"]>, ${keys(result.properties)}>>,`, method.name);
      add(`  Expect<Equal<RequiredKnown<${declared}["result"]>, ${keys(result.required)}>>,`, method.name);
    }
  }
  lines.push("];");
  for (const name of Object.keys(RAW_ONLY)) {
    add("// @ts-expect-error: a raw-only method has no function", name);
    add(`export type Raw${lines.length} = ${access(name)};`, name);
  }
  return { text: lines.join("\n") + "\n", owner };
}

test("every method's function has typed params and result in the declarations (tsc --strict on a probe)", (t) => {
  const version = spawnSync("tsc", ["--version"], { encoding: "utf8" });
  if (version.error) {
    if (process.env.LAYOUTD_REQUIRE_TSC) assert.fail("tsc not found: install Debian's node-typescript (make deps does)");
    t.skip("tsc not installed (Debian's node-typescript)");
    return;
  }
  const { text, owner } = probe();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "layoutd-js-probe-"));
  try {
    const file = path.join(dir, "probe.ts");
    fs.writeFileSync(file, text);
    const run = spawnSync("tsc", ["--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution", "node",
      "--lib", "es2022,dom", file], { encoding: "utf8" });
    const problems = [...new Set([...run.stdout.matchAll(/probe\.ts\((\d+),\d+\): (error TS\d+: .*)/g)]
      .map(([, line, message]) => `${owner[Number(line)] || "line " + line}: ${message}`))];
    assert.deepEqual(problems, [], "methods whose declared function, params or result differ from protocol/interface.json");
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.ok(text.split("\n").length > TYPED.length * 4, "the probe checks every method");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
