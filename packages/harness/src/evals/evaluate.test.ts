import { assistant, type ChatModel, type ModelResponse, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { waitUntil } from "../../test/support/wait-until.js";
import { InMemoryEventJournal } from "../observability/in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "../observability/in-memory-status-store.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { SlowModel } from "../testkit/slow-model.js";
import type { EvalAgent } from "./agent-target.js";
import { agentPerCase, scriptedAgent } from "./eval.fixture.js";
import { EvalStore } from "./eval-store.js";
import { type EvalProgress, evaluate } from "./evaluate.js";
import { contains } from "./scorers/contains.js";
import { defineScorer } from "./scorers/custom.js";
import { exactMatch } from "./scorers/exact-match.js";
import type { EvalThresholds } from "./thresholds.js";

const cases = [
  { id: "paris", input: "Capital of France?", expected: "Paris" },
  { id: "rome", input: "Capital of Italy?", expected: "Rome" },
  { id: "oslo", input: "Capital of Norway?", expected: "Oslo" },
];

describe("evaluate", () => {
  it("runs every case through the agent, scores it, and reports pass rate, cost, tokens and latency", async () => {
    const result = await evaluate({
      agent: agentPerCase({ paris: ["Paris"], rome: ["Rome"], oslo: ["Bergen"] }),
      dataset: { name: "capitals", cases },
      scorers: [exactMatch()],
    });
    expect(result.status).toBe("completed");
    expect(result.dataset).toEqual({ name: "capitals", cases: 3, caseIds: ["paris", "rome", "oslo"] });
    expect(result.trials.map((t) => [t.caseId, t.passed, t.output])).toEqual([
      ["paris", true, "Paris"],
      ["rome", true, "Rome"],
      ["oslo", false, "Bergen"],
    ]);
    const { report } = result;
    expect(report).toMatchObject({ cases: 3, trials: 3, finished: 3, passed: 2, failed: 1, cancelled: 0 });
    expect(report.passRate).toBeCloseTo(2 / 3);
    expect(report.scorers).toEqual([{ scorer: "exact", mean: 2 / 3, scored: 3, passRate: 2 / 3, errors: 0 }]);
    expect(report.usage.agent.totalTokens).toBe(45);
    expect(report.cost.agentUsd).toBeCloseTo(0.06);
    expect(report.cost.judgeUsd).toBe(0);
    expect(report.latency.p50).not.toBeNull();
    expect(report.failures).toEqual([
      expect.objectContaining({
        caseId: "oslo",
        scorer: "exact",
        message: 'score 0: expected "Oslo", got "Bergen"',
      }),
    ]);
    expect(report.perCase.map((c) => [c.caseId, c.passed, c.tokens])).toEqual([
      ["paris", true, 15],
      ["rome", true, 15],
      ["oslo", false, 15],
    ]);
    expect(result.passed).toBe(true); // no thresholds given
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it("runs the agent through its front door, agent.run, with the eval's run options", async () => {
    const seen: unknown[] = [];
    const inner = scriptedAgent(["Paris"]);
    // An agent that only has `run`: nothing else of the harness is reached.
    const frontDoorOnly: EvalAgent = {
      run: (input, options) => {
        seen.push({ input, runId: options?.runId, tags: options?.tags, timeout: options?.limits });
        return inner.run(input, options);
      },
    };
    const result = await evaluate({
      agent: frontDoorOnly,
      dataset: { name: "one", cases: [{ id: "paris", input: "Capital of France?", expected: "Paris" }] },
      scorers: [exactMatch()],
      timeoutMs: 5_000,
    });
    expect(result.trials.map((t) => [t.output, t.passed])).toEqual([["Paris", true]]);
    expect(seen).toEqual([
      {
        input: "Capital of France?",
        runId: result.trials[0]?.runId,
        tags: expect.arrayContaining(["eval"]),
        timeout: { timeoutMs: 5_000 },
      },
    ]);
  });

  it("a failed run still reports its error, tokens and cost (from the AgentRunError's partial run)", async () => {
    const failing = () =>
      scriptedAgent([{ toolCalls: [{ name: "lookup", arguments: { city: "x" } }] }]).withPolicy({
        limits: { maxModelCalls: 1 },
      });
    const result = await evaluate({
      agent: failing,
      dataset: { name: "one", cases: [{ id: "c", input: "loop", expected: "never" }] },
      scorers: [exactMatch()],
    });
    const trial = result.trials[0];
    expect(trial?.error?.code).toBe("limit_exceeded");
    expect(trial?.usage.totalTokens).toBe(15);
    expect(trial?.modelCalls).toBe(1);
  });

  it("tags, journals and saves the status of every run under the eval run id", async () => {
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const seen: { tags: string[]; metadata: unknown }[] = [];
    const result = await evaluate({
      agent: (evalCase) => {
        const harness = scriptedAgent([evalCase.expected ?? ""]);
        harness.use({
          name: "spy",
          beforeAgent: (ctx) => {
            seen.push({ tags: ctx.run.config.tags, metadata: ctx.run.config.metadata });
          },
        });
        return harness;
      },
      dataset: { name: "capitals", cases },
      scorers: [exactMatch()],
      evalRunId: "eval-test-1",
      journal,
      statusStore,
    });
    expect(result.trials.map((t) => t.runId)).toEqual([
      "eval-test-1-c1-r1",
      "eval-test-1-c2-r1",
      "eval-test-1-c3-r1",
    ]);
    expect(seen[0]).toEqual({
      tags: ["eval", "eval:eval-test-1"],
      metadata: { evalRunId: "eval-test-1", dataset: "capitals", caseId: "paris", trial: 0 },
    });
    for (const trial of result.trials) {
      const records = await journal.read(trial.runId);
      expect(records[0]?.event.type).toBe("run.started");
      expect(records.at(-1)?.event.type).toBe("run.completed");
      expect((await statusStore.get(trial.runId))?.status).toBe("completed");
    }
  });

  it("a failed run is a failed trial with its error code; scorers still see the partial run", async () => {
    const result = await evaluate({
      agent: agentPerCase({ paris: ["Paris"], rome: [new Error("boom")], oslo: ["Oslo"] }),
      dataset: cases,
      scorers: [exactMatch()],
    });
    const rome = result.trials[1];
    expect(rome?.passed).toBe(false);
    expect(rome?.error?.code).toBe("provider");
    expect(rome?.error?.message).toContain("boom");
    expect(rome?.scores[0]).toMatchObject({ scorer: "exact", score: 0 });
    expect(result.report.errorCodes).toEqual({ provider: 1 });
    expect(result.report.failures[0]).toMatchObject({ caseId: "rome", code: "provider" });
    // An agent factory that throws fails only its trial.
    const broken = await evaluate({
      agent: (evalCase) => {
        if (evalCase.id === "rome") throw new Error("no agent for rome");
        return scriptedAgent([evalCase.expected ?? ""]);
      },
      dataset: cases,
      scorers: [exactMatch()],
    });
    expect(broken.trials.map((t) => t.passed)).toEqual([true, false, true]);
    expect(broken.trials[1]?.error).toEqual({ code: "internal", message: "no agent for rome" });
  });

  it("keeps at most `concurrency` runs in flight and reports progress after each trial", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const model: ChatModel = {
      provider: "gate",
      modelId: "gate",
      cacheIdentity: "gate",
      async invoke(): Promise<ModelResponse> {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setImmediate(resolve)); // stay in flight for a turn
        inFlight -= 1;
        return {
          message: assistant("ok"),
          usage: usage({ inputTokens: 1, outputTokens: 1 }),
          finishReason: "stop",
        };
      },
    };
    const harness = new AgentHarness().registerModel("gate", model);
    const progress: EvalProgress[] = [];
    const many = Array.from({ length: 9 }, (_, i) => ({ id: `c${i}`, input: `q${i}`, expected: "ok" }));
    const result = await evaluate({
      agent: harness,
      dataset: many,
      scorers: [exactMatch()],
      concurrency: 3,
      onProgress: (p) => progress.push(p),
    });
    expect(maxInFlight).toBe(3);
    expect(result.report.passed).toBe(9);
    expect(progress.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(progress[0]).toEqual({ evalRunId: result.evalRunId, total: 9, done: 0, passed: 0, failed: 0 });
    expect(progress.at(-1)).toMatchObject({ total: 9, done: 9, passed: 9, failed: 0 });
    expect(progress.at(-1)?.trial?.caseId).toMatch(/^c\d$/);
  });

  it("repeats each case and gives score means a 95% confidence interval", async () => {
    // Case "flaky" answers right on 2 of 4 runs; "steady" on all 4.
    const replies: Record<string, string[]> = {
      steady: ["yes", "yes", "yes", "yes"],
      flaky: ["yes", "no", "yes", "no"],
    };
    const result = await evaluate({
      agent: (evalCase, trial) => scriptedAgent([replies[evalCase.id]?.[trial] ?? ""]),
      dataset: [
        { id: "steady", input: "q", expected: "yes" },
        { id: "flaky", input: "q", expected: "yes" },
      ],
      scorers: [exactMatch()],
      repeats: 4,
      concurrency: 2,
    });
    expect(result.trials.map((t) => `${t.caseId}#${t.trial}`)).toEqual([
      "steady#0",
      "steady#1",
      "steady#2",
      "steady#3",
      "flaky#0",
      "flaky#1",
      "flaky#2",
      "flaky#3",
    ]);
    const [steady, flaky] = result.report.perCase;
    expect(steady).toMatchObject({ trials: 4, passedTrials: 4, passRate: 1, passed: true });
    expect(steady?.scorers[0]?.ci).toEqual({ low: 1, high: 1, level: 0.95 });
    expect(flaky).toMatchObject({ trials: 4, passedTrials: 2, passRate: 0.5, passed: false });
    // mean 0.5, sd 0.5774, t(0.975, 3) = 3.182: 0.5 +- 0.9186, clamped to [0, 1].
    expect(flaky?.scorers[0]?.ci).toEqual({ low: 0, high: 1, level: 0.95 });
    // Overall: 6 of 8, sd 0.4629, t(0.975, 7) = 2.365: 0.75 +- 0.387.
    const overall = result.report.scorers[0];
    expect(overall?.mean).toBe(0.75);
    expect(overall?.ci?.low).toBeCloseTo(0.75 - (2.365 * 0.46291) / Math.sqrt(8), 3);
    expect(overall?.ci?.high).toBe(1);
    expect(result.report.passRate).toBe(0.75);
  });

  it("without repeats there is no interval", async () => {
    const result = await evaluate({
      agent: agentPerCase({ paris: ["Paris"], rome: ["Rome"], oslo: ["Oslo"] }),
      dataset: cases,
      scorers: [exactMatch()],
    });
    expect(result.report.scorers[0]?.ci).toBeUndefined();
  });

  it("a scorer error is counted apart from scores: not in the mean, the trial fails, its code is reported", async () => {
    const picky = defineScorer("picky", ({ case: c }) => {
      if (c.id === "rome") throw new Error("cannot score rome");
      return 1;
    });
    const result = await evaluate({
      agent: agentPerCase({ paris: ["Paris"], rome: ["Rome"], oslo: ["Oslo"] }),
      dataset: cases,
      scorers: [picky, exactMatch()],
    });
    expect(result.report.scorers[0]).toEqual({ scorer: "picky", mean: 1, scored: 2, passRate: 1, errors: 1 });
    expect(result.trials[1]?.passed).toBe(false);
    expect(result.report.errorCodes).toEqual({ internal: 1 });
    expect(result.report.failures).toEqual([
      expect.objectContaining({
        caseId: "rome",
        scorer: "picky",
        code: "internal",
        message: "cannot score rome",
      }),
    ]);
  });

  it("thresholds gate the result (passRate, scorer mean, cost, p95 latency, errors)", async () => {
    const run = (thresholds: EvalThresholds) =>
      evaluate({
        agent: agentPerCase({ paris: ["Paris"], rome: ["Rome"], oslo: ["Bergen"] }),
        dataset: cases,
        scorers: [exactMatch(), contains({ name: "mentions" })],
        thresholds,
      });
    const loose = await run({
      passRate: 0.6,
      scorers: { exact: 0.6 },
      maxCostUsd: 1,
      maxP95LatencyMs: 60_000,
      maxErrors: 0,
    });
    expect(loose.passed).toBe(true);
    expect(loose.thresholds.map((t) => [t.name, t.expected, t.passed])).toEqual([
      ["passRate", ">= 0.6", true],
      ["scorer:exact", ">= 0.6", true],
      ["maxCostUsd", "<= 1", true],
      ["maxP95LatencyMs", "<= 60000", true],
      ["maxErrors", "<= 0", true],
    ]);
    const strict = await run({ passRate: 0.9, maxCostUsd: 0.01 });
    expect(strict.passed).toBe(false);
    expect(strict.thresholds).toEqual([
      { name: "passRate", expected: ">= 0.9", actual: 2 / 3, passed: false },
      { name: "maxCostUsd", expected: "<= 0.01", actual: expect.closeTo(0.06), passed: false },
    ]);
    await expect(run({ scorers: { exat: 0.5 } })).rejects.toThrow(
      /thresholds.scorers names "exat", which is not a scorer/,
    );
    await expect(run({ passRate: 2 })).rejects.toThrow(/thresholds.passRate must be a number in \[0, 1\]/);
    await expect(run({ passrate: 0.5 } as never)).rejects.toThrow(/thresholds.passrate is not a threshold/);
  });

  it("cancellation stops new runs, cancels the one in flight, and returns (and saves) the partial result", async () => {
    const controller = new AbortController();
    const slow = new SlowModel({ delayMs: 60_000, reply: "late" });
    const store = new EvalStore(new InMemoryKeyValueStore());
    const journal = new InMemoryEventJournal();
    const started = Date.now();
    const evaluating = evaluate({
      agent: (evalCase) =>
        evalCase.id === "paris" ? scriptedAgent(["Paris"]) : new AgentHarness().registerModel("slow", slow),
      dataset: cases,
      scorers: [exactMatch()],
      concurrency: 1,
      signal: controller.signal,
      store,
      journal,
      evalRunId: "eval-cancel",
    });
    // Cancel while the second case waits on its (60 s) model call.
    await waitUntil(() => slow.callCount === 1, "the second case called its model");
    controller.abort();
    const result = await evaluating;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe("cancelled");
    expect(result.passed).toBe(false);
    expect(result.trials.map((t) => [t.caseId, t.passed, t.error?.code])).toEqual([
      ["paris", true, undefined],
      ["rome", false, "cancelled"],
    ]);
    expect(result.trials[1]?.scores).toEqual([]);
    expect(result.report).toMatchObject({ trials: 3, finished: 1, passed: 1, cancelled: 2, passRate: 1 });
    expect(slow.completed).toBe(0);
    const saved = await store.require("eval-cancel");
    expect(saved.status).toBe("cancelled");
    expect((await journal.read("eval-cancel-c2-r1")).at(-1)?.event).toMatchObject({
      type: "run.failed",
      error: { code: "cancelled" },
    });
    // An already-aborted signal runs nothing.
    const none = await evaluate({
      agent: scriptedAgent([]),
      dataset: cases,
      scorers: [exactMatch()],
      signal: AbortSignal.abort(),
    });
    expect(none).toMatchObject({
      status: "cancelled",
      trials: [],
      report: { finished: 0, cancelled: 3, passRate: null },
    });
  });

  it("refuses bad options with validation errors naming the field", async () => {
    const base = { agent: scriptedAgent([]), dataset: cases, scorers: [exactMatch()] };
    await expect(evaluate({ ...base, scorers: [] })).rejects.toMatchObject({
      code: "validation",
      details: { field: "scorers" },
    });
    await expect(evaluate({ ...base, scorers: [exactMatch(), exactMatch()] })).rejects.toThrow(
      /two scorers are named "exact"/,
    );
    await expect(evaluate({ ...base, concurrency: 0 })).rejects.toThrow(
      /concurrency must be a positive integer/,
    );
    await expect(evaluate({ ...base, repeats: 1.5 })).rejects.toThrow(/repeats must be a positive integer/);
    await expect(evaluate({ ...base, agent: {} as never })).rejects.toThrow(/agent must be an AgentHarness/);
    await expect(evaluate({ ...base, dataset: [{ id: "x" }] as never })).rejects.toThrow(
      /field "input" is required/,
    );
  });
});
