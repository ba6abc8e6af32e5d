import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import { InMemoryChatHistory } from "../memory/chat-history.js";
import { AgentRunError } from "../runtime/run-result.js";
import { FakeTool } from "./fake-tool.js";
import { runScript } from "./run-script.js";

// runScript is the front door in one line: `createAgent` + `agent.run` / `agent.stream`, with the
// run options of `agent.run`. These tests pin what it takes from the front door (its option
// checks, its stream items) and what it adds (a failure returned, not thrown).

const lookup = () => FakeTool.returning("lookup", "found");
const askThenAnswer = [{ toolCalls: [{ name: "lookup", arguments: { q: "x" } }] }, "done"];

describe("runScript", () => {
  it("runs with agent.run's options: run id, tags, per-run limits, onEvent beside the recorder", async () => {
    const seen: EventRecord[] = [];
    const { run, status, error, events, model } = await runScript({
      script: askThenAnswer,
      tools: [lookup()],
      policy: { limits: { maxModelCalls: 10 } },
      runOptions: {
        runId: "r-9",
        tags: ["nightly"],
        limits: { maxModelCalls: 1 },
        onEvent: (r) => seen.push(r),
      },
    });
    expect(run.runId).toBe("r-9");
    expect(status.tags).toEqual(["nightly"]);
    // The per-run cap wins over the agent's policy: the second model call is over it.
    expect(error?.code).toBe("limit_exceeded");
    expect(error?.details).toEqual({ limit: "model_calls", value: 1, count: 2 });
    expect(model.callCount).toBe(1);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual(events.records);
    expect(events.types().at(-1)).toBe("run.failed");
  });

  it("returns a failed run's own error and partial run instead of throwing", async () => {
    for (const streaming of [false, true]) {
      const { run, status, error, items } = await runScript({
        script: [new Error("bug in adapter")],
        streaming,
      });
      expect(error).toBeInstanceOf(TinyAgentsError);
      // The run's error itself, not the AgentRunError agent.run wraps it in.
      expect(AgentRunError.isAgentRunError(error)).toBe(false);
      expect(error?.code).toBe("provider");
      expect(status.status).toBe("failed");
      expect(status.error).toEqual(error?.toJSON());
      expect(run.messages.map((m) => m.role)).toEqual(["user"]);
      expect(items.some((i) => i.type === "completed")).toBe(false);
    }
  });

  it("refuses what agent.run refuses: a thread without memory, an unknown option", async () => {
    await expect(runScript({ script: ["ok"], runOptions: { threadId: "t-1" } })).rejects.toMatchObject({
      code: "validation",
      details: { field: "threadId" },
    });
    await expect(
      runScript({ script: ["ok"], runOptions: { threadID: "t-1" } as unknown as { threadId: string } }),
    ).rejects.toMatchObject({ code: "validation", details: { field: "threadID" } });
  });

  it("a thread with memory is kept, as agent.run keeps it", async () => {
    const history = new InMemoryChatHistory();
    const { run, error } = await runScript({
      script: ["Hello again."],
      input: "Hello",
      harnessOptions: { memory: { history } },
      runOptions: { threadId: "t-1" },
    });
    expect(error).toBeUndefined();
    expect(run.threadId).toBe("t-1");
    expect((await history.load("t-1")).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("streaming: the items are agent.stream's, ending with the completed result; the run is the unary one", async () => {
    const unary = await runScript({ script: askThenAnswer, tools: [lookup()] });
    const streamed = await runScript({ script: askThenAnswer, tools: [lookup()], streaming: true });
    const last = streamed.items.at(-1);
    expect(last?.type).toBe("completed");
    if (last?.type !== "completed") return;
    expect(last.result.text).toBe("done");
    expect(last.result.runId).toBe("run-1");
    // Every event reached both the stream and the recorder, in order.
    expect(streamed.items.flatMap((i) => (i.type === "event" ? [i.record] : []))).toEqual(
      streamed.events.records,
    );
    expect(streamed.run).toEqual(unary.run);
    // `run` is the loop's run: `text` and `status` are agent.run's additions, returned apart.
    expect("text" in streamed.run).toBe(false);
    expect("status" in unary.run).toBe(false);
    expect(unary.items).toEqual([]);
  });
});
