import { describe, expect, it } from "vitest";
import { ProviderError } from "../../errors/provider-error.js";
import { TinyAgentsError } from "../../errors/tinyagents-error.js";
import { drain } from "../../http/test-streams.fixture.js";
import { assistant, system, text, user } from "../../message/constructors.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
import { collectStream } from "../../model/stream-accumulator.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import { defaultTokenCounter } from "../../tokens/char-estimator.js";
import { MockModel } from "./mock-model.js";

const request: ModelRequest = {
  messages: [system("be brief"), user("first"), assistant("ok"), user("ping pong")],
};

describe("MockModel", () => {
  it("echo replies with the last user message and synthetic usage", async () => {
    const model = MockModel.echo();
    const response = await model.invoke(request);
    expect(text(response.message)).toBe("ping pong");
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toMatchObject({
      inputTokens: defaultTokenCounter.countMessages(request.messages),
      outputTokens: defaultTokenCounter.countText("ping pong"),
    });
    expect(model.provider).toBe("mock");
    expect(model.modelId).toBe("mock");
    expect(model.requests).toStrictEqual([request]);
    expect(text((await model.invoke({ messages: [] })).message)).toBe("");
  });

  it("constant always says the same thing; modelId is configurable", async () => {
    const model = MockModel.constant("42", { modelId: "deep-thought" });
    expect(text((await model.invoke(request)).message)).toBe("42");
    expect(text((await model.invoke(request)).message)).toBe("42");
    expect(model.modelId).toBe("deep-thought");
    expect(model.cacheIdentity).toBe("mock:deep-thought");
    expect(model.calls).toBe(2);
  });

  it("scripted replies in order, then throws a non-retryable ProviderError", async () => {
    const scripted: ModelResponse = {
      message: assistant("second", [{ id: "c1", name: "t", arguments: {} }]),
    };
    const model = MockModel.scripted(["first", scripted]);
    expect(text((await model.invoke(request)).message)).toBe("first");
    const second = await model.invoke(request);
    expect(second.message.toolCalls).toHaveLength(1);
    expect(second.finishReason).toBe("tool_calls");
    expect(second.usage?.outputTokens).toBe(defaultTokenCounter.countText("second"));
    second.message.content.length = 0;
    expect(scripted.message.content).toHaveLength(1);
    await expect(model.invoke(request)).rejects.toSatisfy(
      (e) =>
        ProviderError.isProviderError(e) &&
        e.kind === "non_retryable" &&
        e.code === "provider" &&
        e.message.startsWith("MockModel script exhausted after 2 calls"),
    );
  });

  it("scripted keeps given usage and cycles when asked", async () => {
    const usage = {
      inputTokens: 1,
      outputTokens: 1,
      totalTokens: 2,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
    const model = MockModel.scripted([{ message: assistant("a"), usage, finishReason: "length" }, "b"], {
      cycle: true,
    });
    const replies: string[] = [];
    for (let i = 0; i < 5; i++) replies.push(text((await model.invoke(request)).message));
    expect(replies).toStrictEqual(["a", "b", "a", "b", "a"]);
    expect((await model.invoke(request)).usage).not.toStrictEqual(usage);
    const first = await MockModel.scripted([
      { message: assistant("a"), usage, finishReason: "length" },
    ]).invoke(request);
    expect(first.usage).toStrictEqual(usage);
    expect(first.finishReason).toBe("length");
    await expect(MockModel.scripted([], { cycle: true }).invoke(request)).rejects.toThrow(
      /exhausted after 0 calls/,
    );
  });

  it("toolCall always calls the tool with numbered ids", async () => {
    const model = MockModel.toolCall("search", { q: "x" });
    const a = await model.invoke(request);
    const b = await model.invoke(request);
    expect(a.message.toolCalls).toStrictEqual([{ id: "mock-call-1", name: "search", arguments: { q: "x" } }]);
    expect(b.message.toolCalls[0]?.id).toBe("mock-call-2");
    expect(a.finishReason).toBe("tool_calls");
    expect(a.usage?.outputTokens).toBe(defaultTokenCounter.countText('search{"q":"x"}'));
  });

  it("stream splits the text in two and accumulates to what invoke returns", async () => {
    const model = MockModel.constant("hello world");
    const items = await drain(model.stream(request));
    expect(items.filter((i) => i.type === "text_delta")).toStrictEqual([
      { type: "text_delta", text: "hello" },
      { type: "text_delta", text: " world" },
    ]);
    expect(await collectStream(model.stream(request))).toStrictEqual(await model.invoke(request));
    const emoji = await drain(MockModel.constant("😀").stream(request));
    expect(emoji.filter((i) => i.type === "text_delta")).toStrictEqual([{ type: "text_delta", text: "😀" }]);
  });

  it("streamingScript replays its items verbatim; invoke accumulates them", async () => {
    const items: ModelStreamItem[] = [
      { type: "start", id: "s1" },
      { type: "text_delta", text: "a" },
      { type: "tool_call_delta", index: 0, id: "c", name: "t", argumentsDelta: '{"x":1}' },
      { type: "finish", finishReason: "tool_calls" },
    ];
    const model = MockModel.streamingScript(items);
    expect(await drain(model.stream(request))).toStrictEqual(items);
    expect(await drain(model.stream(request))).toStrictEqual(items);
    const response = await model.invoke(request);
    expect(response.message).toStrictEqual({
      role: "assistant",
      id: "s1",
      content: [{ type: "text", text: "a" }],
      toolCalls: [{ id: "c", name: "t", arguments: { x: 1 } }],
    });
    expect(model.calls).toBe(3);
    const failing = MockModel.streamingScript([
      { type: "error", message: "overloaded", status: 529, retryable: true },
    ]);
    await expect(failing.invoke(request)).rejects.toSatisfy(
      (e) => ProviderError.isProviderError(e) && e.kind === "upstream_unhealthy" && e.provider === "mock",
    );
  });

  it("honours an aborted signal in invoke and mid-stream", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(MockModel.echo().invoke(request, { signal: controller.signal })).rejects.toSatisfy((e) =>
      TinyAgentsError.isInstance(e, "cancelled"),
    );
    const live = new AbortController();
    const seen: ModelStreamItem[] = [];
    const run = async () => {
      for await (const item of MockModel.constant("abcdef").stream(request, { signal: live.signal })) {
        seen.push(item);
        if (item.type === "text_delta") live.abort();
      }
    };
    await expect(run()).rejects.toSatisfy((e) => TinyAgentsError.isInstance(e, "cancelled"));
    expect(seen.filter((i) => i.type === "text_delta")).toHaveLength(1);
  });
});
