export type { RunLimitTracker } from "../contracts/run-limits.js";
export { type EffectiveLimits, type LimitHit, LimitTracker } from "./limit-tracker.js";
export { DEFAULT_RUN_LIMITS, type RunLimits } from "./run-limits.js";
