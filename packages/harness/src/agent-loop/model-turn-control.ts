import { assistant, type ModelResponse, TinyAgentsError, type ToolCall } from "@tinyagents/inference";
import { errorToolResult, toolResultMessage } from "../tool/tool-result.js";
import { checkpoint } from "./checkpoint.js";
import type { LoopSession } from "./loop-session.js";

/**
 * Right after a model turn: when a control request is pending (an `afterModel` hook asked to
 * stop or pause), apply it before the turn's tools run and say whether the run ends.
 * - `interrupt`: the tool calls stay unanswered — the run's `paused` record lists them as
 *   pending, and `harness.resume` runs them first;
 * - `stopWithFinal`: each call is answered "not executed" (the transcript stays valid), then
 *   the final text is appended.
 */
export function controlAfterModel<State, Ctx>(
  s: LoopSession<State, Ctx>,
  calls: readonly ToolCall[],
): boolean {
  const pending = s.ctx.peekControl();
  if (pending === undefined) return false;
  if (pending.kind === "stopWithFinal") {
    for (const call of calls) {
      const message = "Not executed: the run was stopped before this tool ran.";
      s.transcript.push(toolResultMessage(errorToolResult(call.id, call.name, message, 0)));
    }
  }
  return checkpoint(s) !== "continue";
}

/**
 * The answer of a direct model call (`callModel`): `answered` (the model phase's response), unless
 * a middleware requested control in `beforeModel` or `afterModel`: then `stopWithFinal` becomes
 * the response (text, finish reason `stop`) and `interrupt` fails the call with an `interrupted`
 * error (a single call cannot pause).
 */
export function controlledResponse<State, Ctx>(
  s: LoopSession<State, Ctx>,
  answered: ModelResponse | undefined,
): ModelResponse {
  const control = s.ctx.takeControl();
  if (control === undefined) {
    if (answered !== undefined) return answered;
    throw new TinyAgentsError("internal", "the model phase returned no response and no control request");
  }
  if (control.kind === "interrupt") {
    s.ctx.emit({ type: "control.applied", control: "interrupt", detail: control.reason });
    throw new TinyAgentsError(
      "interrupted",
      `the model call was interrupted by a middleware control request: ${control.reason}`,
      { details: { reason: control.reason } },
    );
  }
  s.ctx.emit({ type: "control.applied", control: "stopWithFinal", detail: control.text });
  return { message: assistant(control.text), finishReason: "stop" };
}
