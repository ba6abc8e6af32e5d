/**
 * Threads mean history (issue 35): a `threadId` on the front door of an agent without memory is
 * a typed `validation` error saying how to add memory, never accepted and ignored; with memory,
 * README's "And in Porto?" turn sees the earlier turns of its thread.
 */
import { createAgent, InMemoryChatHistory } from "@tinyagents/harness";
import { DeterministicClock, DeterministicIds, ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";

const deterministic = () => ({ clock: new DeterministicClock(), ids: new DeterministicIds() });

describe("threadId without memory", () => {
  it("run() rejects with a validation error that says how to add memory", async () => {
    const agent = createAgent({ model: new ScriptedModel(["hi"]), ...deterministic() });
    const error = await agent.run("hello", { threadId: "chat-1" }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(TinyAgentsError.isInstance(error)).toBe(true);
    const typed = error as TinyAgentsError;
    expect(typed.code).toBe("validation");
    expect(typed.details).toMatchObject({ field: "threadId" });
    expect(typed.message).toContain("memory: { history: new InMemoryChatHistory()");
  });

  it("stream() throws at the call, before any model call", () => {
    const model = new ScriptedModel(["hi"]);
    const agent = createAgent({ model, ...deterministic() });
    expect(() => agent.stream("hello", { threadId: "chat-1" })).toThrow(/needs memory/);
    expect(model.requests).toHaveLength(0);
  });

  it("a run without threadId needs no memory", async () => {
    const agent = createAgent({ model: new ScriptedModel(["hi"]), ...deterministic() });
    expect((await agent.run("hello")).text).toBe("hi");
  });
});

describe("threadId with memory", () => {
  it("each turn of a thread sees the earlier ones (README's Lisbon, then Porto)", async () => {
    const model = new ScriptedModel(["Sunny in Lisbon.", "Rainy in Porto.", "Lisbon was sunnier."]);
    const agent = createAgent({
      model,
      memory: { history: new InMemoryChatHistory(), maxMessages: 100 },
      ...deterministic(),
    });
    await agent.run("Weather in Lisbon?", { threadId: "chat-1" });
    const stream = agent.stream("And in Porto?", { threadId: "chat-1" });
    let streamed = "";
    for await (const chunk of stream.textStream) streamed += chunk;
    expect(streamed).toBe("Rainy in Porto.");
    await agent.run("Which was sunnier?", { threadId: "chat-1" });
    expect(model.requests.map((r) => r.messages.length)).toEqual([1, 3, 5]);
  });
});
