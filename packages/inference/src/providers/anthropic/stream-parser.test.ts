import { describe, expect, it } from "vitest";
import { collectStream } from "../../model/stream-accumulator.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import { AnthropicStreamParser } from "./stream-parser.js";

type Event = Record<string, unknown> & { type: string };

function run(events: Event[], end = true): ModelStreamItem[] {
  const parser = new AnthropicStreamParser();
  const items: ModelStreamItem[] = [];
  for (const event of events) items.push(...parser.push({ event: event.type, data: JSON.stringify(event) }));
  if (end) items.push(...parser.end());
  return items;
}

const start = (
  id = "msg_1",
  usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 },
): Event => ({
  type: "message_start",
  message: {
    id,
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [],
    stop_reason: null,
    usage,
  },
});
const stop: Event = { type: "message_stop" };

describe("AnthropicStreamParser", () => {
  it("takes message_delta usage as cumulative: later values replace earlier ones, nulls keep them", async () => {
    const items = run([
      start("msg_1", { input_tokens: 43, cache_read_input_tokens: 100, output_tokens: 1 }),
      {
        type: "message_delta",
        delta: { stop_reason: "max_tokens" },
        usage: { input_tokens: 61, cache_read_input_tokens: null, output_tokens: 5 },
      },
      { type: "message_delta", delta: {}, usage: { output_tokens: 9 } },
      stop,
    ]);
    const response = await collectStream(items);
    expect(response.usage).toMatchObject({
      inputTokens: 161,
      outputTokens: 9,
      cacheReadTokens: 100,
      totalTokens: 170,
    });
    expect(response.finishReason).toBe("length");
    expect(response.raw).toMatchObject({
      id: "msg_1",
      stop_reason: "max_tokens",
      usage: { input_tokens: 61 },
    });
  });

  it("ignores ping, unknown events, unknown blocks and deltas, and a repeated message_start", async () => {
    const items = run([
      start(),
      { type: "ping" },
      start(),
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "server_tool_use", id: "srv", name: "web_search", input: {} },
      },
      { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation: {} } },
      { type: "content_block_stop", index: 0 },
      { type: "brand_new_event", whatever: 1 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "Hi" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: " there" } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } },
      stop,
    ]);
    expect(items.filter((i) => i.type === "start")).toHaveLength(1);
    const response = await collectStream(items);
    expect(response.message).toEqual({
      role: "assistant",
      id: "msg_1",
      content: [{ type: "text", text: "Hi there" }],
      toolCalls: [],
    });
  });

  it("treats a second, different message_start as an error", () => {
    const items = run([start("msg_1"), start("msg_2")]);
    expect(items.at(-1)).toMatchObject({ type: "error", retryable: true });
  });

  it("uses a tool input given whole in content_block_start when no deltas follow", async () => {
    const items = run([
      start(),
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
      },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 3 } },
      stop,
    ]);
    const response = await collectStream(items);
    expect(response.message.toolCalls).toEqual([{ id: "toolu_1", name: "f", arguments: { a: 1 } }]);
    expect(response.finishReason).toBe("tool_calls");
  });

  it("keeps consecutive thinking blocks apart by their signatures", async () => {
    const thinking = (index: number, text: string, signature: string): Event[] => [
      {
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: text } },
      { type: "content_block_delta", index, delta: { type: "signature_delta", signature } },
      { type: "content_block_stop", index },
    ];
    const items = run([start(), ...thinking(0, "first", "sig-1"), ...thinking(1, "second", "sig-2"), stop]);
    const response = await collectStream(items);
    expect(response.message.content).toEqual([
      { type: "reasoning", text: "first", signature: "sig-1" },
      { type: "reasoning", text: "second", signature: "sig-2" },
    ]);
  });

  it("reports a stream that ends without message_stop, and data that is not JSON", () => {
    expect(run([start()]).at(-1)).toMatchObject({ type: "error", retryable: true });
    const parser = new AnthropicStreamParser();
    expect(parser.push({ data: "{not json" })).toEqual([
      expect.objectContaining({ type: "error", retryable: false }),
    ]);
    expect(parser.done).toBe(true);
    expect(parser.push({ data: JSON.stringify(stop) })).toEqual([]);
  });

  it("maps error events: overloaded is retryable, invalid requests are not", () => {
    const overloaded = run([
      start(),
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    ]);
    expect(overloaded.at(-1)).toEqual({
      type: "error",
      message: "Anthropic stream error (overloaded_error): Overloaded",
      providerCode: "overloaded_error",
      retryable: true,
      kind: "upstream_unhealthy",
      provider: "anthropic",
    });
    const invalid = run([
      { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } },
    ]);
    expect(invalid.at(-1)).toMatchObject({ retryable: false, providerCode: "invalid_request_error" });
    expect(invalid).toHaveLength(1);
  });
});
