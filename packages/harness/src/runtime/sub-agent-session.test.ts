import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { EventRecorder } from "../testkit/event-recorder.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { AgentHarness } from "./agent-harness.js";
import { lowerLayer } from "./lower-layer.js";
import { SubAgent } from "./sub-agent.js";
import { SubAgentSession } from "./sub-agent-session.js";
import { SubAgentTool } from "./sub-agent-tool.js";

function agent(steps: string[]) {
  const model = new ScriptedModel(steps);
  const harness = new AgentHarness<undefined, undefined>({
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
  });
  harness.registerModel("m", model);
  return {
    model,
    agent: new SubAgent({ name: "helper", description: "helps", harness, systemPrompt: "Be kind." }),
  };
}

describe("SubAgentSession", () => {
  it("keeps the transcript across turns, re-sends it, and emits subagent.reused from turn 2", async () => {
    const { model, agent: helper } = agent(["hello!", "you said hi"]);
    const sink = new EventSink("s");
    const events = new EventRecorder();
    events.attach(sink);
    const session = new SubAgentSession(helper, { events: sink });
    await session.send("hi");
    const second = await session.send("what did I say?");
    expect(text(second.finalResponse?.message)).toBe("you said hi");
    expect(session.turns).toBe(2);
    expect(session.transcript.map((m) => `${m.role}:${text(m)}`)).toEqual([
      "user:hi",
      "assistant:hello!",
      "user:what did I say?",
      "assistant:you said hi",
    ]);
    // The system prompt is sent every turn, once, first.
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(events.ofType("subagent.reused")).toEqual([{ type: "subagent.reused", name: "helper", turn: 2 }]);
    expect(events.recordsOfType("run.started").map((r) => [r.runId, r.depth])).toEqual([
      ["helper-d1-1", 1],
      ["helper-d1-2", 1],
    ]);
    session.reset();
    expect(session.transcript).toEqual([]);
    expect(session.turns).toBe(0);
  });

  it("a failed turn leaves the transcript unchanged", async () => {
    const { agent: helper } = agent(["one"]);
    const session = new SubAgentSession(helper);
    await session.send("a");
    await expect(session.send("b")).rejects.toThrow(/script exhausted/);
    expect(session.turns).toBe(1);
    expect(session.transcript).toHaveLength(2);
  });

  it("runs turns inside a parent run when given one (depth, lineage, roll-up)", async () => {
    const { agent: helper } = agent(["child reply"]);
    const parent = new AgentHarness<undefined, undefined>({
      clock: new DeterministicClock(),
      ids: new DeterministicIds(),
    });
    const ctx = lowerLayer(parent).createContext({ runId: "parent", depth: 0 }, undefined);
    const run = await new SubAgentSession(helper).send("x", { parent: ctx });
    expect(run.runId).toBe("helper-d1-1");
  });
});

describe("SubAgent / SubAgentTool contracts", () => {
  it("validates names and custom schemas; custom toInput", async () => {
    const { agent: helper } = agent([]);
    expect(() => new SubAgent({ name: "bad name", description: "", harness: helper.harness })).toThrow(
      /sub-agent name/,
    );
    expect(() => new SubAgentTool(helper, { name: "Not-Snake" })).toThrow();
    const t = new SubAgentTool(helper, {
      name: "ask_helper",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      toInput: (args) => `Q: ${String(args.q)}`,
    });
    expect(t.validate({})).toMatchObject({ ok: false });
    expect(t.validate({ q: "x" })).toEqual({ ok: true, value: { q: "x" } });
    const tDefault = new SubAgentTool(helper);
    expect(tDefault.parameters).toMatchObject({ required: ["input"] });
    expect(tDefault.timeout).toBe("unbounded");
  });

  it("run without a parent runs a fresh child at depth 1; depth over the configured maximum fails before running", async () => {
    const { agent: helper, model } = agent(["ok"]);
    const run = await helper.run("go");
    expect(run.runId).toBe("helper-d1-1");
    await expect(helper.run("go", { parentDepth: 3, config: { maxDepth: 3 } })).rejects.toMatchObject({
      code: "sub_agent_depth",
      message: expect.stringContaining("maximum depth 3"),
    });
    expect(model.callCount).toBe(1);
  });
});
