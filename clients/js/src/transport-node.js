// The Node transport: a Unix stream socket (node:net), with the socket discovery of
// protocol/README.md §1.
import { constants, isUtf8 } from "node:buffer";
import net from "node:net";
import path from "node:path";
import { Client } from "./client.js";
import { CallTimeoutError, ProtocolError } from "./errors.js";
import { DEFAULT_LINE_CAP, DEFAULT_TIMEOUT } from "./limits.js";
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

/** A line's bytes are kept in one buffer that grows by doubling; past this size it is released after its line. */
const KEPT_BUFFER_BYTES = 1 << 20;

/**
 * A LineTransport over a connected net.Socket: "\n"-terminated lines both ways (a "\r" before
 * the "\n" is removed). A line is refused with a ProtocolError (and the socket destroyed) as soon as
 * it passes `lineCap` bytes without its newline, or when it is not UTF-8.
 *
 * Reading costs O(line): a line within one chunk is decoded from the chunk itself; a line spread
 * over chunks is copied into one buffer that grows by doubling up to the cap, so its bytes are
 * copied O(1) times each and memory stays under about 2 × lineCap whatever the chunk sizes.
 */
export class SocketTransport {
  /** @param {net.Socket} socket @param {{lineCap?: number}} [options] lineCap: bytes, default DEFAULT_LINE_CAP (64 MiB) */
  constructor(socket, options = {}) {
    this.socket = socket;
    /** @type {number} the longest line accepted, bytes without its "\n" */
    this.lineCap = checkLineCap(options.lineCap ?? DEFAULT_LINE_CAP);
    /** the bytes of a line not complete yet: buffer[0, partialBytes) */
    this.buffer = EMPTY;
    /** @type {number} bytes of a line received without its newline yet (never a whole line: those are dispatched at once) */
    this.partialBytes = 0;
    /** set once the transport refused the peer or was closed with a reason: no further line is delivered */
    this.stopped = false;
    this.handlers = undefined;
    this.finished = false;
    /** @type {Error|undefined} the socket's last error, reported with its close */
    this.lastError = undefined;
    // Listened to from the start: an error before start() must not be an unhandled 'error' event.
    socket.on("error", (error) => { this.lastError = error; });
  }

  /** Bytes written and not yet handed to the kernel: backpressure on the way out (net.Socket's writableLength). */
  get bufferedAmount() {
    return this.socket.writableLength ?? 0;
  }

  /** @param {import("./client.js").LineHandlers} handlers */
  start(handlers) {
    this.handlers = handlers;
    this.socket.on("data", (chunk) => this.#read(chunk));
    // Read until end of file (the daemon half-closes after its last line), then close our side.
    this.socket.on("end", () => this.socket.end());
    this.socket.on("close", () => this.#finish(this.lastError));
    if (this.socket.destroyed) this.#finish(this.lastError); // closed before start(): no 'close' event is coming
  }

  /** @param {string|Uint8Array} line */
  send(line) {
    if (typeof line === "string") this.socket.write(line + "\n");
    else this.socket.write(Buffer.concat([Buffer.from(line), Buffer.from("\n")]));
  }

  /**
   * Half-closes (the daemon answers what it read, then closes) and closes fully soon after. With a
   * reason (the Client found a line no layoutd writes) the socket is destroyed at once instead.
   * @param {Error} [reason]
   */
  close(reason) {
    if (this.socket.destroyed) return;
    if (reason) {
      this.stopped = true;
      this.socket.destroy();
      return;
    }
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), 2000);
    timer.unref();
    this.socket.once("close", () => clearTimeout(timer));
  }

  /** One chunk from the socket: every line it completes, then the start of the next one. @param {Buffer} chunk */
  #read(chunk) {
    let start = 0;
    while (!this.stopped) {
      const end = chunk.indexOf(10, start);
      if (end < 0) break;
      const length = this.partialBytes + (end - start);
      if (length > this.lineCap) return this.#refuse(new ProtocolError("line-cap", `a line longer than the line cap (${this.lineCap} bytes)`));
      let bytes;
      if (this.partialBytes === 0) {
        bytes = chunk.subarray(start, end);
      } else {
        this.#keep(chunk, start, end);
        bytes = this.buffer.subarray(0, length);
      }
      start = end + 1;
      if (bytes.length && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
      if (!isUtf8(bytes)) return this.#refuse(new ProtocolError("utf8", "a line that is not UTF-8"));
      const line = bytes.toString("utf8");
      this.partialBytes = 0;
      if (this.buffer.length > KEPT_BUFFER_BYTES) this.buffer = EMPTY;
      this.handlers.onLine(line);
    }
    if (this.stopped || start === chunk.length) return;
    if (this.partialBytes + (chunk.length - start) > this.lineCap) {
      return this.#refuse(new ProtocolError("line-cap", `a line longer than the line cap (${this.lineCap} bytes): no newline within it`));
    }
    this.#keep(chunk, start, chunk.length);
  }

  /** Appends chunk[start, end) to the partial line (the caller checked the cap). */
  #keep(chunk, start, end) {
    const needed = this.partialBytes + (end - start);
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.lineCap, Math.max(needed, 2 * this.buffer.length, 4096)));
      this.buffer.copy(grown, 0, 0, this.partialBytes);
      this.buffer = grown;
    }
    chunk.copy(this.buffer, this.partialBytes, start, end);
    this.partialBytes = needed;
  }

  /** The peer sent what no layoutd sends: stop reading, drop the connection, report the error as the close. */
  #refuse(error) {
    this.stopped = true;
    this.buffer = EMPTY;
    this.partialBytes = 0;
    this.socket.destroy();
    this.#finish(error);
  }

  #finish(error) {
    if (this.finished) return;
    this.finished = true;
    this.buffer = EMPTY;
    this.handlers.onClose(error);
  }
}

const EMPTY = Buffer.alloc(0);

/** @param {number} value @returns {number} */
function checkLineCap(value) {
  // A line becomes one JavaScript string: it cannot be longer than the longest string V8 makes.
  if (!Number.isInteger(value) || value <= 0 || value > constants.MAX_STRING_LENGTH) {
    throw new RangeError(`lineCap must be a whole number of bytes from 1 to ${constants.MAX_STRING_LENGTH}`);
  }
  return value;
}

/**
 * Connects to a Unix socket within `timeout` ms. Rejects with the socket error (ENOENT,
 * ECONNREFUSED...), or CallTimeoutError when the deadline passes first. A listener whose backlog
 * is full refuses a non-blocking connect with EAGAIN at once; that is tried again (every 10 ms,
 * doubling to 100 ms) until the deadline, as a blocking connect would wait.
 * @param {string} socketPath
 * @param {{timeout?: number, lineCap?: number}} [options] timeout: ms (default DEFAULT_TIMEOUT, 30 s; Infinity for none); lineCap: the transport's
 * @returns {Promise<SocketTransport>}
 */
export function connectUnix(socketPath, options = {}) {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT;
  if (typeof timeout !== "number" || Number.isNaN(timeout) || timeout <= 0) throw new RangeError("timeout must be a positive number of ms or Infinity");
  const lineCap = checkLineCap(options.lineCap ?? DEFAULT_LINE_CAP);
  return new Promise((resolve, reject) => {
    let socket, retry, lastError, delay = 10;
    const deadline = timeout > 0x7fffffff ? undefined : setTimeout(() => {
      clearTimeout(retry);
      if (socket) socket.destroy();
      reject(new CallTimeoutError("connect", timeout, { cause: lastError }));
    }, timeout);
    const attempt = () => {
      socket = net.createConnection({ path: socketPath });
      socket.once("error", (error) => {
        socket = undefined;
        if (error.code === "EAGAIN") {
          lastError = error;
          retry = setTimeout(attempt, delay);
          delay = Math.min(100, delay * 2);
          return;
        }
        clearTimeout(deadline);
        reject(error);
      });
      socket.once("connect", () => {
        clearTimeout(deadline);
        socket.removeAllListeners("error");
        resolve(new SocketTransport(socket, { lineCap }));
      });
    };
    attempt();
  });
}

/**
 * A Client on the discovered (or given) socket.
 * @param {{socket?: string, env?: Record<string, string|undefined>, hello?: boolean, timeout?: number,
 *   connectTimeout?: number, lineCap?: number} & import("./client.js").ClientOptions} [options]
 *   hello (default false): send daemon.hello first (offering PROTOCOL_VERSIONS) and keep its result as client.hello;
 *   timeout: each call's deadline, ms (default 30 s); connectTimeout: the connect's (default `timeout`);
 *   lineCap: the longest line accepted, bytes (default 64 MiB)
 * @returns {Promise<Client>}
 */
export async function connect(options = {}) {
  const transport = await connectUnix(discoverSocketPath(options), {
    timeout: options.connectTimeout ?? options.timeout, lineCap: options.lineCap });
  const client = new Client(transport, options);
  if (options.hello) client.hello = await client.daemon.hello({ protocol: [...PROTOCOL_VERSIONS] });
  return client;
}
