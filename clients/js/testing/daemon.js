// Test support: starts a real layoutd on a temporary socket (as system-tests/e2e/harness.py does) and
// polls for conditions. Not a test file (node --test clients/js/test/ does not load it as one).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connectUnix } from "../src/transport-node.js";
import { Client } from "../src/client.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const BINARY = process.env.LAYOUTD_BINARY || path.join(ROOT, ".build", "debug", "layoutd");

/** The limits protocol/conformance transcripts run under (system-tests/e2e/transcripts.py). */
export const CONFORMANCE_FLAGS = ["--set", "max-line-length=4096", "--set", "max-batch=100", "--set", "max-items=1000",
  "--set", "max-total-items=1200", "--set", "max-views=8"];

/** Polls `condition` (sync or async) every few ms until it is truthy; rejects after `timeout` ms. */
export async function waitFor(condition, { timeout = 10000, interval = 5, what = "condition" } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting for " + what);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** One layoutd process on a socket in a fresh 0700 directory. */
export class Daemon {
  /** @param {string[]} [args] more daemon arguments @param {{socketPath?: string, dir?: string}} [options] */
  constructor(args = [], options = {}) {
    this.dir = options.dir || fs.mkdtempSync(path.join(os.tmpdir(), "layoutd-js-"));
    fs.chmodSync(this.dir, 0o700);
    this.path = options.socketPath || path.join(this.dir, "run", "ipc.sock");
    this.logPath = path.join(this.dir, "layoutd.log");
    this.args = args;
    this.process = null;
  }

  async start() {
    const env = { ...process.env };
    delete env.LAYOUTD_SOCKET;
    const log = fs.openSync(this.logPath, "a");
    this.process = spawn(BINARY, ["--socket", this.path, "--log-level", "debug", "--set", "default-plugin-dir=none", ...this.args],
      { stdio: ["ignore", log, log], env });
    fs.closeSync(log);
    this.exited = new Promise((resolve) => {
      this.process.once("exit", (code, signal) => resolve(code ?? signal));
      this.process.once("error", (error) => resolve(`an error (${error.message}); set LAYOUTD_BINARY to a layoutd binary (tried ${BINARY})`));
    });
    this.exitCode = undefined;
    this.exited.then((code) => { this.exitCode = code; });
    try {
      await this.waitUntilServing();
    } catch (error) {
      // Never leave a process or a directory behind when a daemon does not come up.
      await this.dispose();
      throw error;
    }
    return this;
  }

  /** Until a new connection gets a reply to daemon.hello. */
  async waitUntilServing(timeout = 10000) {
    await waitFor(async () => {
      if (this.exitCode !== undefined) throw new Error("layoutd exited with " + this.exitCode + ":\n" + this.log());
      try {
        const client = new Client(await connectUnix(this.path));
        try {
          return !!(await client.daemon.hello());
        } finally {
          await client.close();
        }
      } catch (error) {
        return false;
      }
    }, { timeout, what: "layoutd to serve on " + this.path });
  }

  log() {
    try { return fs.readFileSync(this.logPath, "utf8"); } catch { return ""; }
  }

  /** A connected Client. */
  async client(options) {
    return new Client(await connectUnix(this.path), options);
  }

  /** SIGTERM (or `signal`) and wait for the exit. */
  async stop(signal = "SIGTERM") {
    if (this.process && this.exitCode === undefined) {
      this.process.kill(signal);
      const timer = setTimeout(() => this.process.kill("SIGKILL"), 15000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  /** Stops and removes the directory. */
  async dispose() {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
