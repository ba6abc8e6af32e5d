import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import { errorToolResult } from "../../tool/tool-result.js";
import type { HookContext, Middleware } from "../middleware.js";
import { readsRequestOnly } from "../read-only-hooks.js";
import { middlewareName, nonNegative, optionError } from "./option-checks.js";
import { PerRun } from "./per-run.js";
import { isCount, SavedState } from "./saved-state.js";
import { RegisteredNames, type ToolNames } from "./tool-filter.js";

/** Options of {@link modelCallLimitMiddleware}. */
export interface ModelCallLimitOptions {
  /** Model calls allowed per run. */
  runLimit: number;
  /**
   * At the cap: `"error"` (default) fails the run with `limit_exceeded`; `"end"` ends it with
   * `message` as the final answer (a `stopWithFinal` control request; the call is skipped).
   */
  behavior?: "error" | "end";
  /** The final answer for `"end"`. */
  message?: string;
  /** Middleware name (default `"model_call_limit"`). */
  name?: string;
}

/**
 * Caps model calls per run (on top of the harness's own `RunLimits.maxModelCalls`, e.g. a tighter
 * cap for one agent of a tree). Checked in `beforeModel`: the call past the cap emits
 * `limit.reached` and is not made. Counted in `wrapModelCall`, when the call is actually
 * dispatched, once per model call however often a retry middleware re-runs it, so a call that a
 * later `beforeModel` skips (a pause, a stop request) is not charged. The count survives a pause: it is saved in the `PausedRun`
 * (`saveState`) and a resumed run goes on from it, so pausing never buys more calls.
 * Throws `validation` at construction for a negative or non-integer `runLimit`.
 */
export function modelCallLimitMiddleware<State = unknown, Ctx = unknown>(
  options: ModelCallLimitOptions,
): Middleware<State, Ctx> {
  const name = middlewareName("model_call_limit", options?.name);
  if (typeof options !== "object" || options === null) {
    throw optionError(name, "runLimit", "is required: modelCallLimitMiddleware({ runLimit: 10 })");
  }
  const runLimit = nonNegative(name, "runLimit", options.runLimit, true);
  const behavior = options.behavior ?? "error";
  if (behavior !== "error" && behavior !== "end")
    throw optionError(name, "behavior", 'must be "error" or "end"');
  const message = options.message ?? `Stopped: the model-call limit of ${runLimit} for this run was reached.`;
  // `countedCallId`: a retry middleware outside this one re-runs the same call; it counts once.
  const counts = new PerRun((): { calls: number; countedCallId: string | undefined } => ({
    calls: 0,
    countedCallId: undefined,
  }));

  return {
    name,
    changes: "metadata",
    // Only reads the request (it counts, reports, stops or throws): no prefix watch around it.
    beforeModel: readsRequestOnly((ctx: HookContext<State, Ctx>): void => {
      const count = counts.of(ctx.run);
      if (count.calls < runLimit) return;
      ctx.run.emit({ type: "limit.reached", limit: "model_calls", value: runLimit, count: count.calls + 1 });
      if (behavior === "end") {
        ctx.run.requestControl({ kind: "stopWithFinal", text: message });
        return;
      }
      throw limitError(
        name,
        "model_calls",
        runLimit,
        count.calls + 1,
        "raise runLimit if the task needs more model calls",
      );
    }),
    wrapModelCall(ctx, request, next) {
      const count = counts.of(ctx.run);
      if (ctx.callId === undefined || ctx.callId !== count.countedCallId) {
        count.calls++;
        count.countedCallId = ctx.callId;
      }
      return next(request);
    },
    saveState(ctx) {
      return { calls: counts.of(ctx.run).calls };
    },
    restoreState(ctx, saved) {
      counts.of(ctx.run).calls = new SavedState(name, saved).count("calls");
    },
  };
}

/** Options of {@link toolCallLimitMiddleware}; at least one of `runLimit` and `perTool`. */
export interface ToolCallLimitOptions {
  /** Tool calls allowed per run, all tools together. */
  runLimit?: number;
  /** Calls allowed per run for individual tools, by name. */
  perTool?: Record<string, number>;
  /**
   * At a cap: `"error"` (default) fails the run with `limit_exceeded`; `"returnError"`
   * answers the call with an error result (not executed) and lets the model go on.
   */
  behavior?: "error" | "returnError";
  /** Tool registry for checking `perTool` names at construction (else checked at first use). */
  registry?: ToolNames;
  /** Middleware name (default `"tool_call_limit"`). */
  name?: string;
}

/**
 * Caps tool calls per run, overall and per tool name. Counted in `beforeTool` in call order; a
 * call past a cap emits `limit.reached` (`limit` is `tool_calls` or `tool_calls:<name>`) and is
 * either fatal (`limit_exceeded`) or answered "not executed" by the wrap, per `behavior`.
 * The counts survive a pause (`saveState` / `restoreState`): a resumed run's calls, the pending
 * ones included, count on top of those made before it paused.
 * Throws `validation` at construction for negative or non-integer caps and unregistered names.
 */
export function toolCallLimitMiddleware<State = unknown, Ctx = unknown>(
  options: ToolCallLimitOptions,
): Middleware<State, Ctx> {
  const name = middlewareName("tool_call_limit", options?.name);
  if (
    typeof options !== "object" ||
    options === null ||
    (options.runLimit === undefined && options.perTool === undefined)
  ) {
    throw optionError(
      name,
      "runLimit",
      "or `perTool` is required: toolCallLimitMiddleware({ runLimit: 20 })",
    );
  }
  const runLimit =
    options.runLimit === undefined ? undefined : nonNegative(name, "runLimit", options.runLimit, true);
  const perTool = new Map<string, number>();
  for (const [tool, cap] of Object.entries(options.perTool ?? {})) {
    perTool.set(tool, nonNegative(name, `perTool.${tool}`, cap, true));
  }
  const known = new RegisteredNames(name, "perTool", [...perTool.keys()], options.registry);
  const behavior = options.behavior ?? "error";
  if (behavior !== "error" && behavior !== "returnError") {
    throw optionError(name, "behavior", 'must be "error" or "returnError"');
  }
  const state = new PerRun(() => ({
    total: 0,
    byTool: new Map<string, number>(),
    refused: new Map<string, string>(),
  }));

  const middleware: Middleware<State, Ctx> = {
    name,
    changes: "metadata",
    beforeTool(ctx, call) {
      known.ensure(ctx);
      const run = state.of(ctx.run);
      const used = run.byTool.get(call.name) ?? 0;
      const toolCap = perTool.get(call.name);
      const hit =
        runLimit !== undefined && run.total >= runLimit
          ? { limit: "tool_calls", value: runLimit, count: run.total + 1 }
          : toolCap !== undefined && used >= toolCap
            ? { limit: `tool_calls:${call.name}`, value: toolCap, count: used + 1 }
            : undefined;
      if (hit === undefined) {
        run.total++;
        run.byTool.set(call.name, used + 1);
        return;
      }
      ctx.run.emit({ type: "limit.reached", ...hit });
      if (behavior === "error") {
        throw limitError(
          name,
          hit.limit,
          hit.value,
          hit.count,
          "raise the cap if the task needs more tool calls",
        );
      }
      run.refused.set(
        call.id,
        `Not executed: the ${hit.limit} limit (${hit.value} per run) was reached. Answer with what you have or use another approach.`,
      );
    },
    // Only the counts: refusals belong to one tool batch, and a run never pauses inside one.
    saveState(ctx) {
      const run = state.of(ctx.run);
      return { total: run.total, byTool: [...run.byTool] };
    },
    restoreState(ctx, saved) {
      const read = new SavedState(name, saved);
      const run = state.of(ctx.run);
      run.total = read.count("total");
      run.byTool = new Map(read.tuples("byTool", isToolCount));
    },
  };
  // Only the "returnError" behavior answers refused calls; otherwise no wrap layer is added.
  if (behavior === "returnError") {
    middleware.wrapToolCall = async (ctx, call, next) => {
      const refusal = state.of(ctx.run).refused.get(call.id);
      return refusal === undefined ? next(call) : errorToolResult(call.id, call.name, refusal, 0);
    };
  }
  return middleware;
}

function isToolCount(entry: JsonValue[]): entry is [string, number] {
  return entry.length === 2 && typeof entry[0] === "string" && isCount(entry[1]);
}

function limitError(
  middleware: string,
  limit: string,
  value: number,
  count: number,
  hint: string,
): TinyAgentsError {
  return new TinyAgentsError(
    "limit_exceeded",
    `limit exceeded: ${limit} (limit ${value}, reached ${count}) in middleware "${middleware}"; ${hint}`,
    { details: { limit, value, count, middleware } },
  );
}
