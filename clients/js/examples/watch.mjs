#!/usr/bin/env node
// Watches a view and prints every change of its window.
//
//   node clients/js/examples/watch.mjs VIEW [--socket PATH] [--count N]
//
// The socket is found as protocol/README.md §1 says (--socket, LAYOUTD_SOCKET, XDG_RUNTIME_DIR,
// /run/layoutd/ipc.sock). --count N: exit after N events. Exits when the view is deleted or the
// daemon stops.
import { connect, Mirror, isLayoutdError } from "../src/node.js";

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, value] = args.splice(i, 2);
  return value;
};
const socket = option("--socket");
const countOption = option("--count");
const count = countOption === undefined ? Infinity : Number(countOption);
const view = args[0];
if (!view) {
  console.error("usage: watch.mjs VIEW [--socket PATH] [--count N]");
  process.exit(2);
}

const rect = (r) => `${r.x},${r.y} ${r.width}x${r.height}`;
const describe = (e) => `${e.kind} ${e.id} (${rect(e.frame)})`;

const client = await connect({ socket });
await client.daemon.hello({ protocol: [1] });
let subscription;
try {
  subscription = await client.subscribe(view);
} catch (error) {
  console.error(isLayoutdError(error) ? `${error.name}: ${error.message}` : String(error));
  process.exit(1);
}
const mirror = new Mirror();
let events = 0;
mirror.onChange((message, m, outcome) => {
  const p = message.params;
  if (outcome === "deleted") {
    console.log(`view ${view} deleted`);
    return;
  }
  if (outcome === "reset") {
    console.log(`epoch ${m.epoch} resync: ${m.size} elements, window ${rect(m.window)}`);
  } else {
    console.log(`epoch ${p.epoch}: entered ${p.entered.length}, changed ${p.changed.length}, left ${p.left.length}, window ${rect(p.window)}` +
      (p.transition ? `, transition ${p.transition.duration}s (${p.transition.segments.length} segments)` : ""));
    for (const k of p.left) console.log(`  - ${k.kind} ${k.id}`);
    for (const e of p.entered) console.log(`  + ${describe(e)}`);
    for (const e of p.changed) console.log(`  ~ ${describe(e)}`);
  }
  if (++events >= count) client.close();
});
client.on("event", (message) => {
  if (message.event === "daemon.shutdown") console.log(`daemon stopping (${message.params.reason})`);
});
mirror.reset(subscription.snapshot);
console.log(`watching ${view} at epoch ${mirror.epoch}: ${mirror.size} elements, window ${rect(mirror.window)}`);
for (const e of mirror) console.log(`  ${describe(e)}`);
await mirror.follow(subscription);
await client.close();
