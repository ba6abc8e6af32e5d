import { TinyAgentsError } from "@tinyagents/inference";
import type { Middleware } from "../middleware.js";
import { middlewareName, optionError, positive } from "./option-checks.js";

const EXPIRED: unique symbol = Symbol("expired");

/** Options of {@link timeoutMiddleware}. */
export interface TimeoutMiddlewareOptions {
  /** Budget of one model call — everything inside this wrap, inner retries included — in ms. */
  timeoutMs: number;
  /**
   * Idle budget of a streamed response (ms without a byte from the provider), set on requests
   * that do not carry their own `streamIdleTimeoutMs`; 0 disables the adapters' default (240 s).
   */
  streamIdleTimeoutMs?: number;
  /** Middleware name (default `"timeout"`). */
  name?: string;
}

/**
 * Bounds each model call. The call fails with a `timeout` error (`details.scope: "model_call"`,
 * so fallback logic treats it like a provider timeout) when `timeoutMs` passes on the run's clock
 * (virtual under `DeterministicClock`). The request's own `timeoutMs` is lowered to the budget, so
 * the provider attempt in flight is aborted too; the run's cancellation always wins.
 * Throws `validation` at construction unless `timeoutMs` is a positive finite number.
 */
export function timeoutMiddleware<State = unknown, Ctx = unknown>(
  options: TimeoutMiddlewareOptions,
): Middleware<State, Ctx> {
  if (typeof options !== "object" || options === null) {
    throw optionError("timeout", "timeoutMs", "is required: timeoutMiddleware({ timeoutMs: 30_000 })");
  }
  const name = middlewareName("timeout", options.name);
  const timeoutMs = positive(name, "timeoutMs", options.timeoutMs);
  const idleMs = options.streamIdleTimeoutMs;
  if (idleMs !== undefined && (typeof idleMs !== "number" || !(idleMs >= 0) || Number.isNaN(idleMs))) {
    throw optionError(
      name,
      "streamIdleTimeoutMs",
      `must be a number >= 0 (0 disables), got ${String(idleMs)}`,
    );
  }
  return {
    name,
    changes: "metadata",
    async wrapModelCall(ctx, request, next) {
      let bounded =
        request.timeoutMs !== undefined && request.timeoutMs <= timeoutMs
          ? request
          : { ...request, timeoutMs };
      if (idleMs !== undefined && bounded.streamIdleTimeoutMs === undefined) {
        bounded = { ...bounded, streamIdleTimeoutMs: idleMs };
      }
      // The timer is cleared as soon as the call settles (or the run's abort makes it settle).
      const timer = new AbortController();
      const expired = ctx.run.clock.sleep(timeoutMs, timer.signal).then(
        () => EXPIRED,
        () => new Promise<never>(() => {}),
      );
      const call = next(bounded);
      try {
        const winner = await Promise.race([call, expired]);
        if (typeof winner !== "symbol") return winner;
        call.catch(() => {});
        throw new TinyAgentsError(
          "timeout",
          `model call timed out after ${timeoutMs} ms (middleware "${name}"); raise timeoutMs or use a faster model`,
          {
            details: { scope: "model_call", limit: "model_call_timeout", value: timeoutMs, middleware: name },
          },
        );
      } finally {
        timer.abort();
      }
    },
  };
}
