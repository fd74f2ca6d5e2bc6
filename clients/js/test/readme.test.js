// Every fenced block of README.md, tested as its `<!-- block: KIND -->` line says (scripts/readme_blocks.py
// reads them): `shell` blocks run in a scratch directory (the install step: /path/to/layoutd is this
// repository), `run` blocks run there twice against a real daemon (so they re-run cleanly), each
// `output` block compared with what the run block before it printed (… matches any text), `compile`
// blocks type-checked with tsc --checkJs against index.d.ts. Any other kind fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Daemon, ROOT } from "../testing/daemon.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const README = path.join(HERE, "..", "README.md");
const TSC_FLAGS = ["--noEmit", "--allowJs", "--checkJs", "--strict", "--target", "es2022", "--module", "es2022",
  "--moduleResolution", "node", "--lib", "es2022,dom"];

/** The README's blocks as scripts/readme_blocks.py gives them (it fails on a block without its annotation). */
function readmeBlocks() {
  const done = spawnSync("python3", [path.join(ROOT, "scripts", "readme_blocks.py"), README], { encoding: "utf8" });
  assert.equal(done.status, 0, done.stderr);
  return JSON.parse(done.stdout);
}

/** Runs a program to its end: {status, out, err}. */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    child.once("error", (error) => resolve({ status: -1, out, err: err + String(error) }));
    child.once("exit", (status) => resolve({ status, out, err }));
  });
}

/** Whether `actual` is what an output block shows: line by line, "…" standing for any text. */
function matchesOutput(expected, actual) {
  const want = expected.trimEnd().split("\n"), got = actual.trimEnd().split("\n");
  if (want.length !== got.length) return false;
  return want.every((line, i) => new RegExp("^" + line.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$").test(got[i]));
}

test("README.md: every block runs, compiles or is compared, as its annotation says", async (t) => {
  const blocks = readmeBlocks();
  const kinds = new Set(blocks.map((b) => b.kind));
  for (const kind of kinds) assert.ok(["shell", "run", "output", "compile"].includes(kind), `a block kind this runner does not handle: ${kind}`);
  assert.ok(kinds.has("shell") && kinds.has("run") && kinds.has("output") && kinds.has("compile"));

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "layoutd-js-readme-"));
  // npm with no registry: an install from a directory or a tarball needs none.
  const env = { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false", npm_config_fund: "false" };
  delete env.LAYOUTD_SOCKET;
  const daemon = await new Daemon().start();
  const tsc = spawnSync("tsc", ["--version"], { encoding: "utf8" });
  try {
    let installed = false, lastRun = null;
    for (const block of blocks) {
      const where = `README.md:${block.line} (${block.kind})`;
      if (block.kind === "shell") {
        const script = block.code.replaceAll("/path/to/layoutd", ROOT);
        const done = await run("bash", ["-euo", "pipefail", "-c", script], { cwd: scratch, env });
        assert.equal(done.status, 0, `${where}: ${script}\n${done.out}${done.err}`);
        // The package now resolves from the scratch directory, both entries.
        const probe = await run(process.execPath, ["--input-type=module", "-e",
          'const a = await import("layoutd-client"); const b = await import("layoutd-client/node"); console.log(typeof a.Client, typeof b.connect)'],
        { cwd: scratch, env });
        assert.equal(probe.out.trim(), "function function", `${where}: layoutd-client does not resolve after it\n${probe.err}`);
        installed = true;
        t.diagnostic(`${where}: ran; layoutd-client is ${fs.lstatSync(path.join(scratch, "node_modules", "layoutd-client")).isSymbolicLink() ? "linked" : "copied"}`);
        lastRun = null;
      } else if (block.kind === "run") {
        assert.ok(installed, `${where}: a run block before the install step`);
        const file = path.join(scratch, `block-${block.line}.mjs`);
        fs.writeFileSync(file, block.code);
        const outputs = [];
        for (const attempt of [1, 2]) {
          const done = await run(process.execPath, [file], { cwd: scratch, env: { ...env, LAYOUTD_SOCKET: daemon.path } });
          assert.equal(done.status, 0, `${where}, run ${attempt}:\n${done.out}${done.err}`);
          outputs.push(done.out);
        }
        t.diagnostic(`${where}: ran twice`);
        lastRun = { where, outputs };
      } else if (block.kind === "output") {
        assert.ok(lastRun, `README.md:${block.line}: an output block must follow a run block`);
        for (const [i, out] of lastRun.outputs.entries()) {
          assert.ok(matchesOutput(block.code, out), `${lastRun.where}, run ${i + 1}: printed\n${out}\nnot what README.md:${block.line} shows:\n${block.code}`);
        }
        lastRun = null;
      } else if (block.kind === "compile") {
        assert.ok(installed, `${where}: a compile block before the install step`);
        const file = path.join(scratch, `block-${block.line}.mjs`);
        fs.writeFileSync(file, block.code);
        const syntax = await run(process.execPath, ["--check", file], { cwd: scratch });
        assert.equal(syntax.status, 0, `${where}: node --check:\n${syntax.err}`);
        if (tsc.error) {
          if (process.env.LAYOUTD_REQUIRE_TSC) assert.fail("tsc not found: install Debian's node-typescript (make deps does)");
          t.diagnostic(`${where}: tsc not installed, not type-checked`);
        } else {
          const done = await run("tsc", [...TSC_FLAGS, file], { cwd: scratch });
          assert.equal(done.status, 0, `${where}: tsc --checkJs:\n${done.out}${done.err}`);
          t.diagnostic(`${where}: type-checked`);
        }
        lastRun = null;
      }
    }
  } finally {
    await daemon.dispose();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
