import {
  collectStream,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  ProviderError,
  TinyAgentsError,
  text,
  toolCall,
  usage,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { rejection } from "../../test/support/thrown.js";
import { ScriptedModel } from "./scripted-model.js";

const request = (content = "hi"): ModelRequest => ({ messages: [user(content)] });

async function collectItems(items: AsyncIterable<ModelStreamItem>): Promise<ModelStreamItem[]> {
  const out: ModelStreamItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("ScriptedModel", () => {
  it("answers strictly in FIFO order from every kind of step", async () => {
    const providerError = new ProviderError({
      provider: "scripted",
      message: "overloaded",
      kind: "upstream_unhealthy",
    });
    const full: ModelResponse = {
      message: { role: "assistant", content: [], toolCalls: [] },
      finishReason: "length",
    };
    const model = new ScriptedModel([
      "first",
      { toolCalls: [{ name: "search", arguments: { q: "x" } }], text: "looking" },
      full,
      providerError,
      (req, call) => `echo ${text(req.messages[0])} #${call}`,
      async () => ({ toolCalls: [{ name: "a" }, { name: "b", id: "mine" }] }),
    ]);
    expect(model.provider).toBe("scripted");
    expect(text((await model.invoke(request())).message)).toBe("first");
    const second = await model.invoke(request());
    expect(second.message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "looking" }],
      toolCalls: [toolCall("call-1", "search", { q: "x" })],
    });
    expect(second.finishReason).toBe("tool_calls");
    const third = await model.invoke(request());
    expect(third).toEqual(full);
    expect(third).not.toBe(full);
    await expect(model.invoke(request())).rejects.toBe(providerError);
    expect(text((await model.invoke(request("ping"))).message)).toBe("echo ping #5");
    const sixth = await model.invoke(request());
    expect(sixth.message.content).toEqual([]);
    expect(sixth.message.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ["call-2", "a", {}],
      ["mine", "b", {}],
    ]);
    expect(model.callCount).toBe(6);
    model.assertConsumed();
  });

  it("throws an actionable validation error when the script is exhausted", async () => {
    const model = new ScriptedModel(["only"], { modelId: "planner" });
    await model.invoke(request());
    const error = await rejection(model.invoke(request()));
    expect(error.code).toBe("validation");
    expect(error.message).toContain(
      'ScriptedModel "planner": script exhausted after 1 call(s); add more steps',
    );
    expect(model.requests).toHaveLength(2);
  });

  it("assertConsumed throws while steps remain", async () => {
    const model = new ScriptedModel(["a", "b", "c"]);
    await model.invoke(request());
    expect(() => model.assertConsumed()).toThrow("2 scripted step(s) left unconsumed after 1 call(s)");
    model.push("d");
    expect(model.remaining).toBe(3);
  });

  it("records deep copies of requests", async () => {
    const model = new ScriptedModel(["ok"]);
    const req: ModelRequest = { messages: [user("original")], metadata: { tag: "a" } };
    await model.invoke(req);
    req.messages.push(user("later"));
    (req.messages[0]?.content[0] as { text: string }).text = "mutated";
    expect(model.requests).toEqual([{ messages: [user("original")], metadata: { tag: "a" } }]);
  });

  it("applies default usage to generated responses, and shorthand usage wins", async () => {
    const model = new ScriptedModel(["a", { toolCalls: [], text: "b", usage: usage({ inputTokens: 9 }) }], {
      usage: usage({ inputTokens: 1, outputTokens: 2 }),
      modelId: "m",
    });
    expect((await model.invoke(request())).usage?.totalTokens).toBe(3);
    expect((await model.invoke(request())).usage?.inputTokens).toBe(9);
  });

  it("streams fragmented items that rebuild to the same response invoke gives", async () => {
    const steps = [
      "Hello there, streaming world!",
      {
        toolCalls: [{ name: "search", arguments: { query: "cats", limit: 3 } }, { name: "noop" }],
        text: "Let me look",
      },
      {
        message: {
          role: "assistant",
          content: [
            { type: "reasoning", text: "thinking hard", signature: "sig" },
            { type: "text", text: "answer" },
          ],
          toolCalls: [],
          id: "msg-1",
        },
        usage: usage({ inputTokens: 5, outputTokens: 7 }),
        finishReason: "stop",
      } satisfies ModelResponse,
    ];
    const invoked = new ScriptedModel(steps);
    const streamed = new ScriptedModel(steps);
    for (let i = 0; i < steps.length; i++) {
      const expected = await invoked.invoke(request());
      const items = await collectItems(streamed.stream(request()));
      expect(await collectStream(items)).toEqual(expected);
      expect(items[0]).toMatchObject({ type: "start", model: "scripted" });
    }
    const textItems = await collectItems(new ScriptedModel(["Hello there"]).stream(request()));
    expect(textItems.filter((item) => item.type === "text_delta")).toEqual([
      { type: "text_delta", text: "Hello " },
      { type: "text_delta", text: "there" },
    ]);
    const callItems = await collectItems(
      new ScriptedModel([{ toolCalls: [{ name: "search", arguments: { query: "cats" } }] }]).stream(
        request(),
      ),
    );
    const fragments = callItems.filter((item) => item.type === "tool_call_delta");
    expect(fragments).toHaveLength(3);
    expect(fragments[0]).toMatchObject({ index: 0, id: "call-1", name: "search" });
    expect(fragments[1]).toEqual({ type: "tool_call_delta", index: 0, argumentsDelta: expect.any(String) });
  });

  it("throws a scripted error from stream before any item", async () => {
    const model = new ScriptedModel([new TinyAgentsError("provider", "boom")]);
    await expect(collectItems(model.stream(request()))).rejects.toThrow("boom");
  });

  it("refuses an already-aborted call without consuming a step", async () => {
    const model = new ScriptedModel(["a"]);
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(model.invoke(request(), { signal: controller.signal }));
    expect(error.code).toBe("cancelled");
    expect(model.remaining).toBe(1);
    expect(model.requests).toEqual([]);
  });

  it("cancels while a function step is pending", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([() => new Promise<string>(() => {})]);
    const call = model.invoke(request(), { signal: controller.signal });
    controller.abort();
    expect((await rejection(call)).code).toBe("cancelled");
  });

  it("keeps a TinyAgentsError abort reason (a harness timeout stays a timeout)", async () => {
    const controller = new AbortController();
    controller.abort(new TinyAgentsError("timeout", "model call timed out"));
    const error = await rejection(new ScriptedModel(["a"]).invoke(request(), { signal: controller.signal }));
    expect(error.code).toBe("timeout");
  });

  it("cancels between stream items", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel(["a long answer to stream"]);
    const seen: ModelStreamItem[] = [];
    const consume = async () => {
      for await (const item of model.stream(request(), { signal: controller.signal })) {
        seen.push(item);
        if (item.type === "text_delta") controller.abort();
      }
    };
    expect((await rejection(consume())).code).toBe("cancelled");
    expect(seen.filter((item) => item.type === "text_delta")).toHaveLength(1);
  });
});
