import { TinyAgentsError, type ToolCall, toTinyAgentsError } from "@tinyagents/inference";
import { abortError } from "../context/abort.js";
import type { AgentEventOf } from "../contracts/agent-event.js";
import type { CallDetailsRecorder } from "../contracts/trace-details.js";
import type { AnyTool, ToolResult } from "../tool/tool.js";
import { errorToolResult, resultSizeBytes, toToolResult } from "../tool/tool-result.js";
import { toolResultDetails } from "./call-details.js";
import type { LoopSession } from "./loop-session.js";

/** The tool returned `output`: its result, and `tool.completed`. */
export function toolCompleted<State, Ctx>(
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

/**
 * `tool.completed`, unless the call was already ended (the run finished around it, or an earlier
 * attempt of a retried call did: the wrap's caller records what reaches the model, see
 * `laterResult`); with the run's trace details unless `described` is false (a call answered
 * without being run).
 */
export function emitCompleted<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  toolName: string,
  result: ToolResult,
  described = true,
): void {
  if (!s.open.closeTool(callId)) return;
  if (!s.ctx.observed) {
    s.ctx.skipEvent();
    return;
  }
  const completed: AgentEventOf<"tool.completed"> = {
    type: "tool.completed",
    callId,
    toolName,
    durationMs: result.elapsedMs,
    isError: result.isError,
    outputBytes: resultSizeBytes(result),
  };
  if (s.callDetails !== undefined && described) {
    const details = toolDetails(s, toolName, result);
    if (details !== undefined) completed.details = details;
  }
  s.ctx.emit(completed);
}

/**
 * The result a wrap (`toolRetryMiddleware`) returned for a call whose terminal record an earlier
 * attempt already wrote: the model sees this one, so a run with trace details records it as a
 * `tool.result` (the record earlier versions wrote after every attempt; Langfuse, the inspector
 * and replay keep a call's last; an OTel span ended with the first attempt). Called only with
 * what the wrap returned, never with an attempt the wrap gave up on. Nothing once the run ended
 * around the call (it was cancelled: no result reaches a model).
 */
export function laterResult<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  toolName: string,
  result: ToolResult,
): void {
  if (s.callDetails === undefined || s.ctx.aborted) return;
  if (!s.ctx.observed) {
    s.ctx.skipEvent();
    return;
  }
  const event: AgentEventOf<"tool.result"> = {
    type: "tool.result",
    callId,
    toolName,
    isError: result.isError,
  };
  const details = toolDetails(s, toolName, result);
  if (details !== undefined) Object.assign(event, details);
  s.ctx.emit(event);
}

/** The trace details of a tool call's result (`s.callDetails` is set); none if the recorder threw. */
function toolDetails<State, Ctx>(s: LoopSession<State, Ctx>, toolName: string, result: ToolResult) {
  const recorder = s.callDetails as CallDetailsRecorder;
  return toolResultDetails(recorder, result, s.parts.tools.get(toolName)?.description);
}

/**
 * The tool threw, timed out or was cancelled: `tool.failed`, then an error result per the
 * tool's error policy (a timeout always becomes an error result), or the run fails. The run's
 * cancellation always propagates.
 */
export function toolFailed<State, Ctx>(
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
  // The error result the model sees, if any: trace details record it on `tool.failed`.
  const result = ctx.aborted ? undefined : errorResult(call, tool, error, durationMs);
  if (s.open.closeTool(call.id)) {
    const failed: AgentEventOf<"tool.failed"> = {
      type: "tool.failed",
      callId: call.id,
      toolName: tool.name,
      durationMs,
      error: error.toJSON(),
    };
    if (result !== undefined && s.callDetails !== undefined) {
      const details = toolDetails(s, tool.name, result);
      if (details !== undefined) failed.details = details;
    }
    ctx.emit(failed);
  }
  if (ctx.aborted) throw error;
  if (result !== undefined) return result;
  throw TinyAgentsError.isInstance(thrown)
    ? thrown
    : new TinyAgentsError("tool", `tool "${tool.name}" failed: ${error.message}`, {
        cause: thrown,
        details: { tool: tool.name, callId: call.id },
      });
}

/** A failed call's error result per the tool's error policy (a timeout always has one); none: `"fail"`. */
function errorResult<State, Ctx>(
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  error: TinyAgentsError,
  durationMs: number,
): ToolResult | undefined {
  if (error.code === "timeout") {
    return errorToolResult(
      call.id,
      tool.name,
      `Error: ${error.message}. Try a smaller request or another tool.`,
      durationMs,
    );
  }
  const policy = tool.errorPolicy ?? "returnError";
  if (policy === "fail") return undefined;
  const message =
    typeof policy === "object" ? policy.message : `Error: tool "${tool.name}" failed: ${error.message}`;
  return errorToolResult(call.id, tool.name, message, durationMs);
}

/**
 * The `timeout` error of a tool call: it fired at `timeoutMs` (the tool's signal aborted then);
 * a tool that ignores its signal is abandoned `graceMs` later. The message says both figures.
 */
export function toolTimeout(
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
