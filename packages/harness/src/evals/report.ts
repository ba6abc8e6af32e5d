import { addUsage, type ErrorCode, emptyUsage } from "@tinyagents/inference";
import type { EvalCase } from "./eval-case.js";
import type {
  CaseSummary,
  EvalLatency,
  EvalReport,
  FailureEntry,
  ScorerSummary,
  TrialResult,
} from "./eval-result.js";
import { confidenceInterval, mean, percentile } from "./stats.js";

/**
 * The aggregate report of `trials` (in case order): pass rate over finished trials, each
 * scorer's mean (with a 95% interval when a case ran more than once), the agent's and the
 * judges' usage and cost apart, p50/p95 latency, error codes, the failures, and the same per
 * case. `planned` counts the trials that were meant to run (cancelled ones included).
 */
export function buildReport(
  cases: readonly EvalCase[],
  trials: readonly TrialResult[],
  planned: number,
): EvalReport {
  const finished = trials.filter((trial) => !isCancelled(trial));
  const repeated = cases.some((evalCase) => trials.filter((t) => t.caseId === evalCase.id).length > 1);
  const passed = finished.filter((trial) => trial.passed).length;
  let agentUsage = emptyUsage();
  let judgeUsage = emptyUsage();
  let agentUsd = 0;
  let judgeUsd = 0;
  let unknown = false;
  let usageUnknown = false;
  for (const trial of trials) {
    agentUsage = addUsage(agentUsage, trial.usage);
    // A trial's usage is its run's totals: `unknown` when a call reported none.
    if ((trial.usage as { unknown?: true }).unknown === true) usageUnknown = true;
    agentUsd += trial.cost.total;
    if (trial.cost.unknown === true) unknown = true;
    for (const score of trial.scores) {
      if ("error" in score) continue;
      if (score.usage !== undefined) judgeUsage = addUsage(judgeUsage, score.usage);
      if (score.cost !== undefined) {
        judgeUsd += score.cost.total;
        if (score.cost.unknown === true) unknown = true;
      }
    }
  }
  return {
    cases: cases.length,
    trials: planned,
    finished: finished.length,
    passed,
    failed: finished.length - passed,
    cancelled: planned - finished.length,
    passRate: finished.length === 0 ? null : passed / finished.length,
    scorers: scorerSummaries(finished, repeated),
    usage: usageUnknown
      ? { agent: agentUsage, judge: judgeUsage, unknown: true }
      : { agent: agentUsage, judge: judgeUsage },
    cost: { agentUsd, judgeUsd, totalUsd: agentUsd + judgeUsd, unknown },
    latency: latency(finished),
    errorCodes: errorCodes(trials),
    failures: failures(finished),
    perCase: cases.map((evalCase) =>
      caseSummary(
        evalCase.id,
        trials.filter((t) => t.caseId === evalCase.id),
      ),
    ),
  };
}

function caseSummary(caseId: string, trials: readonly TrialResult[]): CaseSummary {
  const finished = trials.filter((trial) => !isCancelled(trial));
  const passedTrials = finished.filter((trial) => trial.passed).length;
  return {
    caseId,
    trials: trials.length,
    passedTrials,
    passRate: finished.length === 0 ? null : passedTrials / finished.length,
    passed: finished.length > 0 && passedTrials === finished.length,
    scorers: scorerSummaries(finished, trials.length > 1),
    latency: latency(finished),
    costUsd: trials.reduce((sum, trial) => sum + trial.cost.total, 0),
    tokens: trials.reduce((sum, trial) => sum + trial.usage.totalTokens, 0),
    errors: errorCodes(trials),
  };
}

/** Per scorer, in first-seen order; errors are counted apart and left out of the mean. */
function scorerSummaries(trials: readonly TrialResult[], repeated: boolean): ScorerSummary[] {
  const byName = new Map<string, { scores: number[]; passed: number; errors: number }>();
  for (const trial of trials) {
    for (const outcome of trial.scores) {
      let entry = byName.get(outcome.scorer);
      if (entry === undefined) {
        entry = { scores: [], passed: 0, errors: 0 };
        byName.set(outcome.scorer, entry);
      }
      if ("error" in outcome) entry.errors += 1;
      else {
        entry.scores.push(outcome.score);
        if (outcome.passed) entry.passed += 1;
      }
    }
  }
  return [...byName].map(([scorer, entry]) => {
    const summary: ScorerSummary = {
      scorer,
      mean: entry.scores.length === 0 ? null : mean(entry.scores),
      scored: entry.scores.length,
      passRate: entry.scores.length === 0 ? null : entry.passed / entry.scores.length,
      errors: entry.errors,
    };
    const ci = repeated ? confidenceInterval(entry.scores, 0, 1) : undefined;
    if (ci !== undefined) summary.ci = ci;
    return summary;
  });
}

function latency(trials: readonly TrialResult[]): EvalLatency {
  const values = trials.map((trial) => trial.latencyMs);
  if (values.length === 0) return { p50: null, p95: null, mean: null, max: null };
  return {
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    mean: mean(values),
    max: Math.max(...values),
  };
}

function errorCodes(trials: readonly TrialResult[]): Partial<Record<ErrorCode, number>> {
  const counts: Partial<Record<ErrorCode, number>> = {};
  const add = (code: ErrorCode) => {
    counts[code] = (counts[code] ?? 0) + 1;
  };
  for (const trial of trials) {
    if (trial.error !== undefined) add(trial.error.code);
    for (const score of trial.scores) if ("error" in score) add(score.error.code);
  }
  return counts;
}

/** Run failures first (with their code), then scorer errors and failed verdicts (with the reason). */
function failures(trials: readonly TrialResult[]): FailureEntry[] {
  const entries: FailureEntry[] = [];
  for (const trial of trials) {
    if (trial.passed) continue;
    const base = { caseId: trial.caseId, trial: trial.trial, runId: trial.runId };
    if (trial.error !== undefined)
      entries.push({ ...base, code: trial.error.code, message: trial.error.message });
    for (const score of trial.scores) {
      if ("error" in score) {
        entries.push({ ...base, scorer: score.scorer, code: score.error.code, message: score.error.message });
      } else if (!score.passed) {
        entries.push({
          ...base,
          scorer: score.scorer,
          message: `score ${round(score.score)}${score.reason === undefined ? "" : `: ${score.reason}`}`,
        });
      }
    }
  }
  return entries;
}

/** A trial cut short by cancelling the eval (not scored, not counted as passed or failed). */
export function isCancelled(trial: TrialResult): boolean {
  return trial.error?.code === "cancelled" && trial.scores.length === 0;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
