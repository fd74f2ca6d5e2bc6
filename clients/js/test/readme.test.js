// The complete example of README.md runs against a daemon as written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Daemon } from "../testing/daemon.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));

test("README.md: the complete example runs", async () => {
  const readme = fs.readFileSync(path.join(HERE, "..", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## A complete example"));
  const code = section.slice(section.indexOf("```js\n") + 6, section.indexOf("\n```", section.indexOf("```js\n")));
  const nodeEntry = pathToFileURL(path.join(HERE, "..", "src", "node.js")).href;
  assert.match(code, /from "layoutd-client\/node"/);
  const daemon = await new Daemon().start();
  try {
    const file = path.join(daemon.dir, "example.mjs");
    fs.writeFileSync(file, code.replaceAll('"layoutd-client/node"', JSON.stringify(nodeEntry)));
    const child = spawn(process.execPath, [file], { env: { ...process.env, LAYOUTD_SOCKET: daemon.path }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    const status = await new Promise((resolve) => child.once("exit", resolve));
    assert.equal(status, 0, err);
    const lines = out.trim().split("\n");
    assert.match(lines[0], /^layoutd \S+ max batch 50000$/);
    assert.ok(lines.includes("left the window: [ 'a', 'b', 'c' ]"), out);
    assert.ok(lines.includes("stale: 0 != 1"), out);
    assert.ok(lines.includes("true -32001 albums"), out);
    assert.ok(lines.some((l) => /^transition 0\.3 s, \d+ segments$/.test(l)), out);
    assert.ok(lines.includes("view.invalidated epoch 2 b c d"), out);
    assert.equal(lines[lines.length - 1], "mirror: b@0,0 c@110,0 d@220,0");
  } finally {
    await daemon.dispose();
  }
});
