/**
 * The inspector's views of a journal, over hand-written observations (no store, no server): the
 * figures of issue 39 #1, #3 and #4 that contradicted each other.
 */
import {
  type AgentEvent,
  type AgentObservation,
  InMemoryEventJournal,
  InMemoryHarnessStatusStore,
} from "@tinyagents/harness";
import { conformanceStatus } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";
import { costBreakdown } from "./cost-breakdown.js";
import { InspectorData } from "./inspector-data.js";
import { journalFacts } from "./journal-reading.js";
import { timelineSpans } from "./timeline-spans.js";

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});
const cost = (total: number) => ({
  total,
  input: total,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  currency: "USD" as const,
});

/** A journal of root run `r` from `[ts, event]` pairs. */
function journal(...entries: [number, AgentEvent][]): AgentObservation[] {
  return entries.map(([ts, event], offset) => ({
    id: `r-evt-${offset}`,
    offset,
    ts,
    runId: "r",
    rootRunId: "r",
    depth: 0,
    event,
  }));
}

const started = (callId: string, model = "m"): AgentEvent => ({
  type: "model.started",
  callId,
  model,
  provider: "p",
  providerModelId: model,
  attempt: 1,
});
const completed = (callId: string, model = "m", servedFromCache = false): AgentEvent => ({
  type: "model.completed",
  callId,
  model,
  durationMs: 0,
  usage: usage(10, 2),
  toolCalls: 0,
  servedFromCache,
});

describe("usage and cost by model (issue 39 #1)", () => {
  it("a model without a price has an unknown cost, not $0.000000, beside a priced one", () => {
    const obs = journal(
      [0, { type: "run.started", input: 1 }],
      [1, started("c1", "unpriced")],
      [2, { type: "usage.recorded", callId: "c1", model: "unpriced", usage: usage(100, 10) }],
      [2, completed("c1", "unpriced")],
      [3, started("c2", "priced")],
      [4, { type: "usage.recorded", callId: "c2", model: "priced", usage: usage(100, 10) }],
      [4, { type: "cost.recorded", callId: "c2", model: "priced", cost: cost(0.0002) }],
      [4, completed("c2", "priced")],
    );
    const { byModel, bySubAgent } = costBreakdown(obs);
    expect(byModel.find((r) => r.key === "unpriced")?.cost).toMatchObject({ total: 0, unknown: true });
    expect(byModel.find((r) => r.key === "priced")?.cost).toMatchObject({ total: 0.0002, unknown: false });
    expect(bySubAgent.find((r) => r.key === "main")?.cost).toMatchObject({ total: 0.0002, unknown: true });
  });
});

describe("the timeline of a paused and resumed run (issue 39 #3)", () => {
  const obs = journal(
    [1000, { type: "run.started", input: 1 }],
    [1010, { type: "approval.requested", approvalId: "a1", callId: "t1", toolName: "transfer" }],
    [1020, { type: "run.interrupted", reason: "approval" }],
    [61_020, { type: "run.started", input: 1 }],
    [61_021, { type: "run.resumed", modelCalls: 1, toolCalls: 0, pendingToolCalls: 1 }],
    [
      61_050,
      {
        type: "run.completed",
        modelCalls: 1,
        toolCalls: 1,
        usage: { ...usage(0, 0), calls: 0 },
        cost: cost(0),
      },
    ],
  );

  it("the approval row ends when the run resumes (the decision), not 'running'", () => {
    const approval = timelineSpans(obs).find((s) => s.kind === "approval");
    expect(approval).toMatchObject({ status: "ok", start: 10, end: 60_020 });
    expect(approval?.detail).toContain("decided");
  });

  it("the pause is a span of its own", () => {
    const paused = timelineSpans(obs).find((s) => s.kind === "paused");
    expect(paused).toMatchObject({ start: 20, end: 60_020, detail: "paused 1 min 0 s" });
  });

  it("the run keeps its first start; the paused time is known", () => {
    expect(journalFacts("r", obs)).toEqual({ models: [], firstStartedAt: 1000, pausedMs: 60_000 });
  });

  it("an approval still waiting stays running", () => {
    const waiting = timelineSpans(obs.slice(0, 3)).find((s) => s.kind === "approval");
    expect(waiting?.status).toBe("running");
  });
});

describe("time to first token (issue 39 #4)", () => {
  const delta = (callId: string): AgentEvent => ({ type: "model.text_delta", callId, text: "hi" });

  it("is shown for a call whose first token came before its end", () => {
    const spans = timelineSpans(journal([0, started("c1")], [40, delta("c1")], [90, completed("c1")]));
    expect(spans[0]?.ttftMs).toBe(40);
  });

  it("is not shown for a non-streamed call, a whole reply replayed at its end, or a cache hit", () => {
    const unary = timelineSpans(journal([0, started("c1")], [90, completed("c1")]));
    expect(unary[0]?.ttftMs).toBeUndefined();
    const replayed = timelineSpans(journal([0, started("c1")], [90, delta("c1")], [90, completed("c1")]));
    expect(replayed[0]?.ttftMs).toBeUndefined();
    const cached = timelineSpans(
      journal([0, started("c1")], [1, delta("c1")], [2, completed("c1", "m", true)]),
    );
    expect(cached[0]?.ttftMs).toBeUndefined();
  });
});

describe("a run whose model reported no usage (issue 35: unknown is a value)", () => {
  it("its tokens are a lower bound and its cost unknown in the runs list", async () => {
    const stores = { journal: new InMemoryEventJournal(), statusStore: new InMemoryHarnessStatusStore() };
    const totals = { ...usage(100, 10), calls: 1, unknown: true as const };
    await stores.statusStore.save(
      conformanceStatus("r", { status: "completed", modelCalls: 2, usage: totals, startedAt: 1, endedAt: 2 }),
    );
    const [row] = await new InspectorData(stores).listRuns();
    expect(row?.tokens).toMatchObject({ totalTokens: 110, unknown: true });
    expect(row?.cost.unknown).toBe(true);
  });
});
