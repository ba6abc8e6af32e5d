// W1 tool loop, one adapter, one S, in this (fresh) process: runs of S model calls (S-1 tool
// calls) back to back; reports microseconds per step. Every run's final text and the exact
// number of model and tool calls are checked.
// The JIT needs about a second of a loop before it settles (tiering shows as a step in per-step
// cost), so every adapter warms up for --warmup-ms before SAMPLES timed samples of --sample-ms.
// Usage: node workloads/w1-loop.mjs --adapter NAME --steps S [--quick] [--warmup-ms 1000] [--sample-ms 120]
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { emit, expectEqual } from "../lib/child.mjs";
import { finalText, newCounters } from "../lib/script.mjs";
import { median, since } from "../lib/stats.mjs";

const args = parseArgs();
const adapter = await loadAdapter(args.adapter);
const steps = intArg(args, "steps");
const warmupMs = intArg(args, "warmup-ms", 1000);
const sampleMs = intArg(args, "sample-ms", 120);
const SAMPLES = 5;

const counters = newCounters();
const run = adapter.createLoop({ steps, counters });
const expected = finalText(steps);
let runs = 0;

async function runMany(n) {
  for (let i = 0; i < n; i++) {
    expectEqual(`${adapter.info.name} S=${steps} final text`, adapter.loopText(await run()), expected);
  }
  runs += n;
}

const result = { adapter: adapter.info.name, steps };
if (args.quick) {
  await runMany(2);
} else {
  const warmStart = performance.now();
  let warmRuns = 0;
  // Runs per sample from the speed over the second half of the warm-up (the first is colder).
  let halfStart = warmStart;
  let halfRuns = 0;
  while (warmRuns < 3 || since(warmStart) < warmupMs) {
    if (halfStart === warmStart && since(warmStart) >= warmupMs / 2) {
      halfStart = performance.now();
      halfRuns = 0;
    }
    await runMany(1);
    warmRuns++;
    halfRuns++;
  }
  const perSample = Math.max(1, Math.round(sampleMs / (since(halfStart) / halfRuns)));
  const samples = [];
  for (let s = 0; s < SAMPLES; s++) {
    const start = performance.now();
    await runMany(perSample);
    samples.push((since(start) * 1000) / (perSample * steps));
  }
  Object.assign(result, { usPerStep: median(samples), samples, runsPerSample: perSample });
}
expectEqual(`${adapter.info.name} S=${steps} model calls`, counters.model, runs * steps);
expectEqual(`${adapter.info.name} S=${steps} tool calls`, counters.tool, runs * (steps - 1));
emit({ ...result, runs, modelCalls: counters.model, toolCalls: counters.tool, text: expected });
