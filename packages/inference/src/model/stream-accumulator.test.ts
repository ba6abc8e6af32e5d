import { describe, expect, it } from "vitest";
import { ProviderError } from "../errors/provider-error.js";
import { accumulate } from "../http/test-streams.fixture.js";
import { usage } from "../usage/usage.js";
import type { ModelResponse } from "./model-response.js";
import {
  collectStream,
  MAX_ASSEMBLED_CHARS,
  parseToolArguments,
  StreamAccumulator,
} from "./stream-accumulator.js";
import type { ModelStreamItem } from "./stream-item.js";

describe("StreamAccumulator rebuilds the unary response", () => {
  it("text deltas concatenate into one text block", () => {
    const unary: ModelResponse = {
      message: {
        role: "assistant",
        id: "m1",
        content: [{ type: "text", text: "Hello, world" }],
        toolCalls: [],
      },
      finishReason: "stop",
    };
    const items: ModelStreamItem[] = [
      { type: "start", id: "m1", model: "x" },
      { type: "text_delta", text: "Hel" },
      { type: "text_delta", text: "lo, " },
      { type: "text_delta", text: "world" },
      { type: "finish", finishReason: "stop" },
    ];
    expect(accumulate(items)).toStrictEqual(unary);
  });

  it("reasoning with a signature, then text", () => {
    const unary: ModelResponse = {
      message: {
        role: "assistant",
        content: [
          { type: "reasoning", text: "First, add.", signature: "sig-1" },
          { type: "redacted_reasoning", data: "ENC" },
          { type: "reasoning", text: "Then check." },
          { type: "text", text: "4" },
        ],
        toolCalls: [],
      },
      finishReason: "stop",
    };
    const items: ModelStreamItem[] = [
      { type: "reasoning_delta", text: "First, " },
      { type: "reasoning_delta", text: "add." },
      { type: "reasoning_delta", text: "", signature: "sig-1" },
      { type: "redacted_reasoning", data: "ENC" },
      { type: "reasoning_delta", text: "Then " },
      { type: "text_delta", text: "4" },
      { type: "reasoning_delta", text: "check." },
      { type: "finish", finishReason: "stop" },
    ];
    expect(accumulate(items)).toStrictEqual(unary);
  });

  it("a new reasoning block starts after a signed one", () => {
    const response = accumulate([
      { type: "reasoning_delta", text: "a", signature: "s1" },
      { type: "reasoning_delta", text: "b" },
      { type: "reasoning_delta", text: "", signature: "s2" },
    ]);
    expect(response.message.content).toStrictEqual([
      { type: "reasoning", text: "a", signature: "s1" },
      { type: "reasoning", text: "b", signature: "s2" },
    ]);
  });

  it("two interleaved parallel tool calls with fragmented arguments, usage arriving last", () => {
    const finalUsage = usage({ inputTokens: 50, outputTokens: 12, raw: { prompt_tokens: 50 } });
    const unary: ModelResponse = {
      message: {
        role: "assistant",
        content: [{ type: "text", text: "Checking both." }],
        toolCalls: [
          { id: "call_a", name: "weather", arguments: { city: "Paris", unit: "C" } },
          { id: "call_b", name: "time", arguments: { zone: "Europe/Paris" } },
        ],
      },
      usage: finalUsage,
      finishReason: "tool_calls",
      raw: { id: "chatcmpl-1" },
    };
    const items: ModelStreamItem[] = [
      { type: "start" },
      { type: "text_delta", text: "Checking " },
      { type: "tool_call_delta", index: 1, id: "call_b", name: "time", argumentsDelta: "" },
      { type: "tool_call_delta", index: 0, id: "call_a", name: "weather" },
      { type: "tool_call_delta", index: 0, argumentsDelta: '{"ci' },
      { type: "tool_call_delta", index: 1, argumentsDelta: '{"zone":' },
      { type: "text_delta", text: "both." },
      { type: "tool_call_delta", index: 0, id: "", argumentsDelta: 'ty":"Paris",' },
      { type: "tool_call_delta", index: 1, argumentsDelta: '"Europe/Paris"}' },
      { type: "usage", usage: usage({ inputTokens: 50, outputTokens: 3 }) },
      { type: "tool_call_delta", index: 0, name: "ignored", argumentsDelta: '"unit":"C"}' },
      { type: "finish", finishReason: "tool_calls", raw: { id: "chatcmpl-1" } },
      { type: "usage", usage: finalUsage },
    ];
    expect(accumulate(items)).toStrictEqual(unary);
  });

  it("invalid arguments keep the raw text and the error; non-object JSON is invalid too", () => {
    const response = accumulate([
      { type: "tool_call_delta", index: 0, id: "c0", name: "a", argumentsDelta: '{"x": ' },
      { type: "tool_call_delta", index: 1, id: "c1", name: "b", argumentsDelta: "[1,2]" },
      { type: "tool_call_delta", index: 2, id: "c2", name: "c", argumentsDelta: "42" },
      { type: "tool_call_delta", index: 3, id: "c3", name: "d" },
    ]);
    const [broken, array, number, empty] = response.message.toolCalls;
    expect(broken?.arguments).toStrictEqual({});
    expect(broken?.invalid?.raw).toBe('{"x": ');
    expect(broken?.invalid?.error).toMatch(/JSON/);
    expect(array?.invalid).toStrictEqual({
      raw: "[1,2]",
      error: "tool arguments must be a JSON object, got an array",
    });
    expect(number?.invalid).toStrictEqual({
      raw: "42",
      error: "tool arguments must be a JSON object, got a number",
    });
    expect(empty).toStrictEqual({ id: "c3", name: "d", arguments: {} });
  });

  it("synthesizes missing ids from the index and orders calls by index", () => {
    const response = accumulate([
      { type: "tool_call_delta", index: 5, name: "late", argumentsDelta: "{}" },
      { type: "tool_call_delta", index: 2, name: "early", argumentsDelta: '{"a":1}' },
    ]);
    expect(response.message.toolCalls).toStrictEqual([
      { id: "call_2", name: "early", arguments: { a: 1 } },
      { id: "call_5", name: "late", arguments: {} },
    ]);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.message.usage).toBeUndefined();
  });

  it("defaults: empty stream is an empty stop response", () => {
    expect(accumulate([])).toStrictEqual({
      message: { role: "assistant", content: [], toolCalls: [] },
      finishReason: "stop",
    });
  });

  it("an error item throws a ProviderError classified from the item", () => {
    const acc = new StreamAccumulator({ provider: "anthropic" });
    acc.push({ type: "start", model: "claude" });
    let thrown: unknown;
    try {
      acc.push({ type: "error", message: "Overloaded", providerCode: "overloaded_error", retryable: true });
    } catch (error) {
      thrown = error;
    }
    expect(ProviderError.isProviderError(thrown)).toBe(true);
    const error = thrown as ProviderError;
    expect(error.code).toBe("provider");
    expect(error.kind).toBe("upstream_unhealthy");
    expect(error.retryable).toBe(true);
    expect(error.provider).toBe("anthropic");
    expect(error.model).toBe("claude");
    expect(error.providerCode).toBe("overloaded_error");
  });

  it("the item's retryable flag wins over classification", () => {
    const push = (item: ModelStreamItem) => () => new StreamAccumulator().push(item);
    expect(push({ type: "error", message: "weird", retryable: true })).toThrow(
      expect.objectContaining({ kind: "retryable", retryable: true }),
    );
    expect(push({ type: "error", message: "boom", status: 500, retryable: false })).toThrow(
      expect.objectContaining({ kind: "non_retryable", status: 500 }),
    );
    expect(push({ type: "error", message: "prompt is too long", retryable: false })).toThrow(
      expect.objectContaining({ kind: "context_overflow", code: "context_overflow" }),
    );
  });

  it("collectStream accumulates async and sync iterables", async () => {
    async function* gen(): AsyncGenerator<ModelStreamItem> {
      yield { type: "text_delta", text: "a" };
      yield { type: "text_delta", text: "b" };
    }
    expect((await collectStream(gen())).message.content).toStrictEqual([{ type: "text", text: "ab" }]);
    expect((await collectStream([{ type: "text_delta", text: "c" }])).message.content).toStrictEqual([
      { type: "text", text: "c" },
    ]);
    await expect(
      collectStream([{ type: "error", message: "x", status: 429, retryable: true }]),
    ).rejects.toSatisfy((e) => ProviderError.isProviderError(e) && e.kind === "rate_limited");
  });

  it("handles 100k fragments quickly (linear, not quadratic)", () => {
    const acc = new StreamAccumulator();
    acc.push({ type: "tool_call_delta", index: 0, id: "c", name: "n", argumentsDelta: '{"s":"' });
    for (let i = 0; i < 100_000; i++) {
      acc.push({ type: "text_delta", text: "xy" });
      acc.push({ type: "tool_call_delta", index: 0, argumentsDelta: "ab" });
    }
    acc.push({ type: "tool_call_delta", index: 0, argumentsDelta: '"}' });
    const response = acc.finish();
    expect(response.message.content[0]).toStrictEqual({ type: "text", text: "xy".repeat(100_000) });
    expect(response.message.toolCalls[0]?.arguments).toStrictEqual({ s: "ab".repeat(100_000) });
  });
});

describe("parseToolArguments", () => {
  it("treats empty or whitespace text as no arguments", () => {
    expect(parseToolArguments("")).toStrictEqual({ arguments: {} });
    expect(parseToolArguments("  \n")).toStrictEqual({ arguments: {} });
  });
  it("flags null as invalid", () => {
    expect(parseToolArguments("null").invalid?.error).toBe("tool arguments must be a JSON object, got null");
  });
});

describe("StreamAccumulator size cap", () => {
  it("throws a non-retryable response_too_large once text, reasoning and tool arguments pass maxChars", () => {
    const acc = new StreamAccumulator({ provider: "p", maxChars: 10 });
    acc.push({ type: "text_delta", text: "abcd" });
    acc.push({ type: "reasoning_delta", text: "efg" });
    acc.push({ type: "tool_call_delta", index: 0, id: "c", name: "t", argumentsDelta: "{}" });
    let error: unknown;
    try {
      acc.push({ type: "tool_call_delta", index: 0, argumentsDelta: "{}" });
    } catch (e) {
      error = e;
    }
    expect(ProviderError.isProviderError(error) && error.providerCode === "response_too_large").toBe(true);
    expect((error as ProviderError).kind).toBe("non_retryable");
  });

  it("defaults to MAX_ASSEMBLED_CHARS (48 Mi characters)", () => {
    const acc = new StreamAccumulator();
    const big = "x".repeat(8 * 1024 * 1024);
    for (let i = 0; i < 6; i++) acc.push({ type: "text_delta", text: big });
    expect(MAX_ASSEMBLED_CHARS).toBe(48 * 1024 * 1024);
    expect(() => acc.push({ type: "text_delta", text: "y" })).toThrow(
      /response_too_large|more than 50331648 characters/,
    );
  });
});
