import { describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import * as root from "../index.js";
import * as internal from "../internal/index.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { createAgent } from "./create-agent.js";

const POSITIONAL = [
  "invoke",
  "invokeDefault",
  "invokeWithStatus",
  "invokeInContext",
  "invokeInContextWithStatus",
  "invokeCollectingPartial",
  "invokeInContextCollectingPartial",
  "invokeStreaming",
  "invokeStreamingDefault",
  "invokeStreamingInContext",
  "resumeCollectingPartial",
  "recoverCollectingPartial",
  "resumeStreaming",
  "callModelWithStatus",
  "createContext",
];

describe("the agent's surface is the front door", () => {
  it("an agent has no positional entry point; the internal lower layer has them all", () => {
    const agent = createAgent({ model: new ScriptedModel([]) });
    for (const name of POSITIONAL) expect(name in agent, name).toBe(false);
    for (const name of ["run", "stream", "resume", "recover", "callModel", "asTool"]) {
      expect(typeof (agent as unknown as Record<string, unknown>)[name], name).toBe("function");
    }
    const layer = internal.lowerLayer(agent) as unknown as Record<string, unknown>;
    for (const name of POSITIONAL) expect(typeof layer[name], name).toBe("function");
  });

  it("the root entry exports no lower-layer name; the internal subpath does", () => {
    for (const name of ["lowerLayer", "LowerLayer", "AgentLowerLayer", "createRunContext", "agentSnapshot"]) {
      expect(name in root, name).toBe(false);
    }
    expect(typeof internal.lowerLayer).toBe("function");
  });

  it("the lower layer runs the same loop as agent.run", async () => {
    const agent = createAgent({ model: new ScriptedModel(["one", "two"]) });
    const front = await agent.run("hi", { runId: "front", clock: new DeterministicClock() });
    const lower = await internal
      .lowerLayer(agent)
      .invoke(undefined, undefined, { runId: "lower" }, "hi", { clock: new DeterministicClock() });
    expect(front.text).toBe("one");
    expect(lower.finalResponse?.message.content).toEqual([{ type: "text", text: "two" }]);
    expect(lower.modelCalls).toBe(front.modelCalls);
  });
});

describe("run option graphNode", () => {
  it("runs the agent as a graph node: graph_node status, the node on every event, the graph's ids", async () => {
    const agent = createAgent({ model: new ScriptedModel(["done"]) });
    const events: EventRecord[] = [];
    const result = await agent.run("go", {
      runId: "node-run",
      graphNode: { graphRunId: "g-1", graphId: "newsroom", node: "research", threadId: "story-1" },
      onEvent: (record) => events.push(record),
    });
    expect(result.status).toMatchObject({
      component: "graph_node",
      graphNode: { graphId: "newsroom", node: "research", call: "agent" },
      parentRunId: "g-1",
      rootRunId: "g-1",
      threadId: "story-1",
    });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.graphNode?.node === "research")).toBe(true);
  });

  it("refuses a graphNode that is not an object", async () => {
    const agent = createAgent({ model: new ScriptedModel([]) });
    // @ts-expect-error graphNode is an object
    await expect(agent.run("go", { graphNode: "research" })).rejects.toMatchObject({
      code: "validation",
      details: { field: "graphNode" },
    });
  });
});
