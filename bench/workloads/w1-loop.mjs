// W1 tool loop, one adapter, one S, in this (fresh) process: runs of S model calls (S-1 tool
// calls) back to back; reports microseconds per step. Every run's final text and the exact
// number of model and tool calls are checked. A journaled adapter (`info.storage`) also reports
// what one untimed run writes per step: journal records, bytes, status writes, commits.
// The JIT needs a few hundred ms of a loop before it settles (tiering shows as a step in per-step
// cost), so every adapter warms up for --warmup-ms before SAMPLES timed samples of --sample-ms
// (the same time boxes for every adapter; a slow one gets fewer runs per sample, never less work
// per run).
// Usage: node workloads/w1-loop.mjs --adapter NAME --steps S [--quick] [--warmup-ms 600] [--sample-ms 80]
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { emit, expectEqual } from "../lib/child.mjs";
import { warmThenSample } from "../lib/sampler.mjs";
import { finalText, newCounters } from "../lib/script.mjs";
import { median } from "../lib/stats.mjs";
import { countWrites, instrumentWrites } from "../lib/write-stats.mjs";

const args = parseArgs();
const adapter = await loadAdapter(args.adapter);
const steps = intArg(args, "steps");
const warmupMs = intArg(args, "warmup-ms", 600);
const sampleMs = intArg(args, "sample-ms", 80);
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
  const { elapsedMs, perSample } = await warmThenSample(() => runMany(1), {
    warmupMs,
    sampleMs,
    samples: SAMPLES,
    minWarmRuns: 3,
  });
  const samples = elapsedMs.map((ms) => (ms * 1000) / (perSample * steps));
  Object.assign(result, { usPerStep: median(samples), samples, runsPerSample: perSample });
}
expectEqual(`${adapter.info.name} S=${steps} model calls`, counters.model, runs * steps);
expectEqual(`${adapter.info.name} S=${steps} tool calls`, counters.tool, runs * (steps - 1));
// A journaled adapter (or storage floor): what one more, untimed run writes per step, counted at
// the driver (the counters wrap statements as they are prepared: a fresh loop opens a fresh store).
if (adapter.info.storage !== undefined) {
  await instrumentWrites(adapter.info.storage);
  const counted = adapter.createLoop({ steps, counters: newCounters() });
  result.writes = await countWrites(steps, counted, adapter.settle);
}
emit({ ...result, runs, modelCalls: counters.model, toolCalls: counters.tool, text: expected });
