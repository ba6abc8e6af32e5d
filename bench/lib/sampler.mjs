// Warm-up then timed samples, shared by the single-process workloads (W1, W2).
import { since } from "./stats.mjs";

/**
 * Call `runOnce()` back to back for at least `warmupMs` (and at least `minWarmRuns` times), then
 * take `samples` timed samples of about `sampleMs` each. Runs per sample come from the speed over
 * the second half of the warm-up (the first half is colder). Returns the per-sample elapsed
 * milliseconds and the runs in each sample.
 */
export async function warmThenSample(runOnce, { warmupMs, sampleMs, samples, minWarmRuns }) {
  const warmStart = performance.now();
  let warmRuns = 0;
  let halfStart = warmStart;
  let halfRuns = 0;
  while (warmRuns < minWarmRuns || since(warmStart) < warmupMs) {
    if (halfStart === warmStart && since(warmStart) >= warmupMs / 2) {
      halfStart = performance.now();
      halfRuns = 0;
    }
    await runOnce();
    warmRuns++;
    halfRuns++;
  }
  const perSample = Math.max(1, Math.round(sampleMs / (since(halfStart) / halfRuns)));
  const elapsedMs = [];
  for (let s = 0; s < samples; s++) {
    const start = performance.now();
    for (let i = 0; i < perSample; i++) await runOnce();
    elapsedMs.push(since(start));
  }
  return { elapsedMs, perSample };
}
