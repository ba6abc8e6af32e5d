import type { ParsedToolCall, ParseToolCallsOptions, ParseToolCallsResult } from "./parsed-tool-call.js";
import { type ScanSegment, ToolCallTextScanner } from "./text-call-scanner.js";
import { TextJoiner } from "./text-joiner.js";

/**
 * Recover tool calls that a model wrote as text, for models and servers without native tool
 * calling. Recognised, anywhere in the text and in any order:
 * - `<tool_call>{"name": "x", "arguments": {...}}</tool_call>` (also `<tool-call>`, `<toolcall>`,
 *   `<tool_calls>`; several JSON calls or an array in one tag; the attribute form
 *   `<tool_call name="x">{args}</tool_call>`; Qwen-style `<function=x><parameter=k>v</parameter>`
 *   bodies; a missing closing tag at the very end);
 * - Anthropic-style XML: `<invoke name="x"><parameter name="k">v</parameter></invoke>`, with or
 *   without a `<function_calls>` wrapper (whose closing tag may be cut by a stop sequence);
 * - code fences: ```` ```tool_call ```` (explicit) and ```` ```json ```` / unlabelled fences whose
 *   whole content is a call;
 * - bare JSON call objects in the prose (option `bareJson`, default on).
 *
 * Rules: argument keys `arguments`, `args`, `parameters`, `params` and `input` are accepted
 * behind an explicit marker (tag, `<invoke>`, ```` ```tool_call ````, a `tool_calls` key, a
 * `function` wrapper); unmarked JSON (bare objects, json fences) must say `arguments` and, when
 * `options.tools` is given, name a known tool. Tool names are never aliased or rewritten.
 * String arguments are parsed as JSON (relaxed JSON is repaired); unusable arguments give
 * `arguments: {}` plus `invalid`. Markup that holds no readable call stays in the text; stray
 * closing tags are removed. Never throws.
 */
export function parseToolCallsFromText(
  text: string,
  options: ParseToolCallsOptions = {},
): ParseToolCallsResult {
  const scanner = new ToolCallTextScanner(options);
  const segments: ScanSegment[] = [];
  scanner.push(text, segments);
  scanner.end(segments);
  const joiner = new TextJoiner();
  let remaining = "";
  const calls: ParsedToolCall[] = [];
  for (const segment of segments) {
    if (segment.type === "text") remaining += joiner.text(segment.text);
    else {
      joiner.boundary();
      calls.push(...segment.calls);
    }
  }
  return { text: remaining, calls };
}
