import { type ModelRequest, TinyAgentsError } from "@tinyagents/inference";
import type { Middleware } from "../middleware.js";
import { sleepOnRunClock } from "./clock-sleep.js";
import { estimateRequestTokens } from "./estimate-request.js";
import { callable, middlewareName, optionError, positive } from "./option-checks.js";
import { TokenBucket } from "./token-bucket.js";

/** A bucket's size and refill rate. */
export interface BucketSpec {
  /** Most units available at once (the burst). */
  capacity: number;
  /** Units added back per second. */
  refillPerSecond: number;
}

/** Options of {@link rateLimitMiddleware}; at least one of `requests` and `tokens`. */
export interface RateLimitOptions {
  /** One unit per model call. */
  requests?: BucketSpec;
  /** Estimated input tokens per model call (`countTokens`). */
  tokens?: BucketSpec;
  /** `wait` (default): sleep on the run's clock until the call fits; `fail`: `limit_exceeded` at once. */
  behavior?: "wait" | "fail";
  /** Input-token estimate of a request (default: `defaultTokenCounter` over messages and tools). */
  countTokens?: (request: ModelRequest) => number;
  /** Middleware name (default `"rate_limit"`). */
  name?: string;
}

/**
 * Client-side rate limiting of model calls with token buckets — by requests, by estimated input
 * tokens, or both (a call takes from both buckets at once, only when both have room). The buckets
 * belong to the middleware instance, so every run of the harness shares them.
 *
 * - `wait`: sleeps on the run's clock until the call fits, then emits `rate_limit.waited
 *   { waitedMs, reason }`; `fail`: throws `limit_exceeded` (details carry `retryAfterMs`).
 * - A request estimated at more tokens than the token bucket's capacity can never fit: it fails
 *   at once with `limit_exceeded`, whatever the behavior.
 * Throws `validation` at construction for a missing bucket or non-positive sizes and rates.
 */
export function rateLimitMiddleware<State = unknown, Ctx = unknown>(
  options: RateLimitOptions,
): Middleware<State, Ctx> {
  const name = middlewareName("rate_limit", options?.name);
  if (
    typeof options !== "object" ||
    options === null ||
    (options.requests === undefined && options.tokens === undefined)
  ) {
    throw optionError(
      name,
      "requests",
      "or `tokens` is required: rateLimitMiddleware({ requests: { capacity, refillPerSecond } })",
    );
  }
  const requests = options.requests === undefined ? undefined : bucket(name, "requests", options.requests);
  const tokens = options.tokens === undefined ? undefined : bucket(name, "tokens", options.tokens);
  const behavior = options.behavior ?? "wait";
  if (behavior !== "wait" && behavior !== "fail")
    throw optionError(name, "behavior", 'must be "wait" or "fail"');
  const countTokens =
    options.countTokens === undefined
      ? estimateRequestTokens
      : callable(name, "countTokens", options.countTokens);

  return {
    name,
    changes: "metadata",
    async wrapModelCall(ctx, request, next) {
      const needed = tokens === undefined ? 0 : countTokens(request);
      if (tokens !== undefined && !tokens.canEverFit(needed)) {
        throw new TinyAgentsError(
          "limit_exceeded",
          `rate limit: the request needs about ${needed} tokens but the token bucket of middleware "${name}" holds at most ${tokens.capacity}; it can never fit — raise tokens.capacity or shrink the prompt`,
          {
            details: { limit: "rate_limit_tokens", value: tokens.capacity, count: needed, middleware: name },
          },
        );
      }
      const clock = ctx.run.clock;
      const started = clock.now();
      let reason: "requests" | "tokens" = "requests";
      for (;;) {
        const now = clock.now();
        const forRequests = requests?.waitMs(1, now) ?? 0;
        const forTokens = tokens?.waitMs(needed, now) ?? 0;
        const waitMs = Math.max(forRequests, forTokens);
        if (waitMs <= 0) {
          requests?.take(1, now);
          tokens?.take(needed, now);
          break;
        }
        reason = forTokens > forRequests ? "tokens" : "requests";
        if (behavior === "fail") {
          throw new TinyAgentsError(
            "limit_exceeded",
            `rate limit reached (${reason}) in middleware "${name}"; retry after ${waitMs} ms or use behavior "wait"`,
            { details: { limit: `rate_limit_${reason}`, retryAfterMs: waitMs, middleware: name } },
          );
        }
        await sleepOnRunClock(ctx.run, waitMs, "while waiting for the rate limit");
      }
      const waitedMs = clock.now() - started;
      if (waitedMs > 0) {
        ctx.run.emit({
          type: "rate_limit.waited",
          waitedMs,
          reason,
          ...(ctx.callId === undefined ? {} : { callId: ctx.callId }),
        });
      }
      return next(request);
    },
  };
}

function bucket(middleware: string, option: string, spec: BucketSpec): TokenBucket {
  if (typeof spec !== "object" || spec === null) {
    throw optionError(middleware, option, "must be { capacity, refillPerSecond }");
  }
  const capacity = positive(middleware, `${option}.capacity`, spec.capacity);
  const refill = positive(middleware, `${option}.refillPerSecond`, spec.refillPerSecond);
  return new TokenBucket(capacity, refill);
}
