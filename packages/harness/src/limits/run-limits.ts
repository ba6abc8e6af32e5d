/** Fail-closed caps for a run. Every field has a finite default except the wall clock. */
export interface RunLimits {
  /** Model calls per run (default 25). */
  maxModelCalls: number;
  /** Tool calls per run, recovered bad calls included (default 50). */
  maxToolCalls: number;
  /** Wall-clock budget of the run in ms (default: none; RunConfig.timeoutMs also applies). */
  maxWallClockMs?: number;
  /** Retries per model call after the first attempt (default 3). */
  maxRetriesPerCall: number;
  /** Tool calls of one turn running at once (default 8). */
  maxConcurrency: number;
  /** Sub-agent nesting depth (default 8). */
  maxDepth: number;
  /**
   * When a model-call or tool-call cap is reached: `fail` (default) raises `limit_exceeded`;
   * `stopWithPartial` ends the run successfully with what it has, `run.stoppedBy` says why.
   */
  onCap: "fail" | "stopWithPartial";
}

/** The defaults, matching the original implementation's. */
export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxModelCalls: 25,
  maxToolCalls: 50,
  maxRetriesPerCall: 3,
  maxConcurrency: 8,
  maxDepth: 8,
  onCap: "fail",
};
