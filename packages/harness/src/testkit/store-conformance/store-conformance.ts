/** The store conformance suites, one per store contract (re-exported by the testkit). */
export { type AppendLogConformanceSubject, appendLogConformance } from "./append-log-conformance.js";
export { claimConformance, conformancePausedRun } from "./claim-conformance.js";
export { type ConformanceCase, ConformanceFailure, deepEqual } from "./conformance-check.js";
export { fencingConformance } from "./fencing-conformance.js";
export {
  HOSTILE_IDS,
  hostileKeyConformance,
  hostileStreamConformance,
  UNSTORABLE_IDS,
} from "./hostile-key-conformance.js";
export { type KeyValueConformanceSubject, keyValueStoreConformance } from "./key-value-conformance.js";
export {
  type ResponseCacheConformanceSubject,
  responseCacheConformance,
} from "./response-cache-conformance.js";
export {
  conformanceStatus,
  type StatusStoreConformanceSubject,
  statusStoreConformance,
} from "./status-store-conformance.js";
