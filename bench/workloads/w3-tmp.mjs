// W3 concurrency, one adapter, in this (fresh) process started with --expose-gc: --batches
// batches (default 3) of --runs concurrent runs (default 1,000) of 5 model calls, each model
// call giving up one event-loop turn. Reports the wall time of each batch but the first (which
// probes the live heap per in-flight run with a forced GC mid-flight); after every batch, the
// heap kept by the finished results and the heap left once they are dropped (flat across
// batches = no leak). Every run is checked.
// Usage: node --expose-gc workloads/w3-concurrency.mjs --adapter NAME [--runs 1000] [--batches 4] [--quick]
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
const batches = intArg(args, "batches", args.quick ? 2 : 3);

const counters = newCounters();
const run = adapter.createLoop({ steps: STEPS, yieldEachCall: true, counters });
const expected = finalText(STEPS);
if (process.env.PIN) {
  const { AgentHarness } = await import("@tinyagents/harness");
  const { echoTool } = await import("../adapters/tinyagents.mjs");
  const h = new AgentHarness().registerModel("x", { provider: "p", modelId: "m", invoke: () => new Promise(() => {}) }).registerTool(echoTool(newCounters()));
  globalThis.pinned = h.invokeDefault(undefined, "pin");
}
let started = 0;

function heap() {
  if (process.env.NOGC === undefined) globalThis.gc();
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

// Batch 1 also probes the live heap once every run is deep in flight (a forced GC while every
// run is past its fourth model call and none has finished), so its time is not reported.
const times = [];
const keptPerResult = [];
const heapAfter = [];
let inFlightPerRun;
for (let b = 0; b < batches; b++) {
  const probing = b === 0;
  const before = probing ? heap() : 0;
  const callsBefore = counters.model;
  const probe = (finished) => {
    const check = () => {
      if (finished() > 0) return; // too late: some runs already finished
      if (counters.model - callsBefore >= (STEPS - 1) * runs) {
        inFlightPerRun = (heap() - before) / runs;
        return;
      }
      setImmediate(check);
    };
    setImmediate(check);
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
  keptBytesPerResult: median(keptPerResult),
  keptPerResult,
  heapAfterBatchBytes: heapAfter,
  heapGrowthBytes: heapAfter[heapAfter.length - 1] - heapAfter[0],
  modelCalls: counters.model,
  toolCalls: counters.tool,
  text: expected,
});
