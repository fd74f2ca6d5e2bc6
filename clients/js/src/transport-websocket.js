// The browser transport: the standard WebSocket API, one protocol line per text message.

/**
 * A LineTransport over a WebSocket (browser, Node 22's global, or any object with the standard
 * API: send, close, readyState, and onopen/onmessage/onclose/onerror or addEventListener).
 * Sends wait for the socket to open; each text message is one line.
 */
export class WebSocketTransport {
  /**
   * @param {WebSocket | {send(data: string): void, close(): void, readyState: number}} socket
   */
  constructor(socket) {
    this.socket = socket;
    this.queue = [];
    this.open = socket.readyState === 1;
  }

  /** @param {import("./client.js").LineHandlers} handlers */
  start(handlers) {
    let closed = false;
    const listen = (name, fn) => {
      if (typeof this.socket.addEventListener === "function") this.socket.addEventListener(name, fn);
      else this.socket["on" + name] = fn;
    };
    listen("open", () => {
      this.open = true;
      for (const line of this.queue.splice(0)) this.socket.send(line);
    });
    listen("message", (event) => {
      const data = event.data;
      if (typeof data === "string") {
        for (const line of data.split("\n")) if (line !== "") handlers.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
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

  close() {
    this.socket.close(1000);
  }
}

/**
 * Opens a WebSocket to `url` and resolves once it is open.
 * @param {string} url e.g. ws://localhost:8080/ (served by `layoutctl web`)
 * @param {{WebSocket?: any, protocols?: string|string[]}} [options] WebSocket: a constructor (default globalThis.WebSocket)
 * @returns {Promise<WebSocketTransport>}
 */
export function connectWebSocket(url, options = {}) {
  const WebSocketClass = options.WebSocket || globalThis.WebSocket;
  if (!WebSocketClass) return Promise.reject(new Error("no WebSocket implementation: pass options.WebSocket"));
  const socket = options.protocols ? new WebSocketClass(url, options.protocols) : new WebSocketClass(url);
  const transport = new WebSocketTransport(socket);
  if (socket.readyState === 1) return Promise.resolve(transport);
  return new Promise((resolve, reject) => {
    const onOpen = () => { cleanup(); resolve(transport); };
    const onFail = () => { cleanup(); reject(new Error("WebSocket to " + url + " did not open")); };
    const cleanup = () => {
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
