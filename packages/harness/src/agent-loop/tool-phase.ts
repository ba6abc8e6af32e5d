import { type Message, TinyAgentsError, type ToolCall } from "@tinyagents/inference";
import type { ToolResult } from "../tool/tool.js";
import { errorToolResult, toolResultMessage } from "../tool/tool-result.js";
import { throwIfAborted } from "./abort.js";
import { executeToolCall } from "./execute-tool.js";
import type { LoopSession } from "./loop-session.js";
import { type AdmittedCall, admitToolCall, type RejectedCall } from "./tool-admission.js";

/** The tool messages of one turn, and whether a tool-call cap stopped the run (partial mode). */
export interface ToolPhaseOutcome {
  messages: Message[];
  capReached: boolean;
}

/**
 * Run the tool calls of one assistant turn.
 *
 * Admission is serial and in call order (cap, `beforeTool`, unknown tool, argument validation);
 * execution is concurrent up to `maxConcurrency` (tool wraps keep it concurrent); results are
 * folded in call order through `afterTool` and appended as tool messages (artifact ids a result
 * carries are tracked on `run.artifacts`). Every call gets an
 * answer, so the transcript stays valid even when the cap stops the run.
 */
export async function runToolPhase<State, Ctx>(
  s: LoopSession<State, Ctx>,
  calls: ToolCall[],
): Promise<ToolPhaseOutcome> {
  const { ctx, parts } = s;
  s.status.phase("tools");
  const plans: (AdmittedCall<State, Ctx> | RejectedCall)[] = [];
  let capReached = false;
  for (const original of calls) {
    throwIfAborted(ctx.abortHub, "before a tool call");
    if (capReached) {
      plans.push({
        kind: "reject",
        call: original,
        message: "Not executed: the run's tool-call limit was reached.",
      });
      continue;
    }
    const hit = ctx.limits.admitToolCall();
    if (hit !== undefined) {
      ctx.emit({ type: "limit.reached", limit: hit.limit, value: hit.value, count: hit.count });
      if (parts.policy.limits.onCap !== "stop_with_partial") throw hit.error;
      capReached = true;
      plans.push({
        kind: "reject",
        call: original,
        message: "Not executed: the run's tool-call limit was reached.",
      });
      continue;
    }
    s.run.toolCalls++;
    s.status.toolCallAdmitted();
    const hooked = parts.middleware.runValueHook(s.hook, "beforeTool", original);
    const call = hooked instanceof Promise ? await hooked : hooked;
    if (call.id !== original.id) {
      throw new TinyAgentsError(
        "middleware",
        `beforeTool changed the id of tool call "${original.id}"; ids must stay stable`,
      );
    }
    const plan = admitToolCall(s, call);
    plans.push(plan instanceof Promise ? await plan : plan);
  }

  const results = await runBounded(plans, parts.policy.limits.maxConcurrency, (plan) =>
    plan.kind === "run"
      ? executeToolCall(s, plan.call, plan.tool, plan.args)
      : errorToolResult(plan.call.id, plan.call.name, plan.message, 0),
  );

  const messages: Message[] = [];
  for (const raw of results) {
    const hooked = parts.middleware.runValueHook(s.hook, "afterTool", raw);
    const result = hooked instanceof Promise ? await hooked : hooked;
    if (result.artifacts !== undefined) {
      s.run.artifacts ??= [];
      s.run.artifacts.push(...result.artifacts);
    }
    messages.push(toolResultMessage(result));
  }
  return { messages, capReached };
}

/** Map `items` through `fn` with at most `limit` in flight; results keep input order. */
async function runBounded<T>(
  items: T[],
  limit: number,
  fn: (item: T) => ToolResult | Promise<ToolResult>,
): Promise<ToolResult[]> {
  if (items.length === 1) return [await fn(items[0] as T)];
  const results = new Array<ToolResult>(items.length);
  let nextIndex = 0;
  // Once one call fails the run, no worker starts another (the run is over).
  let failed = false;
  const worker = async () => {
    while (!failed && nextIndex < items.length) {
      const index = nextIndex++;
      try {
        results[index] = await fn(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
