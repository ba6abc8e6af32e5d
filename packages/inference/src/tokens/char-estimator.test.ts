import { describe, expect, it } from "vitest";
import { assistant, toolResult, user } from "../message/constructors.js";
import type { Message } from "../message/message.js";
import type { ToolSchema } from "../tool/tool-schema.js";
import { CharTokenEstimator, defaultTokenCounter, estimateTokens } from "./char-estimator.js";

describe("CharTokenEstimator", () => {
  const estimator = new CharTokenEstimator();

  it("counts text as ceil(chars / 4)", () => {
    expect(estimator.countText("")).toBe(0);
    expect(estimator.countText("abc")).toBe(1);
    expect(estimator.countText("abcd")).toBe(1);
    expect(estimator.countText("abcde")).toBe(2);
    expect(estimateTokens("x".repeat(400))).toBe(100);
  });

  it("adds the per-message overhead and counts each block kind", () => {
    expect(estimator.countMessage(user("12345678"))).toBe(3 + 2);
    const message: Message = {
      role: "user",
      content: [
        { type: "image", source: { kind: "url", url: "https://x/y.png" } },
        { type: "json", value: { a: 1 } }, // '{"a":1}' = 7 chars -> 2
        { type: "text", text: "hi" }, // 1
      ],
    };
    expect(estimator.countMessage(message)).toBe(3 + 85 + 2 + 1);
  });

  it("counts tool calls by name plus JSON arguments, and tool results", () => {
    const call = { id: "c", name: "add", arguments: { a: 1 } }; // 'add{"a":1}' = 10 chars -> 3
    expect(estimator.countMessage(assistant([], [call]))).toBe(3 + 3);
    const invalid = { id: "c", name: "add", arguments: {}, invalid: { raw: "{{{{{", error: "bad" } }; // 8 -> 2
    expect(estimator.countMessage(assistant([], [invalid]))).toBe(3 + 2);
    expect(estimator.countMessage(toolResult(call, "1234"))).toBe(3 + 1 + 1);
  });

  it("sums messages and tools", () => {
    expect(estimator.countMessages([user("abcd"), user("abcd")])).toBe(8);
    expect(estimator.countMessages([])).toBe(0);
    const tool: ToolSchema = { name: "t", description: "d", parameters: { type: "object" } };
    expect(estimator.countTools([tool, tool])).toBe(2 * Math.ceil(JSON.stringify(tool).length / 4));
    expect(estimator.countTools([])).toBe(0);
  });

  it("honours options", () => {
    const custom = new CharTokenEstimator({ charsPerToken: 2, perMessageOverhead: 0, imageTokens: 10 });
    expect(custom.countText("abcd")).toBe(2);
    expect(custom.countMessage(user("ab"))).toBe(1);
  });

  it("rejects nonsense options with a validation error", () => {
    expect(() => new CharTokenEstimator({ charsPerToken: 0 })).toThrow(/charsPerToken/);
    expect(() => new CharTokenEstimator({ perMessageOverhead: Number.NaN })).toThrow(
      expect.objectContaining({ code: "validation", details: { field: "perMessageOverhead" } }),
    );
    expect(defaultTokenCounter.countText("abcd")).toBe(1);
  });
});
