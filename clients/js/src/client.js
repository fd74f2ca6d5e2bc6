// The protocol over any line transport: requests and replies, events with seq checking,
// subscriptions as async iterators. The method functions come from the generated method table
// (src/protocol.js); their params and results are typed in ../protocol.d.ts.
import { LayoutdError, ConnectionClosedError, CallTimeoutError, ProtocolError, CONNECTION_ERRORS } from "./errors.js";
import { DEFAULT_EVENT_QUEUE_LIMIT, DEFAULT_TIMEOUT, STRAYS_KEPT, excerpt } from "./limits.js";
import { METHODS, PROTOCOL_VERSIONS } from "./protocol.js";
import { readLine } from "./wire.js";

/**
 * @typedef {object} LineHandlers
 * @property {(line: string) => void} onLine called for every line received, without its terminator
 * @property {(error?: Error) => void} onClose called once when the transport is closed (by either side);
 *   with a ProtocolError when the transport refused what the peer sent (a line over its cap, not UTF-8)
 */
/**
 * A line transport: anything that sends and receives protocol lines.
 * @typedef {object} LineTransport
 * @property {(handlers: LineHandlers) => void} start begin delivering lines (called once by Client)
 * @property {(line: string | Uint8Array) => void} send send one line (without its terminator)
 * @property {(reason?: Error) => void} close close the transport; onClose follows. With a reason (the
 *   Client's ProtocolError) drop the connection at once and deliver no further line
 */
/**
 * @typedef {object} CallOptions
 * @property {string|number} [id] the request id to send (default: the client's next integer)
 * @property {boolean} [notify] send as a notification (no id, no reply): the promise resolves to undefined once sent
 * @property {number} [timeout] this call's deadline in ms, from now to its reply (default: the client's `timeout`);
 *   Infinity for none
 */
/**
 * @typedef {object} ClientOptions
 * @property {boolean} [checkSeq] (default true) a gap in event `seq` resubscribes every subscription
 * @property {number} [timeout] the deadline of each call in ms (default DEFAULT_TIMEOUT, 30 s); Infinity for none
 * @property {number} [eventQueueLimit] events a Subscription holds for a reader that does not take them
 *   (default DEFAULT_EVENT_QUEUE_LIMIT, 1024); one more drops them for a resync
 */
/**
 * One call waiting for its reply (in Client.pending from the send until the reply, the deadline or the close).
 * @typedef {object} PendingCall
 * @property {string|number} id
 * @property {string} method
 * @property {(result: any) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {((result: any) => void)|undefined} onResult
 * @property {ReturnType<typeof setTimeout>|undefined} timer
 */

/**
 * Methods this client reaches only through call(), each with the reason: no function is made for them
 * (test/coverage.test.js holds every other method of protocol/interface.json to a typed function).
 * @type {Readonly<Record<string, string>>}
 */
export const RAW_ONLY = Object.freeze({});

/** Every method of the protocol version this client was generated for (daemon.describe lists the same). */
export const PROTOCOL_METHODS = Object.freeze(Object.keys(METHODS));

/**
 * The method functions' groups, from the generated table: {daemon: {hello: "daemon.hello", ...},
 * view: {..., stage: {commit: "view.stage.commit"}}}; a leaf is the method's name.
 */
const METHOD_TREE = (() => {
  const tree = {};
  for (const name of PROTOCOL_METHODS) {
    if (Object.hasOwn(RAW_ONLY, name)) continue;
    const parts = name.split(".");
    let group = tree;
    for (const part of parts.slice(0, -1)) {
      if (!Object.hasOwn(group, part)) group[part] = {};
      else if (typeof group[part] === "string") throw new Error(`protocol method ${group[part]} is also a group of methods`);
      group = group[part];
    }
    const last = parts[parts.length - 1];
    if (Object.hasOwn(group, last)) throw new Error(`protocol method ${name} is also a group of methods`);
    group[last] = name;
  }
  return tree;
})();

/** One protocol connection. */
export class Client {
  /** @param {LineTransport} transport @param {ClientOptions} [options] */
  constructor(transport, options = {}) {
    this.transport = transport;
    this.checkSeq = options.checkSeq !== false;
    /** @type {number} the deadline of each call, ms (CallOptions.timeout overrides it per call) */
    this.timeout = checkTimeout(options.timeout ?? DEFAULT_TIMEOUT, "timeout");
    /** @type {number} */
    this.eventQueueLimit = options.eventQueueLimit ?? DEFAULT_EVENT_QUEUE_LIMIT;
    if (!(Number.isInteger(this.eventQueueLimit) && this.eventQueueLimit > 0)) throw new RangeError("eventQueueLimit must be a positive integer");
    /** @type {number} the last event seq seen on this connection */
    this.seq = 0;
    this.nextId = 1;
    /**
     * Calls waiting for their reply, by id (several only when a caller reuses an id: the oldest is
     * answered first). An entry lives from the send until its reply, its deadline or the close.
     * @type {Map<string|number, PendingCall[]>}
     */
    this.pending = new Map();
    /** @type {number} replies nobody waited for (unknown, duplicate or late ids) and id-null errors that do not close */
    this.strayCount = 0;
    /** @type {Array<{id: string|number|null, line: string}>} the STRAYS_KEPT (16) most recent strays, oldest first; `line` cut to 256 characters */
    this.strays = [];
    /** @type {number} events that reached no subscription and no `event` listener (the client keeps none) */
    this.droppedEventCount = 0;
    /** @type {Map<number, Subscription>} */
    this.subscriptions = new Map();
    /** @type {Set<(message: object, line: string) => void>} */
    this.listeners = { event: new Set(), line: new Set(), reply: new Set(), close: new Set(), gap: new Set() };
    this.isClosed = false;
    this.shutdownReceived = false;
    /** @type {LayoutdError|undefined} a connection-level error line the daemon wrote before closing */
    this.connectionError = undefined;
    /** @type {ProtocolError|undefined} why the client closed the connection: the peer wrote what no layoutd writes */
    this.protocolError = undefined;
    /** @type {Promise<Error|undefined>} resolves when the connection has closed */
    this.closed = new Promise((resolve) => { this.resolveClosed = resolve; });
    // One function per method of the generated table (client.daemon.hello, client.view.stage.commit, ...).
    for (const [name, node] of Object.entries(METHOD_TREE)) {
      if (name in this) throw new Error(`protocol method group ${name} collides with the Client's own ${name}`);
      this[name] = this.#group(node);
    }
    /** view.subscribe resolves to a Subscription (an async iterator of its events) */
    this.view.subscribe = (params, options) => this.subscribe(params, options);
    transport.start({ onLine: (line) => this.#receive(line), onClose: (error) => this.#closed(error) });
  }

  #group(node) {
    const group = {};
    for (const [name, child] of Object.entries(node)) {
      group[name] = typeof child === "string" ? (params, options) => this.call(child, params, options) : this.#group(child);
    }
    return group;
  }

  /**
   * Listen: `event` (every event line, parsed), `line` (every line received, raw), `reply` (replies that
   * match no pending request, e.g. to sendRaw lines or connection-level errors), `gap` (a seq gap), `close`.
   * @param {"event"|"line"|"reply"|"close"|"gap"} name @param {Function} listener @returns {() => void} unsubscribe
   */
  on(name, listener) {
    this.listeners[name].add(listener);
    return () => this.listeners[name].delete(listener);
  }

  #emit(name, ...args) {
    // A listener that throws must not break the connection's bookkeeping: report it apart.
    for (const listener of [...this.listeners[name]]) {
      try {
        listener(...args);
      } catch (error) {
        queueMicrotask(() => { throw error; });
      }
    }
  }

  /**
   * Any method, by name (also ones this client does not know yet).
   * @param {string} method @param {object} [params] @param {CallOptions} [options]
   * @returns {Promise<any>} the result (typed per method: import("../protocol").ProtocolMethods); rejects with a LayoutdError (or ConnectionClosedError)
   */
  call(method, params, options = {}) {
    if (this.isClosed) return Promise.reject(this.#closedNow());
    const message = {};
    const notify = !!options.notify;
    let id;
    if (!notify) {
      id = options.id !== undefined ? options.id : this.nextId++;
      message.id = id;
    }
    message.method = method;
    if (params !== undefined) message.params = params;
    const line = JSON.stringify(message);
    if (notify) {
      try {
        this.transport.send(line);
      } catch (error) {
        return Promise.reject(error);
      }
      return Promise.resolve(undefined);
    }
    const timeout = options.timeout === undefined ? this.timeout : checkTimeout(options.timeout, "CallOptions.timeout");
    return new Promise((resolve, reject) => {
      /** @type {PendingCall} */
      const call = { id, method, resolve, reject, onResult: options.onResult, timer: undefined };
      const waiting = this.pending.get(id);
      if (waiting) waiting.push(call);
      else this.pending.set(id, [call]);
      if (timeout !== Infinity) {
        // Forgotten at its deadline: its reply, if it comes, is a stray; the connection stays usable.
        call.timer = setTimeout(() => {
          if (this.#forget(call)) reject(new CallTimeoutError(method, timeout));
        }, timeout);
      }
      try {
        this.transport.send(line);
      } catch (error) {
        if (this.#forget(call)) reject(error);
      }
    });
  }

  /** Number of calls waiting for their reply. */
  get pendingCount() {
    let count = 0;
    for (const calls of this.pending.values()) count += calls.length;
    return count;
  }

  /** A notification: carried out, never answered. @param {string} method @param {object} [params] */
  notify(method, params) {
    return this.call(method, params, { notify: true });
  }

  /**
   * Sends a line as it is (any bytes). Replies to it arrive on the `reply` listeners.
   * @param {string|Uint8Array} line without its terminator
   */
  sendRaw(line) {
    if (this.isClosed) throw this.#closedNow();
    this.transport.send(line);
  }

  /**
   * `view.subscribe`: resolves to a Subscription, registered before any of its events is read.
   * @param {import("../protocol").ViewSubscribeParams | string} params @param {CallOptions} [options] @returns {Promise<Subscription>}
   */
  subscribe(params, options = {}) {
    if (typeof params === "string") params = { view: params };
    let subscription;
    return this.call("view.subscribe", params, {
      ...options,
      onResult: (result) => { subscription = new Subscription(this, params.view, result); },
    }).then(() => subscription);
  }

  /**
   * A staged upload (protocol/mutations.md, "Staged uploads"): view.stage.begin, then view.stage.append
   * in parts of at most `batchSize` items and sections each and
   * at most one line (a long section is continued over several appends), then view.stage.commit — one view.setData for the view and its subscribers. A failed
   * append aborts the upload. Resolves to the commit's result (an invalidation with `changes`).
   * @param {{view: string, sections: Array<Omit<import("../protocol").Section, "items"> & {items?: import("../protocol").Item[]}>,
   *   batchSize?: number, maxLineLength?: number, ifEpoch?: number, animated?: boolean, dryRun?: boolean}} params
   *   batchSize, maxLineLength: default the daemon's limits from daemon.hello (asked for when not known):
   *   each append names at most batchSize items and sections and fits in one line
   * @returns {Promise<import("../protocol").ViewStageCommitResult>}
   */
  async upload(params) {
    const { view, sections, ifEpoch, animated, dryRun } = params;
    let { batchSize, maxLineLength } = params;
    if (!batchSize || !maxLineLength) {
      if (!this.hello) this.hello = await this.daemon.hello({ protocol: [...PROTOCOL_VERSIONS] });
      batchSize ||= this.hello.limits.maximumBatchSize;
      maxLineLength ||= this.hello.limits.maximumLineLength;
    }
    const byteLimit = maxLineLength - 256; // the envelope and the upload id
    const encoder = new TextEncoder();
    const bytesOf = (value) => encoder.encode(JSON.stringify(value)).length + 1;
    const begin = await this.view.stage.begin(ifEpoch === undefined ? { view } : { view, ifEpoch });
    const upload = begin.upload;
    try {
      let part = [], count = 0, bytes = 0, piece = null;
      const flush = async () => {
        if (part.length) await this.view.stage.append({ upload, sections: part });
        part = [];
        count = 0;
        bytes = 0;
        piece = null;
      };
      const open = (value) => {
        piece = { ...value, items: [] };
        part.push(piece);
        count += 1;
        bytes += bytesOf(piece);
      };
      for (const section of sections) {
        const first = { ...section, items: [] };
        if (count + 1 > batchSize || bytes + bytesOf(first) > byteLimit) await flush();
        open(first);
        for (const item of section.items || []) {
          const size = bytesOf(item);
          if (count + 1 > batchSize || bytes + size > byteLimit) {
            await flush();
            open({ id: section.id });
          }
          piece.items.push(item);
          count += 1;
          bytes += size;
        }
      }
      await flush();
    } catch (error) {
      await this.view.stage.abort({ upload }).catch(() => {});
      throw error;
    }
    const commit = { upload };
    if (animated !== undefined) commit.animated = animated;
    if (ifEpoch !== undefined) commit.ifEpoch = ifEpoch;
    if (dryRun !== undefined) commit.dryRun = dryRun;
    return this.view.stage.commit(commit);
  }

  /** Closes the connection; pending calls reject with ConnectionClosedError. */
  close() {
    if (!this.isClosed) this.transport.close();
    return this.closed;
  }

  #receive(line) {
    if (this.protocolError) return; // nothing past a line no layoutd writes is trusted
    this.#emit("line", line);
    let read;
    try {
      read = readLine(line);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      this.#fail(error);
      return;
    }
    if (read.event) return this.#event(read.event, line);
    const message = read.reply;
    const waiting = message.id === null ? undefined : this.pending.get(message.id);
    if (!waiting) {
      if (message.id === null && message.error && CONNECTION_ERRORS.includes(message.error.name)) {
        this.connectionError = LayoutdError.from(message.error, { id: null });
      } else {
        this.#stray(message.id, line);
      }
      this.#emit("reply", message, line);
      return;
    }
    const request = waiting[0];
    this.#forget(request);
    if (message.error) {
      request.reject(LayoutdError.from(message.error, request));
    } else {
      try {
        if (request.onResult) request.onResult(message.result);
      } catch (error) {
        request.reject(error);
        return;
      }
      request.resolve(message.result);
    }
  }

  #event(message, line) {
    const gap = this.checkSeq && message.seq !== this.seq + 1;
    this.seq = message.seq;
    if (gap) {
      this.#emit("gap", message);
      for (const subscription of this.subscriptions.values()) subscription.resync().catch(() => {});
    }
    if (message.event === "daemon.shutdown") this.shutdownReceived = true;
    let taken = this.listeners.event.size > 0;
    this.#emit("event", message, line);
    if (message.subscription !== undefined) {
      const subscription = this.subscriptions.get(message.subscription);
      if (subscription) {
        subscription._push(message);
        taken = true;
      }
    }
    if (!taken) this.droppedEventCount++;
  }

  /** Removes a call from `pending` and clears its deadline; false when it was no longer there. @param {PendingCall} call */
  #forget(call) {
    clearTimeout(call.timer);
    const waiting = this.pending.get(call.id);
    const index = waiting ? waiting.indexOf(call) : -1;
    if (index < 0) return false;
    if (waiting.length === 1) this.pending.delete(call.id);
    else waiting.splice(index, 1);
    return true;
  }

  /** Counts a reply nobody waits for and keeps the most recent few. @param {string|number|null} id @param {string} line */
  #stray(id, line) {
    this.strayCount++;
    if (this.strays.length === STRAYS_KEPT) this.strays.shift();
    this.strays.push({ id, line: excerpt(line) });
  }

  /** The peer wrote what no layoutd writes: close at once and fail every waiting call with it. @param {ProtocolError} error */
  #fail(error) {
    if (this.isClosed || this.protocolError) return;
    this.protocolError = error;
    this.#closed(error);
    this.transport.close(error);
  }

  /** What a call waiting at the close rejects with: why the connection closed. */
  #whyClosed(cause) {
    return this.protocolError || this.connectionError ||
      new ConnectionClosedError("the connection closed before the reply", { shutdown: this.shutdownReceived, cause });
  }

  /** What a call made after the close rejects with (`cause`: why it closed, when known). */
  #closedNow() {
    return new ConnectionClosedError("the connection is closed",
      { shutdown: this.shutdownReceived, cause: this.protocolError || this.connectionError });
  }

  #closed(error) {
    if (this.isClosed) return;
    this.isClosed = true;
    if (error instanceof ProtocolError && !this.protocolError) this.protocolError = error; // the transport refused a line
    const reason = this.#whyClosed(error);
    const calls = [...this.pending.values()].flat();
    this.pending.clear();
    for (const call of calls) {
      clearTimeout(call.timer);
      call.reject(reason);
    }
    for (const subscription of [...this.subscriptions.values()]) subscription._end(reason);
    this.#emit("close", error);
    this.resolveClosed(error);
  }
}

/**
 * A deadline option: a positive number of ms, or Infinity for none. setTimeout cannot wait longer than
 * 2^31-1 ms (it would fire at once), so a longer one counts as none.
 * @param {number} value @param {string} name @returns {number}
 */
function checkTimeout(value, name) {
  if (typeof value !== "number" || Number.isNaN(value) || value <= 0) throw new RangeError(`${name} must be a positive number of ms or Infinity`);
  return value > 0x7fffffff ? Infinity : value;
}

/**
 * One subscription: its first snapshot, then its events as an async iterator. Events are
 * `{event, subscription, seq, params}` lines as the daemon writes them; after a seq gap or a
 * resync() the iterator yields `{event: "view.resync", local: true, params: {view, skipped: null, snapshot}}`
 * (a fresh subscription's snapshot, to replace the mirror with). The iterator ends after `view.deleted`,
 * unsubscribe() or the connection's close.
 *
 * Received events wait in `queue` until taken (next(), the iterator, drain()). A reader that falls
 * more than the client's `eventQueueLimit` events behind loses them for a resync, as the daemon
 * coalesces a slow connection's events into `view.resync`: the queue is dropped (counted in
 * `droppedEventCount`) and the local `view.resync` that follows carries the window as it is now.
 */
export class Subscription {
  /** @param {Client} client @param {string} view @param {import("../protocol").ViewSubscribeResult} result */
  constructor(client, view, result) {
    this.client = client;
    this.view = view;
    /** @type {number} */
    this.id = result.subscription;
    /** @type {import("../protocol").Snapshot} the snapshot of the latest (re)subscription */
    this.snapshot = result.snapshot;
    this.result = result;
    /** @type {object[]} events received and not yet taken */
    this.queue = [];
    /** @type {number} events dropped because the queue was full (each time followed by a resync) */
    this.droppedEventCount = 0;
    this.waiters = [];
    this.ended = false;
    /** @type {unknown} why the iterator ended, when not by view.deleted or unsubscribe */
    this.endReason = undefined;
    this.resyncing = null;
    client.subscriptions.set(this.id, this);
  }

  _push(message) {
    if (this.ended) return;
    if (message.event === "view.resync" && message.params && message.params.snapshot) this.snapshot = message.params.snapshot;
    if (this.waiters.length) this.waiters.shift().resolve({ value: message, done: false });
    else if (this.queue.length < this.client.eventQueueLimit || message.event === "view.deleted") this.queue.push(message);
    else {
      // Nobody is taking these: keep memory bounded and let the reader catch up from a fresh snapshot.
      this.droppedEventCount += this.queue.length + 1;
      this.queue = [];
      this.resync().catch(() => {});
    }
    if (message.event === "view.deleted") this._end();
  }

  _end(reason) {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    this.client.subscriptions.delete(this.id);
    for (const waiter of this.waiters.splice(0)) waiter.resolve({ value: undefined, done: true });
  }

  /** The next event, or undefined once the subscription ended. @returns {Promise<import("../protocol").ProtocolEvent|object|undefined>} */
  async next() {
    const step = await this[Symbol.asyncIterator]().next();
    return step.done ? undefined : step.value;
  }

  /** Events waiting to be read (already received). @returns {object[]} */
  drain() {
    return this.queue.splice(0);
  }

  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this.queue.length) return Promise.resolve({ value: this.queue.shift(), done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiters.push({ resolve }));
      },
      return: () => Promise.resolve({ value: undefined, done: true }),
      [Symbol.asyncIterator]() { return this; },
    };
  }

  /**
   * Subscribes again (a seq gap or an epoch gap: events were lost), ends the old subscription, and
   * queues a local `view.resync` carrying the new snapshot. Events of the old id that were already
   * queued are dropped. @returns {Promise<import("../protocol").Snapshot>} the new snapshot
   */
  resync() {
    if (this.resyncing) return this.resyncing;
    const oldId = this.id;
    this.resyncing = this.client.call("view.subscribe", { view: this.view }, {
      onResult: (result) => {
        this.client.subscriptions.delete(oldId);
        this.id = result.subscription;
        this.snapshot = result.snapshot;
        this.result = result;
        this.client.subscriptions.set(this.id, this);
        this.queue = this.queue.filter((m) => m.subscription !== oldId);
        this._push({ event: "view.resync", subscription: this.id, local: true, params: { view: this.view, skipped: null, snapshot: result.snapshot } });
      },
    }).then(() => {
      this.client.call("view.unsubscribe", { subscription: oldId }).catch(() => {});
      return this.snapshot;
    }).finally(() => { this.resyncing = null; });
    return this.resyncing;
  }

  /** `view.unsubscribe`; the iterator ends. */
  async unsubscribe() {
    if (this.ended) return;
    const id = this.id;
    this._end();
    await this.client.call("view.unsubscribe", { subscription: id });
  }
}
