export { claimConflict, journalWriterConflict } from "./durability-errors.js";
export { emitHeartbeat, heartbeatTimerOf, startLiveness } from "./heartbeats.js";
export { continueEventSink, journalNextOffset } from "./journal-continuity.js";
export { abandonedStatus, isStale, type ReapOptions, reapCutoff } from "./reap-stale.js";
export {
  DEFAULT_LEASE_MS,
  type ResolvedDurability,
  type RunDurability,
  resolveDurability,
} from "./run-durability.js";
