/** A two-sided 95% confidence interval of a mean. */
export interface ConfidenceInterval {
  low: number;
  high: number;
  /** Always 0.95. */
  level: number;
}

/** Student's t quantile t(0.975, df) for df = 1..30; beyond that the normal 1.96 is within 2%. */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The arithmetic mean (NaN for no values). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/**
 * The 95% confidence interval of the mean of `values` (Student's t, sample standard deviation),
 * clamped to `[lower, upper]` (scores live in [0, 1]). Undefined for fewer than two values.
 */
export function confidenceInterval(
  values: readonly number[],
  lower = Number.NEGATIVE_INFINITY,
  upper = Number.POSITIVE_INFINITY,
): ConfidenceInterval | undefined {
  const n = values.length;
  if (n < 2) return undefined;
  const m = mean(values);
  let squares = 0;
  for (const value of values) squares += (value - m) ** 2;
  const sd = Math.sqrt(squares / (n - 1));
  const half = (T_975[n - 2] ?? 1.96) * (sd / Math.sqrt(n));
  return { low: Math.max(lower, m - half), high: Math.min(upper, m + half), level: 0.95 };
}

/** The nearest-rank percentile (`p` in [0, 100]) of `values`; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}
