// The Node transport: a Unix stream socket (node:net), with the socket discovery of
// protocol/README.md §1.
import net from "node:net";
import path from "node:path";
import { Client } from "./client.js";
import { PROTOCOL_VERSIONS } from "./protocol.js";

/**
 * The socket path by the documented rules: an explicit path, else LAYOUTD_SOCKET (empty = unset),
 * else $XDG_RUNTIME_DIR/layoutd/ipc.sock (XDG_RUNTIME_DIR set and not empty), else /run/layoutd/ipc.sock.
 * The first rule that applies decides; there is no fallback when nothing listens there.
 * @param {{socket?: string, env?: Record<string, string|undefined>}} [options]
 * @returns {string}
 */
export function discoverSocketPath(options = {}) {
  const env = options.env || process.env;
  if (options.socket) return options.socket;
  if (env.LAYOUTD_SOCKET) return env.LAYOUTD_SOCKET;
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, "layoutd", "ipc.sock");
  return "/run/layoutd/ipc.sock";
}

/**
 * A LineTransport over a connected net.Socket: "\n"-terminated lines both ways (a "\r" before
 * the "\n" is removed). Bytes are decoded as UTF-8 per line.
 */
export class SocketTransport {
  /** @param {net.Socket} socket */
  constructor(socket) {
    this.socket = socket;
    this.chunks = [];
  }

  /** @param {import("./client.js").LineHandlers} handlers */
  start(handlers) {
    let closed = false;
    let lastError;
    const close = (error) => {
      if (closed) return;
      closed = true;
      handlers.onClose(error);
    };
    this.socket.on("data", (chunk) => {
      let start = 0;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
        this.chunks.push(chunk.subarray(start, i));
        let bytes = Buffer.concat(this.chunks);
        this.chunks = [];
        if (bytes.length && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
        start = i + 1;
        handlers.onLine(bytes.toString("utf8"));
      }
      if (start < chunk.length) this.chunks.push(chunk.subarray(start));
    });
    // Read until end of file (the daemon half-closes after its last line), then close our side.
    this.socket.on("end", () => this.socket.end());
    this.socket.on("error", (error) => { lastError = error; });
    this.socket.on("close", () => close(lastError));
  }

  /** @param {string|Uint8Array} line */
  send(line) {
    if (typeof line === "string") this.socket.write(line + "\n");
    else this.socket.write(Buffer.concat([Buffer.from(line), Buffer.from("\n")]));
  }

  /** Half-closes (the daemon answers what it read, then closes) and closes fully soon after. */
  close() {
    if (this.socket.destroyed) return;
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), 2000);
    timer.unref();
    this.socket.once("close", () => clearTimeout(timer));
  }
}

/**
 * Connects to a Unix socket. Rejects with the socket error (ENOENT, ECONNREFUSED...).
 * @param {string} socketPath @returns {Promise<SocketTransport>}
 */
export function connectUnix(socketPath) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ path: socketPath });
    const fail = (error) => reject(error);
    socket.once("error", fail);
    socket.once("connect", () => {
      socket.off("error", fail);
      resolve(new SocketTransport(socket));
    });
  });
}

/**
 * A Client on the discovered (or given) socket.
 * @param {{socket?: string, env?: Record<string, string|undefined>, checkSeq?: boolean, hello?: boolean}} [options]
 *   hello (default false): send daemon.hello first (offering PROTOCOL_VERSIONS) and keep its result as client.hello
 * @returns {Promise<Client>}
 */
export async function connect(options = {}) {
  const transport = await connectUnix(discoverSocketPath(options));
  const client = new Client(transport, options);
  if (options.hello) client.hello = await client.daemon.hello({ protocol: [...PROTOCOL_VERSIONS] });
  return client;
}
