import type { EvalResult, TrialResult } from "@tinyagents/harness/evals";
import { describe, expect, it } from "vitest";
import { evalView } from "./eval-view.js";

const cost = (total: number, unknown = false) => ({
  total,
  input: total,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  currency: "USD" as const,
  ...(unknown ? { unknown: true as const } : {}),
});

function trial(
  caseId: string,
  i: number,
  passed: boolean,
  score: number,
  usd: number,
  unknown = false,
): TrialResult {
  return {
    caseId,
    trial: i,
    runId: `${caseId}-${i}`,
    passed,
    output: "",
    latencyMs: 10,
    usage: {
      inputTokens: 1,
      outputTokens: 1,
      totalTokens: 2,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    },
    cost: cost(usd, unknown),
    modelCalls: 1,
    toolCalls: 0,
    scores: [{ scorer: "exact", score, passed, reason: passed ? "matches" : `expected 4, got ${score}` }],
  };
}

function result(id: string, repeats: number, trials: TrialResult[]): EvalResult {
  return {
    evalRunId: id,
    name: "math",
    dataset: { name: "math", cases: 2, caseIds: ["a", "b"] },
    status: "completed",
    repeats,
    concurrency: 1,
    scorers: ["exact"],
    startedAt: 0,
    endedAt: 100,
    metadata: {},
    passed: false,
    trials,
    report: { passRate: 0.5, cost: { totalUsd: 0, agentUsd: 0, judgeUsd: 0, unknown: false } },
  } as unknown as EvalResult;
}

describe("the eval page's data", () => {
  const baseline = result("base", 1, [trial("a", 0, true, 1, 0.001), trial("b", 0, true, 1, 0.002)]);
  const current = result("cur", 3, [
    trial("a", 0, true, 1, 0.001),
    trial("a", 1, true, 1, 0.001),
    trial("a", 2, false, 0, 0.001),
    trial("b", 0, true, 1, 0.002, true),
    trial("b", 1, true, 1, 0.002),
    trial("b", 2, true, 1, 0.002),
  ]);

  it("cases × repeats with each trial's verdict, score, reason and run id", () => {
    const view = evalView(current);
    const a = view.cases.find((c) => c.caseId === "a");
    expect(a?.trialViews.map((t) => [t.runId, t.passed, t.scores[0]?.score])).toEqual([
      ["a-0", true, 1],
      ["a-1", true, 1],
      ["a-2", false, 0],
    ]);
    expect(a?.trialViews[2]?.scores[0]?.reason).toBe("expected 4, got 0");
  });

  it("the baseline compares per trial: 1 repeat vs 3 of the same cost is the same cost per trial", () => {
    const view = evalView(current, baseline);
    const a = view.cases.find((c) => c.caseId === "a");
    expect(a?.costPerTrial.total).toBeCloseTo(0.001, 9);
    expect(a?.baseline?.costPerTrial.total).toBeCloseTo(0.001, 9);
    expect(a?.passRate).toBeCloseTo(2 / 3, 9);
    expect(a?.baseline?.passRate).toBe(1);
    expect(a?.means.exact).toBeCloseTo(2 / 3, 9);
    expect(view.baseline).toEqual({ evalRunId: "base", repeats: 1, startedAt: 0 });
  });

  it("a case with a trial of unknown cost has an unknown cost per trial", () => {
    const b = evalView(current).cases.find((c) => c.caseId === "b");
    expect(b?.costPerTrial.unknown).toBe(true);
  });
});
