import { user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import { InMemoryEventJournal } from "../observability/in-memory-event-journal.js";
import { RunStatusProjection } from "../observability/status-projection.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { SubAgent } from "../runtime/sub-agent.js";
import { SubAgentTool } from "../runtime/sub-agent-tool.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { EventRecorder } from "../testkit/event-recorder.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { runConfig } from "./run-config.js";

const node = { graphRunId: "graph-1", graphId: "support", node: "answer", threadId: "t-9" };

function harness(steps: ConstructorParameters<typeof ScriptedModel>[0]) {
  const h = new AgentHarness<undefined, undefined>({
    clock: new DeterministicClock({ start: 0 }),
    ids: new DeterministicIds(),
  });
  h.registerModel("m", new ScriptedModel(steps));
  return h;
}

describe("graph-node identity", () => {
  it("an agent run started as a graph node reports graph_node with the graph as parent and root", async () => {
    const h = harness(["hi"]);
    const sink = new EventSink("graph-1");
    const recorder = new EventRecorder();
    recorder.attach(sink);
    const { status } = await lowerLayer(h).invokeWithStatus(
      undefined,
      undefined,
      { runId: "n1", graphNode: node },
      "hello",
      { events: sink },
    );
    expect(status).toMatchObject({
      runId: "n1",
      parentRunId: "graph-1",
      rootRunId: "graph-1",
      threadId: "t-9",
      component: "graph_node",
      graphNode: { graphId: "support", node: "answer", call: "agent" },
      status: "completed",
    });
    const records = recorder.records;
    expect(records.length).toBeGreaterThan(2);
    for (const r of records) {
      expect(r).toMatchObject({ runId: "n1", parentRunId: "graph-1", rootRunId: "graph-1" });
      expect(r.graphNode).toEqual({ graphId: "support", node: "answer", call: "agent" });
    }
    expect(recorder.ofType("run.started")[0]).toMatchObject({ threadId: "t-9" });
  });

  it("a direct model call as a graph node is call model_call; explicit ids win over the graph's", async () => {
    const h = harness(["answer"]);
    const { status } = await lowerLayer(h).callModelWithStatus(
      undefined,
      { messages: [user("q")] },
      { runId: "n2", parentRunId: "supervisor", threadId: "own", graphNode: node },
    );
    expect(status).toMatchObject({
      component: "graph_node",
      parentRunId: "supervisor",
      rootRunId: "graph-1",
      threadId: "own",
      graphNode: { graphId: "support", node: "answer", call: "model_call" },
    });
    // Without graphNode nothing changes: the plain components stay.
    const plain = await lowerLayer(harness(["x"])).callModelWithStatus(
      undefined,
      { messages: [user("q")] },
      { runId: "p" },
    );
    expect(plain.status.component).toBe("model_call");
    expect(plain.status.graphNode).toBeUndefined();
  });

  it("one journal shows the graph run with its node calls (and a node's sub-agent) nested", async () => {
    const sink = new EventSink("graph-1");
    const journal = new InMemoryEventJournal();
    sink.subscribe((r) => void journal.append(r));
    const child = harness(["child says"]);
    const parent = harness([{ toolCalls: [{ name: "helper", arguments: { input: "go" } }] }, "done"]);
    parent.registerTool(
      new SubAgentTool(new SubAgent({ name: "helper", description: "helps", harness: child })),
    );
    await lowerLayer(parent).invoke(
      undefined,
      undefined,
      { runId: "n-a", graphNode: { ...node, node: "a" } },
      "go",
      {
        events: sink,
      },
    );
    await lowerLayer(harness(["b out"])).callModel(
      undefined,
      { messages: [user("q")] },
      { runId: "n-b", graphNode: { ...node, node: "b" } },
      { events: sink },
    );
    const projection = new RunStatusProjection();
    const read = await journal.read("graph-1");
    for (const r of read) projection.apply(r);
    const byRun = new Map(projection.snapshot().value.map((s) => [s.runId, s]));
    expect(byRun.get("n-a")).toMatchObject({
      component: "graph_node",
      parentRunId: "graph-1",
      graphNode: { node: "a", call: "agent" },
    });
    expect(byRun.get("n-b")).toMatchObject({
      component: "graph_node",
      parentRunId: "graph-1",
      graphNode: { node: "b", call: "model_call" },
    });
    const childStatus = [...byRun.values()].find((s) => s.parentRunId === "n-a");
    expect(childStatus).toMatchObject({ component: "agent", rootRunId: "graph-1" });
    expect(childStatus?.graphNode).toBeUndefined();
    // Offsets are monotonic over the whole graph run: node a's events, then node b's.
    const offsets = read.map((r) => r.offset);
    expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
    expect(read.at(-1)?.runId).toBe("n-b");
  });

  it("reuses a model resolved earlier (ContextOptions.previousModel) as state_reuse", async () => {
    const h = harness(["from m"]);
    h.registerModel("big", new ScriptedModel(["from big"]));
    const sink = new EventSink("r");
    const recorder = new EventRecorder();
    recorder.attach(sink);
    const response = await lowerLayer(h).callModel(
      undefined,
      { messages: [user("q")], reusePreviousModel: true },
      { runId: "r" },
      { events: sink, previousModel: "big" },
    );
    expect(response.resolvedModel).toMatchObject({ name: "big", source: "state_reuse" });
    expect(recorder.ofType("route.selected")[0]).toMatchObject({ model: "big", source: "state_reuse" });
  });

  it("rejects a malformed graphNode with a validation error naming the field", () => {
    expect(() => runConfig({ runId: "x", graphNode: { ...node, node: "" } })).toThrow(/graphNode\.node/);
    expect(() => runConfig({ runId: "x", graphNode: "g" as never })).toThrow(
      expect.objectContaining({ code: "validation" }),
    );
  });
});
