import type { EvalComparison, EvalResult, ScorerSummary } from "@tinyagents/harness/evals";
import {
  type CostFigure,
  formatCostFigure,
  formatCount,
  formatDelta,
  formatDuration,
} from "../figures/figures.js";

/** Left-aligned columns separated by two spaces (the header row first). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const score = (value: number | null | undefined) =>
  value === null || value === undefined ? "-" : value.toFixed(2);
/** A case's cost over its trials: unknown when some trial's cost was (no price, no usage). */
function caseCost(result: EvalResult, caseId: string, totalUsd: number): CostFigure {
  const unknown = result.trials.some((trial) => trial.caseId === caseId && trial.cost.unknown === true);
  return { total: totalUsd, unknown };
}
const ms = (value: number | null) => (value === null ? "-" : formatDuration(value));
const percent = (value: number | null) => (value === null ? "-" : `${Math.round(value * 1000) / 10}%`);

function scorerCell(summary: ScorerSummary | undefined): string {
  if (summary === undefined) return "-";
  const mean = score(summary.mean);
  return summary.errors > 0 ? `${mean} (${summary.errors} err)` : mean;
}

/** The whole report as text: per case, per scorer, totals, failures, thresholds. */
export function formatEvalReport(result: EvalResult): string {
  const { report } = result;
  const lines: string[] = [];
  const wall = formatDuration(result.endedAt - result.startedAt);
  lines.push(
    `eval ${result.name}: ${result.dataset.cases} case(s) x ${result.repeats}, ${result.status} in ${wall}  (eval run id: ${result.evalRunId})`,
    "",
  );
  const caseRows: string[][] = [["case", "pass", ...result.scorers, "p50", "tokens", "cost"]];
  for (const summary of report.perCase) {
    caseRows.push([
      summary.caseId,
      `${summary.passedTrials}/${summary.trials}`,
      ...result.scorers.map((name) => scorerCell(summary.scorers.find((s) => s.scorer === name))),
      ms(summary.latency.p50),
      formatCount(summary.tokens),
      formatCostFigure(caseCost(result, summary.caseId, summary.costUsd)),
    ]);
  }
  lines.push(table(caseRows), "");
  const scorerRows: string[][] = [["scorer", "mean", "95% CI", "pass", "errors"]];
  for (const summary of report.scorers) {
    scorerRows.push([
      summary.scorer,
      score(summary.mean),
      summary.ci === undefined ? "-" : `[${score(summary.ci.low)}, ${score(summary.ci.high)}]`,
      summary.passRate === null ? "-" : `${Math.round(summary.passRate * summary.scored)}/${summary.scored}`,
      String(summary.errors),
    ]);
  }
  lines.push(table(scorerRows), "");
  const cancelled = report.cancelled > 0 ? `, ${report.cancelled} cancelled` : "";
  const unknown = report.cost.unknown;
  const usd = (total: number) => formatCostFigure({ total, unknown });
  lines.push(
    `pass rate ${percent(report.passRate)} (${report.passed}/${report.finished}${cancelled})`,
    `cost ${usd(report.cost.totalUsd)} (agent ${usd(report.cost.agentUsd)}, judge ${usd(report.cost.judgeUsd)})${unknown ? " — some model has no known price or reported no usage" : ""}`,
    `tokens ${formatCount(report.usage.agent.totalTokens)} agent, ${formatCount(report.usage.judge.totalTokens)} judge`,
    `latency p50 ${ms(report.latency.p50)}, p95 ${ms(report.latency.p95)}, max ${ms(report.latency.max)}`,
  );
  const codes = Object.entries(report.errorCodes);
  if (codes.length > 0) lines.push(`errors ${codes.map(([code, n]) => `${code} x${n}`).join(", ")}`);
  if (report.failures.length > 0) {
    lines.push("", "failures:");
    for (const failure of report.failures.slice(0, 20)) {
      const repeat = result.repeats > 1 ? ` #${failure.trial + 1}` : "";
      const what = failure.scorer === undefined ? "run" : failure.scorer;
      const code = failure.code === undefined ? "" : ` [${failure.code}]`;
      lines.push(
        `  ${failure.caseId}${repeat} ${what}${code}: ${failure.message}  (tinyagents show ${failure.runId})`,
      );
    }
    if (report.failures.length > 20) lines.push(`  … ${report.failures.length - 20} more (see --json)`);
  }
  if (result.thresholds.length > 0) {
    lines.push("", "thresholds:");
    for (const check of result.thresholds) {
      const actual = check.actual === null ? "none" : String(Math.round(check.actual * 1e6) / 1e6);
      lines.push(`  ${check.passed ? "ok  " : "FAIL"} ${check.name} ${check.expected} (got ${actual})`);
    }
  }
  return lines.join("\n");
}

/**
 * Regressions and improvements against a baseline eval run. The cost line is per trial (the
 * comparison's own figures: a baseline of 1 repeat against 3 is not a 3x regression), with each
 * side's repeats and finished trials; an unknown cost prints `unknown`, and so does the difference.
 */
export function formatComparison(comparison: EvalComparison): string {
  const lines = [`compared with ${comparison.baselineId}:`];
  const delta = (value: number | null) =>
    value === null ? "-" : `${value >= 0 ? "+" : ""}${value.toFixed(2)}`;
  const { costUsd: c, repeats, trials } = comparison;
  const side = (usd: number, n: number, r: number) =>
    `${formatCostFigure({ total: usd, unknown: c.unknown })} (${n} trials, ${r} repeat${r === 1 ? "" : "s"})`;
  const cost =
    `cost per trial ${side(c.baseline, trials.baseline, repeats.baseline)} -> ${side(c.current, trials.current, repeats.current)}` +
    ` (${formatDelta("usd", c.unknown ? undefined : c.baseline, c.unknown ? undefined : c.current)})`;
  lines.push(
    `  pass rate ${percent(comparison.passRate.baseline)} -> ${percent(comparison.passRate.current)}; ${cost}`,
  );
  for (const scorer of comparison.scorers) {
    lines.push(
      `  ${scorer.scorer}: ${score(scorer.baseline)} -> ${score(scorer.current)} (${delta(scorer.delta)})`,
    );
  }
  const change = (label: string, items: EvalComparison["regressions"]) => {
    if (items.length === 0) return;
    lines.push(`  ${label}:`);
    for (const item of items) {
      lines.push(
        `    ${item.caseId} ${item.scorer ?? "pass rate"}: ${score(item.baseline)} -> ${score(item.current)} (${delta(item.delta)})`,
      );
    }
  };
  change("REGRESSIONS", comparison.regressions);
  change("improvements", comparison.improvements);
  if (comparison.regressions.length === 0 && comparison.improvements.length === 0)
    lines.push("  no change per case");
  if (comparison.addedCases.length > 0) lines.push(`  new cases: ${comparison.addedCases.join(", ")}`);
  if (comparison.removedCases.length > 0) lines.push(`  cases gone: ${comparison.removedCases.join(", ")}`);
  return lines.join("\n");
}
