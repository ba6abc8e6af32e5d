// Profiling aid (not part of the suite): bytes allocated per run of one adapter's W1 loop,
// exactly — heapUsed before and after a sample of runs with a young generation large enough that
// no collection runs inside the sample (start node with the flags below). Deterministic to a few
// hundred bytes per run, where `alloc-profile.mjs` (sampled, by function) moves more; use it for
// before/after figures, `alloc-profile.mjs` to find where the bytes go. `--tree DIR` measures
// another tree's build (see `ab-builds.mjs` for what the tree must hold) — one tree per process:
// two builds of the loop in one process share zod and the bench's model, and the second one
// measured allocates more (46 KB more per 100-step run here).
// Usage: node --expose-gc --min-semi-space-size=256 --max-semi-space-size=256 \
//   bench/tools/alloc-exact.mjs [--adapter tinyagents] [--steps 10] [--runs 1000] [--tree DIR]
// Keep runs × steps × ~5 KB well under the young generation (1,000 runs of 10 steps: ~50 MB).
import { intArg, parseArgs } from "../lib/args.mjs";
import { loadTreeAdapter } from "../lib/cpu-sample.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const args = parseArgs();
const name = String(args.adapter ?? "tinyagents");
const steps = intArg(args, "steps", 10);
const runs = intArg(args, "runs", 1000);
const SAMPLES = 7;

async function measure(tree) {
  const { adapter, newCounters } = await loadTreeAdapter(tree, name);
  const run = adapter.createLoop({ steps, counters: newCounters() });
  for (let i = 0; i < 3000; i++) await run();
  const perRun = [];
  for (let k = 0; k < SAMPLES; k++) {
    globalThis.gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < runs; i++) await run();
    perRun.push((process.memoryUsage().heapUsed - before) / runs);
  }
  perRun.sort((a, b) => a - b);
  const median = perRun[SAMPLES >> 1];
  console.log(
    `${tree === "." ? "this tree" : tree} ${name} S=${steps}: ${(median / 1024).toFixed(1)} KB per run,`,
    `${Math.round(median / steps)} B per step (median of ${SAMPLES} samples of ${runs} runs;`,
    `min ${(perRun[0] / 1024).toFixed(1)}, max ${(perRun[SAMPLES - 1] / 1024).toFixed(1)} KB)`,
  );
}

await measure(String(args.tree ?? "."));
