// The browser transport: the standard WebSocket API, one protocol line per text message.
import { CallTimeoutError, ProtocolError } from "./errors.js";
import { DEFAULT_LINE_CAP, DEFAULT_TIMEOUT } from "./limits.js";

/**
 * A LineTransport over a WebSocket (browser, Node 22's global, or any object with the standard
 * API: send, close, readyState, and onopen/onmessage/onclose/onerror or addEventListener).
 * Sends wait for the socket to open; each text message is one line.
 *
 * The WebSocket API hands over whole messages only, so the line cap is checked as each message
 * arrives (what the browser buffered before that is the browser's; `layoutctl web` caps its
 * messages at the daemon's line length). A message over the cap, a binary message or text that is
 * not well-formed is refused with a ProtocolError.
 */
export class WebSocketTransport {
  /**
   * @param {WebSocket | {send(data: string): void, close(): void, readyState: number}} socket
   * @param {{lineCap?: number}} [options] lineCap: bytes of UTF-8 a line may have (default DEFAULT_LINE_CAP, 64 MiB)
   */
  constructor(socket, options = {}) {
    this.socket = socket;
    /** @type {string[]} lines sent before the socket opened, sent when it opens */
    this.queue = [];
    this.open = socket.readyState === 1;
    /** @type {number} */
    this.lineCap = options.lineCap ?? DEFAULT_LINE_CAP;
    if (!Number.isInteger(this.lineCap) || this.lineCap <= 0) throw new RangeError("lineCap must be a positive whole number of bytes");
    this.stopped = false;
  }

  /** Bytes waiting to be sent: the socket's bufferedAmount plus the lines waiting for it to open (UTF-16 units for those). */
  get bufferedAmount() {
    let waiting = 0;
    for (const line of this.queue) waiting += line.length;
    return (this.socket.bufferedAmount ?? 0) + waiting;
  }

  /** @param {import("./client.js").LineHandlers} handlers */
  start(handlers) {
    let closed = false;
    const refuse = (error) => {
      this.stopped = true;
      try { this.socket.close(1000); } catch { /* already closing */ }
      if (closed) return;
      closed = true;
      handlers.onClose(error);
    };
    const listen = (name, fn) => {
      if (typeof this.socket.addEventListener === "function") this.socket.addEventListener(name, fn);
      else this.socket["on" + name] = fn;
    };
    listen("open", () => {
      this.open = true;
      for (const line of this.queue.splice(0)) this.socket.send(line);
    });
    listen("message", (event) => {
      if (this.stopped || closed) return;
      const data = event.data;
      if (typeof data !== "string") return refuse(new ProtocolError("utf8", "a binary WebSocket message: layoutd writes text"));
      if (typeof data.isWellFormed === "function" && !data.isWellFormed()) return refuse(new ProtocolError("utf8", "a message that is not well-formed text"));
      for (const line of data.split("\n")) {
        if (this.stopped) return;
        if (line === "") continue;
        if (utf8Length(line, this.lineCap) > this.lineCap) {
          return refuse(new ProtocolError("line-cap", `a line longer than the line cap (${this.lineCap} bytes)`));
        }
        handlers.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
      }
    });
    listen("error", () => {});
    if (this.socket.readyState === 1) {
      this.open = true;
      for (const line of this.queue.splice(0)) this.socket.send(line);
    }
    listen("close", (event) => {
      if (closed) return;
      closed = true;
      handlers.onClose(event && event.code && event.code !== 1000 ? new Error("WebSocket closed with code " + event.code) : undefined);
    });
  }

  /** @param {string|Uint8Array} line */
  send(line) {
    const text = typeof line === "string" ? line : new TextDecoder().decode(line);
    if (this.open || this.socket.readyState === 1) this.socket.send(text);
    else this.queue.push(text);
  }

  /** @param {Error} [reason] given by the Client for a line no layoutd writes: deliver no further line */
  close(reason) {
    if (reason) this.stopped = true;
    this.socket.close(1000);
  }
}

/**
 * The UTF-8 length of `text`, counted only as far as needed to compare it with `limit`: a UTF-16 unit
 * is 1 to 3 bytes (a surrogate pair 4), so the length in units bounds it both ways.
 * @param {string} text @param {number} limit @returns {number} exact when at most `limit`, else some number above it
 */
function utf8Length(text, limit) {
  if (text.length > limit) return text.length;
  if (text.length * 3 <= limit) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) { bytes += 4; i++; }
    else bytes += 3;
  }
  return bytes;
}

/**
 * Opens a WebSocket to `url` and resolves once it is open.
 * @param {string} url e.g. ws://localhost:8080/ (served by `layoutctl web`)
 * @param {{WebSocket?: any, protocols?: string|string[], lineCap?: number, timeout?: number}} [options] WebSocket: a constructor
 *   (default globalThis.WebSocket); lineCap: the transport's; timeout: ms until it must be open (default DEFAULT_TIMEOUT, 30 s)
 * @returns {Promise<WebSocketTransport>}
 */
export function connectWebSocket(url, options = {}) {
  const WebSocketClass = options.WebSocket || globalThis.WebSocket;
  if (!WebSocketClass) return Promise.reject(new Error("no WebSocket implementation: pass options.WebSocket"));
  const timeout = options.timeout ?? DEFAULT_TIMEOUT;
  if (typeof timeout !== "number" || Number.isNaN(timeout) || timeout <= 0) return Promise.reject(new RangeError("timeout must be a positive number of ms or Infinity"));
  const socket = options.protocols ? new WebSocketClass(url, options.protocols) : new WebSocketClass(url);
  let transport;
  try {
    transport = new WebSocketTransport(socket, { lineCap: options.lineCap });
  } catch (error) {
    socket.close();
    return Promise.reject(error);
  }
  if (socket.readyState === 1) return Promise.resolve(transport);
  return new Promise((resolve, reject) => {
    const deadline = timeout > 0x7fffffff ? undefined : setTimeout(() => {
      cleanup();
      socket.close();
      reject(new CallTimeoutError("connect", timeout));
    }, timeout);
    const onOpen = () => { cleanup(); resolve(transport); };
    const onFail = () => { cleanup(); reject(new Error("WebSocket to " + url + " did not open")); };
    const cleanup = () => {
      clearTimeout(deadline);
      if (typeof socket.removeEventListener === "function") {
        socket.removeEventListener("open", onOpen);
        socket.removeEventListener("error", onFail);
        socket.removeEventListener("close", onFail);
      }
    };
    if (typeof socket.addEventListener === "function") {
      socket.addEventListener("open", onOpen);
      socket.addEventListener("error", onFail);
      socket.addEventListener("close", onFail);
    } else {
      socket.onopen = onOpen;
      socket.onerror = onFail;
      socket.onclose = onFail;
    }
  });
}
