/**
 * The one formatter of every figure tinyagents prints: durations, token counts, costs and the
 * differences between two of them. The CLI (`show`, `runs`, `eval`) and the inspector's web app
 * both print through these functions, so the same figure reads the same everywhere.
 *
 * Self-contained (no imports, no Node APIs): the browser bundle compiles this file as is.
 *
 * The rule: a figure we do not know is printed as `unknown`, never as `0` or `$0.000000`, and a
 * difference involving an unknown figure is unknown too.
 */

/** A cost as the surfaces receive it: a USD total, `unknown` when it is only a lower bound. */
export interface CostFigure {
  total: number;
  /** Some call had no known price or reported no usage: `total` is what was priced (a lower bound). */
  unknown?: boolean;
}

/** What a figure measures: decides its unit. */
export type FigureKind = "duration" | "count" | "usd";

/** Printed for a figure that is not known. */
export const UNKNOWN = "unknown";

/** `412 ms`, `3.2 s`, `2 min 5 s`; `unknown` when not known. Never negative (see {@link formatDelta}). */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return UNKNOWN;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round((ms % 60_000) / 1000);
  const minutes = Math.floor(ms / 60_000) + (seconds === 60 ? 1 : 0);
  return `${minutes} min ${seconds === 60 ? 0 : seconds} s`;
}

/** `1,234,567`; `unknown` when not known. */
export function formatCount(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return UNKNOWN;
  return Math.round(n).toLocaleString("en-US");
}

/**
 * A token total: `1,234 tokens`; `≥ 1,234 tokens` when some model calls reported no usage (the
 * total is a lower bound: fewer `reported` than `made`, or the totals' own `unknown` flag);
 * `unknown tokens` when none of them did.
 */
export function formatTokenTotal(
  total: number,
  calls?: { reported: number; made: number; unknown?: boolean },
): string {
  if (calls === undefined) return `${formatCount(total)} tokens`;
  if (calls.made > 0 && calls.reported === 0) return `${UNKNOWN} tokens`;
  const lowerBound = calls.unknown === true || calls.reported < calls.made;
  return lowerBound ? `≥ ${formatCount(total)} tokens` : `${formatCount(total)} tokens`;
}

/** `$0.001234`: six decimals, the precision of per-token prices. */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(6)}`;
}

/**
 * A cost: `$0.001234`, or `unknown` — with the priced part as a lower bound when there is one
 * (`unknown (≥ $0.001234)`). Never a silent `$0` for a cost we do not know.
 */
export function formatCostFigure(cost: CostFigure | undefined): string {
  if (cost === undefined) return UNKNOWN;
  if (cost.unknown !== true) return formatUsd(cost.total);
  return cost.total > 0 ? `${UNKNOWN} (≥ ${formatUsd(cost.total)})` : UNKNOWN;
}

/** A known value of a figure, or `undefined` when it is not known. */
export function knownCost(cost: CostFigure | undefined): number | undefined {
  return cost === undefined || cost.unknown === true ? undefined : cost.total;
}

/**
 * `b − a` with its sign and unit: `+1.3 s`, `−250 ms`, `+12`, `−$0.000100`, `±0 ms`. Unknown
 * minus anything (and anything minus unknown) is `unknown`.
 */
export function formatDelta(kind: FigureKind, a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b)) return UNKNOWN;
  const d = b - a;
  const magnitude = Math.abs(d);
  const text =
    kind === "duration"
      ? formatDuration(magnitude)
      : kind === "usd"
        ? formatUsd(magnitude)
        : formatCount(magnitude);
  // A difference that rounds to zero in its unit prints as zero, not as `+0 ms`.
  const zero =
    kind === "usd" ? magnitude < 5e-7 : kind === "duration" ? magnitude < 0.5 : Math.round(magnitude) === 0;
  if (zero) return `±${kind === "duration" ? formatDuration(0) : kind === "usd" ? formatUsd(0) : "0"}`;
  return `${d > 0 ? "+" : "−"}${text}`;
}

/** `42%` of a share in [0, 1]; `unknown` when not known. */
export function formatPercent(share: number | undefined): string {
  return share === undefined || !Number.isFinite(share) ? UNKNOWN : `${Math.round(share * 100)}%`;
}
