/**
 * `@tinyagents/restate`: run tinyagents harnesses as Restate workflows (durable steps, approvals
 * and steering as durable promises, one Virtual Object per thread) and drive them with a typed
 * client. Importing this entry installs a `Promise.withResolvers` fallback on Node 20 (the Restate
 * SDK needs it), only when the runtime has none.
 */
import "./compat/install.js";

export {
  installPromiseWithResolvers,
  type PromiseResolvers,
  promiseWithResolvers,
} from "./compat/promise-with-resolvers.js";
