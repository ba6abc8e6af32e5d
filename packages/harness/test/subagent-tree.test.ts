/**
 * Acceptance: a three-level agent tree (orchestrator -> researcher -> summarizer) with scripted
 * models. One event stream carries all three depths with correct lineage; usage and cost roll
 * up so the parent's totals equal the sum; a depth limit turns the grandchild into an error result.
 */
import {
  AgentHarness,
  type AgentRun,
  EventSink,
  type RunConfig,
  runText,
  SubAgent,
  SubAgentTool,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  DeterministicClock,
  DeterministicIds,
  EventRecorder,
  ScriptedModel,
} from "@tinyagents/harness/testkit";
import { type ToolMessage, text, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";

const pricing = { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 }; // $1 per input token, $2 per output

function tree() {
  const clock = new DeterministicClock();
  const ids = new DeterministicIds();
  const make = () => new AgentHarness<undefined, undefined>({ clock, ids });
  const summarizerModel = new ScriptedModel(["summary: X is 42"], {
    usage: usage({ inputTokens: 5, outputTokens: 1 }),
  });
  const summarizer = new SubAgent({
    name: "summarizer",
    description: "Summarizes research notes",
    harness: make().registerModel("m", summarizerModel, { pricing }),
    systemPrompt: "You summarize.",
  });
  const researcherModel = new ScriptedModel(
    [
      { toolCalls: [{ id: "r-1", name: "summarizer", arguments: { input: "notes about X" } }] },
      (request) => {
        const last = request.messages.at(-1);
        return last?.role === "tool" && last.isError
          ? "research done without a summary"
          : "research: X is 42";
      },
    ],
    { usage: usage({ inputTokens: 20, outputTokens: 4 }) },
  );
  const researcher = new SubAgent({
    name: "researcher",
    description: "Researches a question",
    harness: make()
      .registerModel("m", researcherModel, { pricing })
      .registerTool(new SubAgentTool(summarizer)),
  });
  const orchestratorModel = new ScriptedModel(
    [{ toolCalls: [{ id: "o-1", name: "researcher", arguments: { input: "what is X?" } }] }, "X is 42"],
    { usage: usage({ inputTokens: 100, outputTokens: 10 }) },
  );
  const orchestrator = make()
    .registerModel("m", orchestratorModel, { pricing })
    .registerTool(new SubAgentTool(researcher));
  return { orchestrator, summarizerModel, researcherModel, orchestratorModel };
}

async function runTree(config: Partial<RunConfig> = {}) {
  const t = tree();
  const sink = new EventSink("root");
  const events = new EventRecorder();
  events.attach(sink);
  const outcome = await lowerLayer(t.orchestrator).invokeCollectingPartial(
    undefined,
    undefined,
    { runId: "root", ...config },
    "Find X",
    { events: sink },
  );
  return { ...t, ...outcome, events };
}

const toolMessages = (run: AgentRun) => run.messages.filter((m): m is ToolMessage => m.role === "tool");

describe("sub-agent tree", () => {
  it("puts every level's events on one stream with depths 0/1/2 and correct lineage", async () => {
    const { run, error, events } = await runTree();
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("X is 42");

    const started = events.recordsOfType("run.started");
    expect(started.map((r) => [r.runId, r.depth, r.parentRunId, r.rootRunId])).toEqual([
      ["root", 0, undefined, "root"],
      ["researcher-d1-1", 1, "root", "root"],
      ["summarizer-d2-1", 2, "researcher-d1-1", "root"],
    ]);
    expect(new Set(events.records.map((r) => r.depth))).toEqual(new Set([0, 1, 2]));
    for (const record of events.records) {
      expect(record.rootRunId).toBe("root");
      const expectedParent = {
        root: undefined,
        "researcher-d1-1": "root",
        "summarizer-d2-1": "researcher-d1-1",
      }[record.runId as "root"];
      expect(record.parentRunId).toBe(expectedParent);
    }
    // Offsets are monotonic across the whole tree.
    const offsets = events.records.map((r) => r.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));

    // subagent.* events sit on the parent's scope and name the child's depth.
    const subStarted = events.recordsOfType("subagent.started");
    expect(subStarted.map((r) => [r.runId, r.event.name, r.event.depth, r.event.childRunId])).toEqual([
      ["root", "researcher", 1, "researcher-d1-1"],
      ["researcher-d1-1", "summarizer", 2, "summarizer-d2-1"],
    ]);
    const subCompleted = events.recordsOfType("subagent.completed");
    expect(subCompleted.map((r) => [r.runId, r.event.name, r.event.depth])).toEqual([
      ["researcher-d1-1", "summarizer", 2],
      ["root", "researcher", 1],
    ]);
    // The child's answer reached the parent as the tool result.
    expect(toolMessages(run).map((m) => [m.toolName, text(m), m.isError])).toEqual([
      ["researcher", "research: X is 42", false],
    ]);
  });

  it("streams every level's model deltas through a streaming parent, with the child's run id and depth", async () => {
    const { orchestrator } = tree();
    const deltas: [string, number, string][] = [];
    let final: AgentRun | undefined;
    for await (const item of lowerLayer(orchestrator).invokeStreaming(
      undefined,
      undefined,
      { runId: "root" },
      "Find X",
    )) {
      if (item.type === "event" && item.record.event.type === "model.text_delta") {
        deltas.push([item.record.runId, item.record.depth, item.record.event.text]);
      } else if (item.type === "completed") final = item.run;
    }
    expect(final && runText(final)).toBe("X is 42");
    const textOf = (runId: string) =>
      deltas
        .filter(([id]) => id === runId)
        .map(([, , t]) => t)
        .join("");
    expect(textOf("root")).toBe("X is 42");
    expect(textOf("researcher-d1-1")).toBe("research: X is 42");
    expect(textOf("summarizer-d2-1")).toBe("summary: X is 42");
    expect(new Set(deltas.map(([id, depth]) => `${id}@${depth}`))).toEqual(
      new Set(["root@0", "researcher-d1-1@1", "summarizer-d2-1@2"]),
    );
  });

  it("a unary parent runs its children unary too (no deltas anywhere)", async () => {
    const { events } = await runTree();
    expect(events.recordsOfType("model.text_delta")).toEqual([]);
  });

  it("rolls usage and cost up the tree: the parent's totals equal the sum", async () => {
    const { run, status, events } = await runTree();
    // Own calls: orchestrator 2 x (100 in, 10 out), researcher 2 x (20, 4), summarizer 1 x (5, 1).
    expect(run.usage.calls).toBe(5);
    expect(run.usage.inputTokens).toBe(2 * 100 + 2 * 20 + 5);
    expect(run.usage.outputTokens).toBe(2 * 10 + 2 * 4 + 1);
    expect(run.cost.total).toBeCloseTo(245 * 1 + 29 * 2);
    expect(run.modelCalls).toBe(2); // its own calls only

    expect(run.children).toHaveLength(1);
    const [researcher] = run.children ?? [];
    expect(researcher).toMatchObject({
      name: "researcher",
      runId: "researcher-d1-1",
      depth: 1,
      status: "completed",
    });
    expect(researcher?.usage.inputTokens).toBe(2 * 20 + 5);
    expect(researcher?.cost.total).toBeCloseTo(45 + 9 * 2);

    // The status record and the run.completed event carry the same tree totals.
    expect(status.usage).toEqual(run.usage);
    expect(status.cost.total).toBeCloseTo(run.cost.total);
    const completed = events.recordsOfType("run.completed").find((r) => r.runId === "root");
    expect(completed?.event.usage).toEqual(run.usage);

    // Sum of own usage (usage.recorded per run) + children == parent total.
    const own = events.recordsOfType("usage.recorded").reduce((sum, r) => sum + r.event.usage.inputTokens, 0);
    expect(own).toBe(run.usage.inputTokens);
  });

  it("a depth limit of 1 turns the grandchild into an error result; the tree still completes", async () => {
    const { run, error, events, summarizerModel } = await runTree({ maxDepth: 1 });
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("X is 42");
    expect(summarizerModel.callCount).toBe(0);

    const failed = events.recordsOfType("subagent.failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]?.runId).toBe("researcher-d1-1");
    expect(failed[0]?.event).toMatchObject({
      name: "summarizer",
      depth: 2,
      error: { code: "sub_agent_depth" },
    });
    expect(failed[0]?.event.error.message).toContain("maximum depth 1");

    // The researcher's model saw an error result saying the sub-agent hit its limit.
    const researcherRun = events
      .recordsOfType("tool.completed")
      .find((r) => r.event.toolName === "summarizer");
    expect(researcherRun?.event.isError).toBe(true);
    expect(toolMessages(run)[0] && text(toolMessages(run)[0])).toBe("research done without a summary");
    // No depth-2 run ever started.
    expect(events.records.some((r) => r.depth === 2)).toBe(false);
    // The researcher's totals still roll up (no summarizer usage).
    expect(run.usage.inputTokens).toBe(2 * 100 + 2 * 20);
  });

  it("a child that hits a call cap becomes an error result, and its spent tokens still roll up", async () => {
    const clock = new DeterministicClock();
    const ids = new DeterministicIds();
    const looping = new ScriptedModel(
      [{ toolCalls: [{ id: "l-1", name: "noop" }] }, { toolCalls: [{ id: "l-2", name: "noop" }] }],
      { usage: usage({ inputTokens: 3, outputTokens: 1 }) },
    );
    const childHarness = new AgentHarness<undefined, undefined>({
      clock,
      ids,
      policy: { limits: { maxModelCalls: 1 } },
    })
      .registerModel("m", looping)
      .registerTool({
        name: "noop",
        description: "does nothing",
        parameters: { type: "object" },
        validate: (args) => ({ ok: true, value: args }),
        execute: () => "ok",
      });
    const child = new SubAgent({ name: "looper", description: "loops", harness: childHarness });
    const parent = new AgentHarness<undefined, undefined>({ clock, ids })
      .registerModel(
        "m",
        new ScriptedModel([
          { toolCalls: [{ id: "p-1", name: "looper", arguments: { input: "go" } }] },
          "gave up",
        ]),
      )
      .registerTool(new SubAgentTool(child));
    const outcome = await lowerLayer(parent).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "p" },
      "start",
    );
    expect(outcome.error).toBeUndefined();
    const [result] = toolMessages(outcome.run);
    expect(result?.isError).toBe(true);
    expect(text(result)).toContain('sub-agent "looper" hit its limit');
    expect(text(result)).toContain("limit_exceeded");
    expect(text(result)).toContain("must not be used as a complete answer");
    expect(outcome.run.children?.[0]).toMatchObject({ name: "looper", status: "failed" });
    expect(outcome.run.usage.inputTokens).toBe(3);
  });

  it("other child errors propagate and fail the parent run", async () => {
    const clock = new DeterministicClock();
    const ids = new DeterministicIds();
    const child = new SubAgent({
      name: "broken",
      description: "fails",
      harness: new AgentHarness<undefined, undefined>({ clock, ids }).registerModel(
        "m",
        new ScriptedModel([]),
      ),
    });
    const parent = new AgentHarness<undefined, undefined>({ clock, ids })
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ id: "p-1", name: "broken", arguments: { input: "go" } }] }]),
      )
      .registerTool(new SubAgentTool(child));
    const outcome = await lowerLayer(parent).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "p" },
      "start",
    );
    expect(outcome.error?.code).toBe("validation"); // the child's script was exhausted
    expect(outcome.error?.message).toContain("script exhausted");
    expect(outcome.status.status).toBe("failed");
  });
});
