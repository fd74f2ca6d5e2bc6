// examples/watch.mjs, run against a daemon: it prints the window, then each change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Daemon, waitFor } from "../testing/daemon.js";

const WATCH = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "examples", "watch.mjs");

test("examples/watch.mjs prints the window and every change", async () => {
  const daemon = await new Daemon().start();
  let child;
  try {
    const client = await daemon.client();
    await client.view.create({ view: "photos", strategy: "flow", params: { itemSize: { width: 100, height: 100 } },
      viewport: { width: 320, height: 200 }, sections: [{ id: "s", items: ["a", "b", "c", "d"].map((id) => ({ id })) }] });
    const env = { ...process.env, LAYOUTD_SOCKET: daemon.path };
    child = spawn(process.execPath, [WATCH, "photos", "--count", "2"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await waitFor(() => out.includes("watching photos"), { what: "watch.mjs to subscribe" });
    await client.view.scroll({ view: "photos", offset: { x: 0, y: 100 } });
    await client.view.update({ view: "photos", animated: true, updates: [{ op: "deleteItems", ids: ["a"] }] });
    assert.equal(await exited, 0, err);
    assert.equal(out, [
      "watching photos at epoch 0: 4 elements, window 0,0 320x200",
      "  cell a (0,0 100x100)", "  cell b (110,0 100x100)", "  cell c (220,0 100x100)", "  cell d (0,110 100x100)",
      "epoch 1: entered 0, changed 0, left 3, window 0,100 320x200",
      "  - cell a", "  - cell b", "  - cell c",
      "epoch 2: entered 2, changed 1, left 0, window 0,0 320x200, transition 0.3s (3 segments)",
      "  + cell b (0,0 100x100)", "  + cell c (110,0 100x100)", "  ~ cell d (220,0 100x100)", ""].join("\n"));
    await client.close();
  } finally {
    if (child && child.exitCode === null) child.kill();
    await daemon.dispose();
  }
});
