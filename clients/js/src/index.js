// layoutd client: the protocol over any line transport (browser-safe: no Node imports here).
export { Client, Subscription, PROTOCOL_METHODS } from "./client.js";
export { VERSION } from "./version.js";
export * from "./errors.js";
export { DEFAULT_LINE_CAP, DEFAULT_TIMEOUT, DEFAULT_EVENT_QUEUE_LIMIT, MAXIMUM_DEPTH, STRAYS_KEPT } from "./limits.js";
export * from "./error-classes.js";
export { Mirror, elementKey, compareElements, compareIds } from "./mirror.js";
export { attributesAt, elementAt, frameAt, interpolateAttributes, segmentsByElement, webAnimations, EASINGS, CURVES, cubicBezier } from "./transition.js";
export { WebSocketTransport, connectWebSocket } from "./transport-websocket.js";
export { ReconnectingSession, reconnecting } from "./reconnect.js";
