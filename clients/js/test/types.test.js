// index.d.ts (hand-written) and protocol.d.ts (generated, re-exported by index.d.ts) declare exactly
// what src/node.js exports; both pass tsc --strict for a real program and refuse a wrong one.
// test/coverage.test.js holds every method to a typed function.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as runtime from "../src/node.js";
import * as browser from "../src/index.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const declarations = ["index.d.ts", "protocol.d.ts"].map((file) => fs.readFileSync(path.join(HERE, "..", file), "utf8"));

test("index.d.ts and protocol.d.ts declare every runtime export, and nothing that does not exist", () => {
  const declared = declarations.flatMap((dts) => [...dts.matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]));
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(runtime).sort());
  assert.match(declarations[0], /^export \* from "\.\/protocol\.js";$/m, "index.d.ts re-exports the generated types");
});

test("the browser entry (src/index.js) imports nothing from Node", () => {
  for (const file of fs.readdirSync(path.join(HERE, "..", "src"))) {
    if (file === "node.js" || file === "transport-node.js") continue;
    const source = fs.readFileSync(path.join(HERE, "..", "src", file), "utf8");
    assert.ok(!/from "node:/.test(source), file);
  }
  assert.ok(!("connectUnix" in browser));
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
  // A parameter the method does not take (params are closed, as the daemon's schemas are), and an
  // optional result field used as always there (only allOf's `required` makes one so).
  // (TypeScript 4 reports the unknown parameter as TS2345 with the reason below it, 5 as TS2353.)
  assert.match(bad.stdout, /wrong\.ts\(8,\d+\): error TS(2345|2353): /, bad.stdout);
  assert.match(bad.stdout, /'epoch' does not exist in type 'ViewGetParams'/, bad.stdout);
  assert.match(bad.stdout, /wrong\.ts\(9,\d+\): error TS2322: Type 'Point \| undefined' is not assignable to type 'Point'/, bad.stdout);
  assert.equal([...bad.stdout.matchAll(/error TS\d+/g)].length, 2, bad.stdout);
});
