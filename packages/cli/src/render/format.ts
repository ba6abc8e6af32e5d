import type { CostTotals } from "@tinyagents/harness";
import type { Usage } from "@tinyagents/inference";

/** `412 ms`, `3.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `$0.001234`, or `unknown` (with the priced part as a lower bound when there is one). */
export function formatCost(cost: CostTotals): string {
  const amount = `$${cost.total.toFixed(6)}`;
  if (cost.unknown !== true) return amount;
  return cost.total > 0
    ? `unknown (at least ${amount}; some calls have no known price)`
    : "unknown (no known price for this model)";
}

/** `230 in (12 cached), 45 out (10 reasoning)`. */
export function formatTokens(u: Usage): string {
  return `${u.inputTokens} in (${u.cacheReadTokens} cached), ${u.outputTokens} out (${u.reasoningTokens} reasoning)`;
}

/** JSON arguments, cut to `max` characters. */
export function formatArgs(args: unknown, max = 120): string {
  const text = JSON.stringify(args) ?? "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A local date-time for listings: `2025-03-10 12:34:56`. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `1 model call`, `2 model calls`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
