// Reconnecting: after the connection drops (a daemon restart, which loses every view), connect
// again, re-create the caller's views from the caller's own last data, and resubscribe the mirrors.
import { Mirror } from "./mirror.js";
import { isLayoutdError } from "./errors.js";

/**
 * @typedef {object} SessionOptions
 * @property {() => Promise<import("./client.js").Client>} connect opens a new Client (e.g. () => connect({socket}))
 * @property {() => Iterable<import("../protocol").ViewCreateParams> | Promise<Iterable<import("../protocol").ViewCreateParams>>} [views] the view.create params of the
 *   caller's views as the caller last knows them (its data, viewport, strategy); called at every (re)connect.
 *   A view that still exists (ViewExists: only the connection dropped) is kept as the daemon has it.
 * @property {(client: import("./client.js").Client) => Promise<void>|void} [restore] more to do after
 *   the views exist and before the mirrors resubscribe
 * @property {number} [retryDelay] first delay between attempts, ms (default 50; doubles up to maxRetryDelay)
 * @property {number} [maxRetryDelay] ms (default 2000)
 */

/** A connection that comes back. `client` is the current Client. */
export class ReconnectingSession {
  /** @param {SessionOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {import("./client.js").Client|undefined} */
    this.client = undefined;
    /** @type {Map<string, {mirror: Mirror, subscription?: import("./client.js").Subscription}>} */
    this.followed = new Map();
    this.listeners = { reconnect: new Set(), error: new Set(), disconnect: new Set() };
    this.stopped = false;
    /** number of connections made (1 after start) */
    this.connections = 0;
    this.ready = null;
  }

  /** @param {"reconnect"|"error"|"disconnect"} name @param {Function} listener @returns {() => void} */
  on(name, listener) {
    this.listeners[name].add(listener);
    return () => this.listeners[name].delete(listener);
  }

  #emit(name, ...args) {
    for (const listener of [...this.listeners[name]]) listener(...args);
  }

  /** Connects (retrying until it works: it does not resolve while no daemon answers) and restores. @returns {Promise<this>} */
  async start() {
    this.ready = this.#connectLoop();
    await this.ready;
    return this;
  }

  async #connectLoop() {
    let delay = this.options.retryDelay ?? 50;
    const maxDelay = this.options.maxRetryDelay ?? 2000;
    while (!this.stopped) {
      let client;
      try {
        client = await this.options.connect();
        if (this.stopped) { client.close(); return; }
        await this.#restore(client);
        this.client = client;
        this.connections++;
        client.on("close", () => this.#lost(client));
        if (client.isClosed) { this.#lost(client); return; }
        if (this.connections > 1) this.#emit("reconnect", client);
        return;
      } catch (error) {
        if (client) client.close();
        this.#emit("error", error);
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(maxDelay, delay * 2);
      }
    }
  }

  async #restore(client) {
    const views = this.options.views ? await this.options.views() : [];
    for (const params of views) {
      try {
        await client.view.create(params);
      } catch (error) {
        if (!isLayoutdError(error, "ViewExists")) throw error;
      }
    }
    if (this.options.restore) await this.options.restore(client);
    for (const [view, entry] of this.followed) {
      try {
        await this.#subscribe(client, view, entry);
      } catch (error) {
        if (!isLayoutdError(error, "ViewNotFound")) throw error;
        // Not one of the caller's views, and gone with the old daemon: the mirror is dropped.
        this.followed.delete(view);
        entry.mirror.handle({ event: "view.deleted", params: { view } });
      }
    }
  }

  async #subscribe(client, view, entry) {
    const subscription = await client.subscribe(view);
    entry.subscription = subscription;
    entry.done = entry.mirror.follow(subscription);
  }

  #lost(client) {
    if (this.client !== client || this.stopped) return;
    this.#emit("disconnect", client);
    this.client = undefined;
    this.ready = this.#connectLoop();
  }

  /**
   * A Mirror of `view` that survives reconnects: subscribed now and again after every reconnect.
   * @param {string} view @returns {Promise<Mirror>}
   */
  async mirror(view) {
    if (this.followed.has(view)) return this.followed.get(view).mirror;
    const entry = { mirror: new Mirror() };
    this.followed.set(view, entry);
    if (this.client) {
      try {
        await this.#subscribe(this.client, view, entry);
      } catch (error) {
        this.followed.delete(view);
        throw error;
      }
    }
    return entry.mirror;
  }

  /** Waits until connected (after a drop: until reconnected and restored). */
  async connected() {
    while (!this.client && !this.stopped) await this.ready;
    return this.client;
  }

  /** Stops reconnecting and closes the connection. */
  async close() {
    this.stopped = true;
    if (this.client) await this.client.close();
  }
}

/** @param {SessionOptions} options @returns {Promise<ReconnectingSession>} */
export function reconnecting(options) {
  return new ReconnectingSession(options).start();
}
