import { startTimer } from "@tinyagents/inference";
import type { LiveRunContext } from "../context/run-context.js";
import { runTimeout } from "../errors/factories.js";

/**
 * What a run holds while it executes and lets go when it ends: the timer of its deadline and the
 * link from the caller's abort signal. Call the returned function exactly once, when the run ends.
 *
 * The deadline timer is scheduled on the run's clock (any clock: `setTimer` when it has one, an
 * abortable `sleep` otherwise), so a virtual clock cuts in-flight work at the same virtual moment
 * a real one would. When it fires: `limit.reached` (`wall_clock`), then the run is cancelled with
 * the `timeout` error, which aborts the model call's and every tool's signal.
 */
export function holdRun(ctx: LiveRunContext<unknown>): () => void {
  const unlink = ctx.linkCaller();
  // No deadline (the default), no clock read.
  if (ctx.limits.limits.deadline === undefined) return unlink;
  const remaining = ctx.limits.remainingMs(ctx.clock.now());
  if (remaining === undefined || ctx.aborted) return unlink;
  const timeoutMs = ctx.limits.limits.timeoutMs ?? remaining;
  const timer = startTimer(ctx.clock, remaining, () => {
    if (ctx.aborted) return;
    const elapsed = ctx.clock.now() - ctx.limits.startedAt;
    ctx.emit({ type: "limit.reached", limit: "wall_clock", value: timeoutMs, count: elapsed });
    ctx.cancel(runTimeout(timeoutMs, elapsed));
  });
  return () => {
    timer.cancel();
    unlink();
  };
}
