// What a line from the daemon must be (protocol/README.md §9, "What a client expects of the
// daemon's lines"): JSON, an object, at most MAXIMUM_DEPTH deep, and a reply or an event of the
// documented shape. Anything else is the peer's fault and a ProtocolError, never a runtime error.
import { ProtocolError } from "./errors.js";
import { MAXIMUM_DEPTH } from "./limits.js";

/**
 * One line, parsed and checked: `{reply}` (`id` a number, a string or null; exactly one of
 * `result` and `error`, each an object; an error's `code` a number, `name` and `message` strings)
 * or `{event}` (`event` a string, `seq` an integer, `params` an object, `subscription` an
 * integer when present). Throws a ProtocolError for anything else.
 * - Complexity: O(line), and no recursion: the depth is measured before JSON.parse allocates.
 * @param {string} line without its terminator
 * @returns {{reply: {id: string|number|null, result?: object, error?: {code: number, name: string, message: string, data?: object}}} | {event: {event: string, seq: number, params: object, subscription?: number}}}
 */
export function readLine(line) {
  if (deeperThan(line, MAXIMUM_DEPTH)) {
    throw new ProtocolError("depth", `a line nested deeper than ${MAXIMUM_DEPTH} arrays and objects`, { line });
  }
  let message;
  try {
    message = JSON.parse(line);
  } catch (cause) {
    throw new ProtocolError("json", "a line that is not JSON", { line, cause });
  }
  const wrong = (what) => new ProtocolError("shape", what, { line });
  if (!isObject(message)) throw wrong("a line that is not a JSON object");
  if (Object.hasOwn(message, "id")) {
    const id = message.id;
    if (id !== null && typeof id !== "number" && typeof id !== "string") throw wrong("a reply whose id is not a number, a string or null");
    const hasResult = Object.hasOwn(message, "result"), hasError = Object.hasOwn(message, "error");
    if (hasResult === hasError) throw wrong(hasResult ? "a reply with both result and error" : "a reply with neither result nor error");
    if (hasResult && !isObject(message.result)) throw wrong("a reply whose result is not an object");
    if (hasResult) {
      const bad = windowShape(message.result);
      if (bad) throw wrong(`a result whose ${bad}`);
    }
    if (hasError) {
      const error = message.error;
      if (!isObject(error)) throw wrong("a reply whose error is not an object");
      if (typeof error.code !== "number" || typeof error.name !== "string" || typeof error.message !== "string") {
        throw wrong("an error without a numeric code, a name and a message");
      }
    }
    return { reply: message };
  }
  if (Object.hasOwn(message, "event")) {
    if (typeof message.event !== "string") throw wrong("an event whose name is not a string");
    if (!Number.isInteger(message.seq)) throw wrong("an event whose seq is not an integer");
    if (!isObject(message.params)) throw wrong("an event whose params is not an object");
    if (Object.hasOwn(message, "subscription") && !Number.isInteger(message.subscription)) {
      throw wrong("an event whose subscription is not an integer");
    }
    const bad = windowShape(message.params);
    if (bad) throw wrong(`an event whose params' ${bad}`);
    return { event: message };
  }
  throw wrong("a line that is neither a reply (id) nor an event (event)");
}

/**
 * What a Mirror and a Subscription read of a result or an event's params, checked where it is
 * present (invalidations: `epoch`, `entered`, `changed`, `left`; snapshots: `elements`, and a
 * nested `snapshot`), so that a wrong shape is a ProtocolError here rather than a TypeError in
 * the application's mirror later. Fields a mirror does not read are left to the application.
 * @param {Record<string, any>} value @returns {string|undefined} what is wrong, or undefined
 */
function windowShape(value) {
  if (Object.hasOwn(value, "epoch") && !Number.isInteger(value.epoch)) return "epoch is not an integer";
  for (const field of ["entered", "changed", "left", "elements"]) {
    if (!Object.hasOwn(value, field)) continue;
    const list = value[field];
    if (!Array.isArray(list) || !list.every(isObject)) return `${field} is not a list of objects`;
  }
  if (Object.hasOwn(value, "snapshot")) {
    if (!isObject(value.snapshot)) return "snapshot is not an object";
    const bad = windowShape(value.snapshot);
    if (bad) return `snapshot's ${bad}`;
  }
  return undefined;
}

/** A JSON object: not null, not an array. @param {unknown} value @returns {value is Record<string, any>} */
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether the JSON text nests more than `limit` arrays and objects. Brackets inside strings do not
 * count; the text need not be valid JSON (JSON.parse judges that afterwards).
 * @param {string} text @param {number} limit @returns {boolean}
 */
export function deeperThan(text, limit) {
  let depth = 0;
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // a string: skip to its closing quote, past escapes
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
