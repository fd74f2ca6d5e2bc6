// Hand-written types for layoutd-client (src/index.js and src/node.js). They match the JSDoc
// in src/; test/types.test.js checks that every runtime export is declared here and back.
// Protocol objects follow protocol/schemas/common.json; fields the daemon may add are allowed.

// ---------------------------------------------------------------- protocol objects

export interface Point { x: number; y: number }
export interface Size { width: number; height: number }
export interface Rect { x: number; y: number; width: number; height: number }
export interface Insets { top: number; left: number; bottom: number; right: number }
export type ElementKind = "cell" | "header" | "footer";
export interface ElementKey { kind: ElementKind; id: string }
export interface Transform { a: number; b: number; c: number; d: number; tx: number; ty: number }

/** One element's layout (views.md, "The attributes object"). */
export interface Attributes {
  id: string;
  kind: ElementKind;
  section: number;
  item?: number;
  frame: Rect;
  zIndex: number;
  alpha: number;
  hidden: boolean;
  transform?: Transform;
  effects?: Record<string, number>;
  [more: string]: unknown;
}

export type AnchorPolicy = "firstVisible" | "lastVisible" | "end" | "none" |
  { id: string; kind?: ElementKind; edge?: "start" | "center" | "end"; offset?: number | null };

export interface Snapshot {
  view: string;
  strategy: string;
  params: Record<string, unknown>;
  epoch: number;
  viewport: { width: number; height: number; offset: Point; contentInsets: Insets };
  windowMargin: number;
  window: Rect;
  contentSize: Size;
  sectionCount: number;
  itemCount: number;
  elements: Attributes[];
  windowTruncated?: true;
  anchor?: AnchorPolicy;
  scrollTarget?: AnchorPolicy;
  layoutDirection?: "rtl";
  [more: string]: unknown;
}

/** UIKit's animation curves (protocol/mutations.md): cubic Béziers with CSS's control points. */
export type AnimationCurve = "linear" | "easeIn" | "easeOut" | "easeInOut";
export interface TransitionSegment { kind: ElementKind; id: string; from: Attributes; to: Attributes; delay: number; duration: number; curve: AnimationCurve }
export interface Transition { duration: number; segments: TransitionSegment[] }

export interface Changes {
  insertedItems: string[]; deletedItems: string[]; movedItems: string[]; reloadedItems: string[];
  insertedSections: string[]; deletedSections: string[]; movedSections: string[]; reloadedSections: string[];
}

/** What a mutation changed (mutations.md, "The invalidation object"). */
export interface Invalidation {
  view: string;
  epoch: number;
  contentSize: Size;
  contentOffset: Point;
  context: { everything: boolean; dataSourceCounts: boolean; invalidated: string[]; contentSizeAdjustment: Size; contentOffsetAdjustment: Point };
  window: Rect;
  entered: Attributes[];
  changed: Attributes[];
  left: ElementKey[];
  windowTruncated?: true;
  anchor?: string;
  anchorPolicy?: string;
  targetContentOffset?: Point;
  changes?: Changes;
  transition?: Transition;
  prefetch?: string[];
  needsMeasure?: string[];
  dryRun?: true;
  [more: string]: unknown;
}

export interface EventLine<P = any> { event: string; subscription?: number; seq?: number; params: P; local?: boolean }

/** Request params: the protocol's, as documented per method (the daemon checks them). */
export type Params = Record<string, unknown>;
export type Result = Record<string, any>;

// ---------------------------------------------------------------- errors

export interface ErrorObject { code: number; name: string; message: string; data?: Record<string, any> }

export class LayoutdError extends Error {
  constructor(error: ErrorObject, request?: { id?: string | number | null; method?: string });
  code: number;
  /** the stable protocol name */
  name: string;
  data: Record<string, any> | undefined;
  id: string | number | null | undefined;
  method: string | undefined;
  static from(error: ErrorObject, request?: { id?: string | number | null; method?: string }): LayoutdError;
}
export class ConnectionClosedError extends Error {
  constructor(message?: string, options?: { cause?: unknown; shutdown?: boolean });
  name: "ConnectionClosed";
  shutdown: boolean;
}
export const ERROR_CODES: Readonly<Record<string, number>>;
export const CONNECTION_ERRORS: readonly string[];
export const errorClasses: Readonly<Record<string, typeof LayoutdError>>;
export function isLayoutdError(error: unknown, name?: string): error is LayoutdError;

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

// ---------------------------------------------------------------- transports and client

export interface LineHandlers { onLine(line: string): void; onClose(error?: Error): void }
/** Anything that carries protocol lines (without terminators). */
export interface LineTransport {
  start(handlers: LineHandlers): void;
  send(line: string | Uint8Array): void;
  close(): void;
}

export interface CallOptions {
  /** the request id to send (default: the client's next integer) */
  id?: string | number;
  /** send as a notification: no id, no reply; resolves to undefined once sent */
  notify?: boolean;
}

type Method<R = Result, P = Params> = (params?: P, options?: CallOptions) => Promise<R>;

export const PROTOCOL_METHODS: readonly string[];

export class Client {
  constructor(transport: LineTransport, options?: { checkSeq?: boolean });
  transport: LineTransport;
  checkSeq: boolean;
  /** the last event seq seen */
  seq: number;
  subscriptions: Map<number, Subscription>;
  isClosed: boolean;
  shutdownReceived: boolean;
  connectionError: LayoutdError | undefined;
  closed: Promise<Error | undefined>;
  /** set by connect({hello: true}) */
  hello?: Result;

  daemon: { hello: Method; describe: Method; status: Method; sync: Method<{}>; reload: Method };
  strategy: { list: Method };
  view: {
    create: Method<Snapshot>; delete: Method<{}>; list: Method; get: Method<Snapshot>; query: Method; item: Method;
    hitTest: Method; neighbor: Method;
    subscribe(params: { view: string } | string, options?: CallOptions): Promise<Subscription>;
    unsubscribe: Method<{}>;
    setData: Method<Invalidation>; update: Method<Invalidation>; measure: Method<Invalidation>; select: Method<Invalidation>;
    scroll: Method<Invalidation>; scrollEnd: Method<Invalidation>; scrollSection: Method<Invalidation>; scrollSectionEnd: Method<Invalidation>; scrollTo: Method<Invalidation>; resize: Method<Invalidation>;
    configure: Method<Invalidation>; setStrategy: Method<Invalidation>; setWindowMargin: Method<Invalidation>;
    setAnchor: Method<Invalidation>; setLayoutDirection: Method<Invalidation>;
    beginTransition: Method; updateTransition: Method; endTransition: Method<Invalidation>;
    beginMove: Method<Invalidation>; updateMove: Method<Invalidation>; endMove: Method<Invalidation>;
    stage: {
      begin: Method<{ upload: string; view: string; epoch: number }>;
      append: Method<{ upload: string; items: number; sections: number }>;
      commit: Method<Invalidation>;
      abort: Method<{}>;
    };
  };

  on(name: "event", listener: (message: EventLine, line: string) => void): () => void;
  on(name: "line", listener: (line: string) => void): () => void;
  on(name: "reply", listener: (message: any, line: string) => void): () => void;
  on(name: "gap", listener: (message: EventLine) => void): () => void;
  on(name: "close", listener: (error?: Error) => void): () => void;
  call(method: string, params?: Params, options?: CallOptions): Promise<any>;
  notify(method: string, params?: Params): Promise<undefined>;
  sendRaw(line: string | Uint8Array): void;
  subscribe(params: { view: string } | string, options?: CallOptions): Promise<Subscription>;
  /** staged upload: begin, appends of at most batchSize items and sections and one line each, commit */
  upload(params: { view: string; sections: Array<{ id: string; items?: Params[]; headerSize?: Size; footerSize?: Size }>;
    batchSize?: number; maxLineLength?: number; ifEpoch?: number; animated?: boolean; dryRun?: boolean }): Promise<Invalidation>;
  close(): Promise<Error | undefined>;
}

export class Subscription implements AsyncIterable<EventLine> {
  constructor(client: Client, view: string, result: { subscription: number; snapshot: Snapshot });
  client: Client;
  view: string;
  id: number;
  snapshot: Snapshot;
  result: { subscription: number; snapshot: Snapshot };
  queue: EventLine[];
  ended: boolean;
  endReason: unknown;
  next(): Promise<EventLine | undefined>;
  drain(): EventLine[];
  [Symbol.asyncIterator](): AsyncIterator<EventLine>;
  resync(): Promise<Snapshot>;
  unsubscribe(): Promise<void>;
}

export class WebSocketTransport implements LineTransport {
  constructor(socket: { send(data: string): void; close(code?: number): void; readyState: number });
  start(handlers: LineHandlers): void;
  send(line: string | Uint8Array): void;
  close(): void;
}
export function connectWebSocket(url: string, options?: { WebSocket?: any; protocols?: string | string[] }): Promise<WebSocketTransport>;

// ---------------------------------------------------------------- mirror

export function elementKey(e: ElementKey): string;
export function compareIds(a: string, b: string): number;
export function compareElements(a: ElementKey, b: ElementKey): number;

export type MirrorOutcome = "applied" | "reset" | "deleted" | "ignored" | "gap";

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
  onChange(listener: (message: EventLine, mirror: Mirror, outcome: MirrorOutcome) => void): () => void;
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
  views?(): Iterable<Params> | Promise<Iterable<Params>>;
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
  pause(): void;
  resume(): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
}
export class SocketTransport implements LineTransport {
  constructor(socket: NetSocket);
  socket: NetSocket;
  start(handlers: LineHandlers): void;
  send(line: string | Uint8Array): void;
  close(): void;
}
export function connectUnix(socketPath: string): Promise<SocketTransport>;
export function connect(options?: { socket?: string; env?: Record<string, string | undefined>; checkSeq?: boolean; hello?: boolean }): Promise<Client>;
