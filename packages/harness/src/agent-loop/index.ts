export { failedModelName } from "../errors/failed-model.js";
export type { AgentRun, RecordsLost, RunStep, StopReason } from "./agent-run.js";
export { runText } from "./agent-run.js";
export { emitHeartbeat, heartbeatTimerOf, startLiveness } from "./heartbeats.js";
export type { VolatileContext } from "./loop-session.js";
export {
  type CachedCall,
  ResponseCacheBinding,
  type ResponseCacheOptions,
} from "./response-cache-binding.js";
export { CHECKPOINT_REASON } from "./run-checkpoints.js";
export type { RunOutcome } from "./run-loop.js";
