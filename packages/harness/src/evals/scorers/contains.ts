import type { Scorer } from "../scorer.js";
import { expectedText, makeScorer, type ScorerOptions } from "./custom.js";
import { quote } from "./exact-match.js";

/** Options of {@link contains}. */
export interface ContainsOptions extends ScorerOptions {
  /** The text(s) that must appear (default: the case's `expected`). */
  value?: string | string[];
  /** Default false: "Paris" matches "paris". */
  caseSensitive?: boolean;
}

/**
 * The fraction of the given texts that appear in the final text (1 when all do). Name
 * `contains`, threshold 1.
 */
export function contains(options: ContainsOptions = {}): Scorer {
  const caseSensitive = options.caseSensitive ?? false;
  const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
  return makeScorer("contains", 1, options, (context) => {
    const needles =
      options.value === undefined
        ? [expectedText(context, options.name ?? "contains", undefined)]
        : Array.isArray(options.value)
          ? options.value
          : [options.value];
    const haystack = fold(context.output);
    const missing = needles.filter((needle) => !haystack.includes(fold(needle)));
    const score = needles.length === 0 ? 1 : (needles.length - missing.length) / needles.length;
    return {
      score,
      reason:
        missing.length === 0
          ? `output contains ${needles.map((n) => quote(n)).join(", ")}`
          : `output lacks ${missing.map((n) => quote(n)).join(", ")}: ${quote(context.output)}`,
    };
  });
}
