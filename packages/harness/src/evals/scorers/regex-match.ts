import { validationError } from "@tinyagents/inference";
import type { Scorer } from "../scorer.js";
import { makeScorer, type ScorerOptions } from "./custom.js";
import { quote } from "./exact-match.js";

/** Options of {@link regexMatch}. */
export interface RegexMatchOptions extends ScorerOptions {
  /** When true, the score is 1 when the pattern does NOT match (default false). */
  negate?: boolean;
}

/** 1 when the final text matches `pattern` (a RegExp or its source), else 0. Name `regex`, threshold 1. */
export function regexMatch(pattern: RegExp | string, options: RegexMatchOptions = {}): Scorer {
  let regex: RegExp;
  try {
    regex =
      typeof pattern === "string"
        ? new RegExp(pattern)
        : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
  } catch (error) {
    throw validationError(`regexMatch: ${(error as Error).message}`, { field: "pattern" });
  }
  const negate = options.negate ?? false;
  return makeScorer("regex", 1, options, (context) => {
    const matched = regex.test(context.output);
    const ok = matched !== negate;
    return {
      score: ok ? 1 : 0,
      reason: `${matched ? "matches" : "does not match"} ${String(regex)}: ${quote(context.output)}`,
    };
  });
}
