import type { ToolSchema } from "../tool/tool-schema.js";
import { callsFromJson } from "./call-from-json.js";
import { extractJsonValues, parseJsonLoose } from "./json-values.js";
import type { Opener } from "./openers.js";
import type { ParsedToolCall, ParseToolCallsOptions } from "./parsed-tool-call.js";
import { invokeCalls, nameAttribute, namedBodyCall, qwenFunctionCalls } from "./xml-calls.js";

/** What the parsers know about the offered tools. */
export interface ToolContext {
  /** Names of the offered tools; `undefined` when the caller did not say (any name goes). */
  known: ReadonlySet<string> | undefined;
  /** Schemas by tool name (for typing `<parameter>` values). */
  schemas: ReadonlyMap<string, ToolSchema>;
}

/** The {@link ToolContext} for `options.tools`. */
export function toolContext(options: ParseToolCallsOptions): ToolContext {
  const schemas = new Map<string, ToolSchema>();
  if (options.tools === undefined) return { known: undefined, schemas };
  const known = new Set<string>();
  for (const tool of options.tools) {
    if (typeof tool === "string") known.add(tool);
    else {
      known.add(tool.name);
      schemas.set(tool.name, tool);
    }
  }
  return { known, schemas };
}

/**
 * The calls in the body of a `<tool_call>`-family tag (or a bare `<invoke>`): the attribute form
 * (`name="x"`, body = arguments), Qwen-style `<function=x>` blocks, `<invoke>` blocks, else every
 * JSON value in the body read as explicitly marked calls.
 */
export function tagCalls(context: ToolContext, body: string, opener: Opener): ParsedToolCall[] {
  const dialect = opener.name === "invoke" ? "xml" : "tag";
  const name = nameAttribute(opener.attributes);
  if (name !== undefined) return [namedBodyCall(name, body, context.schemas, dialect)];
  if (/<function=/i.test(body)) {
    const calls = qwenFunctionCalls(body, context.schemas);
    if (calls.length > 0) return calls;
  }
  if (/<invoke\s/i.test(body)) {
    const { calls } = invokeCalls(body, context.schemas);
    if (calls.length > 0) return calls;
  }
  return extractJsonValues(body).flatMap((value) =>
    callsFromJson(value, { explicit: true, dialect, known: context.known }),
  );
}

/**
 * The calls in a code fence's body: for a tool-call language (`explicit`), every JSON value in
 * it; for a JSON or unlabelled fence, the whole body must be one call-shaped value.
 */
export function fenceCalls(context: ToolContext, body: string, explicit: boolean): ParsedToolCall[] {
  if (explicit) {
    return extractJsonValues(body).flatMap((value) =>
      callsFromJson(value, { explicit: true, dialect: "fence", known: context.known }),
    );
  }
  const value = parseJsonLoose(body);
  return value === undefined
    ? []
    : callsFromJson(value, { explicit: false, dialect: "fence", known: context.known });
}
