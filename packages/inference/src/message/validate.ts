import type { ToolCall } from "../tool/tool-call.js";
import { assertJsonValue } from "./assert-json.js";
import { CONTENT_BLOCK_TYPES, type ContentBlock } from "./content-block.js";
import {
  describe,
  expectArray,
  expectBoolean,
  expectJsonObject,
  expectNumber,
  expectObject,
  expectOneOf,
  expectString,
  fail,
  join,
  optional,
} from "./field-checks.js";
import { MESSAGE_ROLES, type Message } from "./message.js";

/**
 * Runtime checks for untrusted messages (from JSON files, HTTP bodies, journals). Each returns its
 * input, typed, without copying; each throws a `validation` `TinyAgentsError` whose message starts
 * with the field path (`messages[2].role: unknown role "bot"; expected one of ...`) and whose
 * `details.field` is that path. Unknown extra fields are tolerated (forward compatibility).
 */

/** Check one message. `path` prefixes field names in errors (default `message`). */
export function validateMessage(value: unknown, path = "message"): Message {
  const record = expectObject(value, path, 'a message object such as { role: "user", content: [...] }');
  const role = expectOneOf(record.role, join(path, "role"), MESSAGE_ROLES, "role");
  const content = record.content;
  if (!Array.isArray(content)) {
    fail(
      join(path, "content"),
      `expected an array of content blocks, got ${typeof content === "string" ? "a string" : describe(content)}; wrap text as [{ type: "text", text: "..." }] or build the message with user()/system()/assistant()`,
    );
  }
  for (let i = 0; i < content.length; i++) validateContentBlock(content[i], `${path}.content[${i}]`);
  switch (role) {
    case "user":
      optional(record, "name", path, expectString);
      break;
    case "assistant": {
      const calls = expectArray(
        record.toolCalls,
        join(path, "toolCalls"),
        "an array of tool calls (use [] when there are none)",
      );
      for (let i = 0; i < calls.length; i++) validateToolCall(calls[i], `${path}.toolCalls[${i}]`);
      optional(record, "id", path, expectString);
      optional(record, "usage", path, validateUsageShape);
      break;
    }
    case "tool":
      if (typeof record.toolCallId !== "string" || record.toolCallId === "") {
        fail(
          join(path, "toolCallId"),
          "a tool message needs the non-empty id of the tool call it answers; build it with toolResult(call, content)",
        );
      }
      expectString(record.toolName, join(path, "toolName"));
      expectBoolean(record.isError, join(path, "isError"));
      break;
    case "system":
      break;
  }
  return value as Message;
}

/** Check a whole transcript. `path` names the array in errors (default `messages`). */
export function validateMessages(value: unknown, path = "messages"): Message[] {
  if (!Array.isArray(value)) {
    fail(
      path,
      `expected an array of messages, got ${describe(value)}; pass [user("...")] for a single prompt`,
    );
  }
  for (let i = 0; i < value.length; i++) validateMessage(value[i], `${path}[${i}]`);
  return value as Message[];
}

/** Check one content block (see {@link ContentBlock}). */
export function validateContentBlock(value: unknown, path: string): ContentBlock {
  const block = expectObject(value, path, 'a content block such as { type: "text", text: "..." }');
  const type = expectOneOf(block.type, join(path, "type"), CONTENT_BLOCK_TYPES, "content block type");
  switch (type) {
    case "text":
      expectString(block.text, join(path, "text"));
      break;
    case "json":
      if (!("value" in block)) fail(join(path, "value"), "a json block needs a `value` (any JSON value)");
      assertJsonValue(block.value, join(path, "value"));
      break;
    case "image": {
      const source = expectObject(block.source, join(path, "source"), "an image source object");
      const kind = expectOneOf(
        source.kind,
        join(path, "source.kind"),
        ["url", "base64"] as const,
        "image source kind",
      );
      if (kind === "url") {
        expectString(source.url, join(path, "source.url"), true);
      } else {
        expectString(source.data, join(path, "source.data"), true);
        expectString(source.mimeType, join(path, "source.mimeType"), true);
      }
      optional(block, "detail", path, (v, f) =>
        expectOneOf(v, f, ["auto", "low", "high"] as const, "detail"),
      );
      break;
    }
    case "reasoning":
      expectString(block.text, join(path, "text"));
      optional(block, "signature", path, expectString);
      break;
    case "redacted_reasoning":
      expectString(block.data, join(path, "data"));
      break;
    case "provider_extension":
      expectString(block.provider, join(path, "provider"), true);
      assertJsonValue(block.value, join(path, "value"));
      break;
  }
  return value as ContentBlock;
}

/** Check one tool call: non-empty `id` and `name`, JSON-object `arguments`, optional `invalid`. */
export function validateToolCall(value: unknown, path: string): ToolCall {
  const call = expectObject(value, path, "a tool call object { id, name, arguments }");
  if (typeof call.id !== "string" || call.id === "") {
    fail(
      join(path, "id"),
      "a tool call needs a non-empty string id (it correlates the call with its tool result); give every call a unique id",
    );
  }
  if (typeof call.name !== "string" || call.name === "") {
    fail(join(path, "name"), "a tool call needs a non-empty string name (the tool to run)");
  }
  expectJsonObject(call.arguments, join(path, "arguments"), "an arguments object (use {} for none)");
  optional(call, "invalid", path, (v, f) => {
    const invalid = expectObject(v, f);
    expectString(invalid.raw, join(f, "raw"));
    expectString(invalid.error, join(f, "error"));
  });
  return value as ToolCall;
}

const USAGE_FIELDS = [
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "reasoningTokens",
] as const;

/** Check a `Usage` record: every count a finite number >= 0; `raw` JSON. */
export function validateUsageShape(value: unknown, path: string): void {
  const record = expectObject(value, path, "a usage object");
  for (const key of USAGE_FIELDS) expectNumber(record[key], join(path, key), { min: 0 });
  optional(record, "raw", path, (v, f) => assertJsonValue(v, f));
}
