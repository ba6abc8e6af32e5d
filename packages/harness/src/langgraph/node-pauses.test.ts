import { Annotation, Command, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { runText } from "../agent-loop/agent-run.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { SteeringPolicy } from "../steering/steering-policy.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { agentNode } from "./agent-node.js";
import { GraphSteering } from "./graph-steering.js";
import type { GraphNodePause } from "./node-pauses.js";

const State = Annotation.Root({ question: Annotation<string>(), answer: Annotation<string>() });
type S = typeof State.State;

function setup(policy: SteeringPolicy) {
  const h = new AgentHarness<undefined, undefined>({
    clock: new DeterministicClock({ start: 0 }),
    ids: new DeterministicIds(),
  });
  const model = new ScriptedModel([
    { toolCalls: [{ name: "step", arguments: {} }] },
    { toolCalls: [{ name: "step", arguments: {} }] },
    "all steps done",
  ]);
  h.registerModel("m", model);
  const steering = new GraphSteering(policy);
  let steps = 0;
  h.registerTool(
    FakeTool.of("step", () => {
      steps++;
      // Each tool call asks the running node call to pause at its next checkpoint.
      steering.send("thread:t", "worker", { kind: "pause", reason: `after step ${steps}` });
      return `step ${steps}`;
    }),
  );
  const graph = new StateGraph(State)
    .addNode(
      "worker",
      agentNode<S, Partial<S>>({
        harness: h,
        steering,
        input: (s) => s.question,
        output: (run) => ({ answer: runText(run) }),
      }),
    )
    .addEdge(START, "worker")
    .addEdge("worker", END)
    .compile({ checkpointer: new MemorySaver() });
  return { graph, model, steering, steps: () => steps };
}

const config = { configurable: { thread_id: "t" } };

async function pauses(stream: AsyncIterable<unknown>): Promise<GraphNodePause[]> {
  const found: GraphNodePause[] = [];
  for await (const chunk of stream) {
    const interrupts = (chunk as { __interrupt__?: { value: GraphNodePause }[] }).__interrupt__;
    for (const i of interrupts ?? []) found.push(i.value);
  }
  return found;
}

describe("steering pauses inside a LangGraph node", () => {
  it("each pause is an interrupt; every resume continues the same run without repeating work", async () => {
    const { graph, model, steering, steps } = setup(new SteeringPolicy(["pause"]));
    const first = await pauses(await graph.stream({ question: "go" }, { ...config, streamMode: "updates" }));
    expect(first).toEqual([
      expect.objectContaining({
        type: "tinyagents.pause",
        node: "worker",
        reason: "after step 1",
        approvals: [],
      }),
    ]);
    expect([model.callCount, steps()]).toEqual([1, 1]);
    // A paused call keeps its handle (the resume uses it); it is released when the call ends.
    expect(steering.size).toBe(1);

    // The second resume replays the first interrupt's answer, then takes the new one.
    const second = await pauses(
      await graph.stream(new Command({ resume: true }), { ...config, streamMode: "updates" }),
    );
    expect(second.map((p) => p.reason)).toEqual(["after step 2"]);
    expect([model.callCount, steps()]).toEqual([2, 2]);

    const third = await pauses(
      await graph.stream(new Command({ resume: true }), { ...config, streamMode: "updates" }),
    );
    expect(third).toEqual([]);
    expect([model.callCount, steps()]).toEqual([3, 2]);
    expect(((await graph.getState(config)).values as S).answer).toBe("all steps done");
    expect(first[0]?.runId).toBe(second[0]?.runId);
    expect(steering.size).toBe(0);
  });

  it("a command the policy does not allow fails the node with a steering error", async () => {
    const { graph } = setup(new SteeringPolicy(["redirect"]));
    await expect(graph.invoke({ question: "go" }, config)).rejects.toMatchObject({ code: "steering" });
  });

  it("a malformed resume value fails with validation naming the shape", async () => {
    const { graph } = setup(new SteeringPolicy(["pause"]));
    await pauses(await graph.stream({ question: "go" }, { ...config, streamMode: "updates" }));
    await expect(graph.invoke(new Command({ resume: "yes" }), config)).rejects.toMatchObject({
      code: "validation",
      message: expect.stringContaining("approvals"),
    });
  });
});
