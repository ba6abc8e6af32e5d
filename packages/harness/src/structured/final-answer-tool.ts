import type { JsonObject } from "@tinyagents/inference";
import type { AnyTool, ToolReturn } from "../tool/tool.js";
import { ToolRegistry } from "../tool/tool-registry.js";
import { structuredOutputError, validated } from "./extract-structured.js";
import { structuredRunState } from "./structured-run-state.js";
import type { StructuredSpec } from "./structured-spec.js";

/** What the final-answer tool answers when the answer was accepted. */
export const FINAL_ANSWER_RECORDED = "Final answer recorded.";

/**
 * The synthetic tool of the `tool` strategy: named after the schema, its parameters ARE the
 * schema. Calling it with a valid answer records the answer on the run (the loop then ends the
 * run after this turn's tools); an invalid answer gets an error result naming the issues, so
 * the model can call again — up to `spec.maxReasks` times (each a `structured.reask` event),
 * after which the run fails with `structured_output` (the tool's error policy is `fail`).
 */
export function finalAnswerTool<State, Ctx>(spec: StructuredSpec<unknown>): AnyTool<State, Ctx> {
  const format = spec.format;
  const parameters: JsonObject = format.type === "json_schema" ? format.schema : { type: "object" };
  const description =
    (format.type === "json_schema" ? format.description : undefined) ??
    `Give your final answer by calling this tool once, when you are done, with arguments matching its schema.`;
  return {
    name: spec.name,
    description,
    parameters,
    errorPolicy: "fail",
    validate: (args: JsonObject) => ({ ok: true, value: args }),
    async execute(args: JsonObject, ctx): Promise<string | ToolReturn> {
      const state = structuredRunState(ctx.run);
      const raw = JSON.stringify(args);
      const outcome = await validated(spec, args, raw);
      if (outcome.ok) {
        state.value = outcome.value;
        state.answered = true;
        return FINAL_ANSWER_RECORDED;
      }
      if (state.reasks >= spec.maxReasks)
        throw structuredOutputError(spec, "tool", raw, outcome.issues, true);
      state.reasks++;
      ctx.run.emit({
        type: "structured.reask",
        strategy: "tool",
        attempt: state.reasks,
        maxReasks: spec.maxReasks,
        issues: outcome.issues,
      });
      return {
        kind: "tool_return",
        isError: true,
        content: [
          {
            type: "text",
            text: `Your final answer does not match the schema: ${outcome.issues.join("; ")}. Call ${spec.name} again with corrected arguments.`,
          },
        ],
      };
    },
  };
}

const overlays = new WeakMap<StructuredSpec<unknown>, WeakMap<object, ToolRegistry<never, never>>>();

/**
 * A registry holding `tools` plus the final-answer tool of `spec`. Cached per spec and per
 * version of `tools` (its `schemas()` array changes identity when tools change), so a run costs
 * nothing extra when neither changed.
 */
export function withFinalAnswerTool<State, Ctx>(
  spec: StructuredSpec<unknown>,
  tools: ToolRegistry<State, Ctx>,
): ToolRegistry<State, Ctx> {
  let bySchemas = overlays.get(spec);
  if (bySchemas === undefined) {
    bySchemas = new WeakMap();
    overlays.set(spec, bySchemas);
  }
  const version = tools.schemas();
  const known = bySchemas.get(version) as ToolRegistry<State, Ctx> | undefined;
  if (known !== undefined) return known;
  const overlay = new ToolRegistry<State, Ctx>([...tools.list(), finalAnswerTool<State, Ctx>(spec)]);
  bySchemas.set(version, overlay as unknown as ToolRegistry<never, never>);
  return overlay;
}
