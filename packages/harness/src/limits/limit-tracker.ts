import type { TinyAgentsError } from "@tinyagents/inference";
import type { EffectiveLimits, LimitHit, RunLimitTracker } from "../contracts/run-limits.js";
import { type LimitName, limitExceeded, runTimeout } from "../errors/factories.js";

export type { EffectiveLimits, LimitHit } from "../contracts/run-limits.js";

interface AttemptEntry {
  model: string;
  count: number;
  lastFailure: TinyAgentsError | undefined;
}

/**
 * Counts a run's model and tool calls against its caps. Fail-closed: `admitModelCall` and
 * `admitToolCall` reserve a slot or report the hit; they never let a call through past a cap.
 */
export class LimitTracker implements RunLimitTracker {
  modelCalls = 0;
  toolCalls = 0;
  readonly startedAt: number;
  readonly limits: EffectiveLimits;
  /**
   * Attempts of the current model call, per model, with the last failure. A run makes one model
   * call at a time (retry layers re-run the same call id), so only the current call is kept:
   * starting a new call id forgets the previous one, and the run's memory does not grow with its
   * number of calls.
   */
  private attemptsCallId: string | undefined;
  private readonly attempts: AttemptEntry[] = [];
  /**
   * The id `admitModelCall` was given for the call it admitted: that call's first attempt is
   * recognized by identity, not by comparing its id with the previous call's (which flattens and
   * compares two long strings on every model call).
   */
  private admittedCallId: string | undefined;

  constructor(limits: EffectiveLimits, startedAt: number) {
    this.limits = limits;
    this.startedAt = startedAt;
  }

  /**
   * Reserve one model call, or return the hit. `callId`: the id the admitted call will use, when
   * the caller knows it (see `admitAttempt`).
   */
  admitModelCall(callId?: string): LimitHit | undefined {
    if (this.modelCalls >= this.limits.maxModelCalls) {
      return this.hit("model_calls", this.limits.maxModelCalls, this.modelCalls + 1);
    }
    this.modelCalls++;
    this.admittedCallId = callId;
    return undefined;
  }

  /** Reserve one tool call, or return the hit. */
  admitToolCall(): LimitHit | undefined {
    if (this.toolCalls >= this.limits.maxToolCalls) {
      return this.hit("tool_calls", this.limits.maxToolCalls, this.toolCalls + 1);
    }
    this.toolCalls++;
    return undefined;
  }

  /**
   * Reserve one attempt of `model` within model call `callId`, or return the hit once
   * `maxRetriesPerCall + 1` attempts of it were made. Every attempt counts, whichever layer
   * caused it (the loop's retries, `retryMiddleware` re-running the call, a fallback chain
   * coming back to a model), so stacked retry layers never multiply a model's attempts.
   */
  admitAttempt(callId: string, model: string): LimitHit | undefined {
    const cap = this.limits.maxRetriesPerCall;
    // The call `admitModelCall` just admitted (the same string object), else any other id.
    const admitted = callId === this.admittedCallId;
    if (admitted) this.admittedCallId = undefined;
    if (admitted || callId !== this.attemptsCallId) {
      this.attemptsCallId = callId;
      // Forget the previous call. Its first entry is reused for this call's first model: one
      // object per run, not one per model call (and `pop`, not `length = 0`: a runtime call in V8).
      const attempts = this.attempts;
      while (attempts.length > 1) attempts.pop();
      const first = attempts[0];
      if (first !== undefined) {
        first.model = model;
        first.count = 0;
        first.lastFailure = undefined;
      }
    }
    let entry = this.entry(callId, model);
    if (entry === undefined) {
      entry = { model, count: 0, lastFailure: undefined };
      this.attempts.push(entry);
    }
    if (cap !== undefined && entry.count > cap) return this.hit("retries", cap, entry.count);
    entry.count++;
    return undefined;
  }

  /** Whether `model` may still be attempted within `callId`. */
  hasAttemptLeft(callId: string, model: string): boolean {
    const cap = this.limits.maxRetriesPerCall;
    return cap === undefined || (this.entry(callId, model)?.count ?? 0) <= cap;
  }

  /** Remember how `model`'s latest attempt within `callId` failed (rethrown once its attempts are used up). */
  noteFailure(callId: string, model: string, error: TinyAgentsError): void {
    const entry = this.entry(callId, model);
    if (entry !== undefined) entry.lastFailure = error;
  }

  /** The last failure of `model` within `callId`, if any. */
  lastFailure(callId: string, model: string): TinyAgentsError | undefined {
    return this.entry(callId, model)?.lastFailure;
  }

  /**
   * The hit when no model attempted within `callId` has an attempt left (so re-running the call
   * could not reach a provider), else undefined. Retry middleware asks before each retry.
   */
  retryHit(callId: string): LimitHit | undefined {
    const cap = this.limits.maxRetriesPerCall;
    if (cap === undefined || callId !== this.attemptsCallId || this.attempts.length === 0) return undefined;
    for (const entry of this.attempts) if (entry.count <= cap) return undefined;
    return this.hit("retries", cap, cap + 1);
  }

  private entry(callId: string, model: string): AttemptEntry | undefined {
    if (callId !== this.attemptsCallId) return undefined;
    for (const entry of this.attempts) if (entry.model === model) return entry;
    return undefined;
  }

  /** The deadline error when `now` is past it. */
  checkDeadline(now: number): TinyAgentsError | undefined {
    const { deadline, timeoutMs } = this.limits;
    if (deadline === undefined || timeoutMs === undefined || now < deadline) return undefined;
    return runTimeout(timeoutMs, now - this.startedAt);
  }

  /** Milliseconds left before the deadline (undefined when there is none). */
  remainingMs(now: number): number | undefined {
    return this.limits.deadline === undefined ? undefined : Math.max(0, this.limits.deadline - now);
  }

  private hit(limit: LimitName, value: number, count: number): LimitHit {
    return { limit, value, count, error: limitExceeded(limit, value, count) };
  }
}
