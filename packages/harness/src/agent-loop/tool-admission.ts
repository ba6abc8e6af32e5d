import { type JsonObject, TinyAgentsError, type ToolCall } from "@tinyagents/inference";
import type { ToolRecovery } from "../contracts/agent-event.js";
import { normalizeToolArguments } from "../tool/normalize-arguments.js";
import type { AnyTool } from "../tool/tool.js";
import type { LoopSession } from "./loop-session.js";

/** A call cleared to run: the tool and its validated arguments. */
export interface AdmittedCall<State, Ctx> {
  kind: "run";
  call: ToolCall;
  tool: AnyTool<State, Ctx>;
  args: unknown;
}

/** A call answered without running anything (unknown tool, invalid arguments). */
export interface RejectedCall {
  kind: "reject";
  call: ToolCall;
  message: string;
}

/**
 * Decide what to do with one tool call, applying the unknown-tool and invalid-arguments policies.
 * Every recovery emits an event; `fail` policies throw. The common case — a known tool whose
 * validator answers synchronously that the arguments are valid — is decided synchronously.
 */
export function admitToolCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
): AdmittedCall<State, Ctx> | RejectedCall | Promise<AdmittedCall<State, Ctx> | RejectedCall> {
  const tool = s.parts.tools.get(call.name);
  if (tool === undefined || call.invalid) return admitWithRecovery(s, call, undefined);
  const validation = tool.validate(call.arguments);
  if (!(validation instanceof Promise) && validation.ok) {
    return { kind: "run", call, tool, args: validation.value };
  }
  return admitWithRecovery(s, call, validation);
}

/** The full admission path; `firstValidation` is the known tool's validation already started. */
async function admitWithRecovery<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  firstValidation: ReturnType<AnyTool<State, Ctx>["validate"]> | undefined,
): Promise<AdmittedCall<State, Ctx> | RejectedCall> {
  const { parts, ctx } = s;
  let tool = parts.tools.get(call.name);
  if (tool === undefined) {
    const policy = parts.policy.unknownTool;
    const available = parts.tools.names().join(", ") || "(none)";
    const rewriteTarget = typeof policy === "object" ? parts.tools.get(policy.rewrite) : undefined;
    const recovery: ToolRecovery = policy === "fail" ? "fail" : rewriteTarget ? "rewrite" : "returnError";
    ctx.emit({
      type: "tool.unknown",
      callId: call.id,
      toolName: call.name,
      recovery,
      ...(rewriteTarget ? { rewrittenTo: rewriteTarget.name } : {}),
    });
    if (policy === "fail") {
      throw new TinyAgentsError(
        "tool_not_found",
        `the model called unknown tool "${call.name}"; registered tools: ${available}`,
        {
          details: { tool: call.name, callId: call.id },
        },
      );
    }
    if (rewriteTarget === undefined) {
      return {
        kind: "reject",
        call,
        message: `Error: unknown tool "${call.name}". Available tools: ${available}.`,
      };
    }
    tool = rewriteTarget;
  }

  let args: JsonObject = call.arguments;
  let problem = call.invalid ? `arguments are not valid JSON (${call.invalid.error})` : undefined;
  let validation = problem === undefined ? await (firstValidation ?? tool.validate(args)) : undefined;
  if (validation !== undefined && !validation.ok) problem = validation.issues.join("; ");
  if (problem === undefined && validation?.ok) return { kind: "run", call, tool, args: validation.value };

  const policy = parts.policy.invalidArgs;
  if (policy === "normalizeThenReturnError") {
    const normalized = normalizeToolArguments(call, tool.parameters);
    if (normalized.changed) {
      args = normalized.arguments;
      validation = await tool.validate(args);
      if (validation.ok) {
        ctx.emit({
          type: "tool.invalid_args",
          callId: call.id,
          toolName: tool.name,
          error: problem ?? "",
          recovery: "normalized",
        });
        return { kind: "run", call: { ...call, arguments: args }, tool, args: validation.value };
      }
      problem = validation.issues.join("; ");
    }
  }
  const recovery: ToolRecovery = policy === "fail" ? "fail" : "returnError";
  ctx.emit({
    type: "tool.invalid_args",
    callId: call.id,
    toolName: tool.name,
    error: problem ?? "",
    recovery,
  });
  if (policy === "fail") {
    throw new TinyAgentsError("validation", `invalid arguments for tool "${tool.name}": ${problem}`, {
      details: { tool: tool.name, callId: call.id },
    });
  }
  return {
    kind: "reject",
    call,
    message: `Error: invalid arguments for tool "${tool.name}": ${problem}. Fix the arguments to match the tool's schema and call it again.`,
  };
}
