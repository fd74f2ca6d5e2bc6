// Hand-written types for layoutd-client (src/index.js and src/node.js): the client's own API. The
// protocol's types (every shared object, each method's params and result, events, errors' data and
// classes) are generated into protocol.d.ts from protocol/interface.json and re-exported here.
// test/types.test.js checks that every runtime export is declared (here or there) and back.
import type {
  Attributes, ElementKey, ElementKind, ErrorClasses, ErrorCodes, ErrorData, ErrorName, Invalidation, MethodGroups,
  MethodName, Point, ProtocolMethods, Rect, Size, Snapshot, Transition, TransitionSegment, ViewCreateParams,
  ViewMethods, ViewSubscribeParams, ViewSubscribeResult, ViewStageCommitResult, Section, Item,
} from "./protocol.js";

export * from "./protocol.js";

// ---------------------------------------------------------------- protocol objects

/** UIKit's animation curves (protocol/mutations.md): cubic Béziers with CSS's control points. */
export type AnimationCurve = TransitionSegment["curve"];

/**
 * An event line as the client delivers it: the protocol's (ProtocolEvent, by name in ProtocolEvents),
 * an event this version does not know, or the client's own local `view.resync` (local: true).
 */
export interface EventLine<P = any> { event: string; subscription?: number; seq?: number; params: P; local?: boolean }

/** Request params of a method this client has no type for (call()). */
export type Params = Record<string, unknown>;
export type Result = Record<string, any>;

// ---------------------------------------------------------------- errors

export interface ErrorObject { code: number; name: string; message: string; data?: Record<string, any> }

/** `data`'s type for an error name: ErrorData's for the protocol's names, anything for others. */
export type ErrorDataOf<N extends string> = N extends ErrorName ? ErrorData[N] : Record<string, any> | undefined;

/** An error reply; the subclass per name (ViewNotFoundError, ...) narrows `name` and `data`. */
export class LayoutdError<N extends string = string, D = ErrorDataOf<N>> extends Error {
  constructor(error: ErrorObject, request?: { id?: string | number | null; method?: string });
  code: number;
  /** the stable protocol name */
  name: N;
  data: D;
  id: string | number | null | undefined;
  method: string | undefined;
  static from(error: ErrorObject, request?: { id?: string | number | null; method?: string }): LayoutdError;
}
export class ConnectionClosedError extends Error {
  constructor(message?: string, options?: { cause?: unknown; shutdown?: boolean });
  name: "ConnectionClosed";
  shutdown: boolean;
}
/**
 * What was wrong with a line that makes a ProtocolError: longer than the line cap, not UTF-8 (or a
 * binary WebSocket message), not JSON, nested deeper than MAXIMUM_DEPTH, or JSON of the wrong shape.
 */
export type ProtocolErrorKind = "line-cap" | "utf8" | "json" | "depth" | "shape";
/**
 * The peer wrote a line no layoutd writes: the client closed the connection and every waiting call
 * rejected with this error (a later call with ConnectionClosedError, whose `cause` it is).
 */
export class ProtocolError extends Error {
  constructor(kind: ProtocolErrorKind, message: string, options?: { line?: string; cause?: unknown });
  name: "ProtocolError";
  kind: ProtocolErrorKind;
  /** the start of the offending line (256 characters at most); undefined for line-cap and utf8 */
  line: string | undefined;
}
/** A call's deadline (or connect's) passed first; the call is forgotten and the connection stays usable. */
export class CallTimeoutError extends Error {
  constructor(operation: string, timeout: number, options?: { cause?: unknown });
  name: "CallTimeout";
  /** the method called, or "connect" */
  operation: string;
  /** the deadline, ms */
  timeout: number;
}
/** Every error name with its code (a name this version does not know: undefined). */
export const ERROR_CODES: Readonly<ErrorCodes> & Readonly<Record<string, number | undefined>>;
export const CONNECTION_ERRORS: readonly string[];
/** Every error name with its class (a name this version does not know: undefined). */
export const errorClasses: Readonly<ErrorClasses> & Readonly<Record<string, typeof LayoutdError | undefined>>;
export function isLayoutdError<N extends ErrorName>(error: unknown, name: N): error is InstanceType<ErrorClasses[N]>;
export function isLayoutdError(error: unknown, name?: string): error is LayoutdError;

// ---------------------------------------------------------------- transports and client

/** onClose gets a ProtocolError when the transport refused what the peer sent (over the line cap, not UTF-8). */
export interface LineHandlers { onLine(line: string): void; onClose(error?: Error): void }
/** Anything that carries protocol lines (without terminators). */
export interface LineTransport {
  start(handlers: LineHandlers): void;
  send(line: string | Uint8Array): void;
  /** with a reason (the Client's ProtocolError): drop the connection at once, deliver no further line */
  close(reason?: Error): void;
}

export interface CallOptions {
  /** the request id to send (default: the client's next integer) */
  id?: string | number;
  /** send as a notification: no id, no reply; resolves to undefined once sent */
  notify?: boolean;
  /** this call's deadline, ms from now to its reply (default: the client's timeout); Infinity for none */
  timeout?: number;
}

export interface ClientOptions {
  /** a gap in event seq resubscribes every subscription (default true) */
  checkSeq?: boolean;
  /** each call's deadline, ms (default DEFAULT_TIMEOUT: 30 s); Infinity for none */
  timeout?: number;
  /** events a Subscription holds for a reader that does not take them (default 1024); one more drops them for a resync */
  eventQueueLimit?: number;
}

/** The longest line a transport accepts by default: 64 MiB (the daemon's default output-limit), bytes without the newline. */
export const DEFAULT_LINE_CAP: number;
/** The default deadline of a call and of a connect: 30000 ms. */
export const DEFAULT_TIMEOUT: number;
/** The default eventQueueLimit: 1024. */
export const DEFAULT_EVENT_QUEUE_LIMIT: number;
/** The deepest nesting of arrays and objects a line may have: 128. */
export const MAXIMUM_DEPTH: number;
/** How many stray replies a Client keeps in `strays`: 16. */
export const STRAYS_KEPT: number;

export const PROTOCOL_METHODS: readonly MethodName[];
/** The layoutd release this client belongs to (Sources/LayoutProtocol/Release.swift). */
export const VERSION: string;

/**
 * The Client's method functions are MethodGroups' (generated: client.daemon.hello, client.view.scroll,
 * client.view.stage.commit, ...), each `(params, options?) => Promise<result>` typed per method;
 * view.subscribe resolves to a Subscription instead of its raw result.
 */
export interface Client extends Omit<MethodGroups, "view"> {}
export class Client {
  constructor(transport: LineTransport, options?: ClientOptions);
  transport: LineTransport;
  checkSeq: boolean;
  /** each call's deadline, ms */
  timeout: number;
  eventQueueLimit: number;
  /** calls waiting for their reply, by id: an entry lives from the send until its reply, its deadline or the close */
  readonly pending: ReadonlyMap<string | number, readonly unknown[]>;
  /** the number of calls waiting for their reply */
  readonly pendingCount: number;
  /** replies nobody waited for (unknown, duplicate or late ids) and id-null errors that do not close the connection */
  strayCount: number;
  /** the STRAYS_KEPT most recent strays, oldest first (`line` cut to 256 characters) */
  strays: Array<{ id: string | number | null; line: string }>;
  /** events that reached no subscription and no `event` listener (the client keeps none) */
  droppedEventCount: number;
  /** set when the client closed the connection because of a line no layoutd writes */
  protocolError: ProtocolError | undefined;
  /** the last event seq seen */
  seq: number;
  subscriptions: Map<number, Subscription>;
  isClosed: boolean;
  shutdownReceived: boolean;
  connectionError: LayoutdError | undefined;
  closed: Promise<Error | undefined>;
  /** set by connect({hello: true}) */
  hello?: ProtocolMethods["daemon.hello"]["result"];

  view: Omit<ViewMethods, "subscribe"> & {
    /** view.subscribe: a Subscription (its snapshot, then its events), registered before any event is read */
    subscribe(params: ViewSubscribeParams | string, options?: CallOptions): Promise<Subscription>;
  };

  on(name: "event", listener: (message: EventLine, line: string) => void): () => void;
  on(name: "line", listener: (line: string) => void): () => void;
  on(name: "reply", listener: (message: any, line: string) => void): () => void;
  on(name: "gap", listener: (message: EventLine) => void): () => void;
  on(name: "close", listener: (error?: Error) => void): () => void;
  /** Any method by name: typed for the protocol's, `any` for a name this client does not know. */
  call<M extends MethodName>(method: M, params?: ProtocolMethods[M]["params"], options?: CallOptions): Promise<ProtocolMethods[M]["result"]>;
  call(method: string, params?: Params, options?: CallOptions): Promise<any>;
  notify<M extends MethodName>(method: M, params?: ProtocolMethods[M]["params"]): Promise<undefined>;
  notify(method: string, params?: Params): Promise<undefined>;
  sendRaw(line: string | Uint8Array): void;
  subscribe(params: ViewSubscribeParams | string, options?: CallOptions): Promise<Subscription>;
  /** staged upload: begin, appends of at most batchSize items and sections and one line each, commit */
  upload(params: { view: string; sections: Array<Omit<Section, "items"> & { items?: Item[] }>;
    batchSize?: number; maxLineLength?: number; ifEpoch?: number; animated?: boolean; dryRun?: boolean }): Promise<ViewStageCommitResult>;
  close(): Promise<Error | undefined>;
}

export class Subscription implements AsyncIterable<EventLine> {
  constructor(client: Client, view: string, result: ViewSubscribeResult);
  client: Client;
  view: string;
  id: number;
  snapshot: Snapshot;
  result: ViewSubscribeResult;
  /** events received and not yet taken */
  queue: EventLine[];
  /** events dropped because the queue passed the client's eventQueueLimit (each time followed by a resync) */
  droppedEventCount: number;
  ended: boolean;
  endReason: unknown;
  next(): Promise<EventLine | undefined>;
  drain(): EventLine[];
  [Symbol.asyncIterator](): AsyncIterator<EventLine>;
  resync(): Promise<Snapshot>;
  unsubscribe(): Promise<void>;
}

export class WebSocketTransport implements LineTransport {
  constructor(socket: { send(data: string): void; close(code?: number): void; readyState: number; bufferedAmount?: number },
    options?: { lineCap?: number });
  /** bytes of UTF-8 a line may have */
  lineCap: number;
  /** bytes waiting to be sent (the socket's bufferedAmount, plus lines waiting for it to open) */
  readonly bufferedAmount: number;
  start(handlers: LineHandlers): void;
  send(line: string | Uint8Array): void;
  close(reason?: Error): void;
}
export function connectWebSocket(url: string,
  options?: { WebSocket?: any; protocols?: string | string[]; lineCap?: number; timeout?: number }): Promise<WebSocketTransport>;

// ---------------------------------------------------------------- mirror

export function elementKey(e: ElementKey): string;
export function compareIds(a: string, b: string): number;
export function compareElements(a: ElementKey, b: ElementKey): number;

export type MirrorOutcome = "applied" | "reset" | "deleted" | "ignored" | "gap";
/**
 * What one handled event did to a mirror, exactly: removing `left` from a copy of the elements
 * before, then setting `entered` and `changed` by key, gives the elements after.
 */
export interface MirrorChange {
  /** elements whose key was not there before */
  entered: Attributes[];
  /** elements there before and still, with their attributes now */
  changed: Attributes[];
  /** the keys of elements that are gone */
  left: ElementKey[];
}

export class Mirror implements Iterable<Attributes> {
  constructor();
  map: Map<string, Attributes>;
  epoch: number | undefined;
  view: string | undefined;
  window: Rect | undefined;
  contentSize: Size | undefined;
  contentOffset: Point | undefined;
  windowTruncated: boolean;
  snapshot: Snapshot | undefined;
  deleted: boolean;
  reset(snapshot: Snapshot): this;
  apply(invalidation: Invalidation): boolean;
  handle(message: EventLine): MirrorOutcome;
  /** after each event handle() (or follow()) applied; not for reset() or apply() called directly */
  onChange(listener: (message: EventLine, mirror: Mirror, outcome: Exclude<MirrorOutcome, "ignored" | "gap">, change: MirrorChange) => void): () => void;
  follow(subscription: Subscription): Promise<void>;
  readonly size: number;
  get(kind: ElementKind, id: string): Attributes | undefined;
  cell(id: string): Attributes | undefined;
  elements(): Attributes[];
  [Symbol.iterator](): Iterator<Attributes>;
}

// ---------------------------------------------------------------- transitions

export type Easing = "linear" | "ease-in" | "ease-out" | "ease-in-out" | ((p: number) => number);
export const EASINGS: Readonly<Record<string, (p: number) => number>>;
export interface CurveDescription { readonly points: readonly [number, number, number, number]; readonly css: string; readonly ease: (p: number) => number }
export const CURVES: Readonly<Record<AnimationCurve, CurveDescription>>;
export function cubicBezier(x1: number, y1: number, x2: number, y2: number): (x: number) => number;
export function interpolateAttributes(from: Attributes, to: Attributes, p: number): Attributes;
export function segmentsByElement(transition: Transition): Map<string, TransitionSegment[]>;
export function elementAt(segments: TransitionSegment[], t: number, options?: { easing?: Easing }): Attributes;
export function attributesAt(transition: Transition, t: number, options?: { easing?: Easing }): Map<string, Attributes>;
export function frameAt(elements: Iterable<Attributes>, transition: Transition, t: number, options?: { easing?: Easing }): Attributes[];

export interface WebAnimation {
  kind: ElementKind;
  id: string;
  key: string;
  keyframes: Array<Record<string, string | number>>;
  options: { duration: number; delay: number; endDelay: number; fill: "both"; easing: "linear" };
}
export function webAnimations(transition: Transition, options?: { origin?: Point; easing?: string; effects?: boolean }): WebAnimation[];

// ---------------------------------------------------------------- reconnect

export interface SessionOptions {
  connect(): Promise<Client>;
  views?(): Iterable<ViewCreateParams> | Promise<Iterable<ViewCreateParams>>;
  restore?(client: Client): Promise<void> | void;
  retryDelay?: number;
  maxRetryDelay?: number;
}
export class ReconnectingSession {
  constructor(options: SessionOptions);
  client: Client | undefined;
  connections: number;
  on(name: "reconnect" | "disconnect", listener: (client: Client) => void): () => void;
  on(name: "error", listener: (error: unknown) => void): () => void;
  start(): Promise<this>;
  mirror(view: string): Promise<Mirror>;
  connected(): Promise<Client | undefined>;
  close(): Promise<void>;
}
export function reconnecting(options: SessionOptions): Promise<ReconnectingSession>;

// ---------------------------------------------------------------- Node only (layoutd-client/node)

export function discoverSocketPath(options?: { socket?: string; env?: Record<string, string | undefined> }): string;
/** The part of node:net's Socket this package uses (declared here so browser builds need no @types/node). */
export interface NetSocket {
  write(data: string | Uint8Array): boolean;
  end(): void;
  destroy(): void;
  readonly destroyed: boolean;
  readonly writableLength: number;
  pause(): void;
  resume(): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
}
export class SocketTransport implements LineTransport {
  constructor(socket: NetSocket, options?: { lineCap?: number });
  socket: NetSocket;
  /** the longest line accepted, bytes without its newline */
  lineCap: number;
  /** bytes of a line received without its newline yet (complete lines are dispatched at once) */
  readonly partialBytes: number;
  /** bytes written and not yet handed to the kernel */
  readonly bufferedAmount: number;
  start(handlers: LineHandlers): void;
  send(line: string | Uint8Array): void;
  close(reason?: Error): void;
}
export function connectUnix(socketPath: string, options?: { timeout?: number; lineCap?: number }): Promise<SocketTransport>;
export interface ConnectOptions extends ClientOptions {
  socket?: string;
  env?: Record<string, string | undefined>;
  /** send daemon.hello first and keep its result as client.hello */
  hello?: boolean;
  /** the connect's deadline, ms (default: timeout) */
  connectTimeout?: number;
  /** the longest line accepted, bytes (default DEFAULT_LINE_CAP) */
  lineCap?: number;
}
export function connect(options?: ConnectOptions): Promise<Client>;
