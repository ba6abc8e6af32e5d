import type { Scorer } from "../scorer.js";
import { expectedText, makeScorer, type ScorerOptions } from "./custom.js";

/** Options of {@link exactMatch}. */
export interface ExactMatchOptions extends ScorerOptions {
  /** The text to match (default: the case's `expected`). */
  expected?: string;
  /** Trim surrounding whitespace of both sides first (default true). */
  trim?: boolean;
  /** Default true. */
  caseSensitive?: boolean;
}

/** 1 when the final text equals the expected text, else 0. Name `exact`, threshold 1. */
export function exactMatch(options: ExactMatchOptions = {}): Scorer {
  const trim = options.trim ?? true;
  const caseSensitive = options.caseSensitive ?? true;
  const normalize = (text: string) => {
    const trimmed = trim ? text.trim() : text;
    return caseSensitive ? trimmed : trimmed.toLowerCase();
  };
  return makeScorer("exact", 1, options, (context) => {
    const expected = expectedText(context, options.name ?? "exact", options.expected);
    const equal = normalize(context.output) === normalize(expected);
    return {
      score: equal ? 1 : 0,
      reason: equal
        ? "output equals the expected text"
        : `expected ${quote(expected)}, got ${quote(context.output)}`,
    };
  });
}

/** A short quoted excerpt for reasons. */
export function quote(text: string, max = 80): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);
}
