import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { everyKindTranscript } from "./message.fixture.js";
import { validateMessage, validateMessages, validateToolCall } from "./validate.js";

/** Run `fn`, expect a validation error, and return it. */
function validationFailure(fn: () => unknown): TinyAgentsError {
  try {
    fn();
  } catch (error) {
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    return error as TinyAgentsError;
  }
  throw new Error("expected a validation error");
}

const hi = { role: "user", content: [{ type: "text", text: "hi" }] };

describe("validateMessages", () => {
  it("accepts every role and block kind, returning the same array", () => {
    expect(validateMessages(everyKindTranscript)).toBe(everyKindTranscript);
  });

  it("rejects a non-array, naming `messages`", () => {
    const error = validationFailure(() => validateMessages("hello"));
    expect(error.message).toMatch(/^messages: expected an array of messages, got the string "hello"/);
    expect(error.details).toStrictEqual({ field: "messages" });
  });

  it("rejects an unknown role with the path and the allowed roles", () => {
    const error = validationFailure(() => validateMessages([hi, hi, { role: "bot", content: [] }]));
    expect(error.message).toBe(
      'messages[2].role: unknown role "bot"; expected one of system, user, assistant, tool',
    );
    expect(error.details).toStrictEqual({ field: "messages[2].role" });
  });

  it.each([
    ["content not an array", { role: "user", content: "hi" }, "messages[0].content", /wrap text/],
    [
      "unknown block type",
      { role: "user", content: [{ type: "audio" }] },
      "messages[0].content[0].type",
      /audio/,
    ],
    [
      "text block without text",
      { role: "user", content: [{ type: "text" }] },
      "messages[0].content[0].text",
      /string/,
    ],
    [
      "image without url",
      { role: "user", content: [{ type: "image", source: { kind: "url" } }] },
      "messages[0].content[0].source.url",
      /string/,
    ],
    [
      "json block with a function",
      { role: "user", content: [{ type: "json", value: { f: () => 1 } }] },
      "messages[0].content[0].value.f",
      /function/,
    ],
    [
      "assistant without toolCalls",
      { role: "assistant", content: [] },
      "messages[0].toolCalls",
      /use \[\] when there are none/,
    ],
    [
      "tool call without id",
      { role: "assistant", content: [], toolCalls: [{ name: "add", arguments: {} }] },
      "messages[0].toolCalls[0].id",
      /non-empty string id/,
    ],
    [
      "tool call without name",
      { role: "assistant", content: [], toolCalls: [{ id: "c1", arguments: {} }] },
      "messages[0].toolCalls[0].name",
      /name/,
    ],
    [
      "tool call with array arguments",
      { role: "assistant", content: [], toolCalls: [{ id: "c1", name: "x", arguments: [] }] },
      "messages[0].toolCalls[0].arguments",
      /arguments object/,
    ],
    [
      "tool message without toolCallId",
      { role: "tool", toolName: "x", content: [], isError: false },
      "messages[0].toolCallId",
      /toolResult/,
    ],
    [
      "tool message without isError",
      { role: "tool", toolCallId: "c", toolName: "x", content: [] },
      "messages[0].isError",
      /true or false/,
    ],
    [
      "usage with a NaN",
      {
        role: "assistant",
        content: [],
        toolCalls: [],
        usage: {
          inputTokens: Number.NaN,
          outputTokens: 0,
          totalTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
      },
      "messages[0].usage.inputTokens",
      /finite number/,
    ],
    ["null message", null, "messages[0]", /message object/],
  ])("rejects %s", (_name, message, field, pattern) => {
    const error = validationFailure(() => validateMessages([message]));
    expect(error.details).toStrictEqual({ field });
    expect(error.message.startsWith(`${field}: `)).toBe(true);
    expect(error.message).toMatch(pattern);
  });
});

describe("validateMessage / validateToolCall", () => {
  it("uses `message` as the default path", () => {
    const error = validationFailure(() => validateMessage({ role: "robot", content: [] }));
    expect(error.details).toStrictEqual({ field: "message.role" });
  });

  it("validates a single tool call at a given path", () => {
    expect(validateToolCall({ id: "a", name: "b", arguments: {} }, "call")).toStrictEqual({
      id: "a",
      name: "b",
      arguments: {},
    });
    expect(
      validationFailure(() => validateToolCall({ id: "", name: "b", arguments: {} }, "call")).details,
    ).toStrictEqual({
      field: "call.id",
    });
  });
});
