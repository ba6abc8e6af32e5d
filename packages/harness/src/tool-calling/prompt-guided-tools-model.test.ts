import {
  collectStream,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  permissiveProfile,
  type ToolSchema,
  text,
  toolResult,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { drain } from "../../../inference/src/http/test-streams.fixture.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { StreamingMock } from "../testkit/streaming-mock.js";
import { PromptGuidedToolsModel, withPromptToolsFallback } from "./prompt-guided-tools-model.js";
import { promptToolInstructions } from "./prompt-tool-instructions.js";

const WEATHER: ToolSchema = {
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const request: ModelRequest = { messages: [user("Weather in Paris and Oslo?")], tools: [WEATHER] };
const REPLY =
  'Let me check both.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n' +
  '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}</tool_call>';

const refusal = () =>
  new ProviderError({
    provider: "ollama",
    kind: "non_retryable",
    status: 400,
    message:
      "ollama returned HTTP 400 (api_error): registry.ollama.ai/library/gemma:2b does not support tools.",
  });

function wrap(inner: ConstructorParameters<typeof PromptGuidedToolsModel>[0], fallback = false) {
  return new PromptGuidedToolsModel(inner, {
    ids: new DeterministicIds(),
    ...(fallback ? { mode: "fallback" } : {}),
  });
}

describe("PromptGuidedToolsModel", () => {
  it("declares tools in the system prompt, strips them from the wire and parses calls back", async () => {
    const inner = new ScriptedModel([REPLY]);
    const response = await wrap(inner).invoke(request);
    expect(inner.requests[0]).toEqual({
      messages: [
        { role: "system", content: [{ type: "text", text: promptToolInstructions([WEATHER]) }] },
        user("Weather in Paris and Oslo?"),
      ],
    });
    expect(response.message.toolCalls).toEqual([
      { id: "ptc-1", name: "get_weather", arguments: { city: "Paris" } },
      { id: "ptc-2", name: "get_weather", arguments: { city: "Oslo" } },
    ]);
    expect(text(response.message)).toBe("Let me check both.");
    expect(response.finishReason).toBe("tool_calls");
  });

  it("streams scrubbed text and gives exactly what invoke gives, however the reply is split", async () => {
    const expected = await wrap(new ScriptedModel([REPLY])).invoke(request);
    for (const size of [1, 2, 3, 7, 50]) {
      const chunks: string[] = [];
      for (let i = 0; i < REPLY.length; i += size) chunks.push(REPLY.slice(i, i + size));
      const items = await drain(wrap(StreamingMock.fromTextChunks(chunks)).stream(request));
      for (const item of items)
        if (item.type === "text_delta") expect(item.text).not.toMatch(/<|tool_call|\{/);
      const streamed = await collectStream(items);
      expect(streamed.message).toEqual(expected.message);
      expect(streamed.finishReason).toBe("tool_calls");
    }
  });

  it("keeps invalid arguments invalid, identically in invoke and stream", async () => {
    const reply = '<tool_call>{"name": "get_weather", "arguments": "city=Paris"}</tool_call>';
    const invoked = await wrap(new ScriptedModel([reply])).invoke(request);
    const streamed = await collectStream(wrap(StreamingMock.fromTextChunks([reply])).stream(request));
    expect(invoked.message.toolCalls[0]).toMatchObject({
      id: "ptc-1",
      arguments: {},
      invalid: { raw: "city=Paris" },
    });
    expect(streamed.message).toEqual(invoked.message);
  });

  it("coalesces earlier tool turns into text on the next call", async () => {
    const inner = new ScriptedModel([REPLY, "Paris 18C, Oslo 9C."]);
    const model = wrap(inner);
    const first = await model.invoke(request);
    const [paris, oslo] = first.message.toolCalls;
    const second = await model.invoke({
      ...request,
      messages: [...request.messages, first.message, toolResult(paris!, "18C"), toolResult(oslo!, "9C")],
    });
    expect(text(second.message)).toBe("Paris 18C, Oslo 9C.");
    expect(second.message.toolCalls).toEqual([]);
    expect(second.finishReason).toBe("stop");
    const sent = inner.requests[1]!;
    expect(sent.tools).toBeUndefined();
    expect(sent.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(sent.messages.some((m) => m.role === "assistant" && m.toolCalls.length > 0)).toBe(false);
    expect(text(sent.messages[3])).toBe(
      '<tool_result name="get_weather">\n18C\n</tool_result><tool_result name="get_weather">\n9C\n</tool_result>',
    );
  });

  it("does not parse replies to requests that offer no tools", async () => {
    const reply = '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>';
    const none = await wrap(new ScriptedModel([reply])).invoke({ ...request, toolChoice: "none" });
    expect(none.message.toolCalls).toEqual([]);
    expect(text(none.message)).toBe(reply);
    const inner = new ScriptedModel([reply]);
    const items = await drain(wrap(inner).stream({ messages: [user("hi")] }));
    expect((await collectStream(items)).message.toolCalls).toEqual([]);
    expect(inner.requests[0]?.messages).toEqual([user("hi")]);
  });

  it("keeps native calls and reasoning, numbering parsed calls after them", async () => {
    const native: ModelResponse = {
      message: {
        role: "assistant",
        content: [
          { type: "reasoning", text: "hmm" },
          { type: "text", text: REPLY },
        ],
        toolCalls: [{ id: "n1", name: "get_weather", arguments: { city: "Rome" } }],
      },
      finishReason: "tool_calls",
    };
    const invoked = await wrap(new ScriptedModel([native])).invoke(request);
    expect(invoked.message.content).toEqual([
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "Let me check both." },
    ]);
    expect(invoked.message.toolCalls.map((c) => c.id)).toEqual(["n1", "ptc-1", "ptc-2"]);
    const streamed = await collectStream(wrap(new ScriptedModel([native])).stream(request));
    expect(streamed.message).toEqual(invoked.message);
  });

  it("exposes the inner identity with a prompt-tools suffix and a profile claiming tools", () => {
    const inner = new ScriptedModel([], {
      profile: {
        ...permissiveProfile(),
        capabilities: { ...permissiveProfile().capabilities, tools: false },
      },
    });
    const model = wrap(inner);
    expect([model.provider, model.modelId, model.cacheIdentity]).toEqual([
      "scripted",
      "scripted",
      "scripted:scripted|prompt-tools",
    ]);
    expect(model.profile?.capabilities.tools).toBe(true);
    expect(model.promptGuided).toBe(true);
  });
});

describe("PromptGuidedToolsModel in fallback mode", () => {
  it("sends tools natively while the endpoint accepts them", async () => {
    const inner = new ScriptedModel([{ toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] }]);
    const model = wrap(inner, true);
    const response = await model.invoke(request);
    expect(response.message.toolCalls[0]?.id).toBe("call-1");
    expect(inner.requests[0]).toEqual(request);
    expect(model.promptGuided).toBe(false);
    expect(model.cacheIdentity).toBe("scripted:scripted");
  });

  it("retries a refused call prompt-guided and stays prompt-guided (latched)", async () => {
    const inner = new ScriptedModel([refusal(), REPLY, REPLY]);
    const model = wrap(inner, true);
    const first = await model.invoke(request);
    expect(first.message.toolCalls.map((c) => c.id)).toEqual(["ptc-1", "ptc-2"]);
    expect(inner.requests.map((r) => r.tools === undefined)).toEqual([false, true]);
    expect(model.promptGuided).toBe(true);
    await model.invoke(request);
    expect(inner.requests).toHaveLength(3);
    expect(inner.requests[2]?.tools).toBeUndefined();
    inner.assertConsumed();
  });

  it("falls back in stream too, before any item was yielded", async () => {
    const inner = new ScriptedModel([refusal(), REPLY]);
    const response = await collectStream(wrap(inner, true).stream(request));
    expect(response.message.toolCalls.map((c) => c.arguments)).toEqual([{ city: "Paris" }, { city: "Oslo" }]);
    expect(inner.requests[1]?.tools).toBeUndefined();
  });

  it("shares the latch between wrappers of one endpoint", async () => {
    const latch = new Set<string>();
    const inner = new ScriptedModel([refusal(), REPLY, REPLY]);
    await withPromptToolsFallback(inner, { latch }).invoke(request);
    const other = withPromptToolsFallback(inner, { latch });
    expect(other.promptGuided).toBe(true);
    await other.invoke(request);
    expect(inner.requests.map((r) => r.tools === undefined)).toEqual([false, true, true]);
  });

  it("lets other errors through, including a 400 about a malformed tool schema", async () => {
    const schemaError = new ProviderError({
      provider: "openai",
      kind: "non_retryable",
      status: 400,
      message: "openai returned HTTP 400: Invalid 'tools[0].function.name': string does not match pattern.",
    });
    const inner = new ScriptedModel([schemaError, refusal()]);
    const model = wrap(inner, true);
    await expect(model.invoke(request)).rejects.toBe(schemaError);
    expect(model.promptGuided).toBe(false);
    // a refusal to a request without tools is not a tools problem
    await expect(model.invoke({ messages: [user("hi")] })).rejects.toThrow(/does not support tools/);
    expect(model.promptGuided).toBe(false);
  });

  it("does not parse text in native mode: the reply is the wrapped model's, untouched", async () => {
    const response = await wrap(new ScriptedModel([REPLY]), true).invoke(request);
    expect(text(response.message)).toBe(REPLY);
    expect(response.message.toolCalls).toEqual([]);
  });
});
