import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { everyFieldRequest } from "./model.fixture.js";
import { validateModelRequest, validateToolSchemas } from "./validate-request.js";

function fieldOf(fn: () => unknown): { field: unknown; message: string } {
  try {
    fn();
  } catch (error) {
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    const e = error as TinyAgentsError;
    return { field: e.details?.field, message: e.message };
  }
  throw new Error("expected a validation error");
}

const messages = [{ role: "user", content: [{ type: "text", text: "hi" }] }];

describe("validateModelRequest", () => {
  it("accepts a request with every field and returns it", () => {
    expect(validateModelRequest(everyFieldRequest)).toBe(everyFieldRequest);
    expect(validateModelRequest({ messages: [] })).toStrictEqual({ messages: [] });
  });

  it("names `messages` when it is not an array", () => {
    const { field, message } = fieldOf(() => validateModelRequest({ messages: { role: "user" } }));
    expect(field).toBe("messages");
    expect(message).toMatch(/^messages: expected an array of messages, got an object/);
  });

  it("names `request` when the request is not an object", () => {
    expect(fieldOf(() => validateModelRequest(null)).field).toBe("request");
  });

  it("names the nested message field", () => {
    const { field, message } = fieldOf(() =>
      validateModelRequest({ messages: [...messages, ...messages, { role: "bot", content: [] }] }),
    );
    expect(field).toBe("messages[2].role");
    expect(message).toContain('unknown role "bot"; expected one of system, user, assistant, tool');
  });

  it.each([
    ["temperature", { temperature: Number.NaN }, "temperature", /finite number/],
    ["temperature as a string", { temperature: "0.5" }, "temperature", /finite number/],
    ["negative temperature", { temperature: -1 }, "temperature", />= 0/],
    ["topP above 1", { topP: 1.5 }, "topP", /<= 1/],
    ["fractional maxTokens", { maxTokens: 1.5 }, "maxTokens", /integer/],
    ["infinite timeout", { timeoutMs: Number.POSITIVE_INFINITY }, "timeoutMs", /finite/],
    ["negative stream idle timeout", { streamIdleTimeoutMs: -1 }, "streamIdleTimeoutMs", />= 0/],
    ["tools not an array", { tools: {} }, "tools", /array/],
    ["tool without name", { tools: [{ description: "", parameters: {} }] }, "tools[0].name", /name/],
    [
      "tool without parameters",
      { tools: [{ name: "t", description: "" }] },
      "tools[0].parameters",
      /JSON Schema/,
    ],
    ["bad tool choice", { toolChoice: "sometimes" }, "toolChoice", /expected/],
    ["stop with a number", { stop: ["a", 1] }, "stop[1]", /string/],
    [
      "json_schema without schema",
      { responseFormat: { type: "json_schema", name: "x" } },
      "responseFormat.schema",
      /object/,
    ],
    [
      "bad retention",
      { promptCache: { enabled: true, retention: "forever" } },
      "promptCache.retention",
      /short, long/,
    ],
    [
      "segment with a bad role",
      { cacheSegments: [{ id: "a", role: "misc", cacheable: true, messageCount: 1 }] },
      "cacheSegments[0].role",
      /segment role/,
    ],
    ["metadata with undefined", { metadata: { a: undefined } }, "metadata.a", /undefined/],
    ["bad effort", { reasoning: { effort: "max" } }, "reasoning.effort", /minimal/],
  ])("rejects %s", (_name, extra, field, pattern) => {
    const result = fieldOf(() => validateModelRequest({ messages, ...extra }));
    expect(result.field).toBe(field);
    expect(result.message.startsWith(`${field}: `)).toBe(true);
    expect(result.message).toMatch(pattern);
  });

  it("validateToolSchemas checks tool declarations on their own", () => {
    const tools = [{ name: "t", description: "d", parameters: { type: "object" } }];
    expect(validateToolSchemas(tools)).toBe(tools);
  });
});
