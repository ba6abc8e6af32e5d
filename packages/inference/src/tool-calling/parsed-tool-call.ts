import type { JsonObject } from "../json/json-value.js";
import type { InvalidToolArguments } from "../tool/tool-call.js";
import type { ToolSchema } from "../tool/tool-schema.js";

/**
 * Which text dialect a call was written in:
 * - `tag`: `<tool_call>{...}</tool_call>` (also `<tool-call>`, `<toolcall>`, `<tool_calls>`,
 *   the attribute form `<tool_call name="x">{args}</tool_call>`, and Qwen-style
 *   `<function=x><parameter=k>v</parameter></function>` inside the tag);
 * - `xml`: Anthropic-style `<invoke name="x"><parameter name="k">v</parameter></invoke>`,
 *   optionally wrapped in `<function_calls>`, and a bare `<invoke>{json}</invoke>`;
 * - `fence`: a markdown code fence (```` ```tool_call ```` or ```` ```json ````) holding the call;
 * - `json`: a bare JSON object in the prose.
 */
export type ToolCallDialect = "tag" | "xml" | "fence" | "json";

/**
 * A tool call recovered from model text. No id: the caller assigns one (the prompt-guided
 * wrapper uses `ptc-...`). When the arguments could not be read as a JSON object, `arguments`
 * is `{}` and `invalid` holds the raw text and the reason, exactly as `parseToolArguments`
 * reports it, so the loop can answer with an error result.
 */
export interface ParsedToolCall {
  name: string;
  arguments: JsonObject;
  invalid?: InvalidToolArguments;
  dialect: ToolCallDialect;
}

/** Options for `parseToolCallsFromText` and `ToolCallMarkupScrubber`. */
export interface ParseToolCallsOptions {
  /**
   * The tools the model was offered (schemas or bare names). When given, calls found WITHOUT an
   * explicit marker (bare JSON objects, ```` ```json ```` fences) count only when they name one of
   * these tools; explicitly marked calls (tags, `<invoke>`, ```` ```tool_call ````) are always
   * returned so the loop can answer an unknown name with a `tool_not_found` result. Schemas also
   * let `<parameter>` values of `string`-typed properties stay strings (`"42"` is not turned into 42).
   */
  tools?: ReadonlyArray<ToolSchema | string>;
  /** Recognise bare JSON tool-call objects in prose (default true). */
  bareJson?: boolean;
}

/** What `parseToolCallsFromText` found: the text with the markup removed, and the calls in order. */
export interface ParseToolCallsResult {
  /**
   * The remaining text: every stretch of prose between removed markup, trimmed, empty ones
   * dropped, joined with `"\n"`. Equal to what a `ToolCallMarkupScrubber` streams for the same text.
   */
  text: string;
  calls: ParsedToolCall[];
}
