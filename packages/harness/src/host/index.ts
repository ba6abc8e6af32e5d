/**
 * `@tinyagents/harness/host`: hooks for the program hosting agents: context composers, progress
 * sinks, model resolvers, security gates and the middleware that applies them.
 */
export {
  type ContextComposer,
  DenyListGate,
  FixedModelResolver,
  type HostCapabilities,
  type HostProgress,
  InMemoryContextComposer,
  InMemoryProgressSink,
  type ModelResolver,
  type ProgressSink,
  type SecurityDecision,
  type SecurityGate,
} from "./host-capabilities.js";
export { hostMiddleware } from "./host-middleware.js";
