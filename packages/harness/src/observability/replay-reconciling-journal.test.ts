import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import { streamProblems } from "../testkit/durable-conformance/stream-problems.js";
import type { AgentObservation } from "./agent-observation.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { ReplayReconcilingJournal, WORKER_LOST } from "./replay-reconciling-journal.js";

const RUN = "r1";
const at = (offset: number, event: AgentEvent, ts = 1000 + offset, runId = RUN): AgentObservation => ({
  id: `${runId}-evt-${offset}`,
  offset,
  ts,
  runId,
  rootRunId: runId,
  depth: 0,
  event,
});

const runStarted: AgentEvent = { type: "run.started", input: 1 };
const model = (callId: string): AgentEvent => ({
  type: "model.started",
  callId,
  model: "m",
  provider: "p",
  providerModelId: "p-1",
  attempt: 1,
});
const modelDone = (callId: string): AgentEvent => ({
  type: "model.completed",
  callId,
  model: "m",
  durationMs: 5,
  toolCalls: 1,
  servedFromCache: false,
});
const tool = (callId: string): AgentEvent => ({
  type: "tool.started",
  callId,
  toolName: "charge",
  arguments: {},
});
const toolDone = (callId: string, durationMs = 3): AgentEvent => ({
  type: "tool.completed",
  callId,
  toolName: "charge",
  durationMs,
  isError: false,
  outputBytes: 2,
});
const approval: AgentEvent = {
  type: "approval.requested",
  approvalId: "r1/t2",
  callId: "t2",
  toolName: "charge",
};
const completed: AgentEvent = {
  type: "run.completed",
  modelCalls: 2,
  toolCalls: 2,
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } as never,
  cost: { total: 0 } as never,
};

/** Store `first`, then reconcile the execution that emitted `again` (its own offsets from 0). */
async function redrive(first: AgentEvent[], again: AgentEvent[]) {
  const journal = new InMemoryEventJournal();
  await journal.appendMany(first.map((event, i) => at(i, event)));
  const reconciled = await ReplayReconcilingJournal.open(journal, RUN);
  await reconciled.appendMany(again.map((event, i) => at(i, event, 5000 + i)));
  return journal.read(RUN);
}

describe("ReplayReconcilingJournal", () => {
  it("drops what a replay emits again, keeping the original records and timestamps", async () => {
    const first = [runStarted, model("m1"), modelDone("m1"), tool("t1"), toolDone("t1"), approval];
    // The re-driven execution replays all of it (a replayed tool reports another duration), then goes on.
    const again = [
      runStarted,
      model("m1"),
      modelDone("m1"),
      tool("t1"),
      toolDone("t1", 0),
      approval,
      tool("t2"),
    ];
    const stream = await redrive(first, [...again, toolDone("t2"), completed]);
    expect(stream.map((r) => r.event.type)).toEqual([
      "run.started",
      "model.started",
      "model.completed",
      "tool.started",
      "tool.completed",
      "approval.requested",
      "tool.started",
      "tool.completed",
      "run.completed",
    ]);
    expect(stream.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(stream.map((r) => r.id)).toEqual(stream.map((r) => `${RUN}-evt-${r.offset}`));
    expect(stream.slice(0, 6).map((r) => r.ts)).toEqual([1000, 1001, 1002, 1003, 1004, 1005]);
    expect(stream[4]?.event).toMatchObject({ durationMs: 3 }); // the original step's record
  });

  it("closes the dead worker's attempt with tool.abandoned before the call starts again", async () => {
    const first = [runStarted, model("m1"), modelDone("m1"), tool("t1")];
    const stream = await redrive(first, [
      runStarted,
      model("m1"),
      modelDone("m1"),
      tool("t1"),
      toolDone("t1"),
      completed,
    ]);
    expect(stream.map((r) => r.event.type)).toEqual([
      "run.started",
      "model.started",
      "model.completed",
      "tool.started",
      "tool.abandoned",
      "tool.started",
      "tool.completed",
      "run.completed",
    ]);
    expect(stream[4]?.event).toEqual({
      type: "tool.abandoned",
      callId: "t1",
      toolName: "charge",
      attempt: 1,
      reason: WORKER_LOST,
    });
    expect(stream.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(streamProblems(stream)).toEqual([]);
    // The same two executions written as they were emitted: what an operator used to read.
    const raw = [runStarted, model("m1"), modelDone("m1"), tool("t1"), runStarted, model("m1"), completed];
    expect(streamProblems(raw.map((event, i) => at(i % 4, event)))).toEqual([
      "offset 0 (run.started): offset not after 3",
      "offset 0 (run.started): run.started again",
      "tool r1/t1 started at offset 3 never ended",
      "model r1/m1 started at offset 1 never ended",
    ]);
  });

  it("closes a call left open that never starts again (model.abandoned) before the run ends", async () => {
    const first = [
      runStarted,
      model("m1"),
      { type: "model.text_delta", callId: "m1", text: "par" } as AgentEvent,
    ];
    // The engine recorded the call's result before the worker died: the replay re-emits nothing of it.
    const stream = await redrive(first, [runStarted, completed]);
    expect(stream.map((r) => r.event.type)).toEqual([
      "run.started",
      "model.started",
      "model.text_delta",
      "model.abandoned",
      "run.completed",
    ]);
    expect(stream[3]?.event).toEqual({
      type: "model.abandoned",
      callId: "m1",
      attempt: 1,
      reason: WORKER_LOST,
    });
  });

  it("writes a call the engine runs again although the dead worker journaled its end (liveCall)", async () => {
    // The worker journaled the tool's whole attempt, then died before the engine recorded the
    // step: the restarted execution runs the tool again, and the run goes on with THAT result.
    const journal = new InMemoryEventJournal();
    await journal.appendMany([runStarted, tool("t1"), toolDone("t1")].map((event, i) => at(i, event)));
    const reconciled = await ReplayReconcilingJournal.open(journal, RUN);
    reconciled.liveCall("tool", "t1");
    const rerun: AgentEvent = {
      type: "tool.completed",
      callId: "t1",
      toolName: "charge",
      durationMs: 7,
      isError: true,
      outputBytes: 9,
    };
    await reconciled.appendMany([runStarted, tool("t1"), rerun, completed].map((e, i) => at(i, e, 5000 + i)));
    const stream = await journal.read(RUN);
    expect(stream.map((r) => [r.offset, r.event.type])).toEqual([
      [0, "run.started"],
      [1, "tool.started"],
      [2, "tool.completed"],
      [3, "tool.started"],
      [4, "tool.completed"],
      [5, "run.completed"],
    ]);
    // The end of the attempt the run actually used is in the stream (not only the lost one's).
    expect(stream[4]?.event).toEqual(rerun);
    expect(streamProblems(stream)).toEqual([]);
    // A call that is not run again (only replayed) is still dropped.
    const replayed = await redrive(
      [runStarted, tool("t1"), toolDone("t1")],
      [runStarted, tool("t1"), toolDone("t1")],
    );
    expect(replayed).toHaveLength(3);
  });
  it("counts attempts across earlier recoveries, and leaves other run trees alone", async () => {
    const journal = new InMemoryEventJournal();
    await journal.appendMany([
      at(0, runStarted),
      at(1, tool("t1")),
      at(2, { type: "tool.abandoned", callId: "t1", toolName: "charge", attempt: 1, reason: WORKER_LOST }),
      at(3, tool("t1")),
    ]);
    const reconciled = await ReplayReconcilingJournal.open(journal, RUN);
    await reconciled.appendMany([at(0, runStarted), at(1, tool("t1")), at(0, runStarted, 9, "other")]);
    const stream = await journal.read(RUN);
    expect(stream.slice(4).map((r) => r.event)).toEqual([
      { type: "tool.abandoned", callId: "t1", toolName: "charge", attempt: 2, reason: WORKER_LOST },
      tool("t1"),
    ]);
    expect((await journal.read("other")).map((r) => r.offset)).toEqual([0]);
  });

  it("offset matching (an engine that delivers new work only): drops what is stored at that offset, moves collisions past it", async () => {
    const journal = new InMemoryEventJournal();
    const middleware: AgentEvent = { type: "middleware.started", name: "human_approval", hook: "afterModel" };
    await journal.appendMany([at(0, runStarted), at(1, middleware), at(2, tool("t1"))]);
    const moved: number[] = [];
    const reconciled = await ReplayReconcilingJournal.open(journal, RUN, {
      match: "offset",
      onRenumber: (next) => moved.push(next),
    });
    // The re-execution resumes after the last journaled step, at the first execution's offsets.
    await reconciled.appendMany([at(1, middleware), at(2, tool("t1")), at(3, toolDone("t1"))]);
    await reconciled.appendMany([at(9, middleware), at(10, completed)]);
    const stream = await journal.read(RUN);
    expect(stream.map((r) => [r.offset, r.event.type])).toEqual([
      [0, "run.started"],
      [1, "middleware.started"],
      [2, "tool.started"],
      [3, "tool.abandoned"],
      [4, "tool.started"],
      [5, "tool.completed"],
      [9, "middleware.started"],
      [10, "run.completed"],
    ]);
    expect(moved).toEqual([6]);
    expect(streamProblems(stream)).toEqual([]);
  });
});
