// index.d.ts (hand-written) declares exactly what src/node.js exports, and every method function.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as runtime from "../src/node.js";
import * as browser from "../src/index.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const dts = fs.readFileSync(path.join(HERE, "..", "index.d.ts"), "utf8");

test("index.d.ts declares every runtime export, and nothing that does not exist", () => {
  const declared = new Set([...dts.matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]));
  assert.deepEqual([...declared].sort(), Object.keys(runtime).sort());
});

test("the browser entry (src/index.js) imports nothing from Node", () => {
  for (const file of fs.readdirSync(path.join(HERE, "..", "src"))) {
    if (file === "node.js" || file === "transport-node.js") continue;
    const source = fs.readFileSync(path.join(HERE, "..", "src", file), "utf8");
    assert.ok(!/from "node:/.test(source), file);
  }
  assert.ok(!("connectUnix" in browser));
});

test("index.d.ts types every protocol method function", () => {
  for (const method of runtime.PROTOCOL_METHODS) {
    const name = method.split(".").pop();
    assert.match(dts, new RegExp("\\b" + name + "(: Method|\\()"), method);
  }
});
