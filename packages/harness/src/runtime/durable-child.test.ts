import { assistant, type ChatModel, type ModelRequest, text, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { ReplayDurableContext } from "../testkit/durable-conformance/replay-durable-context.js";
import { tool } from "../tool/define-tool.js";
import { createAgent } from "./create-agent.js";

/** Models that answer from the request alone (replay never calls them for recorded turns). */
function parentModel(calls: string[]): ChatModel {
  return {
    provider: "test",
    modelId: "parent",
    async invoke(request: ModelRequest) {
      calls.push("parent");
      const answer = request.messages.find((m) => m.role === "tool");
      if (answer === undefined) {
        return {
          message: assistant("", [{ id: "call_helper", name: "helper", arguments: { input: "count to 3" } }]),
          finishReason: "tool_calls",
          usage: usage({ inputTokens: 10, outputTokens: 5 }),
        };
      }
      return {
        message: assistant(`parent done: ${text(answer)}`),
        usage: usage({ inputTokens: 20, outputTokens: 5 }),
      };
    },
  };
}

function childModel(calls: string[]): ChatModel {
  return {
    provider: "test",
    modelId: "child",
    async invoke() {
      calls.push("child");
      return { message: assistant("1, 2, 3"), usage: usage({ inputTokens: 7, outputTokens: 3 }) };
    },
  };
}

function build(calls: string[]) {
  const child = createAgent({
    model: childModel(calls),
    pricing: { inputPerMillion: 1, outputPerMillion: 1 },
  });
  return createAgent({
    model: parentModel(calls),
    pricing: { inputPerMillion: 1, outputPerMillion: 1 },
    tools: [child.asTool({ name: "helper", description: "counts" })],
  });
}

describe("sub-agents of a journaled run go through durable.child", () => {
  it("the child run is one child:<runId> entry with its own steps; a replay returns it without running it, totals rolled up", async () => {
    const calls: string[] = [];
    const engine = new ReplayDurableContext();
    const first = await build(calls).run("go", { runId: "parent-1", durable: engine });
    expect(first.text).toBe("parent done: 1, 2, 3");
    expect(calls).toEqual(["parent", "child", "parent"]);
    const childStep = engine.journal.order.find((name) => name.startsWith("child:"));
    expect(childStep).toMatch(/^child:helper-d1-/);
    const childRunId = (childStep as string).slice("child:".length);
    // The child's model call is its own step inside the child; the sub-agent tool is not a tool step.
    expect(engine.journal.order).toEqual([
      "model:parent-1-model-1",
      `model:${childRunId}-model-1`,
      childStep,
      "model:parent-1-model-2",
    ]);
    expect(first.children?.map((c) => c.runId)).toEqual([childRunId]);

    // A fresh worker replays the whole journal: nothing runs again, the totals are the same.
    const again: string[] = [];
    const replay = new ReplayDurableContext({ journal: engine.journal });
    const second = await build(again).run("go", { runId: "parent-1", durable: replay });
    expect(again).toEqual([]);
    expect(replay.executed).toEqual([]);
    expect(second.messages).toEqual(first.messages);
    expect(second.usage).toEqual(first.usage);
    expect(second.cost).toEqual(first.cost);
    expect(second.usage.inputTokens).toBe(10 + 7 + 20);
    expect(second.children?.map((c) => c.runId)).toEqual([childRunId]);
  });

  it("a crash inside the child's model step re-runs only that step: the child's id is replayed, so its step names match", async () => {
    const calls: string[] = [];
    const probe = new ReplayDurableContext();
    await build([]).run("go", { runId: "parent-2", durable: probe });
    const childModelStep = probe.journal.order[1] as string;
    const first = new ReplayDurableContext({ crash: { during: childModelStep } });
    await expect(build(calls).run("go", { runId: "parent-2", durable: first })).rejects.toThrow();
    const replay = new ReplayDurableContext({ journal: first.journal });
    const again: string[] = [];
    const run = await build(again).run("go", { runId: "parent-2", durable: replay });
    expect(run.text).toBe("parent done: 1, 2, 3");
    expect(again).toEqual(["child", "parent"]);
    // The child step itself (not recorded: its run never finished), its model step, then the parent's last turn.
    const childRunId = childModelStep.slice("model:".length, -"-model-1".length);
    expect(replay.executed).toEqual([`child:${childRunId}`, childModelStep, "model:parent-2-model-2"]);
  });

  it("a plain tool starting a child (option parent) under an engine is refused; with runsChild: true the child is its own step", async () => {
    const calls: string[] = [];
    const child = createAgent({ model: childModel(calls) });
    const parentWith = (runsChild: boolean | undefined, seen: unknown[], once = false) =>
      createAgent({
        model: parentModel(calls),
        tools: [
          tool({
            name: "helper",
            description: "runs a child",
            inputSchema: { type: "object", properties: {} },
            ...(runsChild === undefined ? {} : { runsChild }),
            ...(once ? { sideEffects: "once" as const } : {}),
            execute: async (_a, ctx) => {
              try {
                return (await child.run("count", { parent: ctx })).text;
              } catch (error) {
                seen.push(error);
                return "refused";
              }
            },
          }),
        ],
      });

    const refused: unknown[] = [];
    const plain = new ReplayDurableContext();
    await parentWith(undefined, refused).run("go", { runId: "p-plain", durable: plain });
    expect(refused).toEqual([
      expect.objectContaining({
        code: "validation",
        details: expect.objectContaining({ field: "runsChild", callId: "call_helper" }),
      }),
    ]);
    expect(calls).toEqual(["parent", "parent"]);
    expect(plain.journal.order.some((name) => name.startsWith("child:"))).toBe(false);

    // A "once" tool runs inside its result step: refused the same way.
    const refusedOnce: unknown[] = [];
    await parentWith(undefined, refusedOnce, true).run("go", {
      runId: "p-once",
      durable: new ReplayDurableContext(),
    });
    expect(refusedOnce).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ field: "runsChild" }) }),
    ]);

    calls.length = 0;
    const none: unknown[] = [];
    const engine = new ReplayDurableContext();
    const result = await parentWith(true, none).run("go", { runId: "p-child", durable: engine });
    expect(none).toEqual([]);
    expect(result.text).toBe("parent done: 1, 2, 3");
    // No tool:<callId> step around the call: the child's steps and its child: entry are top-level.
    expect(engine.journal.order).toEqual([
      "model:p-child-model-1",
      expect.stringMatching(/^model:child-d1-.*-model-1$/),
      expect.stringMatching(/^child:child-d1-/),
      "model:p-child-model-2",
    ]);
  });
});
