import { TinyAgentsError } from "@tinyagents/inference";
import type { LimitName } from "../contracts/run-limits.js";

export type { LimitName } from "../contracts/run-limits.js";

/** A fail-closed limit was reached: says which limit, its value and the count that hit it. */
export function limitExceeded(limit: LimitName, value: number, count: number): TinyAgentsError {
  const hint =
    limit === "model_calls"
      ? "raise RunLimits.maxModelCalls or RunConfig.maxModelCalls if the task really needs more steps"
      : limit === "tool_calls"
        ? "raise RunLimits.maxToolCalls or RunConfig.maxToolCalls if the task really needs more tool calls"
        : "raise the limit if this is expected";
  return new TinyAgentsError(
    "limit_exceeded",
    `limit exceeded: ${limit} (limit ${value}, reached ${count}); ${hint}`,
    {
      details: { limit, value, count },
    },
  );
}

/** The run's wall-clock deadline passed. */
export function runTimeout(timeoutMs: number, elapsedMs: number): TinyAgentsError {
  return new TinyAgentsError(
    "timeout",
    `run timed out after ${elapsedMs} ms (deadline ${timeoutMs} ms); raise RunConfig.timeoutMs or RunLimits.maxWallClockMs`,
    { details: { limit: "wall_clock", value: timeoutMs, count: elapsedMs } },
  );
}

/** The run was cancelled through its abort signal. */
export function cancelled(where: string, reason?: unknown): TinyAgentsError {
  const why = reason instanceof Error ? reason.message : reason === undefined ? "" : String(reason);
  return new TinyAgentsError("cancelled", `run cancelled ${where}${why ? `: ${why}` : ""}`, {
    cause: reason,
    details: { where },
  });
}
