import type { TinyAgentsError } from "@tinyagents/inference";

/** The run limits that fail closed. */
export type LimitName = "model_calls" | "tool_calls" | "wall_clock" | "retries" | "depth";
/** Effective caps for one run (harness limits merged with the run's config). */
export interface EffectiveLimits {
  maxModelCalls: number;
  maxToolCalls: number;
  /** Absolute deadline (epoch ms), if any. */
  deadline?: number;
  timeoutMs?: number;
  /**
   * Retries of one model within one model call, summed over every retry layer (the loop's own
   * and `retryMiddleware`); default: unlimited here (the loop also applies its own policy).
   */
  maxRetriesPerCall?: number;
}

/** A cap that was hit: what the loop reports in `limit.reached` and `limit_exceeded`. */
export interface LimitHit {
  limit: LimitName;
  value: number;
  count: number;
  error: TinyAgentsError;
}

/**
 * A run's counters and caps, as `ctx.run.limits`: the loop reserves each model call, tool call and
 * retry attempt here, and fails closed at a cap. `LimitTracker` implements it.
 */
export interface RunLimitTracker {
  /** Model calls reserved so far. */
  readonly modelCalls: number;
  /** Tool calls reserved so far. */
  readonly toolCalls: number;
  /** When the run started (epoch ms, run clock). */
  readonly startedAt: number;
  readonly limits: EffectiveLimits;
  /** Reserve one model call, or return the hit; `callId`: the id the admitted call will use, if known. */
  admitModelCall(callId?: string): LimitHit | undefined;
  /** Reserve one tool call, or return the hit. */
  admitToolCall(): LimitHit | undefined;
  /** Reserve one attempt of `model` within model call `callId`, or return the hit. */
  admitAttempt(callId: string, model: string): LimitHit | undefined;
  /** Whether `model` may still be attempted within `callId`. */
  hasAttemptLeft(callId: string, model: string): boolean;
  /** Remember how `model`'s latest attempt within `callId` failed. */
  noteFailure(callId: string, model: string, error: TinyAgentsError): void;
  /** The last failure of `model` within `callId`, if any. */
  lastFailure(callId: string, model: string): TinyAgentsError | undefined;
  /** The hit when no model attempted within `callId` has an attempt left, else undefined. */
  retryHit(callId: string): LimitHit | undefined;
  /** The deadline error when `now` is past it. */
  checkDeadline(now: number): TinyAgentsError | undefined;
  /** Milliseconds left before the deadline (undefined when there is none). */
  remainingMs(now: number): number | undefined;
}
