import type { CostView, TokenCounts } from "../../src/ui/view-types.js";

export function duration(ms: number | undefined): string {
  if (ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `$0.001234`, or `unknown` (with the known part as a lower bound): never a silent $0. */
export function cost(c: CostView): string {
  const amount = `$${c.total.toFixed(6)}`;
  if (!c.unknown) return amount;
  return c.total > 0 ? `unknown (≥ ${amount})` : "unknown";
}

export function tokens(t: TokenCounts): string {
  return `${t.totalTokens.toLocaleString("en-US")}`;
}

export function tokensLong(t: TokenCounts): string {
  return `${t.inputTokens} in (${t.cacheReadTokens} cache read, ${t.cacheWriteTokens} cache write) · ${t.outputTokens} out (${t.reasoningTokens} reasoning)`;
}

export function timestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "";
}

export function percent(share: number | undefined): string {
  return share === undefined ? "—" : `${Math.round(share * 100)}%`;
}
