import { toTinyAgentsError, validationError } from "@tinyagents/inference";
import type { ScoreOutcome } from "./eval-result.js";
import { DEFAULT_THRESHOLD, type ScoreResult, type Scorer, type ScorerContext } from "./scorer.js";

/**
 * Run every scorer on one trial, in order. A scorer that throws, or returns something that is not
 * a score in [0, 1], yields an error outcome naming the scorer — never a zero score.
 */
export async function scoreTrial(
  scorers: readonly Scorer[],
  context: ScorerContext,
): Promise<ScoreOutcome[]> {
  const outcomes: ScoreOutcome[] = [];
  for (const scorer of scorers) outcomes.push(await scoreOne(scorer, context));
  return outcomes;
}

async function scoreOne(scorer: Scorer, context: ScorerContext): Promise<ScoreOutcome> {
  try {
    const raw = await scorer.score(context);
    const result = checkResult(scorer.name, raw);
    const outcome: ScoreOutcome = {
      scorer: scorer.name,
      score: result.score,
      passed: result.passed ?? result.score >= (scorer.threshold ?? DEFAULT_THRESHOLD),
    };
    if (result.reason !== undefined) outcome.reason = result.reason;
    if (result.usage !== undefined) outcome.usage = result.usage;
    if (result.cost !== undefined) outcome.cost = result.cost;
    if (result.metadata !== undefined) outcome.metadata = result.metadata;
    return outcome;
  } catch (thrown) {
    const error = toTinyAgentsError(thrown);
    return { scorer: scorer.name, error: { code: error.code, message: error.message } };
  }
}

function checkResult(name: string, raw: ScoreResult | number): ScoreResult {
  const result = typeof raw === "number" ? { score: raw } : raw;
  if (typeof result !== "object" || result === null) {
    throw validationError(
      `scorer "${name}" returned ${String(raw)}; return a number in [0, 1] or { score, reason }`,
      {
        field: "score",
        scorer: name,
      },
    );
  }
  const score = result.score;
  if (typeof score !== "number" || !(score >= 0 && score <= 1)) {
    throw validationError(
      `scorer "${name}" returned score ${String(score)}; scores must be numbers in [0, 1]`,
      {
        field: "score",
        scorer: name,
      },
    );
  }
  if (result.passed !== undefined && typeof result.passed !== "boolean") {
    throw validationError(`scorer "${name}" returned passed ${String(result.passed)}; it must be a boolean`, {
      field: "passed",
      scorer: name,
    });
  }
  return result;
}
