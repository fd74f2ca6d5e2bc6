// Errors as protocol/errors.md lists them: one LayoutdError subclass per stable name.

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
    const Class = errorClasses[error && error.name] || LayoutdError;
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

/** Every name of protocol/errors.md with its code; ⏏ ones close the connection. */
export const ERROR_CODES = Object.freeze({
  ParseError: -32700,
  LineTooLong: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ViewNotFound: -32001,
  ViewExists: -32002,
  UnknownStrategy: -32003,
  UnknownParameter: -32004,
  InvalidParameter: -32005,
  InvalidViewport: -32006,
  InvalidSize: -32007,
  InvalidID: -32008,
  DuplicateItemID: -32009,
  DuplicateSectionID: -32010,
  ItemNotFound: -32011,
  SectionNotFound: -32012,
  InvalidBatch: -32013,
  IndexOutOfRange: -32014,
  StaleEpoch: -32015,
  LimitExceeded: -32016,
  PermissionDenied: -32017,
  UnsupportedVersion: -32018,
  DuplicateStrategy: -32019,
  ReloadFailed: -32020,
  IdleTimeout: -32021,
  OutputOverflow: -32022,
  ElementNotFound: -32023,
  TransitionInProgress: -32024,
  NoActiveTransition: -32025,
  MoveInProgress: -32026,
  NoActiveMove: -32027,
  SectionNotOrthogonal: -32028,
});

/** Names whose error line closes the connection (protocol/README.md §9). */
export const CONNECTION_ERRORS = Object.freeze(["LineTooLong", "IdleTimeout", "OutputOverflow", "PermissionDenied"]);

export class ParseError extends LayoutdError {}
export class LineTooLongError extends LayoutdError {}
export class InvalidRequestError extends LayoutdError {}
export class MethodNotFoundError extends LayoutdError {}
export class InvalidParamsError extends LayoutdError {}
export class InternalError extends LayoutdError {}
export class ViewNotFoundError extends LayoutdError {}
export class ViewExistsError extends LayoutdError {}
export class UnknownStrategyError extends LayoutdError {}
export class UnknownParameterError extends LayoutdError {}
export class InvalidParameterError extends LayoutdError {}
export class InvalidViewportError extends LayoutdError {}
export class InvalidSizeError extends LayoutdError {}
export class InvalidIDError extends LayoutdError {}
export class DuplicateItemIDError extends LayoutdError {}
export class DuplicateSectionIDError extends LayoutdError {}
export class ItemNotFoundError extends LayoutdError {}
export class SectionNotFoundError extends LayoutdError {}
export class InvalidBatchError extends LayoutdError {}
export class IndexOutOfRangeError extends LayoutdError {}
export class StaleEpochError extends LayoutdError {}
export class LimitExceededError extends LayoutdError {}
export class PermissionDeniedError extends LayoutdError {}
export class UnsupportedVersionError extends LayoutdError {}
export class DuplicateStrategyError extends LayoutdError {}
export class ReloadFailedError extends LayoutdError {}
export class IdleTimeoutError extends LayoutdError {}
export class OutputOverflowError extends LayoutdError {}
export class ElementNotFoundError extends LayoutdError {}
export class TransitionInProgressError extends LayoutdError {}
export class NoActiveTransitionError extends LayoutdError {}
export class MoveInProgressError extends LayoutdError {}
export class NoActiveMoveError extends LayoutdError {}
export class SectionNotOrthogonalError extends LayoutdError {}

/** @type {Record<string, typeof LayoutdError>} protocol name → class */
export const errorClasses = Object.freeze({
  ParseError,
  LineTooLong: LineTooLongError,
  InvalidRequest: InvalidRequestError,
  MethodNotFound: MethodNotFoundError,
  InvalidParams: InvalidParamsError,
  InternalError,
  ViewNotFound: ViewNotFoundError,
  ViewExists: ViewExistsError,
  UnknownStrategy: UnknownStrategyError,
  UnknownParameter: UnknownParameterError,
  InvalidParameter: InvalidParameterError,
  InvalidViewport: InvalidViewportError,
  InvalidSize: InvalidSizeError,
  InvalidID: InvalidIDError,
  DuplicateItemID: DuplicateItemIDError,
  DuplicateSectionID: DuplicateSectionIDError,
  ItemNotFound: ItemNotFoundError,
  SectionNotFound: SectionNotFoundError,
  InvalidBatch: InvalidBatchError,
  IndexOutOfRange: IndexOutOfRangeError,
  StaleEpoch: StaleEpochError,
  LimitExceeded: LimitExceededError,
  PermissionDenied: PermissionDeniedError,
  UnsupportedVersion: UnsupportedVersionError,
  DuplicateStrategy: DuplicateStrategyError,
  ReloadFailed: ReloadFailedError,
  IdleTimeout: IdleTimeoutError,
  OutputOverflow: OutputOverflowError,
  ElementNotFound: ElementNotFoundError,
  TransitionInProgress: TransitionInProgressError,
  NoActiveTransition: NoActiveTransitionError,
  MoveInProgress: MoveInProgressError,
  NoActiveMove: NoActiveMoveError,
  SectionNotOrthogonal: SectionNotOrthogonalError,
});

/**
 * Whether `error` is a LayoutdError, and (given `name`) one with that protocol name.
 * @param {unknown} error @param {string} [name] @returns {error is LayoutdError}
 */
export function isLayoutdError(error, name) {
  return error instanceof LayoutdError && (name === undefined || error.name === name);
}
