import { type Message, TinyAgentsError, type ToolCall } from "@tinyagents/inference";
import { throwIfAborted } from "../context/abort.js";
import type { ToolResult } from "../tool/tool.js";
import { errorToolResult, toolResultMessage } from "../tool/tool-result.js";
import type { ToolFollowUp } from "./async-tool-call.js";
import { durableToolCall } from "./durable-tool-call.js";
import { executeToolCall } from "./execute-tool.js";
import type { LoopSession } from "./loop-session.js";
import { shapeAnchors } from "./shape-anchors.js";
import { type AdmittedCall, admitToolCall, type RejectedCall } from "./tool-admission.js";

/** The tool messages of one turn, and whether a tool-call cap stopped the run (partial mode). */
export interface ToolPhaseOutcome {
  messages: Message[];
  capReached: boolean;
}

type Plan<State, Ctx> = AdmittedCall<State, Ctx> | RejectedCall;

const CAP_MESSAGE = "Not executed: the run's tool-call limit was reached.";

/**
 * Run the tool calls of one assistant turn.
 *
 * Admission is serial and in call order (cap, `beforeTool`, unknown tool, argument validation);
 * execution is concurrent up to `maxConcurrency` (tool wraps keep it concurrent); results are
 * folded in call order through `afterTool` and appended as tool messages (artifact ids a result
 * carries are tracked on `run.artifacts`). Every call gets an
 * answer, so the transcript stays valid even when the cap stops the run.
 *
 * Returns a plain value, with no promise made, when every step answers synchronously (no async
 * hook, validator or tool): thousands of runs can be in this phase at once, and each suspended
 * async frame costs memory and a collector's copy. Each stage switches to its async form at the
 * first promise it meets, from where it stands.
 */
export function runToolPhase<State, Ctx>(
  s: LoopSession<State, Ctx>,
  calls: ToolCall[],
): ToolPhaseOutcome | Promise<ToolPhaseOutcome> {
  s.status.phase("tools");
  const phase = new ToolPhase(s, calls.length);
  const admitted = phase.admit(calls);
  if (admitted instanceof Promise) return admitted.then(() => phase.executeAndFold());
  return phase.executeAndFold();
}

/** Before a phase's messages are known. */
const NO_MESSAGES: Message[] = [];

/**
 * The state of one tool phase, shared by its synchronous and asynchronous paths; once done, it
 * is the phase's outcome too (no object of its own per step).
 */
class ToolPhase<State, Ctx> implements ToolFollowUp, ToolPhaseOutcome {
  /** One plan per call, in call order: sized once (a push onto `[]` reserves 17 slots). */
  readonly plans: Plan<State, Ctx>[];
  capReached = false;
  messages: Message[] = NO_MESSAGES;

  constructor(
    private readonly s: LoopSession<State, Ctx>,
    calls: number,
  ) {
    this.plans = new Array<Plan<State, Ctx>>(calls);
    shapeAnchors.toolPhase = this;
  }

  /** Admit every call, in order; a promise only once some step of admission is asynchronous. */
  admit(calls: ToolCall[]): void | Promise<void> {
    for (let i = 0; i < calls.length; i++) {
      const plan = this.admitOne(calls[i] as ToolCall);
      if (plan instanceof Promise) return this.admitRest(calls, i, plan);
      this.plans[i] = plan;
    }
  }

  private async admitRest(
    calls: ToolCall[],
    index: number,
    pending: Promise<Plan<State, Ctx>>,
  ): Promise<void> {
    this.plans[index] = await pending;
    for (let i = index + 1; i < calls.length; i++) {
      const plan = this.admitOne(calls[i] as ToolCall);
      this.plans[i] = plan instanceof Promise ? await plan : plan;
    }
  }

  /** Cap, `beforeTool`, then unknown-tool and argument checks for one call. */
  private admitOne(original: ToolCall): Plan<State, Ctx> | Promise<Plan<State, Ctx>> {
    const { s } = this;
    const { ctx, parts } = s;
    throwIfAborted(ctx.abortHub, "before a tool call");
    if (this.capReached) return { kind: "reject", call: original, message: CAP_MESSAGE };
    const hit = ctx.limits.admitToolCall();
    if (hit !== undefined) {
      ctx.emit({ type: "limit.reached", limit: hit.limit, value: hit.value, count: hit.count });
      if (parts.policy.limits.onCap !== "stopWithPartial") throw hit.error;
      this.capReached = true;
      return { kind: "reject", call: original, message: CAP_MESSAGE };
    }
    s.run.toolCalls++;
    if (parts.middleware.list.length === 0) return admitToolCall(s, original);
    const hooked = parts.middleware.runValueHook(s.hook, "beforeTool", original);
    if (hooked instanceof Promise) return hooked.then((call) => admitHooked(s, original, call));
    return admitHooked(s, original, hooked);
  }

  /** Execute the admitted calls, then fold their results into tool messages. */
  executeAndFold(): ToolPhaseOutcome | Promise<ToolPhaseOutcome> {
    const { plans } = this;
    this.s.onceIntentByModelStep = onceIntentByModelStep(this.s);
    if (plans.length === 1) {
      const plan = plans[0] as Plan<State, Ctx>;
      // One call run in process (the common case): the call folds its result into the phase's
      // outcome in its own reaction (`toolAnswered`, which runs the `afterTool` hooks when any
      // middleware has them), no layer between.
      if (plan.kind === "run" && !this.s.ctx.journaled) {
        const only = executeToolCall(this.s, plan.call, plan.tool, plan.args, this);
        return only instanceof Promise ? (only as Promise<ToolPhaseOutcome>) : this.toolAnswered(only);
      }
      // Otherwise one `.then` from its result to the fold.
      const only = this.executeOne(plan);
      return only instanceof Promise ? only.then((result) => this.fold([result])) : this.fold([only]);
    }
    const results = this.execute();
    if (results instanceof Promise) return results.then((done) => this.fold(done));
    return this.fold(results);
  }

  /** Several calls (or none) run with at most `maxConcurrency` in flight, results in call order. */
  private execute(): ToolResult[] | Promise<ToolResult[]> {
    const { plans } = this;
    return runBounded(plans, this.s.parts.policy.limits.maxConcurrency, (plan) => this.executeOne(plan));
  }

  private executeOne(plan: Plan<State, Ctx>): ToolResult | Promise<ToolResult> {
    if (plan.kind !== "run") return errorToolResult(plan.call.id, plan.call.name, plan.message, 0);
    // A journaled run executes each call through its engine's steps (see durableToolCall).
    return this.s.ctx.journaled
      ? durableToolCall(this.s, plan.call, plan.tool, plan.args)
      : executeToolCall(this.s, plan.call, plan.tool, plan.args);
  }

  /** A lone call's result, folded in the reaction that built it (see `executeAndFold`). */
  toolAnswered(result: ToolResult): ToolPhaseOutcome | Promise<ToolPhaseOutcome> {
    if (this.s.parts.middleware.hooksToolCalls) return this.fold([result]);
    // No `afterTool` to run: the message, without a results array (one slot, not a push's 17).
    return this.outcome([this.messageOf(result)]);
  }

  /** `afterTool` on each result in call order, then the tool messages. */
  private fold(results: ToolResult[]): ToolPhaseOutcome | Promise<ToolPhaseOutcome> {
    const stack = this.s.parts.middleware;
    if (stack.list.length === 0) {
      const messages = new Array<Message>(results.length);
      for (let i = 0; i < results.length; i++) messages[i] = this.messageOf(results[i] as ToolResult);
      return this.outcome(messages);
    }
    // Sized once (a push onto [] reserves 17 slots), filled in call order.
    const messages = new Array<Message>(results.length);
    for (let i = 0; i < results.length; i++) {
      const hooked = stack.runValueHook(this.s.hook, "afterTool", results[i] as ToolResult);
      if (hooked instanceof Promise) return this.foldRest(results, i, hooked, messages);
      messages[i] = this.messageOf(hooked);
    }
    return this.outcome(messages);
  }

  private async foldRest(
    results: ToolResult[],
    index: number,
    pending: Promise<ToolResult>,
    messages: Message[],
  ): Promise<ToolPhaseOutcome> {
    messages[index] = this.messageOf(await pending);
    for (let i = index + 1; i < results.length; i++) {
      const hooked = this.s.parts.middleware.runValueHook(this.s.hook, "afterTool", results[i] as ToolResult);
      messages[i] = this.messageOf(hooked instanceof Promise ? await hooked : hooked);
    }
    return this.outcome(messages);
  }

  /** The phase's outcome: itself, with its tool messages. */
  private outcome(messages: Message[]): ToolPhaseOutcome {
    this.messages = messages;
    return this;
  }

  /** The tool message of a result (artifact ids it carries go to `run.artifacts`). */
  private messageOf(result: ToolResult): Message {
    if (result.artifacts !== undefined) {
      this.s.run.artifacts ??= [];
      this.s.run.artifacts.push(...result.artifacts);
    }
    return toolResultMessage(result);
  }
}

/**
 * Whether this tool phase's `"once"` calls may go without an intent step, decided before any call
 * starts (see `onceToolSteps`): only on an engine whose model steps double as intents, and only
 * when the run journaled nothing between the model step that proposed the calls and now (an
 * approval wait, a pause) — so the model step is the last thing stored before the tools start.
 * Deterministic on replay (the same operations happen in the same order); `undefined`: keep the
 * intent step. The value says whether this execution executed that model step.
 */
function onceIntentByModelStep<State, Ctx>(s: LoopSession<State, Ctx>): boolean | undefined {
  const last = s.lastModelStep;
  if (last === undefined || last.operations !== s.ctx.durableOperations) return undefined;
  return last.executedHere;
}

/** After `beforeTool`: the id must not change; then the unknown-tool and argument checks. */
function admitHooked<State, Ctx>(
  s: LoopSession<State, Ctx>,
  original: ToolCall,
  call: ToolCall,
): Plan<State, Ctx> | Promise<Plan<State, Ctx>> {
  if (call.id !== original.id) {
    throw new TinyAgentsError(
      "middleware",
      `beforeTool changed the id of tool call "${original.id}"; ids must stay stable`,
    );
  }
  return admitToolCall(s, call);
}

/** Map `items` through `fn` with at most `limit` in flight; results keep input order. */
async function runBounded<T>(
  items: T[],
  limit: number,
  fn: (item: T) => ToolResult | Promise<ToolResult>,
): Promise<ToolResult[]> {
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
