import { type ChatHistory, InMemoryChatHistory, runText } from "@tinyagents/harness";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { type Message, text, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting, transcript } from "./helpers.js";

describe("short-term memory", () => {
  it("round-trips a thread across two runs", async () => {
    const history = new InMemoryChatHistory();
    const { harness } = makeHarness({ memory: { history }, instructions: "You are helpful." });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "remember", arguments: { fact: "blue" } }] },
      "Noted: blue.",
      "Your favourite colour is blue.",
    ]);
    harness.registerModel("m", model).registerTool(FakeTool.returning("remember", "stored"));

    const first = await runCollecting(harness, "My favourite colour is blue.", { threadId: "t1" });
    expect(first.error).toBeUndefined();
    expect(first.events.ofType("memory.loaded")).toEqual([
      { type: "memory.loaded", threadId: "t1", messages: 0 },
    ]);
    expect(first.events.ofType("memory.saved")).toEqual([
      { type: "memory.saved", threadId: "t1", messages: 4 },
    ]);
    expect(first.events.ofType("run.started")[0]).toEqual({ type: "run.started", input: 1, threadId: "t1" });
    const stored = await history.load("t1");
    expect(stored).toEqual(first.run.messages);
    // The system prompt is never stored.
    expect(stored.some((m) => m.role === "system")).toBe(false);

    const second = await runCollecting(harness, "What is my favourite colour?", { threadId: "t1" });
    expect(second.error).toBeUndefined();
    expect(runText(second.run)).toBe("Your favourite colour is blue.");
    expect(second.events.ofType("memory.loaded")).toEqual([
      { type: "memory.loaded", threadId: "t1", messages: 4 },
    ]);
    expect(second.events.ofType("memory.saved")).toEqual([
      { type: "memory.saved", threadId: "t1", messages: 2 },
    ]);
    // The second run's request holds the first run's messages, after the system prompt.
    const request = model.requests[2];
    expect(request?.messages.slice(1, 5)).toEqual(first.run.messages);
    expect(transcript(request?.messages ?? [])).toEqual([
      "system:You are helpful.",
      "user:My favourite colour is blue.",
      "assistant:",
      "tool:stored",
      "assistant:Noted: blue.",
      "user:What is my favourite colour?",
    ]);
    expect(second.run.inputStart).toBe(4);
    expect(second.run.messages.slice(0, 4)).toEqual(first.run.messages);
    expect(await history.load("t1")).toHaveLength(6);
    // Load happens before the first model call, save after the last.
    const types = second.events.types();
    expect(types.indexOf("memory.loaded")).toBeLessThan(types.indexOf("model.started"));
    expect(types.indexOf("memory.saved")).toBeGreaterThan(types.lastIndexOf("model.completed"));
    expect(types.indexOf("memory.saved")).toBeLessThan(types.indexOf("run.completed"));
  });

  it("threads are isolated and runs without a thread id skip memory", async () => {
    const history = new InMemoryChatHistory();
    const { harness } = makeHarness({ memory: { history } });
    const model = new ScriptedModel(["a", "b", "c"]);
    harness.registerModel("m", model);

    await runCollecting(harness, "in t1", { threadId: "t1" });
    const other = await runCollecting(harness, "in t2", { threadId: "t2" });
    const none = await runCollecting(harness, "no thread");

    expect(transcript(model.requests[1]?.messages ?? [])).toEqual(["user:in t2"]);
    expect(other.events.ofType("memory.loaded")[0]?.messages).toBe(0);
    expect(none.events.ofType("memory.loaded")).toEqual([]);
    expect(none.events.ofType("memory.saved")).toEqual([]);
    expect(await history.load("t1")).toHaveLength(2);
    expect(await history.load("t2")).toHaveLength(2);
  });

  it("a failing history append leaves existing history intact and fails the run with storage", async () => {
    const inner = new InMemoryChatHistory();
    const existing: Message[] = [
      user("old question"),
      { role: "assistant", content: [{ type: "text", text: "old answer" }], toolCalls: [] },
    ];
    await inner.append("t1", existing);
    const failing: ChatHistory = {
      load: (threadId) => inner.load(threadId),
      append: async () => {
        throw new Error("disk full");
      },
      clear: (threadId) => inner.clear(threadId),
    };
    const { harness } = makeHarness({ memory: { history: failing } });
    const model = new ScriptedModel(["new answer"]);
    harness.registerModel("m", model);

    const { run, error, events, status } = await runCollecting(harness, "new question", { threadId: "t1" });

    expect(error?.code).toBe("storage");
    expect(error?.message).toContain("t1");
    expect(error?.message).toContain("untouched");
    expect(error?.details).toEqual({ threadId: "t1" });
    expect((error?.cause as Error | undefined)?.message).toBe("disk full");
    expect(await inner.load("t1")).toEqual(existing);
    // The history was loaded and the model answered; the partial run keeps everything.
    expect(transcript(model.requests[0]?.messages ?? [])).toEqual([
      "user:old question",
      "assistant:old answer",
      "user:new question",
    ]);
    expect(text(run.messages.at(-1))).toBe("new answer");
    expect(events.ofType("memory.saved")).toEqual([]);
    expect(events.types().at(-1)).toBe("run.failed");
    expect(status.status).toBe("failed");
    expect(status.error?.code).toBe("storage");
  });

  it("maxMessages windows the loaded history without orphaning tool results", async () => {
    const history = new InMemoryChatHistory();
    await history.append("t", [
      user("q1"),
      { role: "assistant", content: [], toolCalls: [{ id: "x", name: "f", arguments: {} }] },
      {
        role: "tool",
        toolCallId: "x",
        toolName: "f",
        content: [{ type: "text", text: "r" }],
        isError: false,
      },
      { role: "assistant", content: [{ type: "text", text: "a1" }], toolCalls: [] },
    ]);
    const { harness } = makeHarness({ memory: { history, maxMessages: 2 } });
    const model = new ScriptedModel(["a2"]);
    harness.registerModel("m", model);
    const { events } = await runCollecting(harness, "q2", { threadId: "t" });
    // The last 2 would start at the tool result; the window skips it.
    expect(transcript(model.requests[0]?.messages ?? [])).toEqual(["assistant:a1", "user:q2"]);
    expect(events.ofType("memory.loaded")[0]?.messages).toBe(1);
  });
});
