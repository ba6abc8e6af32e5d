import { validationError } from "@tinyagents/inference";
import type { EvalResult } from "./eval-result.js";

/** One case's (or one case's scorer's) change between two eval runs. */
export interface EvalChange {
  caseId: string;
  /** The scorer whose mean moved; absent for the case's pass rate. */
  scorer?: string;
  baseline: number;
  current: number;
  /** current - baseline. */
  delta: number;
}

/** What changed from a baseline eval run to the current one (same dataset). */
export interface EvalComparison {
  baselineId: string;
  currentId: string;
  /** Moves down by more than the tolerance: a case's pass rate or a scorer's mean. */
  regressions: EvalChange[];
  /** Moves up by more than the tolerance. */
  improvements: EvalChange[];
  /** Figures compared that stayed within the tolerance. */
  unchanged: number;
  /** Cases only in the current run, or only in the baseline. */
  addedCases: string[];
  removedCases: string[];
  /** Aggregate moves (null when a side has no figure). */
  passRate: { baseline: number | null; current: number | null; delta: number | null };
  scorers: { scorer: string; baseline: number | null; current: number | null; delta: number | null }[];
  /**
   * Cost PER TRIAL (each side's total over its finished trials), so a baseline of 1 repeat and a
   * run of 3 compare fairly. `unknown` when a side's cost is a lower bound (a model without a
   * price, calls without usage) or a side finished no trial: then the figures are not comparable.
   */
  costUsd: { baseline: number; current: number; delta: number; perTrial: true; unknown: boolean };
  /** How many times each case ran on each side (`repeats`), and how many trials finished. */
  repeats: { baseline: number; current: number };
  trials: { baseline: number; current: number };
  p95LatencyMs: { baseline: number | null; current: number | null; delta: number | null };
}

/** Options of {@link compareEvals}. */
export interface CompareOptions {
  /** A move smaller than or equal to this is not flagged (default 0: any move is). */
  tolerance?: number;
}

/**
 * Compare two eval runs of the same dataset case by case: each case's pass rate and each
 * scorer's mean score. A drop beyond `tolerance` is a regression, a rise an improvement; cases
 * present on one side only are listed apart. With repeats, means are compared (set a
 * tolerance near the width of the confidence intervals to ignore noise), and cost is compared
 * per trial, with each side's repeat count, so runs with different `repeats` compare fairly.
 *
 * @throws TinyAgentsError `validation` when the runs are of different datasets.
 */
export function compareEvals(
  baseline: EvalResult,
  current: EvalResult,
  options: CompareOptions = {},
): EvalComparison {
  const tolerance = options.tolerance ?? 0;
  if (!(tolerance >= 0 && tolerance <= 1)) {
    throw validationError(`compareEvals: tolerance must be in [0, 1], got ${String(tolerance)}`, {
      field: "tolerance",
    });
  }
  if (baseline.dataset.name !== current.dataset.name) {
    throw validationError(
      `compareEvals: the baseline ${baseline.evalRunId} ran dataset "${baseline.dataset.name}", the current run "${current.dataset.name}"; compare runs of the same dataset`,
      { field: "baseline" },
    );
  }
  const before = new Map(baseline.report.perCase.map((summary) => [summary.caseId, summary]));
  const after = new Map(current.report.perCase.map((summary) => [summary.caseId, summary]));
  const regressions: EvalChange[] = [];
  const improvements: EvalChange[] = [];
  let unchanged = 0;
  const compare = (caseId: string, scorer: string | undefined, a: number | null, b: number | null) => {
    if (a === null || b === null) return;
    const delta = b - a;
    const change: EvalChange = { caseId, baseline: a, current: b, delta };
    if (scorer !== undefined) change.scorer = scorer;
    if (delta < -tolerance - 1e-12) regressions.push(change);
    else if (delta > tolerance + 1e-12) improvements.push(change);
    else unchanged += 1;
  };
  for (const [caseId, now] of after) {
    const then = before.get(caseId);
    if (then === undefined) continue;
    compare(caseId, undefined, then.passRate, now.passRate);
    for (const score of now.scorers) {
      const old = then.scorers.find((s) => s.scorer === score.scorer);
      if (old !== undefined) compare(caseId, score.scorer, old.mean, score.mean);
    }
  }
  const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);
  const scorerNames = [...new Set([...baseline.scorers, ...current.scorers])];
  return {
    baselineId: baseline.evalRunId,
    currentId: current.evalRunId,
    regressions,
    improvements,
    unchanged,
    addedCases: [...after.keys()].filter((id) => !before.has(id)),
    removedCases: [...before.keys()].filter((id) => !after.has(id)),
    passRate: {
      baseline: baseline.report.passRate,
      current: current.report.passRate,
      delta: delta(baseline.report.passRate, current.report.passRate),
    },
    scorers: scorerNames.map((scorer) => {
      const a = baseline.report.scorers.find((s) => s.scorer === scorer)?.mean ?? null;
      const b = current.report.scorers.find((s) => s.scorer === scorer)?.mean ?? null;
      return { scorer, baseline: a, current: b, delta: delta(a, b) };
    }),
    costUsd: perTrialCost(baseline, current),
    repeats: { baseline: baseline.repeats, current: current.repeats },
    trials: { baseline: baseline.report.finished, current: current.report.finished },
    p95LatencyMs: {
      baseline: baseline.report.latency.p95,
      current: current.report.latency.p95,
      delta: delta(baseline.report.latency.p95, current.report.latency.p95),
    },
  };
}

/** Each side's cost per finished trial (see `EvalComparison.costUsd`). */
function perTrialCost(baseline: EvalResult, current: EvalResult): EvalComparison["costUsd"] {
  const per = (result: EvalResult) =>
    result.report.finished > 0 ? result.report.cost.totalUsd / result.report.finished : 0;
  const a = per(baseline);
  const b = per(current);
  const unknown =
    baseline.report.cost.unknown ||
    current.report.cost.unknown ||
    baseline.report.finished === 0 ||
    current.report.finished === 0;
  return { baseline: a, current: b, delta: b - a, perTrial: true, unknown };
}
