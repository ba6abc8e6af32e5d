/**
 * `@tinyagents/restate/testing`: run Restate for real in tests, examples and benchmarks — a
 * `restate-server` from node_modules on loopback with a temp data dir, and a pool of worker
 * processes behind one stable deployment URL whose workers can be SIGKILLed, restarted and added.
 */
export { freePort } from "./free-port.js";
export { resolveRestateServerBinary } from "./resolve-binary.js";
export {
  type RestateDeployment,
  type RestateServer,
  type StartRestateServerOptions,
  startRestateServer,
} from "./restate-server.js";
export { type ProxyUpstream, startTcpProxy, type TcpProxy } from "./tcp-proxy.js";
export { type PoolWorker, startWorkerPool, type WorkerPool, type WorkerPoolOptions } from "./worker-pool.js";
export { type ServedWorker, serveWorker, WORKER_READY } from "./worker-protocol.js";
