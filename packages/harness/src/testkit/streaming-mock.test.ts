import {
  type ModelStreamItem,
  ProviderError,
  TinyAgentsError,
  text,
  usage,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { DeterministicClock } from "./deterministic-clock.js";
import { StreamingMock } from "./streaming-mock.js";

const request = { messages: [user("hi")] };

async function collectItems(items: AsyncIterable<ModelStreamItem>): Promise<ModelStreamItem[]> {
  const out: ModelStreamItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const toolScript: ModelStreamItem[] = [
  { type: "start", id: "msg-1" },
  { type: "tool_call_delta", index: 0, id: "c1", name: "search", argumentsDelta: '{"q":' },
  { type: "tool_call_delta", index: 0, argumentsDelta: '"cats"}' },
  { type: "finish", finishReason: "tool_calls" },
];

describe("StreamingMock", () => {
  it("plays scripts verbatim in FIFO order and counts calls", async () => {
    const mock = new StreamingMock([toolScript, [{ type: "text_delta", text: "done" }]]);
    expect(await collectItems(mock.stream(request))).toEqual(toolScript);
    expect(await collectItems(mock.stream(request))).toEqual([{ type: "text_delta", text: "done" }]);
    expect(mock.callCount).toBe(2);
    expect(mock.requests).toEqual([request, request]);
    mock.assertConsumed();
  });

  it("invoke accumulates the script into a response", async () => {
    const response = await new StreamingMock([toolScript]).invoke(request);
    expect(response).toEqual({
      message: {
        role: "assistant",
        id: "msg-1",
        content: [],
        toolCalls: [{ id: "c1", name: "search", arguments: { q: "cats" } }],
      },
      finishReason: "tool_calls",
    });
  });

  it("fromTextChunks streams the chunks as text deltas", async () => {
    const mock = StreamingMock.fromTextChunks(["Hel", "lo"], { usage: usage({ outputTokens: 2 }) });
    const items = await collectItems(mock.stream(request));
    expect(items.filter((item) => item.type === "text_delta").map((item) => item.text)).toEqual([
      "Hel",
      "lo",
    ]);
    const again = StreamingMock.fromTextChunks(["Hel", "lo"], { usage: usage({ outputTokens: 2 }) });
    const response = await again.invoke(request);
    expect(text(response.message)).toBe("Hello");
    expect(response.usage?.outputTokens).toBe(2);
  });

  it("throws an actionable error when exhausted, and assertConsumed reports leftovers", async () => {
    const mock = new StreamingMock([[{ type: "text_delta", text: "a" }], []], { modelId: "s" });
    expect(() => mock.assertConsumed()).toThrow("2 scripted stream(s) left unconsumed after 0 call(s)");
    await mock.invoke(request);
    await mock.invoke(request);
    const error = await mock.invoke(request).catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as Error).message).toContain('StreamingMock "s": scripts exhausted after 2 call(s)');
  });

  it("turns an error item into a ProviderError on invoke", async () => {
    const mock = new StreamingMock([
      [
        { type: "text_delta", text: "par" },
        { type: "error", message: "overloaded", status: 529, retryable: true },
      ],
    ]);
    const error = await mock.invoke(request).catch((e: unknown) => e);
    expect(ProviderError.isProviderError(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
  });

  it("delays items through the call's clock, instantly with a DeterministicClock", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const mock = StreamingMock.fromTextChunks(["a", "b", "c"], { itemDelayMs: 100 });
    const started = performance.now();
    await mock.invoke(request, { clock });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(clock.now()).toBe(500);
    expect(clock.sleeps).toEqual([100, 100, 100, 100, 100]);
  });

  it("stops between items when aborted", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const controller = new AbortController();
    const mock = StreamingMock.fromTextChunks(["a", "b", "c"], { itemDelayMs: 10 });
    const seen: string[] = [];
    const consume = async () => {
      for await (const item of mock.stream(request, { clock, signal: controller.signal })) {
        if (item.type === "text_delta") {
          seen.push(item.text);
          controller.abort();
        }
      }
    };
    const error = await consume().catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(seen).toEqual(["a"]);
  });

  it("refuses an already-aborted call without consuming a script", async () => {
    const controller = new AbortController();
    controller.abort();
    const mock = StreamingMock.fromTextChunks(["a"]);
    const error = await mock.invoke(request, { signal: controller.signal }).catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(mock.remaining).toBe(1);
  });
});
