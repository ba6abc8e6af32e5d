import { type JsonValue, TinyAgentsError, type ToolCall, toTinyAgentsError } from "@tinyagents/inference";
import { hookError } from "../middleware/middleware-stack.js";
import type { AnyTool, ToolExecutionContext, ToolResult } from "../tool/tool.js";
import { errorToolResult, resultSizeBytes, toToolResult } from "../tool/tool-result.js";
import { abortError, CallSignal, type RaceOptions, race } from "./abort.js";
import type { LoopSession } from "./loop-session.js";
import { idempotencyKeyOf, onceToolSteps, outcomeUnknownResult } from "./once-tool-steps.js";
import { shapeAnchors } from "./shape-anchors.js";

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
): ToolResult | Promise<ToolResult> {
  const { ctx } = s;
  // Before `tool.started`: a timeout outside the configured bounds is a setup error, not a call.
  const timeoutMs = s.parts.toolTimeouts.resolve(tool.timeout);
  ctx.emit({ type: "tool.started", callId: call.id, toolName: tool.name, arguments: call.arguments });
  // One clock read for the call's start (open call, status, duration) and the end derived from
  // the result's elapsed time: the clock is read twice per tool call, not five times.
  const started = ctx.clock.now();
  s.open.toolStarted(call.id, tool.name, started);
  s.status.toolStarted(call.id, started);
  // In process, "once" holds with a checkpoint store; a journaled run gets it from its engine's
  // steps (`durableToolCall` wraps this whole call in them).
  if (tool.sideEffects === "once" && !ctx.journaled && ctx.durability?.checkpoints !== undefined) {
    return onceToolCall(s, call, tool, args, timeoutMs, started);
  }
  if (s.parts.middleware.with("wrapToolCall").length > 0)
    return wrappedToolCall(s, call, tool, args, timeoutMs);
  let answer: ToolResult | Promise<ToolResult>;
  try {
    answer = runTool(s, call, tool, args, timeoutMs, started);
  } catch (thrown) {
    s.status.toolEnded(call.id);
    throw thrown;
  }
  if (!(answer instanceof Promise)) {
    s.status.toolEnded(call.id, started + answer.elapsedMs);
    return answer;
  }
  return answer.then(
    (result) => {
      s.status.toolEnded(call.id, started + result.elapsedMs);
      return result;
    },
    (thrown: unknown) => {
      s.status.toolEnded(call.id);
      throw thrown;
    },
  );
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
    if (s.open.isToolOpen(call.id)) emitCompleted(s, call.id, tool.name, result);
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
  const inner = async (wrapped: ToolCall): Promise<ToolResult> => {
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
    // A wrap that answered without running the tool (a cache, a policy) still ends the call.
    if (s.open.isToolOpen(call.id)) emitCompleted(s, call.id, tool.name, result);
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
  return awaitTool(s, call, tool, returned, execution, started, timeoutMs);
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
): Promise<ToolResult> {
  return race(Promise.resolve(returned), raceOptions(s, tool.name, timeoutMs, execution)).then(
    (output) => {
      execution.dispose();
      try {
        return toolCompleted(s, call, tool, output, started);
      } catch (thrown) {
        return toolFailed(s, call, tool, thrown, started);
      }
    },
    (thrown: unknown) => {
      execution.dispose();
      return toolFailed(s, call, tool, thrown, started);
    },
  );
}

/** The tool returned `output`: its result, and `tool.completed`. */
function toolCompleted<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  output: unknown,
  started: number,
): ToolResult {
  const result = toToolResult(output, call.id, tool.name, s.ctx.clock.now() - started);
  emitCompleted(s, call.id, tool.name, result);
  return result;
}

/** `tool.completed`, unless the call was already ended (the run finished around it). */
function emitCompleted<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  toolName: string,
  result: ToolResult,
): void {
  if (!s.open.closeTool(callId)) return;
  s.ctx.emit({
    type: "tool.completed",
    callId,
    toolName,
    durationMs: result.elapsedMs,
    isError: result.isError,
    outputBytes: resultSizeBytes(result),
  });
}

/**
 * The tool threw, timed out or was cancelled: `tool.failed`, then an error result per the
 * tool's error policy (a timeout always becomes an error result), or the run fails. The run's
 * cancellation always propagates.
 */
function toolFailed<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  thrown: unknown,
  started: number,
): ToolResult {
  const { ctx } = s;
  const durationMs = ctx.clock.now() - started;
  // The run's cancellation (its deadline included) wins over whatever the tool did.
  const error = ctx.aborted
    ? abortError(ctx.abortHub, "during a tool call")
    : toTinyAgentsError(thrown, "tool");
  if (s.open.closeTool(call.id)) {
    ctx.emit({
      type: "tool.failed",
      callId: call.id,
      toolName: tool.name,
      durationMs,
      error: error.toJSON(),
    });
  }
  if (ctx.aborted) throw error;
  const policy = tool.errorPolicy ?? "returnError";
  if (error.code === "timeout") {
    return errorToolResult(
      call.id,
      tool.name,
      `Error: ${error.message}. Try a smaller request or another tool.`,
      durationMs,
    );
  }
  if (policy === "fail") {
    throw TinyAgentsError.isInstance(thrown)
      ? thrown
      : new TinyAgentsError("tool", `tool "${tool.name}" failed: ${error.message}`, {
          cause: thrown,
          details: { tool: tool.name, callId: call.id },
        });
  }
  const message =
    typeof policy === "object" ? policy.message : `Error: tool "${tool.name}" failed: ${error.message}`;
  return errorToolResult(call.id, tool.name, message, durationMs);
}

function raceOptions<State, Ctx>(
  s: LoopSession<State, Ctx>,
  toolName: string,
  timeoutMs: number | undefined,
  signal: CallSignal,
): RaceOptions {
  const options: RaceOptions = { hub: s.ctx.abortHub, where: "during a tool call" };
  if (timeoutMs !== undefined) {
    const graceMs = s.parts.toolTimeouts.graceMs;
    options.clock = s.ctx.clock;
    options.timeoutMs = timeoutMs;
    options.graceMs = graceMs;
    options.onTimeout = () => signal.timeout(toolTimeout(toolName, timeoutMs, graceMs, false));
    options.onAbandon = () => toolTimeout(toolName, timeoutMs, graceMs, true);
  }
  return options;
}

/**
 * The `timeout` error of a tool call: it fired at `timeoutMs` (the tool's signal aborted then);
 * a tool that ignores its signal is abandoned `graceMs` later. The message says both figures.
 */
function toolTimeout(
  toolName: string,
  timeoutMs: number,
  graceMs: number,
  abandoned: boolean,
): TinyAgentsError {
  const after = abandoned
    ? `it ignored its aborted signal and was abandoned after a further ${graceMs} ms grace`
    : `its signal was aborted; a tool that ignores it is abandoned after a further ${graceMs} ms grace`;
  return new TinyAgentsError("timeout", `tool "${toolName}" timed out after ${timeoutMs} ms (${after})`, {
    details: { scope: "tool", tool: toolName, limit: "tool_timeout", value: timeoutMs, graceMs, abandoned },
  });
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

/**
 * What a running tool sees. A class (not an object literal with a getter) keeps the hot path
 * monomorphic; the per-call AbortController is only created if the tool reads `signal` (the
 * getter inherited from {@link CallSignal}).
 */
class ToolExecution<State, Ctx> extends CallSignal implements ToolExecutionContext<State, Ctx> {
  readonly state: State;
  readonly run: LoopSession<State, Ctx>["ctx"];
  readonly callId: string;
  private readonly session: LoopSession<State, Ctx>;
  private readonly toolName: string;

  constructor(session: LoopSession<State, Ctx>, callId: string, toolName: string) {
    super(session.ctx.abortHub);
    this.session = session;
    this.state = session.state;
    this.run = session.ctx;
    this.callId = callId;
    this.toolName = toolName;
    shapeAnchors.toolExecution = this;
  }

  /** `runId:callId`, stable across retries, resume and recovery (computed only when read). */
  get idempotencyKey(): string {
    return idempotencyKeyOf(this.run.runId, this.callId);
  }

  progress(message: string, data?: JsonValue): void {
    const progress = {
      callId: this.callId,
      toolName: this.toolName,
      message,
      ...(data === undefined ? {} : { data }),
    };
    this.run.emit({ type: "tool.progress", ...progress });
    for (const m of this.session.parts.middleware.with("onToolDelta")) {
      try {
        m.onToolDelta?.(this.session.hook, progress);
      } catch (thrown) {
        // A middleware bug, not the tool's: fail the run (the tool sees the abort), whatever
        // the tool's error policy says.
        const error = hookError(m.name, "onToolDelta", thrown);
        this.run.cancel(error);
        throw error;
      }
    }
  }
}
