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

/**
 * Alternating rounds in CPU time (bench/tools/journal-events-ab.mjs, middleware-cost.mjs): each
 * loop `{ name, run, samples }` is warmed up for 300 ms, then `rounds` rounds of `roundMs` each run
 * every loop in turn (order reversed every other round, so none always goes first), pushing CPU
 * microseconds per step to its `samples`. Every run's final text is checked against `expected`.
 */
export async function alternateCpuRounds(loops, { steps, rounds, roundMs, expected, check }) {
  const timed = async (loop, ms) => {
    const wallStart = performance.now();
    const before = process.cpuUsage();
    let runs = 0;
    while (performance.now() - wallStart < ms) {
      check(`${loop.name} final text`, (await loop.run()).text, expected);
      runs++;
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (runs * steps);
  };
  for (const loop of loops) await timed(loop, 300);
  for (let r = 0; r < rounds; r++) {
    for (const loop of r % 2 === 0 ? loops : [...loops].reverse())
      loop.samples.push(await timed(loop, roundMs));
  }
}
