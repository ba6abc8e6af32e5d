import { type TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import { backoffFor, type RetryPolicy } from "../../retry/retry-policy.js";
import type { ToolResult } from "../../tool/tool.js";
import type { Middleware } from "../middleware.js";
import { sleepOnRunClock } from "./clock-sleep.js";
import { middlewareName, stringList } from "./option-checks.js";
import { retryPolicyOption } from "./retry-policy-options.js";
import { RegisteredNames, type ToolNames } from "./tool-filter.js";

/** Options of {@link toolRetryMiddleware}. */
export interface ToolRetryOptions {
  /** Attempts and backoff (default: 2 retries, 200 ms doubling, cap 5 s). */
  policy?: Partial<RetryPolicy>;
  /**
   * Tools to retry. Default: every tool whose `idempotent` is true. Names are checked against
   * `registry` at construction, or against the harness's tools at first use.
   */
  tools?: string[];
  registry?: ToolNames;
  /** Middleware name (default `"tool_retry"`). */
  name?: string;
}

const TOOL_RETRY_DEFAULTS: RetryPolicy = {
  maxRetries: 2,
  initialBackoffMs: 200,
  multiplier: 2,
  maxBackoffMs: 5_000,
  jitter: 0,
  retryAfterCapMs: 5_000,
};

/**
 * Retries failed calls of idempotent tools (wrap middleware). A call failed when it returned an
 * error result (a throwing tool, a tool timeout) or threw (`errorPolicy: "fail"`); it is run
 * again after `backoffFor(policy, attempt)` on the run's clock, with a `tool.retry_scheduled`
 * event. The last outcome is returned (or thrown) when retries run out. Cancellation is never
 * retried. Tools that are not idempotent are passed straight through, and parallel tool calls
 * stay parallel (each call retries on its own).
 * Throws `validation` at construction for negative policy numbers or bad/unknown tool names.
 */
export function toolRetryMiddleware<State = unknown, Ctx = unknown>(
  options: ToolRetryOptions = {},
): Middleware<State, Ctx> {
  const name = middlewareName("tool_retry", options.name);
  const policy = retryPolicyOption(name, options.policy, TOOL_RETRY_DEFAULTS);
  const listed = options.tools === undefined ? undefined : new Set(stringList(name, "tools", options.tools));
  const names =
    listed === undefined ? undefined : new RegisteredNames(name, "tools", [...listed], options.registry);

  return {
    name,
    changes: "metadata",
    async wrapToolCall(ctx, call, next) {
      names?.ensure(ctx);
      const retryable =
        listed !== undefined ? listed.has(call.name) : ctx.tools?.get(call.name)?.idempotent === true;
      if (!retryable) return next(call);
      for (let attempt = 1; ; attempt++) {
        let result: ToolResult | undefined;
        let error: TinyAgentsError | undefined;
        try {
          result = await next(call);
          if (!result.isError) return result;
        } catch (thrown) {
          error = toTinyAgentsError(thrown, "tool");
          if (ctx.run.aborted || error.code === "cancelled") throw thrown;
        }
        if (attempt > policy.maxRetries) {
          if (result !== undefined) return result;
          throw error;
        }
        const delayMs = backoffFor(policy, attempt, error);
        ctx.run.emit({
          type: "tool.retry_scheduled",
          callId: call.id,
          toolName: call.name,
          attempt: attempt + 1,
          delayMs,
          error: error?.message ?? firstText(result),
        });
        await sleepOnRunClock(ctx.run, delayMs, "during tool retry backoff");
      }
    },
  };
}

function firstText(result: ToolResult | undefined): string {
  const block = result?.content.find((b) => b.type === "text");
  return block?.type === "text" ? block.text : "error result";
}
