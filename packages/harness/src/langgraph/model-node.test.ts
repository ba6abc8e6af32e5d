import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { type ModelResponse, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { AgentHarness } from "../runtime/agent-harness.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { tinyagentsState } from "./graph-state.js";
import { modelNode, type ReuseModelPolicy } from "./model-node.js";

const textOf = (r: ModelResponse) => r.message.content.map((c) => ("text" in c ? c.text : "")).join("");

function harness() {
  const h = new AgentHarness<undefined, undefined>({
    clock: new DeterministicClock({ start: 0 }),
    ids: new DeterministicIds(),
  });
  h.registerModel("small", new ScriptedModel(["from small", "from small"]));
  h.registerModel("big", new ScriptedModel(["from big", "from big"]));
  return h;
}

const Tracked = Annotation.Root({ ...tinyagentsState, out: Annotation<string>() });
type T = typeof Tracked.State;

function tracked(reuseModel: ReuseModelPolicy, statuses: HarnessRunStatus[] = []) {
  return new StateGraph(Tracked)
    .addNode(
      "ask",
      modelNode<T, Partial<T>>({
        harness: harness(),
        reuseModel,
        request: () => ({ messages: [user("q")] }),
        output: (r) => ({ out: textOf(r) }),
        onStatus: (s) => statuses.push(s),
      }),
    )
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile();
}

const bigFromEarlier = {
  calls: [],
  resolvedModel: {
    name: "big",
    provider: "scripted",
    providerModelId: "big",
    source: "hint" as const,
    fallbackHistory: [],
  },
};

describe("modelNode", () => {
  it("reuseModel prefer / never decide whether the state's resolved model is used", async () => {
    const prefer = await tracked("prefer").invoke({ tinyagents: bigFromEarlier } as never);
    expect(prefer.out).toBe("from big");
    expect(prefer.tinyagents.resolvedModel).toMatchObject({ name: "big", source: "state_reuse" });
    const never = await tracked("never").invoke({ tinyagents: bigFromEarlier } as never);
    expect(never.out).toBe("from small");
    expect(never.tinyagents.resolvedModel).toMatchObject({ name: "small", source: "registry_default" });
  });

  it("reuseModel require fails with validation when the state has no usable model", async () => {
    await expect(tracked("require").invoke({})).rejects.toMatchObject({
      code: "validation",
      message: expect.stringContaining("no resolved model"),
    });
    const unknown = { ...bigFromEarlier, resolvedModel: { ...bigFromEarlier.resolvedModel, name: "gone" } };
    await expect(tracked("require").invoke({ tinyagents: unknown } as never)).rejects.toMatchObject({
      code: "validation",
      message: expect.stringContaining('"gone"'),
    });
    expect(() =>
      modelNode({
        harness: harness(),
        reuseModel: "always" as never,
        request: () => ({ messages: [] }),
        output: () => ({}),
      }),
    ).toThrow(/reuseModel/);
  });

  it("works in a graph without the tinyagents channel (no channel update) and reports failures' status", async () => {
    const Plain = Annotation.Root({ out: Annotation<string>() });
    const h = harness();
    h.registerModel("broken", new ScriptedModel([new Error("provider down")]));
    const statuses: HarnessRunStatus[] = [];
    const node = (model: string) =>
      modelNode<typeof Plain.State, { out: string }>({
        harness: h,
        request: () => ({ messages: [user("q")], model }),
        output: (r) => ({ out: textOf(r) }),
        onStatus: (s) => statuses.push(s),
      });
    const ok = await new StateGraph(Plain)
      .addNode("a", node("small"))
      .addEdge(START, "a")
      .addEdge("a", END)
      .compile()
      .invoke({});
    expect(ok).toEqual({ out: "from small" });
    const failing = new StateGraph(Plain)
      .addNode("b", node("broken"))
      .addEdge(START, "b")
      .addEdge("b", END)
      .compile();
    await expect(failing.invoke({})).rejects.toThrow(/provider down/);
    expect(statuses.at(-1)).toMatchObject({
      component: "graph_node",
      graphNode: { node: "b", call: "model_call" },
      status: "failed",
    });
  });
});

describe("graph node calls without a shared sink", () => {
  it("two node calls of one graph run (callModel, run) emit distinct event ids: each sink is named by its call", async () => {
    const h = new AgentHarness<undefined, undefined>({
      clock: new DeterministicClock({ start: 0 }),
      ids: new DeterministicIds(),
    });
    h.registerModel("main", new ScriptedModel(["a", "b", "c"]));
    const ids: string[] = [];
    const onEvent = (r: { id: string }) => ids.push(r.id);
    const node = (name: string) => ({ graphRunId: "g1", graphId: "G", node: name });
    await h.callModel({ messages: [user("q")] }, { runId: "g1-n1", graphNode: node("n1"), onEvent });
    await h.callModel({ messages: [user("q")] }, { runId: "g1-n2", graphNode: node("n2"), onEvent });
    await h.run("q", { runId: "g1-n3", graphNode: node("n3"), onEvent });
    expect(ids.length).toBeGreaterThan(6);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toBe("g1-n1-evt-0");
  });
});
