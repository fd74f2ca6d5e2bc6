#!/usr/bin/env node
// The JavaScript client's long-run check (issue 37; scripts/longrun.py runs it for RELIABILITY.md):
// against a real daemon, N calls mixing daemon.sync with view.scroll on a view of its own, followed
// by a Mirror whose change callback counts the events, sampling this process's resident size
// (VmRSS) every N/20 calls. Prints one JSON line; the resident size must stay flat.
//
//     node clients/js/bench/longrun.js --socket PATH [--calls N]     (N: default 1000000)
//
// V8 grows its young generation in steps as a program allocates (semi-spaces from 1 to 16 MiB, over
// minutes of calls): a warm-up of the runtime that the sample at 10 % does not cover, which would read
// as 10 MiB of growth. The check runs with the young generation at its full size from the start (it
// starts itself again with the flags below), so that what it measures is the client; V8's heap after
// a full collection stays flat (about 4 MiB) with or without them.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const YOUNG_GENERATION = ["--min-semi-space-size=16", "--max-semi-space-size=16"];
if (!YOUNG_GENERATION.every((flag) => process.execArgv.includes(flag))) {
  const child = spawnSync(process.execPath, [...process.execArgv, ...YOUNG_GENERATION, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: "inherit" });
  process.exit(child.status ?? 1);
}
const { connect, Mirror } = await import("../src/node.js");

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  return index < 0 ? fallback : process.argv[index + 1];
}

/** This process's resident size in KiB, as the kernel counts it. */
function residentKiB() {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync("/proc/self/status", "utf8"));
  return Number(match[1]);
}

const calls = Number(option("--calls", "1000000"));
if (!Number.isInteger(calls) || calls < 20) throw new Error("--calls must be a whole number, at least 20");
const client = await connect({ socket: option("--socket", undefined) });
const view = `longrun-js-${process.pid}-${Date.now()}`;
await client.view.create({ view, strategy: "flow", params: { itemSize: { width: 100, height: 100 } },
  viewport: { width: 320, height: 200 }, sections: [{ id: "s", items: Array.from({ length: 1000 }, (_, i) => ({ id: "i" + i })) }] });
const subscription = await client.subscribe(view);
const mirror = new Mirror();
let events = 0;
mirror.onChange(() => { events++; });
const following = mirror.follow(subscription);

const every = Math.floor(calls / 20);
const samples = [];
const started = performance.now();
for (let i = 1; i <= calls; i++) {
  // One call in four scrolls (a new offset each time: one event each), the rest are barriers.
  if (i % 4 === 0) await client.view.scroll({ view, offset: { x: 0, y: (i * 37) % 30000 } });
  else await client.daemon.sync();
  if (i % every === 0 && samples.length < 20) samples.push(residentKiB());
}
const seconds = (performance.now() - started) / 1000;
await client.daemon.sync(); // the last events have arrived
await subscription.unsubscribe();
await following;
await client.view.delete({ view });
const strays = client.strayCount;
await client.close();
console.log(JSON.stringify({ client: "js", calls, events, seconds: Math.round(seconds * 10) / 10, rssKiB: samples,
  rssWarmKiB: samples[1], rssEndKiB: samples[samples.length - 1], strays }));
