import type { EvalResult, EvalRunSummary, TrialResult } from "@tinyagents/harness/evals";
import type { CostView, EvalCaseFigures, EvalRunRow, EvalTrialView, EvalView } from "./view-types.js";

/** A row of the evals list from the eval store's summary. */
export function evalRunRow(summary: EvalRunSummary): EvalRunRow {
  return {
    evalRunId: summary.evalRunId,
    name: summary.name,
    dataset: summary.dataset,
    status: summary.status,
    startedAt: summary.startedAt,
    passRate: summary.passRate,
    passed: summary.passed,
    trials: summary.runIds.length,
  };
}

const costOf = (total: number, unknown: boolean): CostView => ({
  total,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  unknown,
});

/**
 * A case's figures over its trials, per trial: pass rate, each scorer's mean, cost per trial. A
 * baseline of 1 repeat and a run of 3 compare on these, not on totals (a 3x "cost regression").
 */
export function caseFigures(trials: readonly TrialResult[], scorers: readonly string[]): EvalCaseFigures {
  const means: Record<string, number | null> = {};
  for (const scorer of scorers) {
    const scores = trials.flatMap((t) =>
      t.scores.flatMap((s) => (s.scorer === scorer && "score" in s ? [s.score] : [])),
    );
    means[scorer] = scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
  }
  const n = trials.length;
  const total = trials.reduce((sum, t) => sum + t.cost.total, 0);
  return {
    trials: n,
    passRate: n === 0 ? null : trials.filter((t) => t.passed).length / n,
    means,
    costPerTrial: costOf(n === 0 ? 0 : total / n, n === 0 || trials.some((t) => t.cost.unknown === true)),
  };
}

function trialView(t: TrialResult): EvalTrialView {
  const view: EvalTrialView = {
    trial: t.trial,
    runId: t.runId,
    passed: t.passed,
    scores: t.scores.map((s) =>
      "error" in s
        ? { scorer: s.scorer, error: { code: s.error.code, message: s.error.message } }
        : {
            scorer: s.scorer,
            score: s.score,
            passed: s.passed,
            ...(s.reason === undefined ? {} : { reason: s.reason }),
          },
    ),
    latencyMs: t.latencyMs,
    cost: costOf(t.cost.total, t.cost.unknown === true),
  };
  if (t.error !== undefined) view.error = { code: t.error.code, message: t.error.message };
  return view;
}

/**
 * The eval page's data: cases × repeats with each trial's scores, verdicts, the scorers' reasons
 * and run ids; per case the figures normalized by repeats, and the baseline's beside them.
 */
export function evalView(
  result: EvalResult,
  baseline?: EvalResult,
  others: readonly EvalRunRow[] = [],
): EvalView {
  const byCase = (r: EvalResult, caseId: string) => r.trials.filter((t) => t.caseId === caseId);
  const caseIds = [...new Set([...result.dataset.caseIds, ...result.trials.map((t) => t.caseId)])];
  const view: EvalView = {
    evalRunId: result.evalRunId,
    name: result.name,
    dataset: result.dataset.name,
    status: result.status,
    repeats: result.repeats,
    startedAt: result.startedAt,
    endedAt: result.endedAt,
    scorers: result.scorers,
    passRate: result.report.passRate,
    passed: result.passed,
    cost: costOf(result.report.cost.totalUsd, result.report.cost.unknown),
    cases: caseIds.map((caseId) => {
      const trials = byCase(result, caseId).sort((a, b) => a.trial - b.trial);
      const figures = caseFigures(trials, result.scorers);
      const before = baseline === undefined ? [] : byCase(baseline, caseId);
      return {
        caseId,
        ...figures,
        trialViews: trials.map(trialView),
        ...(baseline === undefined || before.length === 0
          ? {}
          : { baseline: caseFigures(before, result.scorers) }),
      };
    }),
    sameDataset: others.filter((o) => o.dataset === result.dataset.name && o.evalRunId !== result.evalRunId),
  };
  if (baseline !== undefined)
    view.baseline = {
      evalRunId: baseline.evalRunId,
      repeats: baseline.repeats,
      startedAt: baseline.startedAt,
    };
  return view;
}
