import {
  assertJsonValue,
  type Clock,
  startTimer,
  TinyAgentsError,
  toTinyAgentsError,
  validationError,
} from "@tinyagents/inference";
import type { ScoreOutcome } from "./eval-result.js";
import { DEFAULT_THRESHOLD, type ScoreResult, type Scorer, type ScorerContext } from "./scorer.js";

/** The default bound of one scorer call ({@link ScoringBounds.timeoutMs}). */
export const DEFAULT_SCORER_TIMEOUT_MS = 120_000;

/** How long one scorer may take, on which clock. */
export interface ScoringBounds {
  clock: Clock;
  /** Per scorer call (a scorer's own `timeoutMs` wins). */
  timeoutMs: number;
}

/**
 * Run every scorer on one trial, in order. A scorer that throws, returns something that is not
 * a score in [0, 1] or data that is not JSON (a cycle, a BigInt...), does not settle within its
 * timeout, or is still running when the eval is cancelled, yields an error outcome naming the
 * scorer — never a zero score, never a hang.
 */
export async function scoreTrial(
  scorers: readonly Scorer[],
  context: ScorerContext,
  bounds: ScoringBounds,
): Promise<ScoreOutcome[]> {
  const outcomes: ScoreOutcome[] = [];
  for (const scorer of scorers) outcomes.push(await scoreOne(scorer, context, bounds));
  return outcomes;
}

async function scoreOne(
  scorer: Scorer,
  context: ScorerContext,
  bounds: ScoringBounds,
): Promise<ScoreOutcome> {
  try {
    const raw = await settleWithin(scorer, context, bounds);
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

/**
 * `scorer.score(context)`, rejected with `timeout` when it does not settle within its bound (on
 * the eval's clock) or `cancelled` when the eval is; the scorer sees a signal that aborts then.
 */
function settleWithin(
  scorer: Scorer,
  context: ScorerContext,
  bounds: ScoringBounds,
): Promise<ScoreResult | number> {
  const timeoutMs = scorer.timeoutMs ?? bounds.timeoutMs;
  const controller = new AbortController();
  return new Promise<ScoreResult | number>((resolve, reject) => {
    let timer: { cancel(): void } | undefined;
    const done = () => {
      timer?.cancel();
      context.signal.removeEventListener("abort", onAbort);
    };
    const fail = (error: TinyAgentsError) => {
      done();
      controller.abort(error);
      reject(error);
    };
    const onAbort = () =>
      fail(
        new TinyAgentsError(
          "cancelled",
          `scorer "${scorer.name}" was still running when the eval was cancelled`,
        ),
      );
    timer = startTimer(bounds.clock, timeoutMs, () =>
      fail(
        new TinyAgentsError(
          "timeout",
          `scorer "${scorer.name}" did not settle within ${timeoutMs} ms; fix it, or raise its timeoutMs (or evaluate's scorerTimeoutMs)`,
          { details: { scorer: scorer.name, timeoutMs } },
        ),
      ),
    );
    if (context.signal.aborted) {
      onAbort();
      return;
    }
    context.signal.addEventListener("abort", onAbort, { once: true });
    new Promise<ScoreResult | number>((settle) =>
      settle(scorer.score({ ...context, signal: controller.signal })),
    ).then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
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
  if (result.reason !== undefined && typeof result.reason !== "string") {
    throw validationError(`scorer "${name}" returned a reason that is not a string`, {
      field: "reason",
      scorer: name,
    });
  }
  // The outcome is saved and printed as JSON: a cycle or a BigInt here would lose the whole eval.
  for (const field of ["metadata", "usage", "cost"] as const) {
    if (result[field] === undefined) continue;
    try {
      assertJsonValue(result[field], field);
    } catch (error) {
      throw validationError(
        `scorer "${name}" returned ${field} that is not JSON data: ${(error as Error).message}`,
        {
          field,
          scorer: name,
        },
      );
    }
  }
  if (result.passed !== undefined && typeof result.passed !== "boolean") {
    throw validationError(`scorer "${name}" returned passed ${String(result.passed)}; it must be a boolean`, {
      field: "passed",
      scorer: name,
    });
  }
  return result;
}
