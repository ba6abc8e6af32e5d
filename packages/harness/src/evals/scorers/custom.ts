import { validationError } from "@tinyagents/inference";
import { DEFAULT_THRESHOLD, type ScoreResult, type Scorer, type ScorerContext } from "../scorer.js";

/** Options every scorer factory takes. */
export interface ScorerOptions {
  /** Overrides the scorer's default name (two scorers of one kind need different names). */
  name?: string;
  /** Overrides the scorer's default pass threshold. */
  threshold?: number;
}

/**
 * A custom scorer from a function: return a score in [0, 1] (or a {@link ScoreResult} with a
 * reason). Throw when the case cannot be scored: that is recorded as an error, not a zero.
 * Default threshold 0.5; `timeoutMs` bounds each call (default: evaluate's `scorerTimeoutMs`).
 *
 * ```ts
 * const short = defineScorer("short", ({ output }) => ({ score: output.length <= 280 ? 1 : 0, reason: `${output.length} chars` }));
 * ```
 */
export function defineScorer(
  name: string,
  score: (context: ScorerContext) => ScoreResult | number | Promise<ScoreResult | number>,
  options: { threshold?: number; timeoutMs?: number } = {},
): Scorer {
  const scorer = makeScorer(name, DEFAULT_THRESHOLD, options, score);
  if (options.timeoutMs === undefined) return scorer;
  if (typeof options.timeoutMs !== "number" || !(options.timeoutMs > 0)) {
    throw validationError(`scorer "${name}": timeoutMs must be a positive number of ms`, {
      field: "timeoutMs",
      scorer: name,
    });
  }
  return { ...scorer, timeoutMs: options.timeoutMs };
}

/** Build a scorer with a checked name and threshold (shared by every built-in). */
export function makeScorer(
  defaultName: string,
  defaultThreshold: number,
  options: ScorerOptions,
  score: Scorer["score"],
): Scorer {
  const name = options.name ?? defaultName;
  if (typeof name !== "string" || name.trim() === "") {
    throw validationError("scorer name must be a non-empty string", { field: "name" });
  }
  const threshold = options.threshold ?? defaultThreshold;
  if (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1)) {
    throw validationError(
      `scorer "${name}": threshold must be a number in [0, 1], got ${String(threshold)}`,
      {
        field: "threshold",
        scorer: name,
      },
    );
  }
  if (typeof score !== "function") {
    throw validationError(`scorer "${name}": score must be a function`, { field: "score", scorer: name });
  }
  return { name, threshold, score };
}

/** The case's expected text, or a `validation` error saying the scorer needs one. */
export function expectedText(context: ScorerContext, scorer: string, given: string | undefined): string {
  const expected = given ?? context.case.expected;
  if (expected === undefined) {
    throw validationError(
      `scorer "${scorer}": case "${context.case.id}" has no "expected" text; add one to the case or give the scorer a value`,
      { field: "expected", caseId: context.case.id, scorer },
    );
  }
  return expected;
}
