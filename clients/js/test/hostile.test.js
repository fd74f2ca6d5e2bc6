// The client against a fake layoutd that misbehaves (system-tests/hostile/server.py), one case per
// scenario of system-tests/hostile/scenarios.json: the outcome, the time it took, the strays counted and
// the memory grown. The table is the test: a scenario with an outcome this file does not know fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { connect, CallTimeoutError, ConnectionClosedError, ProtocolError } from "../src/node.js";
import { ROOT } from "../testing/daemon.js";

const TABLE = JSON.parse(fs.readFileSync(path.join(ROOT, "system-tests", "hostile", "scenarios.json"), "utf8"));
const MiB = 1024 * 1024;

// A collection before each case's baseline, so that garbage of the case before does not count.
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");

/** The outcome an error means, in the table's words. */
function outcomeOf(error, connecting) {
  if (connecting) return error instanceof CallTimeoutError || typeof error.code === "string" ? "unreachable" : `unexpected ${error}`;
  if (error instanceof CallTimeoutError) return "timeout";
  if (error instanceof ProtocolError) return "protocol";
  if (error instanceof ConnectionClosedError) return "closed";
  return `unexpected ${error && error.name}: ${error && error.message}`;
}

/** Runs `work` while sampling the resident size: the growth over a baseline taken after a collection. */
async function measured(work) {
  gc();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 5);
  try {
    return { value: await work(), growthMiB: () => (Math.max(peak, process.memoryUsage.rss()) - baseline) / MiB };
  } finally {
    clearInterval(sampler);
  }
}

/** One timed step: its outcome and how long it took, in seconds. */
async function timed(step) {
  const started = performance.now();
  try {
    return { value: await step(), seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    return { error, seconds: (performance.now() - started) / 1000 };
  }
}

/** Plays one scenario: what happened, for comparison with what the table expects. */
async function play(scenario, socket) {
  const timeout = TABLE.deadline * 1000;
  const connecting = await timed(() => connect({ socket, timeout, lineCap: TABLE.lineCap }));
  if (connecting.error) return { outcome: outcomeOf(connecting.error, true), seconds: connecting.seconds, strays: 0 };
  const client = connecting.value;
  try {
    if (scenario.outcome === "protocol") {
      // Two calls wait: both must fail with the one error, and the connection must be closed.
      const calls = [client.call("daemon.sync"), client.call("daemon.sync")];
      const [first, second] = await Promise.all(calls.map((call) => timed(() => call)));
      const actual = first.error ? outcomeOf(first.error) : "ok";
      if (actual === "protocol") {
        assert.equal(second.error, first.error, "the second waiting call fails with the same ProtocolError");
        assert.ok(client.isClosed, "the client closed the connection");
      }
      return { outcome: actual, seconds: first.seconds, strays: client.strayCount, open: !client.isClosed, pending: client.pendingCount };
    }
    const first = await timed(() => client.call("daemon.sync"));
    if (first.error) return { outcome: outcomeOf(first.error), seconds: first.seconds, strays: client.strayCount, open: !client.isClosed, pending: client.pendingCount };
    // Twice: the connection stays usable after what the peer did around the first reply.
    const second = await timed(() => client.call("daemon.sync"));
    const seconds = Math.max(first.seconds, second.seconds);
    if (second.error) return { outcome: outcomeOf(second.error), seconds, strays: client.strayCount, open: !client.isClosed, pending: client.pendingCount };
    return { outcome: "ok", seconds, strays: client.strayCount, open: !client.isClosed, pending: client.pendingCount };
  } finally {
    // Drop the connection at once (no half-close), so a flooding peer stops before the next case.
    client.transport.close(new Error("case over"));
  }
}

test("the hostile-server scenarios of system-tests/hostile/scenarios.json", async (t) => {
  const known = new Set(["ok", "timeout", "protocol", "closed", "unreachable"]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "layoutd-js-hostile-"));
  const server = spawn("python3", [path.join(ROOT, "system-tests", "hostile", "server.py"), dir], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => server.once("exit", resolve));
  try {
    await new Promise((resolve, reject) => {
      let out = "";
      server.stdout.on("data", (data) => {
        out += data;
        if (out.includes("ready\n")) resolve();
      });
      server.once("exit", (code) => reject(new Error(`server.py exited with ${code} before ready`)));
    });
    assert.ok(TABLE.scenarios.length >= 20, "the table has its scenarios");
    for (const scenario of TABLE.scenarios) {
      await t.test(scenario.name, async (t) => {
        assert.ok(known.has(scenario.outcome), `${scenario.name}: an outcome this suite does not know: ${scenario.outcome}`);
        const { value: actual, growthMiB } = await measured(() => play(scenario, path.join(dir, scenario.name + ".sock")));
        const grown = growthMiB();
        const limit = TABLE.deadline + TABLE.pollSlack;
        const report = `${scenario.name} (${scenario.does}): expected ${scenario.outcome}` +
          `${scenario.strays ? `, ≥ ${scenario.strays} strays` : ""}${scenario.memoryMiB ? `, ≤ ${scenario.memoryMiB} MiB` : ""}; ` +
          `actual ${actual.outcome} in ${actual.seconds.toFixed(3)} s, ${actual.strays} strays, +${grown.toFixed(1)} MiB`;
        t.diagnostic(report);
        assert.equal(actual.outcome, scenario.outcome, report);
        assert.ok(actual.seconds <= limit, `${report}: later than the deadline plus the poll slack (${limit} s)`);
        if (scenario.strays) assert.ok(actual.strays >= scenario.strays, report);
        if (scenario.memoryMiB) assert.ok(grown <= scenario.memoryMiB, report);
        if (actual.outcome === "timeout") {
          assert.equal(actual.pending, 0, "a call that timed out is forgotten");
          assert.ok(actual.open, "the connection stays open after a timeout");
        }
      });
    }
  } finally {
    server.stdin.end();
    const timer = setTimeout(() => server.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
