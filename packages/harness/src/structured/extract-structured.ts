import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import { type JsonRepair, parseLenientJson } from "./json-repair.js";
import type { StructuredSpec } from "./structured-spec.js";

/** What {@link extractStructured} found in an answer. Never thrown: inspect `ok`. */
export type StructuredOutcome<T> =
  | { ok: true; value: T; raw: string; repair: JsonRepair }
  | { ok: false; raw: string; issues: string[]; parsed: boolean };

/**
 * Parse `raw` (a final answer's text, or a tool call's argument JSON) with the lenient repair
 * ladder (`parseLenientJson`) and validate it against `spec`. `parsed` tells a JSON problem from
 * a schema problem.
 */
export async function extractStructured<T>(
  spec: StructuredSpec<T>,
  raw: string,
): Promise<StructuredOutcome<T>> {
  const parsed = parseLenientJson(raw);
  if (parsed === undefined) {
    return {
      ok: false,
      raw,
      parsed: false,
      issues: [
        `$: the answer is not valid JSON, even after repair; it started with ${JSON.stringify(raw.trim().slice(0, 80))}`,
      ],
    };
  }
  return validated(spec, parsed.value, raw, parsed.repair);
}

/** Validate an already-parsed value (a final-answer tool call's arguments). */
export async function validated<T>(
  spec: StructuredSpec<T>,
  value: JsonValue,
  raw: string,
  repair: JsonRepair = "strict",
): Promise<StructuredOutcome<T>> {
  const outcome = await spec.validate(value);
  return outcome.ok
    ? { ok: true, value: outcome.value, raw, repair }
    : { ok: false, raw, issues: outcome.issues, parsed: true };
}

/**
 * The `structured_output` error for an answer that could not be used: the message names the
 * schema and the issues; `details` carry `format`, `schema`, `strategy`, `issues` and the `raw`
 * text (first 4,000 characters).
 */
export function structuredOutputError(
  spec: StructuredSpec<unknown>,
  strategy: "native" | "tool",
  raw: string,
  issues: readonly string[],
  parsed: boolean,
): TinyAgentsError {
  const what = parsed
    ? `does not match schema "${spec.name}": ${issues.join("; ")}`
    : `is not valid JSON (schema "${spec.name}"): ${issues.join("; ")}`;
  const reasks = spec.maxReasks === 0 ? "" : ` (after ${spec.maxReasks} re-ask(s))`;
  return new TinyAgentsError("structured_output", `the model's final answer ${what}${reasks}`, {
    details: {
      format: spec.format.type,
      schema: spec.name,
      strategy,
      issues: [...issues],
      raw: raw.slice(0, 4000),
    },
  });
}
