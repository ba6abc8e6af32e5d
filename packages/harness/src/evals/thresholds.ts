import { validationError } from "@tinyagents/inference";
import type { EvalReport, ThresholdCheck } from "./eval-result.js";

/**
 * Gates for CI: the eval fails when one does not hold. Every field is optional.
 * `scorers` maps a scorer name to its minimum mean score.
 */
export interface EvalThresholds {
  /** Minimum pass rate over finished trials, in [0, 1]. */
  passRate?: number;
  /** Minimum mean score per scorer, in [0, 1]. */
  scorers?: Record<string, number>;
  /** Maximum total cost in USD (agent and judges). */
  maxCostUsd?: number;
  /** Maximum p95 latency in ms. */
  maxP95LatencyMs?: number;
  /** Maximum number of run failures and scorer errors. */
  maxErrors?: number;
}

/**
 * Check `thresholds` (any input: also parsed from a file) before anything runs: bounds are
 * numbers in range, and a scorer bound names a scorer of the eval (a typo is an error, not a
 * silent pass).
 *
 * @throws TinyAgentsError `validation` naming the field.
 */
export function validateThresholds(
  thresholds: unknown,
  scorerNames: readonly string[],
): EvalThresholds | undefined {
  if (thresholds === undefined) return undefined;
  if (typeof thresholds !== "object" || thresholds === null || Array.isArray(thresholds)) {
    throw validationError("thresholds must be an object such as { passRate: 0.9 }", { field: "thresholds" });
  }
  const t = thresholds as Record<string, unknown>;
  for (const key of Object.keys(t)) {
    if (!KEYS.includes(key)) {
      throw validationError(`thresholds.${key} is not a threshold (thresholds: ${KEYS.join(", ")})`, {
        field: `thresholds.${key}`,
      });
    }
  }
  if (t.passRate !== undefined) checkBound("passRate", t.passRate, true);
  for (const key of ["maxCostUsd", "maxP95LatencyMs", "maxErrors"]) {
    if (t[key] !== undefined) checkBound(key, t[key], false);
  }
  if (t.scorers !== undefined) {
    if (typeof t.scorers !== "object" || t.scorers === null || Array.isArray(t.scorers)) {
      throw validationError('thresholds.scorers must map scorer names to minimum means ({ "exact": 0.8 })', {
        field: "thresholds.scorers",
      });
    }
    for (const [scorer, bound] of Object.entries(t.scorers)) {
      if (!scorerNames.includes(scorer)) {
        throw validationError(
          `thresholds.scorers names "${scorer}", which is not a scorer of this eval (scorers: ${scorerNames.join(", ")})`,
          { field: `thresholds.scorers.${scorer}` },
        );
      }
      checkBound(`scorers.${scorer}`, bound, true);
    }
  }
  return thresholds as EvalThresholds;
}

const KEYS = ["passRate", "scorers", "maxCostUsd", "maxP95LatencyMs", "maxErrors"];

/** One check per bound of (validated) `thresholds`, in a fixed order. */
export function checkThresholds(
  thresholds: EvalThresholds | undefined,
  report: EvalReport,
): ThresholdCheck[] {
  if (thresholds === undefined) return [];
  const checks: ThresholdCheck[] = [];
  const atLeast = (name: string, bound: number | undefined, actual: number | null) => {
    if (bound === undefined) return;
    checks.push({ name, expected: `>= ${bound}`, actual, passed: actual !== null && actual >= bound });
  };
  const atMost = (name: string, bound: number | undefined, actual: number | null) => {
    if (bound === undefined) return;
    checks.push({ name, expected: `<= ${bound}`, actual, passed: actual !== null && actual <= bound });
  };
  atLeast("passRate", thresholds.passRate, report.passRate);
  for (const [scorer, bound] of Object.entries(thresholds.scorers ?? {})) {
    atLeast(`scorer:${scorer}`, bound, report.scorers.find((s) => s.scorer === scorer)?.mean ?? null);
  }
  atMost("maxCostUsd", thresholds.maxCostUsd, report.cost.totalUsd);
  atMost("maxP95LatencyMs", thresholds.maxP95LatencyMs, report.latency.p95);
  const errors = Object.values(report.errorCodes).reduce((sum, n) => sum + (n ?? 0), 0);
  atMost("maxErrors", thresholds.maxErrors, errors);
  return checks;
}

function checkBound(name: string, bound: unknown, unit: boolean): void {
  const ok = typeof bound === "number" && Number.isFinite(bound) && bound >= 0 && (!unit || bound <= 1);
  if (!ok) {
    throw validationError(
      `thresholds.${name} must be a number ${unit ? "in [0, 1]" : ">= 0"}, got ${String(bound)}`,
      { field: `thresholds.${name}` },
    );
  }
}
