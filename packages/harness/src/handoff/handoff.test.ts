import { describe, expect, it } from "vitest";
import { InMemoryChatHistory } from "../memory/chat-history.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { runScript } from "../testkit/run-script.js";
import { largeResultHandoff, readHandoffTool } from "./handoff-middleware.js";
import { createHandoff, HandoffStore, handoffMessage } from "./handoff-record.js";
import { ResultHandoffCache } from "./result-handoff-cache.js";

describe("handoff records", () => {
  it("captures a run's summary, artifacts and open questions; round-trips through a store", async () => {
    const { run } = await runScript({
      script: ["The answer is 42."],
      // A thread needs memory (agent.run refuses a thread it could not keep).
      harnessOptions: { memory: { history: new InMemoryChatHistory(), maxMessages: 10 } },
      runOptions: { runId: "r-7", threadId: "t" },
    });
    run.artifacts = ["artifact-1"];
    const record = createHandoff(run, { openQuestions: ["Is 42 final?"], createdAt: 1 });
    expect(record).toEqual({
      id: "handoff-r-7",
      fromRunId: "r-7",
      threadId: "t",
      summary: "The answer is 42.",
      artifacts: ["artifact-1"],
      openQuestions: ["Is 42 final?"],
      createdAt: 1,
      metadata: {},
    });
    const store = new HandoffStore(new InMemoryKeyValueStore());
    await store.save(record);
    expect(await store.load("handoff-r-7")).toEqual(record);
    expect(handoffMessage(record).content).toEqual([
      {
        type: "text",
        text: "[handoff from run r-7]\nSummary: The answer is 42.\nArtifacts: artifact-1\nOpen questions:\n- Is 42 final?",
      },
    ]);
  });

  it("refuses to hand off a run without a summary", async () => {
    const { run } = await runScript({ script: [""] });
    expect(() => createHandoff(run)).toThrow(/no final answer to hand off/);
  });
});

describe("large-result handoff cache", () => {
  it("replaces an oversized tool output with a preview and a reference the model can page through", async () => {
    const cache = new ResultHandoffCache({ thresholdBytes: 100, previewChars: 20 });
    const huge = "0123456789".repeat(30);
    const { run, events, error } = await runScript({
      script: [
        { toolCalls: [{ name: "dump" }] },
        { toolCalls: [{ name: "read_handoff", arguments: { ref: "handoff-1", offset: 20, length: 15 } }] },
        "done",
      ],
      tools: [FakeTool.returning("dump", huge), readHandoffTool(cache)],
      middleware: [largeResultHandoff(cache)],
    });
    expect(error).toBeUndefined();
    const [dump, page] = run.messages.filter((m) => m.role === "tool");
    const dumpText = dump?.content[0]?.type === "text" ? dump.content[0].text : "";
    expect(dumpText.startsWith("01234567890123456789\n\n[output truncated: 300 bytes")).toBe(true);
    expect(dumpText).toContain('handoff reference "handoff-1"');
    expect(page?.content).toEqual([
      { type: "text", text: "012345678901234\n[continues at offset 35 of 300]" },
    ]);
    expect(cache.get("handoff-1")).toBe(huge);
    expect(events.ofType("handoff.offloaded")).toEqual([
      { type: "handoff.offloaded", callId: "call-1", toolName: "dump", bytes: 300, ref: "handoff-1" },
    ]);
  });

  it("is a bounded FIFO; an evicted reference is a clear error", () => {
    const cache = new ResultHandoffCache({ maxEntries: 2 });
    const first = cache.put("a");
    cache.put("b");
    cache.put("c");
    expect(cache.get(first)).toBeUndefined();
    expect(() => cache.read(first)).toThrow(/unknown or expired.*last 2 outputs/);
    expect(cache.read("handoff-3")).toEqual({ ref: "handoff-3", text: "c", offset: 0, total: 1, done: true });
  });

  it("leaves small results untouched", () => {
    const cache = new ResultHandoffCache();
    const result = {
      callId: "c",
      toolName: "t",
      content: [{ type: "text" as const, text: "small" }],
      isError: false,
      elapsedMs: 0,
    };
    expect(cache.offload(result)).toBe(result);
  });
});
