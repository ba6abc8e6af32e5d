import {
  formatCostFigure,
  formatCount,
  formatDelta,
  formatDuration,
  formatPercent,
  UNKNOWN,
} from "../../src/figures/figures.js";
import type { CostView, TokenCounts } from "../../src/ui/view-types.js";

// Every figure goes through the CLI's formatter (src/figures/figures.ts): the page, `show`, `runs`
// and `eval` print the same figure the same way.
export {
  formatCount as count,
  formatDelta as delta,
  formatDuration as duration,
  formatPercent as percent,
  UNKNOWN,
};

/** `$0.001234`, or `unknown` (with the known part as a lower bound): never a silent $0. */
export function cost(c: CostView): string {
  return formatCostFigure(c);
}

/** The known value of a cost, for differences (`undefined` when unknown). */
export function knownCost(c: CostView): number | undefined {
  return c.unknown ? undefined : c.total;
}

/** `1,234`; `≥ 1,234` when some call reported no usage; `unknown` when no call did. */
export function tokens(t: TokenCounts): string {
  if (t.unknown === true) return t.totalTokens > 0 ? `≥ ${formatCount(t.totalTokens)}` : UNKNOWN;
  return formatCount(t.totalTokens);
}

export function tokensLong(t: TokenCounts): string {
  const n = formatCount;
  if (t.unknown === true && t.totalTokens === 0) return `${UNKNOWN} (the model reported no usage)`;
  return `${t.unknown === true ? "at least " : ""}${n(t.inputTokens)} in (${n(t.cacheReadTokens)} cache read, ${n(t.cacheWriteTokens)} cache write) · ${n(t.outputTokens)} out (${n(t.reasoningTokens)} reasoning)`;
}

/** A local date and time, `2025-03-10 12:34:56` (the list keeps it on one line: see app.css). */
export function timestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "";
}
