// Shared by the CPU-time profiling aids (bench/tools/loop-cpu.mjs, stream-cpu.mjs): load an adapter
// from a tree (so two builds can be compared in the same window) and measure CPU time per run.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The adapter `name` and the script's `newCounters`, loaded from `tree`'s bench/ and node_modules. */
export async function loadTreeAdapter(tree, name) {
  const root = pathToFileURL(resolve(tree)).href;
  const { loadAdapter } = await import(`${root}/bench/adapters/index.mjs`);
  const { newCounters } = await import(`${root}/bench/lib/script.mjs`);
  return { adapter: await loadAdapter(name), newCounters };
}

/**
 * CPU microseconds (process.cpuUsage, user + system) per call of `run`: `runs / 2` warm-up calls,
 * then the median of 5 samples of `runs / 5` calls each — steadier than wall time on a shared machine.
 */
export async function medianCpuMicrosPerRun(run, runs) {
  for (let i = 0; i < runs / 2; i++) await run();
  const perSample = Math.max(1, Math.floor(runs / 5));
  const samples = [];
  for (let k = 0; k < 5; k++) {
    const before = process.cpuUsage();
    for (let i = 0; i < perSample; i++) await run();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / perSample);
  }
  samples.sort((a, b) => a - b);
  return samples[2];
}
