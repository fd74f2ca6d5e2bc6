// The client's bounds, each in one place (protocol/README.md §9, "What a client expects of the
// daemon's lines"): what the transports, the Client and the Subscriptions keep at most.

/**
 * The longest line the transports accept by default, in bytes without its "\n": 64 MiB, the
 * daemon's default `output-limit`, so no legal reply is longer. A daemon with a larger
 * output-limit needs clients with a larger cap (option `lineCap`).
 */
export const DEFAULT_LINE_CAP = 64 * 1024 * 1024;

/** The default deadline of a whole call (send, and every read until its reply) and of connect(), in ms. */
export const DEFAULT_TIMEOUT = 30000;

/** The deepest nesting of arrays and objects a line may have (the daemon writes at most this). */
export const MAXIMUM_DEPTH = 128;

/** How many stray replies the Client keeps for inspection (the most recent; all are counted). */
export const STRAYS_KEPT = 16;

/**
 * How many received events a Subscription holds for a reader that does not take them; one more and
 * the queue is dropped for a resync (a fresh snapshot), as the daemon does for a slow connection.
 */
export const DEFAULT_EVENT_QUEUE_LIMIT = 1024;

/**
 * The first 256 characters of a line, for errors and stray records (a line may be as long as the
 * cap), as a string of its own: V8 keeps a whole string alive behind any slice of it, and a line may
 * itself be a slice of a longer WebSocket message.
 * @param {string} line
 */
export function excerpt(line) {
  const head = Array.from(line.slice(0, 256)).join("");
  return line.length <= 256 ? head : head + "…";
}
