import { type ToolCall, toTinyAgentsError } from "@tinyagents/inference";
import { abortError } from "../context/abort.js";
import type { AnyTool, ToolResult } from "../tool/tool.js";
import { errorToolResult } from "../tool/tool-result.js";
import { AsyncToolCall, type ToolFollowUp } from "./async-tool-call.js";
import type { LoopSession } from "./loop-session.js";
import { onceToolSteps, outcomeUnknownResult } from "./once-tool-steps.js";
import { ToolExecution } from "./tool-execution.js";
import { emitCompleted, laterResult, toolCompleted, toolFailed } from "./tool-outcome.js";

/**
 * Run one admitted tool call through the `wrapToolCall` onion: `tool.started`, execute with the
 * run's abort signal and the tool's timeout, then `tool.completed` or `tool.failed`.
 *
 * A tool error becomes an error result (or fails the run) per the tool's error policy; a
 * timeout always becomes an error result so the model can try something else. Cancellation of
 * the run always propagates, even when the tool ignores its signal.
 */
export function executeToolCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  args: unknown,
): ToolResult | Promise<ToolResult>;
/**
 * With `followUp` (the tool phase's fold of a lone call): a result known at once is returned as
 * it is (the caller folds it), a later one settles the returned promise with
 * `followUp.toolAnswered(result)`, applied in the reaction that built the result.
 */
export function executeToolCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  args: unknown,
  followUp: ToolFollowUp,
): ToolResult | Promise<unknown>;
export function executeToolCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  args: unknown,
  followUp?: ToolFollowUp,
): ToolResult | Promise<unknown> {
  const { ctx } = s;
  // Before `tool.started`: a timeout outside the configured bounds is a setup error, not a call.
  const timeoutMs = s.parts.toolTimeouts.resolve(tool.timeout);
  if (ctx.observed)
    ctx.emit({ type: "tool.started", callId: call.id, toolName: tool.name, arguments: call.arguments });
  else ctx.skipEvent();
  // One clock read for the call's start (open call, status, duration) and the end derived from
  // the result's elapsed time: the clock is read twice per tool call, not five times.
  const started = ctx.clock.now();
  s.open.toolStarted(call.id, tool.name, started);
  s.status.toolStarted(call.id, started);
  // In process, "once" holds with a checkpoint store; a journaled run gets it from its engine's
  // steps (`durableToolCall` wraps this whole call in them).
  if (tool.sideEffects === "once" && !ctx.journaled && ctx.durability?.checkpoints !== undefined) {
    const once = onceToolCall(s, call, tool, args, timeoutMs, started);
    return followUp === undefined ? once : once.then((result) => followUp.toolAnswered(result));
  }
  const stack = s.parts.middleware;
  if (stack.list.length > 0 && stack.with("wrapToolCall").length > 0) {
    const wrapped = wrappedToolCall(s, call, tool, args, timeoutMs);
    return followUp === undefined ? wrapped : wrapped.then((result) => followUp.toolAnswered(result));
  }
  let answer: ToolResult | Promise<unknown>;
  try {
    // An async tool's call ends its status entry itself (no extra `.then` layer per call).
    answer = runTool(s, call, tool, args, timeoutMs, started, true, followUp);
  } catch (thrown) {
    s.status.toolEnded(call.id);
    throw thrown;
  }
  if (!(answer instanceof Promise)) s.status.toolEnded(call.id, started + answer.elapsedMs);
  return answer;
}

/** A `sideEffects: "once"` call with a checkpoint store: run at most once (see `onceToolSteps`). */
async function onceToolCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  args: unknown,
  timeoutMs: number | undefined,
  started: number,
): Promise<ToolResult> {
  try {
    const result = await onceToolSteps(
      s,
      call,
      tool.name,
      () =>
        s.parts.middleware.with("wrapToolCall").length > 0
          ? wrappedToolCall(s, call, tool, args, timeoutMs)
          : runTool(s, call, tool, args, timeoutMs, started),
      () => outcomeUnknownResult(call.id, tool.name),
    );
    // A call answered from its intent (not run) still ends with `tool.completed`.
    if (s.open.isToolOpen(call.id)) emitCompleted(s, call.id, tool.name, result, false);
    return result;
  } finally {
    s.status.toolEnded(call.id);
  }
}

/** Through the `wrapToolCall` onion; a wrap that replaced the arguments gets them validated again. */
async function wrappedToolCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  args: unknown,
  timeoutMs: number | undefined,
): Promise<ToolResult> {
  // The result of the attempt that ended the call (wrote its terminal record), if it returned one.
  let recorded: ToolResult | undefined;
  const inner = async (wrapped: ToolCall): Promise<ToolResult> => {
    const openBefore = s.open.isToolOpen(call.id);
    const result = await attempt(wrapped);
    if (openBefore && recorded === undefined && !s.open.isToolOpen(call.id)) recorded = result;
    return result;
  };
  const attempt = async (wrapped: ToolCall): Promise<ToolResult> => {
    if (wrapped.arguments === call.arguments) return runTool(s, wrapped, tool, args, timeoutMs);
    // A wrap middleware replaced the arguments: validate them again, execute only sees valid input.
    const validation = await tool.validate(wrapped.arguments);
    if (!validation.ok) {
      const issues = validation.issues.join("; ");
      return errorToolResult(
        wrapped.id,
        tool.name,
        `Error: invalid arguments for tool "${tool.name}": ${issues}`,
        0,
      );
    }
    return runTool(s, wrapped, tool, validation.value, timeoutMs);
  };
  const started = s.ctx.clock.now();
  try {
    const result = await s.parts.middleware.wrapTool(s.hook, inner)(call);
    // A wrap that answered without running the tool (a cache, a policy) still ends the call; one
    // that ran it again after an attempt ended the call returns what the model sees.
    if (s.open.isToolOpen(call.id)) emitCompleted(s, call.id, tool.name, result);
    else if (result !== recorded) laterResult(s, call.id, tool.name, result);
    return result;
  } catch (thrown) {
    if (s.open.closeTool(call.id)) {
      const error = s.ctx.aborted
        ? abortError(s.ctx.abortHub, "during a tool call")
        : toTinyAgentsError(thrown, "tool");
      s.ctx.emit({
        type: "tool.failed",
        callId: call.id,
        toolName: tool.name,
        durationMs: s.ctx.clock.now() - started,
        error: error.toJSON(),
      });
    }
    throw thrown;
  } finally {
    s.status.toolEnded(call.id);
  }
}

/**
 * Execute the tool. A synchronous tool (its `execute` returns a plain value or throws) is
 * answered synchronously: no promise, no race, nothing can interrupt it anyway. An async tool is
 * raced against the run's abort and the tool's timeout.
 */
function runTool<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  args: unknown,
  timeoutMs: number | undefined,
  started: number = s.ctx.clock.now(),
  endsStatus = false,
  followUp?: ToolFollowUp,
): ToolResult | Promise<ToolResult> {
  // The execution context is also the call's abort signal (one object per call).
  const execution = new ToolExecution<State, Ctx>(s, call.id, tool.name);
  let returned: unknown;
  try {
    returned = tool.execute(args, execution);
  } catch (thrown) {
    execution.dispose();
    return toolFailed(s, call, tool, thrown, started);
  }
  if (!isPromiseLike(returned)) {
    execution.dispose();
    return toolCompleted(s, call, tool, returned, started);
  }
  return awaitTool(s, call, tool, returned, execution, started, timeoutMs, endsStatus, followUp);
}

/**
 * Await an async tool, raced against the run's abort and its timeout. Chained with `.then`, not
 * an `async` function: no suspended frame per in-flight tool call (W3 allocation).
 */
function awaitTool<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  returned: PromiseLike<unknown>,
  execution: ToolExecution<State, Ctx>,
  started: number,
  timeoutMs: number | undefined,
  endsStatus: boolean,
  followUp: ToolFollowUp | undefined,
): Promise<ToolResult> {
  const pending = new AsyncToolCall(s, call, tool, execution, started, timeoutMs, endsStatus, followUp);
  // Settles with `followUp(result)` when there is one (see `executeToolCall`).
  return pending.settle(Promise.resolve(returned)) as Promise<ToolResult>;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}
