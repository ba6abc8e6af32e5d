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
