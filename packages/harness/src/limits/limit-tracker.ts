import type { TinyAgentsError } from "@tinyagents/inference";
import { type LimitName, limitExceeded, runTimeout } from "../errors/factories.js";

/** Effective caps for one run (harness limits merged with the run's config). */
export interface EffectiveLimits {
  maxModelCalls: number;
  maxToolCalls: number;
  /** Absolute deadline (epoch ms), if any. */
  deadline?: number;
  timeoutMs?: number;
}

/** A cap that was hit: what the loop reports in `limit.reached` and `limit_exceeded`. */
export interface LimitHit {
  limit: LimitName;
  value: number;
  count: number;
  error: TinyAgentsError;
}

/**
 * Counts a run's model and tool calls against its caps. Fail-closed: `admitModelCall` and
 * `admitToolCall` reserve a slot or report the hit; they never let a call through past a cap.
 */
export class LimitTracker {
  modelCalls = 0;
  toolCalls = 0;
  readonly startedAt: number;
  readonly limits: EffectiveLimits;

  constructor(limits: EffectiveLimits, startedAt: number) {
    this.limits = limits;
    this.startedAt = startedAt;
  }

  /** Reserve one model call, or return the hit. */
  admitModelCall(): LimitHit | undefined {
    if (this.modelCalls >= this.limits.maxModelCalls) {
      return this.hit("model_calls", this.limits.maxModelCalls, this.modelCalls + 1);
    }
    this.modelCalls++;
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
