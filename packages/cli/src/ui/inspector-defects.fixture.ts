/**
 * Test support (not part of the build's entries): the store inspector-defects.integration.test.ts
 * looks at — priced and unpriced runs, a failed run with a long error, a run whose id is `..`,
 * three 10,002-record runs, a paused and resumed run whose status record restarts at the resume,
 * and two eval runs of the same dataset (1 and 3 repeats) with their trial runs.
 */
import type { AgentEvent, AgentObservation, HarnessRunStatus } from "@tinyagents/harness";
import { EvalStore } from "@tinyagents/harness/evals";
import type { CliStore } from "../core/cli-store.js";
import { evalResultFixture } from "./eval-result.fixture.js";
import { seedRun } from "./inspector-seed.fixture.js";

const HOUR = 3_600_000;
/** The failed run's error: long, on several lines. */
export const LONG_ERROR = `the provider answered 400: ${"invalid schema at $.tools[3].parameters; ".repeat(40)}\nat line 2\nat line 3`;

/** A resumed run: approval requested, paused a minute, resumed, finished; its status record restarts at the resume. */
async function seedResumedRun(s: CliStore, firstStart: number): Promise<void> {
  const runId = "resumed";
  const usage = {
    inputTokens: 50,
    outputTokens: 5,
    totalTokens: 55,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
  const cost = {
    total: 0.0001,
    input: 0.0001,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    currency: "USD" as const,
  };
  const events: [number, AgentEvent][] = [
    [0, { type: "run.started", input: 1 }],
    [1, { type: "model.started", callId: "c1", model: "m", provider: "p", providerModelId: "m", attempt: 1 }],
    [400, { type: "usage.recorded", callId: "c1", model: "m", usage }],
    [400, { type: "cost.recorded", callId: "c1", model: "m", cost }],
    [
      400,
      {
        type: "model.completed",
        callId: "c1",
        model: "m",
        durationMs: 399,
        usage,
        toolCalls: 1,
        servedFromCache: false,
      },
    ],
    [401, { type: "approval.requested", approvalId: "ap-1", callId: "t1", toolName: "transfer" }],
    [402, { type: "run.interrupted", reason: "approval required" }],
    [60_402, { type: "run.started", input: 1 }],
    [60_403, { type: "run.resumed", modelCalls: 1, toolCalls: 0, pendingToolCalls: 1 }],
    [60_404, { type: "tool.started", callId: "t1", toolName: "transfer", arguments: { amount: 100 } }],
    [
      60_420,
      {
        type: "tool.completed",
        callId: "t1",
        toolName: "transfer",
        durationMs: 16,
        outputBytes: 9,
        isError: false,
      } as AgentEvent,
    ],
    [60_500, { type: "run.completed", modelCalls: 1, toolCalls: 1, usage: { ...usage, calls: 1 }, cost }],
  ];
  const observations: AgentObservation[] = events.map(([at, event], offset) => ({
    id: `${runId}-evt-${offset}`,
    offset,
    ts: firstStart + at,
    runId,
    rootRunId: runId,
    depth: 0,
    event,
  }));
  await s.journal.appendMany(observations);
  const resumedAt = firstStart + 60_402;
  await s.statusStore.save({
    runId,
    rootRunId: runId,
    component: "agent",
    status: "completed",
    phase: "done",
    modelCalls: 1,
    toolCalls: 1,
    activeToolCalls: [],
    usage: { ...usage, calls: 1 },
    cost,
    // What the status store holds after a resume: the resumed segment's start.
    startedAt: resumedAt,
    updatedAt: resumedAt + 98,
    endedAt: resumedAt + 98,
    identity: { runId, rootRunId: runId, component: "agent" },
  } as unknown as HarnessRunStatus);
}

/**
 * Seed the store: runs from `T0` on (one every 6 hours), the resumed run at `resumedAt`, the eval
 * runs 40 and 42 hours after `T0`. Returns the eval store holding the eval results.
 */
export async function seedDefectStore(store: CliStore, T0: number, resumedAt: number): Promise<EvalStore> {
  await seedRun(store, "priced", { steps: 3, usdPerCall: 0.00042, model: "gpt-4.1-mini", startedAt: T0 });
  await seedRun(store, "unpriced", {
    steps: 2,
    model: "local-llm",
    startedAt: T0 + 6 * HOUR,
    tags: ["nightly"],
  });
  // Its replies arrive whole at the end of each call: no time to first token to show.
  await seedRun(store, "unpriced-2", {
    steps: 5,
    model: "local-llm",
    startedAt: T0 + 12 * HOUR,
    replayed: true,
  });
  await seedRun(store, "failed", {
    steps: 1,
    status: "failed",
    error: { code: "provider", message: LONG_ERROR },
    startedAt: T0 + 18 * HOUR,
  });
  await seedRun(store, "..", { steps: 1, usdPerCall: 0.0001, startedAt: T0 + 24 * HOUR });
  await seedRun(store, "big", { steps: 1250, usdPerCall: 0.00001, startedAt: T0 + 30 * HOUR });
  // Two more runs of the same size, for the first-paint measure's other attempts (older than the
  // dashboard's window, so its figures are those of the runs above).
  for (const id of ["big-2", "big-3"])
    await seedRun(store, id, { steps: 1250, usdPerCall: 0.00001, startedAt: T0 - 10 * 24 * HOUR });
  await seedResumedRun(store, resumedAt);
  const result = evalResultFixture("ev-2", 3, T0 + 42 * HOUR);
  const baseline = evalResultFixture("ev-1", 1, T0 + 40 * HOUR);
  for (const r of [baseline, result])
    for (const t of r.trials)
      await seedRun(store, t.runId, {
        steps: 1,
        usdPerCall: 0.0002,
        tags: ["eval", `eval:${r.evalRunId}`],
        startedAt: r.startedAt + t.trial * 1000,
        ...(t.passed ? {} : { status: "failed" as const }),
      });
  const evals = new EvalStore(store.keyValue);
  await evals.save(baseline);
  await evals.save(result);
  return evals;
}
