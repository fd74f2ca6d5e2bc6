// Errors as protocol/errors.md lists them: one LayoutdError subclass per stable name, made from the
// generated error table (src/protocol.js); error-classes.js exports them by name.
import { ERRORS } from "./protocol.js";
import { excerpt } from "./limits.js";

/** An error reply from the daemon (or a connection-level error line). Switch on `name`. */
export class LayoutdError extends Error {
  /**
   * @param {{code: number, name: string, message: string, data?: object}} error the reply's `error` object
   * @param {{id?: string|number|null, method?: string}} [request]
   */
  constructor(error, request = {}) {
    super(error.message);
    /** @type {number} */
    this.code = error.code;
    /** @type {string} the stable protocol name (`ViewNotFound`, ...); unknown names are kept as sent */
    this.name = error.name;
    /** @type {object|undefined} */
    this.data = error.data;
    /** @type {string|number|null|undefined} */
    this.id = request.id;
    /** @type {string|undefined} */
    this.method = request.method;
  }

  /**
   * The subclass for `error.name`, or LayoutdError itself for a name this client does not know
   * (a generic failure of that request, as protocol/README.md §8 says).
   * @param {{code: number, name: string, message: string, data?: object}} error
   * @param {{id?: string|number|null, method?: string}} [request]
   * @returns {LayoutdError}
   */
  static from(error, request) {
    // hasOwn: a name like "constructor" or "toString" must not reach Object.prototype's members.
    const name = error && error.name;
    const Class = typeof name === "string" && Object.hasOwn(errorClasses, name) ? errorClasses[name] : LayoutdError;
    return new Class(error, request);
  }
}

/** The connection closed (or was closed) before a reply arrived. Not a protocol error. */
export class ConnectionClosedError extends Error {
  /** @param {string} message @param {{cause?: unknown, shutdown?: boolean}} [options] */
  constructor(message = "the connection closed", options = {}) {
    super(message);
    this.name = "ConnectionClosed";
    /** whether `daemon.shutdown` arrived before the close (resend after reconnecting) */
    this.shutdown = !!options.shutdown;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * What was wrong with a line that makes a ProtocolError (protocol/README.md §9, "What a client
 * expects of the daemon's lines"):
 * - `line-cap`: longer than the transport's line cap (refused as soon as the cap is passed);
 * - `utf8`: not UTF-8 (or, over a WebSocket, a message that is not text);
 * - `json`: not JSON;
 * - `depth`: nested deeper than MAXIMUM_DEPTH (128) arrays and objects;
 * - `shape`: JSON, but neither a reply nor an event of the documented shape.
 * @typedef {"line-cap"|"utf8"|"json"|"depth"|"shape"} ProtocolErrorKind
 */

/**
 * The peer wrote a line no layoutd writes. The stream cannot be trusted past it: the client closes
 * the connection and every waiting call rejects with this same error (a later call with
 * ConnectionClosedError, whose `cause` is this error).
 */
export class ProtocolError extends Error {
  /**
   * @param {ProtocolErrorKind} kind @param {string} message
   * @param {{line?: string, cause?: unknown}} [options] line: the offending line (kept up to 256 characters)
   */
  constructor(kind, message, options = {}) {
    super(message);
    this.name = "ProtocolError";
    /** @type {ProtocolErrorKind} */
    this.kind = kind;
    /** @type {string|undefined} the start of the offending line (undefined for `line-cap` and `utf8`) */
    this.line = options.line === undefined ? undefined : excerpt(options.line);
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * A call's deadline passed before its reply (the call is forgotten: a late reply counts as stray,
 * and the connection stays usable), or connect()'s before the connection was made.
 */
export class CallTimeoutError extends Error {
  /**
   * @param {string} operation the method called, or "connect"
   * @param {number} timeout the deadline, ms after the call began
   * @param {{cause?: unknown}} [options]
   */
  constructor(operation, timeout, options = {}) {
    super(`${operation} had no ${operation === "connect" ? "connection" : "reply"} within ${timeout} ms`);
    this.name = "CallTimeout";
    /** @type {string} */
    this.operation = operation;
    /** @type {number} ms */
    this.timeout = timeout;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** Every error name of protocol/errors.md with its code (from the generated table). @type {Readonly<Record<string, number>>} */
export const ERROR_CODES = Object.freeze(Object.fromEntries(Object.entries(ERRORS).map(([name, error]) => [name, error.code])));

/** Names whose error line closes the connection (protocol/README.md §9). @type {readonly string[]} */
export const CONNECTION_ERRORS = Object.freeze(Object.keys(ERRORS).filter((name) => ERRORS[name].closesConnection));

/**
 * Protocol name → its LayoutdError subclass, one per name of the generated table: `ViewNotFound` →
 * `ViewNotFoundError` (a name that ends in Error keeps it: `ParseError`). error-classes.js exports each by
 * its class name. @type {Readonly<Record<string, typeof LayoutdError>>}
 */
export const errorClasses = Object.freeze(Object.fromEntries(Object.keys(ERRORS).map((name) => {
  const className = name.endsWith("Error") ? name : name + "Error";
  // A computed key names the class, so stack traces and the class's `name` read ViewNotFoundError.
  return [name, { [className]: class extends LayoutdError {} }[className]];
})));

/**
 * Whether `error` is a LayoutdError, and (given `name`) one with that protocol name.
 * @param {unknown} error @param {string} [name] @returns {error is LayoutdError}
 */
export function isLayoutdError(error, name) {
  return error instanceof LayoutdError && (name === undefined || error.name === name);
}
