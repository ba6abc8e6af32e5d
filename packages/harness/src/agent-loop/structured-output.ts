import { type JsonValue, type ModelResponse, text, user } from "@tinyagents/inference";
import { extractStructured, structuredOutputError } from "../structured/extract-structured.js";
import { structuredRunState } from "../structured/structured-run-state.js";
import type { LoopSession } from "./loop-session.js";

/**
 * Structured output for a final text answer (no tool calls). Without a structured response format
 * this is a no-op. Otherwise the text goes through the repair ladder and the schema:
 * - valid: the typed value lands in `run.structured` -> `"done"`;
 * - invalid, re-asks left: a user message naming the issues is appended to the transcript and
 *   `structured.reask` emitted -> `"reask"` (the loop takes another model turn);
 * - invalid, no re-asks left: throws `structured_output` carrying the raw text and the issues.
 * With the tool strategy, an answer already given through the final-answer tool wins; a text
 * answer is still accepted when it is valid JSON for the schema.
 */
export async function finishStructured<State, Ctx>(
  s: LoopSession<State, Ctx>,
  response: ModelResponse,
): Promise<"done" | "reask"> {
  const prepared = s.parts.structured;
  if (prepared === undefined) return "done";
  const state = structuredRunState(s.ctx);
  if (state.answered) {
    s.run.structured = state.value as JsonValue;
    return "done";
  }
  const raw = text(response.message);
  const outcome = await extractStructured(prepared.spec, raw);
  if (outcome.ok) {
    s.run.structured = outcome.value as JsonValue;
    return "done";
  }
  const { spec, strategy } = prepared;
  if (state.reasks >= spec.maxReasks)
    throw structuredOutputError(spec, strategy, raw, outcome.issues, outcome.parsed);
  state.reasks++;
  s.ctx.emit({
    type: "structured.reask",
    strategy,
    attempt: state.reasks,
    maxReasks: spec.maxReasks,
    issues: outcome.issues,
  });
  const ask =
    strategy === "tool"
      ? `Give your final answer by calling the ${spec.name} tool with arguments matching its schema.`
      : `Reply again with only a JSON value matching the "${spec.name}" schema, no other text.`;
  s.transcript.push(user(`Your previous answer could not be used: ${outcome.issues.join("; ")}. ${ask}`));
  return "reask";
}

/**
 * After a tool batch: when the final-answer tool (tool strategy) accepted an answer this turn,
 * put it in `run.structured` and say so — the run then ends.
 */
export function takeStructuredAnswer<State, Ctx>(s: LoopSession<State, Ctx>): boolean {
  if (s.parts.structured?.strategy !== "tool") return false;
  const state = structuredRunState(s.ctx);
  if (!state.answered) return false;
  s.run.structured = state.value as JsonValue;
  return true;
}
