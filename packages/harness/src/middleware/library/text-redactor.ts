import type { ContentBlock, JsonObject, JsonValue, Message, ToolCall } from "@tinyagents/inference";
import { optionError } from "./option-checks.js";
import type { RedactionPattern } from "./redaction-patterns.js";

/**
 * Applies redaction patterns to text, JSON values, content blocks and messages. Returns the SAME
 * object when nothing matched (so callers can tell and skip copying). Reasoning blocks are never
 * touched: providers sign their exact text. Idempotent: masks never match a pattern again.
 */
export class TextRedactor {
  /** How many matches were masked so far. */
  count = 0;
  private readonly patterns: readonly RedactionPattern[];
  private readonly mask: (name: string) => string;

  constructor(middleware: string, patterns: readonly RedactionPattern[], mask: (name: string) => string) {
    this.patterns = patterns.map((p, i) => checkPattern(middleware, p, i));
    this.mask = mask;
  }

  text(input: string): string {
    let out = input;
    for (const { name, pattern, validate } of this.patterns) {
      out = out.replace(pattern, (match) => {
        if (validate !== undefined && !validate(match)) return match;
        this.count++;
        return this.mask(name);
      });
    }
    return out;
  }

  json(value: JsonValue): JsonValue {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) {
      let changed = false;
      const items = value.map((item) => {
        const next = this.json(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? items : value;
    }
    if (value !== null && typeof value === "object") return this.object(value);
    return value;
  }

  object(value: JsonObject): JsonObject {
    let copy: JsonObject | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = this.json(item);
      if (next !== item) {
        copy ??= { ...value };
        copy[key] = next;
      }
    }
    return copy ?? value;
  }

  blocks(content: ContentBlock[]): ContentBlock[] {
    let copy: ContentBlock[] | undefined;
    for (let i = 0; i < content.length; i++) {
      const block = content[i] as ContentBlock;
      let next: ContentBlock = block;
      if (block.type === "text") {
        const redacted = this.text(block.text);
        if (redacted !== block.text) next = { ...block, text: redacted };
      } else if (block.type === "json") {
        const redacted = this.json(block.value);
        if (redacted !== block.value) next = { ...block, value: redacted };
      }
      if (next !== block) {
        copy ??= content.slice();
        copy[i] = next;
      }
    }
    return copy ?? content;
  }

  /** A message with its text, JSON and (for requests) tool-call arguments redacted. */
  message(message: Message): Message {
    const content = this.blocks(message.content);
    if (message.role === "assistant") {
      let calls = message.toolCalls;
      for (let i = 0; i < message.toolCalls.length; i++) {
        const call = message.toolCalls[i] as ToolCall;
        const args = this.object(call.arguments);
        if (args === call.arguments) continue;
        if (calls === message.toolCalls) calls = message.toolCalls.slice();
        calls[i] = { ...call, arguments: args };
      }
      return content === message.content && calls === message.toolCalls
        ? message
        : { ...message, content, toolCalls: calls };
    }
    return content === message.content ? message : ({ ...message, content } as Message);
  }
}

function checkPattern(middleware: string, p: RedactionPattern, i: number): RedactionPattern {
  const option = `patterns[${i}]`;
  if (typeof p !== "object" || p === null || typeof p.name !== "string" || p.name === "") {
    throw optionError(middleware, option, "must be { name: string, pattern: RegExp }");
  }
  if (!(p.pattern instanceof RegExp)) throw optionError(middleware, `${option}.pattern`, "must be a RegExp");
  const pattern = p.pattern.global ? p.pattern : new RegExp(p.pattern.source, `${p.pattern.flags}g`);
  if (new RegExp(pattern.source, pattern.flags.replace("g", "")).test("")) {
    throw optionError(
      middleware,
      `${option}.pattern`,
      `matches the empty string (${pattern}); it would mask everything`,
    );
  }
  if (p.validate !== undefined && typeof p.validate !== "function") {
    throw optionError(middleware, `${option}.validate`, "must be a function (match) => boolean");
  }
  return { ...p, pattern };
}
