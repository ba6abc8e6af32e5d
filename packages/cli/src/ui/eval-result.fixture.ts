/**
 * Test support (not part of the build's entries): a small eval result as `tinyagents eval` stores
 * it — cases `add` and `mul`, `repeats` trials each; the last trial of `mul` fails its scorer when
 * there are several. Trial run ids are `<evalRunId>-<case>-<trial>`.
 */
import type { EvalResult, TrialResult } from "@tinyagents/harness/evals";

export function evalResultFixture(evalRunId: string, repeats: number, startedAt: number): EvalResult {
  const usage = {
    inputTokens: 40,
    outputTokens: 4,
    totalTokens: 44,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
  const trials: TrialResult[] = [];
  for (const caseId of ["add", "mul"])
    for (let trial = 0; trial < repeats; trial++) {
      const passed = !(caseId === "mul" && repeats > 1 && trial === repeats - 1);
      trials.push({
        caseId,
        trial,
        runId: `${evalRunId}-${caseId}-${trial}`,
        passed,
        output: passed ? "42" : "41",
        latencyMs: 120 + trial * 10,
        usage,
        cost: { total: 0.0002, input: 0.0002, output: 0, cacheRead: 0, cacheWrite: 0, currency: "USD" },
        modelCalls: 1,
        toolCalls: 0,
        scores: [
          {
            scorer: "exact",
            score: passed ? 1 : 0,
            passed,
            reason: passed ? "matches the expected output" : "expected 42, got 41",
          },
        ],
      });
    }
  const passedTrials = trials.filter((t) => t.passed).length;
  return {
    evalRunId,
    name: "arithmetic",
    dataset: { name: "arithmetic", cases: 2, caseIds: ["add", "mul"] },
    status: "completed",
    repeats,
    concurrency: 1,
    scorers: ["exact"],
    startedAt,
    endedAt: startedAt + 4000,
    metadata: {},
    trials,
    passed: passedTrials === trials.length,
    thresholds: [],
    report: {
      cases: 2,
      trials: trials.length,
      finished: trials.length,
      passed: passedTrials,
      failed: trials.length - passedTrials,
      cancelled: 0,
      passRate: passedTrials / trials.length,
      scorers: [],
      usage: { agent: usage, judge: usage },
      cost: {
        agentUsd: 0.0002 * trials.length,
        judgeUsd: 0,
        totalUsd: 0.0002 * trials.length,
        unknown: false,
      },
      latency: { p50: 120, p95: 140, mean: 125, max: 140 },
      errorCodes: {},
      failures: [],
      perCase: [],
    },
  } as unknown as EvalResult;
}
