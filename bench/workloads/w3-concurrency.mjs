// W3 concurrency, one adapter, in this (fresh) process started with --expose-gc: --batches
// batches (default 2: the probe and one timed batch, to keep the suite under 10 minutes) of --runs concurrent runs (default 1,000) of 5 model calls, each model
// call giving up one event-loop turn. An untimed probe batch comes first: it samples the heap in
// use every event-loop turn while every run is in flight (the sampled PEAK per in-flight run:
// garbage included, what the process must hold), then forces a GC once every run is deep in
// flight (the LIVE heap per in-flight run). Then the timed batches. After every batch: the heap kept by the
// finished results and the heap left once they are dropped (flat across batches = no leak).
// Every run is checked.
// Usage: node --expose-gc workloads/w3-concurrency.mjs --adapter NAME [--runs 1000] [--batches 4] [--quick]
import { getHeapStatistics } from "node:v8";
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { emit, expectEqual } from "../lib/child.mjs";
import { finalText, newCounters, yieldTurn } from "../lib/script.mjs";
import { median, since } from "../lib/stats.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const args = parseArgs();
const adapter = await loadAdapter(args.adapter);
const STEPS = 5;
const runs = intArg(args, "runs", 1000);
const batches = intArg(args, "batches", 2);

const counters = newCounters();
const run = adapter.createLoop({ steps: STEPS, yieldEachCall: true, counters });
const expected = finalText(STEPS);
let started = 0;

function heap() {
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

/** Start `n` runs at once; resolve with their results once all finished (each checked). */
async function batch(n, onProgress) {
  let finished = 0;
  const all = [];
  for (let i = 0; i < n; i++) {
    all.push(
      run().then((result) => {
        finished++;
        return result;
      }),
    );
  }
  started += n;
  if (onProgress !== undefined) onProgress(() => finished);
  const results = await Promise.all(all);
  for (const result of results)
    expectEqual(`${adapter.info.name} final text`, adapter.loopText(result), expected);
  return results;
}

// Warm-up: two small batches (first-call costs, JIT), then the baseline heap.
await batch(Math.min(runs, 100));
await batch(Math.min(runs, 100));
const baseline = heap();

// Probe batch 0 is not timed: it samples the heap in use every turn while every run is in
// flight (the PEAK), then, once every run is past its fourth model call and none has finished,
// forces a GC (the LIVE heap). The other batches are timed.
const times = [];
const keptPerResult = [];
const heapAfter = [];
let inFlightPerRun;
let peakPerRun;
for (let b = 0; b < batches; b++) {
  const probing = b === 0;
  const before = probing ? heap() : 0;
  const callsBefore = counters.model;
  const probe = (finished) => {
    let peak = 0;
    const check = () => {
      if (finished() > 0) return; // too late: some runs already finished
      peak = Math.max(peak, getHeapStatistics().used_heap_size);
      if (counters.model - callsBefore >= (STEPS - 1) * runs) {
        peakPerRun = (peak - before) / runs;
        inFlightPerRun = (heap() - before) / runs;
        return;
      }
      setImmediate(check);
    };
    check();
  };
  const start = performance.now();
  const held = { results: await batch(runs, probing ? probe : undefined) };
  if (!probing) times.push(since(start));
  const withResults = heap();
  held.results = undefined;
  await yieldTurn(); // an async frame keeps the last awaited value alive until its next await
  const after = heap();
  keptPerResult.push((withResults - after) / runs);
  heapAfter.push(after - baseline);
}

expectEqual(`${adapter.info.name} model calls`, counters.model, started * STEPS);
expectEqual(`${adapter.info.name} tool calls`, counters.tool, started * (STEPS - 1));
emit({
  adapter: adapter.info.name,
  runs,
  steps: STEPS,
  batches,
  totalMs: times.length > 0 ? median(times) : undefined,
  times,
  inFlightBytesPerRun: inFlightPerRun,
  peakBytesPerRun: peakPerRun,
  keptBytesPerResult: median(keptPerResult),
  keptPerResult,
  heapAfterBatchBytes: heapAfter,
  heapGrowthBytes: heapAfter[heapAfter.length - 1] - heapAfter[0],
  modelCalls: counters.model,
  toolCalls: counters.tool,
  text: expected,
});
