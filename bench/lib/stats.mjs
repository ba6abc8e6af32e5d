// Summary statistics over the per-process figures of one measurement.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `{ median, min, max, n, values }` of finite numbers; undefined when there are none. */
export function summarize(values) {
  const finite = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  if (finite.length === 0) return undefined;
  return {
    median: median(finite),
    min: Math.min(...finite),
    max: Math.max(...finite),
    n: finite.length,
    values: finite,
  };
}

/** Milliseconds since `start` (a `performance.now()` reading). */
export function since(start) {
  return performance.now() - start;
}
