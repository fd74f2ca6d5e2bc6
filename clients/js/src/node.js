// Everything in index.js plus the Node transport (node:net Unix socket, socket discovery).
export * from "./index.js";
export { SocketTransport, connectUnix, connect, discoverSocketPath } from "./transport-node.js";
