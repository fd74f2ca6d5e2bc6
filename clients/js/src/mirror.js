// The client's copy of a view's window (protocol/subscriptions.md, "Keeping a mirror").

const KIND_ORDER = { cell: 0, header: 1, footer: 2 };

/** The key of an element or of a `left` entry. @param {import("../protocol").ElementKey} e @returns {string} */
export function elementKey(e) {
  return e.kind + "\u0000" + e.id;
}

/** Unicode scalar order (not UTF-16 code unit order). @param {string} a @param {string} b */
export function compareIds(a, b) {
  if (a === b) return 0;
  const x = [...a], y = [...b];
  for (let i = 0; i < x.length && i < y.length; i++) {
    if (x[i] !== y[i]) return x[i].codePointAt(0) - y[i].codePointAt(0);
  }
  return x.length - y.length;
}

/** Whether two JSON values are equal (attributes: the daemon writes their keys in one order, but do not rely on it). */
function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || !sameValue(a[key], b[key])) return false;
  return true;
}

/** The protocol's element order: cells, then headers, then footers; by id within a kind. */
export function compareElements(a, b) {
  const ka = KIND_ORDER[a.kind] ?? 3, kb = KIND_ORDER[b.kind] ?? 3;
  if (ka !== kb) return ka - kb;
  if (ka === 3 && a.kind !== b.kind) return compareIds(a.kind, b.kind);
  return compareIds(a.id, b.id);
}

/**
 * What one handled event did to the mirror's elements, exactly: applying it to a copy of the
 * elements before (remove `left`, then set `entered` and `changed` by key) gives the elements after.
 * - `entered`: elements whose key was not there before;
 * - `changed`: elements whose key was there before and is still, with the attributes now (after an
 *   invalidation, those the daemon lists; after a reset, those whose attributes differ);
 * - `left`: the keys of elements that are gone.
 * @typedef {{entered: import("../protocol").Attributes[], changed: import("../protocol").Attributes[], left: import("../protocol").ElementKey[]}} MirrorChange
 */

/**
 * A view's window as the client holds it. Feed it snapshots (reset), invalidations (apply) or
 * whole event lines (handle); or attach it to a Subscription (follow) and it keeps itself up to date,
 * resubscribing on an epoch gap.
 */
export class Mirror {
  constructor() {
    /** @type {Map<string, import("../protocol").Attributes>} key → attributes */
    this.map = new Map();
    /** @type {number|undefined} */
    this.epoch = undefined;
    this.view = undefined;
    this.window = undefined;
    this.contentSize = undefined;
    this.contentOffset = undefined;
    this.windowTruncated = false;
    /** @type {import("../protocol").Snapshot|undefined} the last snapshot (its elements are not kept up to date) */
    this.snapshot = undefined;
    this.deleted = false;
    this.listeners = new Set();
  }

  /** Replaces everything with a snapshot (view.create, view.get, view.subscribe, view.resync). @param {import("../protocol").Snapshot} snapshot */
  reset(snapshot) {
    this.#reset(snapshot);
    return this;
  }

  /** @param {import("../protocol").Snapshot} snapshot @returns {MirrorChange} against the elements before */
  #reset(snapshot) {
    const before = this.map;
    this.map = new Map();
    for (const e of snapshot.elements) this.map.set(elementKey(e), e);
    /** @type {MirrorChange} */
    const change = { entered: [], changed: [], left: [] };
    for (const [key, e] of this.map) {
      const old = before.get(key);
      if (old === undefined) change.entered.push(e);
      else if (!sameValue(old, e)) change.changed.push(e);
    }
    for (const [key, old] of before) if (!this.map.has(key)) change.left.push({ kind: old.kind, id: old.id });
    this.snapshot = snapshot;
    this.view = snapshot.view;
    this.epoch = snapshot.epoch;
    this.window = snapshot.window;
    this.contentSize = snapshot.contentSize;
    this.contentOffset = snapshot.viewport && snapshot.viewport.offset;
    this.windowTruncated = snapshot.windowTruncated === true;
    this.deleted = false;
    return change;
  }

  /**
   * Applies one invalidation (a mutation's result or a view.invalidated event's params).
   * Returns false, changing nothing, when it is not the next epoch (a dry run, an old or a
   * skipped one): the caller resubscribes on a gap (epoch > this.epoch + 1).
   * @param {import("../protocol").Invalidation} p @returns {boolean}
   */
  apply(p) {
    return this.#apply(p) !== undefined;
  }

  /**
   * @param {import("../protocol").Invalidation} p
   * @returns {MirrorChange|undefined} against the elements before (undefined: not applied)
   */
  #apply(p) {
    if (p.dryRun || this.epoch === undefined || p.epoch !== this.epoch + 1) return undefined;
    // Each touched key's attributes before, so the change says what really happened to the
    // mirror (an element that left and entered again in one delta is changed, not both).
    const before = new Map();
    const touch = (key) => { if (!before.has(key)) before.set(key, this.map.get(key)); };
    for (const k of p.left) {
      const key = elementKey(k);
      touch(key);
      this.map.delete(key);
    }
    for (const e of p.entered) {
      const key = elementKey(e);
      touch(key);
      this.map.set(key, e);
    }
    for (const e of p.changed) {
      const key = elementKey(e);
      touch(key);
      this.map.set(key, e);
    }
    /** @type {MirrorChange} */
    const change = { entered: [], changed: [], left: [] };
    for (const [key, old] of before) {
      const now = this.map.get(key);
      if (old === undefined) { if (now !== undefined) change.entered.push(now); }
      else if (now === undefined) change.left.push({ kind: old.kind, id: old.id });
      else change.changed.push(now);
    }
    this.epoch = p.epoch;
    this.window = p.window;
    this.contentSize = p.contentSize;
    this.contentOffset = p.contentOffset;
    this.windowTruncated = p.windowTruncated === true;
    return change;
  }

  /**
   * Handles one event line: "applied", "reset", "deleted", "ignored" (another view's, an unknown
   * event, an epoch already seen) or "gap" (an epoch was skipped: resubscribe).
   * @param {{event: string, params?: any}} message @returns {"applied"|"reset"|"deleted"|"ignored"|"gap"}
   */
  handle(message) {
    const p = message.params || {};
    let outcome = "ignored";
    /** @type {MirrorChange|undefined} */
    let change;
    if (message.event === "view.invalidated") {
      change = this.#apply(p);
      if (change) outcome = "applied";
      else if (this.epoch !== undefined && p.epoch > this.epoch + 1) outcome = "gap";
    } else if (message.event === "view.resync" && p.snapshot) {
      change = this.#reset(p.snapshot);
      outcome = "reset";
    } else if (message.event === "view.deleted") {
      change = { entered: [], changed: [], left: [...this.map.values()].map((e) => ({ kind: e.kind, id: e.id })) };
      this.map = new Map();
      this.deleted = true;
      outcome = "deleted";
    }
    if (change) for (const listener of [...this.listeners]) listener(message, this, outcome, change);
    return outcome;
  }

  /**
   * Calls `listener(event, mirror, outcome, change)` after each event handle() (or follow()) applied:
   * `change` ({entered, changed, left}) says exactly which elements to touch. reset() and apply()
   * called directly do not call it. @returns {() => void}
   */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Follows a Subscription: resets to its snapshot, then handles every event until it ends.
   * An epoch gap resubscribes (Subscription.resync). Resolves when the subscription ends.
   * @param {import("./client.js").Subscription} subscription @returns {Promise<void>}
   */
  async follow(subscription) {
    this.reset(subscription.snapshot);
    for await (const message of subscription) {
      if (this.handle(message) === "gap") await subscription.resync().catch(() => {});
    }
  }

  /** Number of elements. */
  get size() {
    return this.map.size;
  }

  /** @param {string} kind @param {string} id @returns {import("../protocol").Attributes|undefined} */
  get(kind, id) {
    return this.map.get(kind + "\u0000" + id);
  }

  /** @param {string} id @returns {import("../protocol").Attributes|undefined} the cell of item `id` */
  cell(id) {
    return this.get("cell", id);
  }

  /** Every element, sorted by key (the order of view.get's elements). @returns {import("../protocol").Attributes[]} */
  elements() {
    return [...this.map.values()].sort(compareElements);
  }

  /** Iterates the elements sorted by key. */
  [Symbol.iterator]() {
    return this.elements()[Symbol.iterator]();
  }
}
