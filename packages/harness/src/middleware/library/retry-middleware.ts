import {
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  toTinyAgentsError,
} from "@tinyagents/inference";
import { backoffFor, isRetryable, type RetryPolicy } from "../../retry/retry-policy.js";
import type { HookContext, Middleware, ModelCallNext } from "../middleware.js";
import { sleepOnRunClock } from "./clock-sleep.js";
import { callable, middlewareName } from "./option-checks.js";
import { PerRun } from "./per-run.js";
import { retryPolicyOption } from "./retry-policy-options.js";

/** Options of {@link retryMiddleware}. */
export interface RetryMiddlewareOptions {
  /** Attempts, backoff, multiplier, jitter, caps (merged over `DEFAULT_RETRY_POLICY`). */
  policy?: Partial<RetryPolicy>;
  /**
   * Which failures to retry. Default: retryable provider errors (`isRetryable`: rate limits,
   * overloaded upstreams, transient network failures) and timeouts of a single model call.
   */
  retryOn?: (error: TinyAgentsError) => boolean;
  /**
   * Retry a streamed call even after some of its deltas reached consumers, who then see the
   * answer start over. Default false: such a failure is final.
   */
  replayStreams?: boolean;
  /** Middleware name (default `"retry"`). */
  name?: string;
}

/**
 * Model-call retry as a wrap middleware: calls `next` again after a retryable failure, waiting
 * `backoffFor(policy, attempt, error)` on the run's clock — a provider's `retryAfterMs` wins,
 * capped at `policy.retryAfterCapMs` — and emitting `retry.scheduled` before each wait.
 *
 * - Only failures `retryOn` accepts are retried; cancellation never is.
 * - A streamed attempt that already delivered deltas is not replayed unless `replayStreams`.
 * - The loop already retries each provider call per `RunPolicy.retry`; this middleware retries
 *   the whole inner onion (inner middleware, fallback included). Set `policy.retry.maxRetries: 0`
 *   on the harness when this one should be the only retry layer.
 * - Both layers draw on one budget: at most `RunLimits.maxRetriesPerCall + 1` attempts of one
 *   model within one model call, whatever the layers' own `maxRetries`; once every model the call
 *   tried has used its attempts, the failure stands (`limit.reached { limit: "retries" }`).
 * Throws `validation` at construction for negative or non-finite policy numbers.
 */
export function retryMiddleware<State = unknown, Ctx = unknown>(
  options: RetryMiddlewareOptions = {},
): Middleware<State, Ctx> {
  const name = middlewareName("retry", options.name);
  const policy = retryPolicyOption(name, options.policy);
  const retryOn = options.retryOn === undefined ? defaultRetryOn : callable(name, "retryOn", options.retryOn);
  const replayStreams = options.replayStreams === true;
  const delivered = new PerRun(() => ({ deltas: 0 }));

  /** After attempt `attempt` failed with `thrown`: retry (with backoff) while allowed, else rethrow. */
  const retryAfter = async (
    ctx: HookContext<State, Ctx>,
    request: ModelRequest,
    next: ModelCallNext,
    seen: { deltas: number },
    failed: { attempt: number; deltasBefore: number; thrown: unknown },
  ): Promise<ModelResponse> => {
    let { attempt, deltasBefore, thrown } = failed;
    for (;;) {
      const error = toTinyAgentsError(thrown);
      if (ctx.run.aborted || error.code === "cancelled") throw thrown;
      if (attempt > policy.maxRetries || !retryOn(error)) throw thrown;
      if (!replayStreams && seen.deltas !== deltasBefore) throw thrown;
      // The loop counts every model's attempts of this call; with none left, a retry is moot.
      const capped = ctx.run.limits.retryHit(ctx.callId ?? "");
      if (capped !== undefined) {
        ctx.run.emit({
          type: "limit.reached",
          limit: capped.limit,
          value: capped.value,
          count: capped.count,
        });
        throw thrown;
      }
      const delayMs = backoffFor(policy, attempt, error);
      ctx.run.emit({
        type: "retry.scheduled",
        callId: ctx.callId ?? "",
        attempt: attempt + 1,
        delayMs,
        error: error.toJSON(),
      });
      await sleepOnRunClock(ctx.run, delayMs, "during retry backoff");
      attempt++;
      deltasBefore = seen.deltas;
      try {
        return await next(request);
      } catch (again) {
        thrown = again;
      }
    }
  };

  const middleware: Middleware<State, Ctx> = {
    name,
    changes: "metadata",
    // The first attempt without an async frame of its own (most calls succeed at once): one
    // promise per call; a failure continues in `retryAfter`.
    wrapModelCall(ctx, request, next) {
      const seen = delivered.of(ctx.run);
      const deltasBefore = seen.deltas;
      let first: Promise<ModelResponse>;
      try {
        first = next(request);
      } catch (thrown) {
        return retryAfter(ctx, request, next, seen, { attempt: 1, deltasBefore, thrown });
      }
      return first.catch((thrown: unknown) =>
        retryAfter(ctx, request, next, seen, { attempt: 1, deltasBefore, thrown }),
      );
    },
  };
  // Counting deltas is only needed to refuse replays; without it streaming pays nothing.
  if (!replayStreams) {
    middleware.onModelDelta = (ctx) => {
      delivered.of(ctx.run).deltas++;
    };
  }
  return middleware;
}

function defaultRetryOn(error: TinyAgentsError): boolean {
  return (
    isRetryable(error) ||
    (TinyAgentsError.isInstance(error, "timeout") && error.details?.scope === "model_call")
  );
}
