// index.d.ts (hand-written) declares exactly what src/node.js exports, and every method function.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
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

// index.d.ts through a real TypeScript compiler (Debian's node-typescript): a strict program
// written as an adopter would must compile, and one with two type errors must not, with both
// reported. `make client-test` sets LAYOUTD_REQUIRE_TSC, so there a missing tsc fails.
const TSC_FLAGS = ["--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution", "node", "--lib", "es2022,dom"];

function tsc(file) {
  return spawnSync("tsc", [...TSC_FLAGS, path.join(HERE, "typecheck", file)], { encoding: "utf8" });
}

test("index.d.ts passes tsc --strict for a real program, and refuses a wrong one", (t) => {
  const probe = spawnSync("tsc", ["--version"], { encoding: "utf8" });
  if (probe.error) {
    if (process.env.LAYOUTD_REQUIRE_TSC) assert.fail("tsc not found: install Debian's node-typescript (make deps does)");
    t.skip("tsc not installed (Debian's node-typescript)");
    return;
  }
  const good = tsc("usage.ts");
  assert.equal(good.status, 0, good.stdout + good.stderr);
  const bad = tsc("wrong.ts");
  assert.notEqual(bad.status, 0, "a wrong program compiled");
  assert.match(bad.stdout, /wrong\.ts\(5,\d+\): error TS7053/, bad.stdout);
  assert.match(bad.stdout, /wrong\.ts\(7,\d+\): error TS2345: Argument of type 'number' is not assignable to parameter of type 'Snapshot'/, bad.stdout);
});
