// W2 streaming, one adapter, in this (fresh) process: a final answer of --deltas text deltas
// (default 10,000) streamed through the framework's streaming API to a consumer that counts them;
// reports deltas per second. Every run's delta count, final text and model/tool calls are checked.
// Usage: node workloads/w2-stream.mjs --adapter NAME [--deltas N] [--quick] [--warmup-ms 400] [--sample-ms 100]
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { emit, expectEqual } from "../lib/child.mjs";
import { warmThenSample } from "../lib/sampler.mjs";
import { newCounters, streamedText } from "../lib/script.mjs";
import { median } from "../lib/stats.mjs";

const args = parseArgs();
const adapter = await loadAdapter(args.adapter);
const deltas = intArg(args, "deltas", 10_000);
const warmupMs = intArg(args, "warmup-ms", 400);
const sampleMs = intArg(args, "sample-ms", 100);
const SAMPLES = 5;

const counters = newCounters();
const run = adapter.createStream({ deltas, counters });
const expected = streamedText(deltas);
let runs = 0;

async function runMany(n) {
  for (let i = 0; i < n; i++) {
    const { received, text } = await run();
    expectEqual(`${adapter.info.name} deltas received`, received, deltas);
    expectEqual(`${adapter.info.name} final text`, text, expected);
  }
  runs += n;
}

const result = { adapter: adapter.info.name, deltas };
if (args.quick) {
  await runMany(1);
} else {
  const { elapsedMs, perSample } = await warmThenSample(() => runMany(1), {
    warmupMs,
    sampleMs,
    samples: SAMPLES,
    minWarmRuns: 2,
  });
  const samples = elapsedMs.map((ms) => (perSample * deltas) / (ms / 1000));
  Object.assign(result, { deltasPerSecond: median(samples), samples, runsPerSample: perSample });
}
expectEqual(`${adapter.info.name} model calls`, counters.model, runs);
expectEqual(`${adapter.info.name} tool calls`, counters.tool, 0);
emit({ ...result, runs, modelCalls: counters.model, toolCalls: counters.tool, textLength: expected.length });
