import type { ErrorSummary, JsonObject, JsonValue, Usage } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { EventRecord } from "../contracts/agent-event.js";
import type { CostTotals } from "../cost/cost.js";
import type { Trajectory } from "../testkit/trajectory.js";
import type { EvalCase } from "./eval-case.js";

/** Everything a scorer may look at for one run of one case. */
export interface ScorerContext {
  case: EvalCase;
  /** 0-based repeat index. */
  trial: number;
  /** The run (partial when it failed). */
  run: AgentRun;
  /** The final answer text ("" when there is none). */
  output: string;
  /** `run.structured`, when the agent produces structured output. */
  structured: JsonValue | undefined;
  /** Every event record of the run (its sub-agents included), in emission order. */
  records: readonly EventRecord[];
  /** The testkit's assertions over `records`. */
  trajectory: Trajectory;
  /** Wall time of the run in milliseconds (the eval's clock). */
  latencyMs: number;
  /** Set when the run failed. */
  error: ErrorSummary | undefined;
  /** Aborts when the eval is cancelled or this scorer's timeout passes. */
  signal: AbortSignal;
}

/**
 * What a scorer returns: a score in [0, 1] and why. `passed` defaults to `score >= threshold`
 * (the scorer's). A scorer that calls a model (a judge) reports that call's usage and cost here:
 * they are counted apart from the agent's.
 */
export interface ScoreResult {
  score: number;
  reason?: string;
  passed?: boolean;
  usage?: Usage;
  cost?: CostTotals;
  metadata?: JsonObject;
}

/**
 * A named scoring function. It returns a {@link ScoreResult} (or a bare number); throwing,
 * returning a score outside [0, 1] or metadata that is not JSON, or not settling within its
 * timeout is recorded as a scorer ERROR for that run, never as a zero.
 */
export interface Scorer {
  /** Unique among an eval's scorers: reports, thresholds and comparisons use it. */
  readonly name: string;
  /** A score passes when `>= threshold`. Built-in checks use 1 (all or nothing); judges and custom scorers 0.5. */
  readonly threshold?: number;
  /** Bound of one `score` call in ms (default: evaluate's `scorerTimeoutMs`); past it, a `timeout` scorer error. */
  readonly timeoutMs?: number;
  score(context: ScorerContext): ScoreResult | number | Promise<ScoreResult | number>;
}

/** The default pass threshold of a scorer that does not set one. */
export const DEFAULT_THRESHOLD = 0.5;
