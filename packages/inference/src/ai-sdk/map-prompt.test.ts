import { describe, expect, it } from "vitest";
import { assistant, toolCall, toolResult, user } from "../message/constructors.js";
import { toAiSdkCallOptions } from "./map-prompt.js";
import { mapAiSdkFinishReason, normalizeAiSdkUsage } from "./map-usage.js";
import { encodeAiSdkReasoning } from "./reasoning-metadata.js";

const v3 = { family: "openai", specificationVersion: "v3" };

describe("toAiSdkCallOptions", () => {
  it("sends kept provider metadata back as the reasoning part's providerOptions", () => {
    const metadata = { openai: { itemId: "rs_1", reasoningEncryptedContent: "gAAAA" } };
    const options = toAiSdkCallOptions(
      {
        messages: [
          user("q"),
          assistant([
            { type: "reasoning", text: "thought", signature: encodeAiSdkReasoning(metadata) },
            { type: "reasoning", text: "from elsewhere", signature: "EqMBnative" },
            { type: "text", text: "answer" },
          ]),
        ],
        reasoning: { effort: "high", summary: "auto" },
        providerOptions: { openai: { store: false } },
      },
      v3,
    );
    expect(options.prompt[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "thought", providerOptions: metadata },
        { type: "reasoning", text: "from elsewhere" },
        { type: "text", text: "answer" },
      ],
    });
    expect(options.providerOptions).toEqual({
      openai: { reasoningEffort: "high", reasoningSummary: "auto", store: false },
    });
  });

  it("groups consecutive tool results in one tool message; errors as error-text, JSON as json, images as content", () => {
    const a = toolCall("c1", "one");
    const b = toolCall("c2", "two");
    const c = toolCall("c3", "three");
    const prompt = toAiSdkCallOptions(
      {
        messages: [
          user("go"),
          assistant("", [a, b, c]),
          toolResult(a, "boom", { isError: true }),
          toolResult(b, [{ type: "json", value: { ok: true } }]),
          toolResult(c, [
            { type: "text", text: "shot" },
            { type: "image", source: { kind: "base64", data: "iVBO", mimeType: "image/png" } },
          ]),
        ],
      },
      { family: "anthropic", specificationVersion: "v2" },
    ).prompt;
    expect(prompt).toHaveLength(3);
    expect(prompt[2]).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "one",
          output: { type: "error-text", value: "boom" },
        },
        {
          type: "tool-result",
          toolCallId: "c2",
          toolName: "two",
          output: { type: "json", value: { ok: true } },
        },
        {
          type: "tool-result",
          toolCallId: "c3",
          toolName: "three",
          output: {
            type: "content",
            value: [
              { type: "text", text: "shot" },
              { type: "media", data: "iVBO", mediaType: "image/png" },
            ],
          },
        },
      ],
    });
  });

  it("rejects a non-object providerOptions entry and a tool choice naming no declared tool", () => {
    expect(() => toAiSdkCallOptions({ messages: [user("q")], providerOptions: { openai: 3 } }, v3)).toThrow(
      /providerOptions\.openai/,
    );
    expect(() =>
      toAiSdkCallOptions({ messages: [user("q")], toolChoice: { type: "tool", name: "ghost" } }, v3),
    ).toThrow(/ghost/);
  });
});

describe("AI SDK usage and finish reasons", () => {
  it("reads v3 nested usage and v2 flat usage with the neutral rules", () => {
    expect(
      normalizeAiSdkUsage({
        inputTokens: { total: 100, noCache: 20, cacheRead: 70, cacheWrite: 10 },
        outputTokens: { total: 50, text: 30, reasoning: 20 },
        raw: { x: 1 },
      }),
    ).toEqual({
      inputTokens: 100,
      outputTokens: 50,
      totalTokens: 150,
      cacheReadTokens: 70,
      cacheWriteTokens: 10,
      reasoningTokens: 20,
      raw: { x: 1 },
    });
    // A missing total is the sum of its parts.
    expect(
      normalizeAiSdkUsage({
        inputTokens: { total: undefined, noCache: 5, cacheRead: 3, cacheWrite: undefined },
        outputTokens: { total: undefined, text: 4, reasoning: 1 },
      }),
    ).toMatchObject({ inputTokens: 8, outputTokens: 5, cacheReadTokens: 3, reasoningTokens: 1 });
    expect(
      normalizeAiSdkUsage({
        inputTokens: 40,
        outputTokens: 9,
        totalTokens: 49,
        cachedInputTokens: 32,
        reasoningTokens: 4,
      }),
    ).toEqual({
      inputTokens: 40,
      outputTokens: 9,
      totalTokens: 49,
      cacheReadTokens: 32,
      cacheWriteTokens: 0,
      reasoningTokens: 4,
    });
    expect(normalizeAiSdkUsage({ inputTokens: undefined, outputTokens: undefined })).toBeUndefined();
  });

  it("maps v3 and v2 finish reasons", () => {
    expect(mapAiSdkFinishReason({ unified: "tool-calls", raw: "tool_use" })).toBe("tool_calls");
    expect(mapAiSdkFinishReason("content-filter")).toBe("content_filter");
    expect(mapAiSdkFinishReason("length")).toBe("length");
    expect(mapAiSdkFinishReason("unknown")).toBe("other");
  });
});
