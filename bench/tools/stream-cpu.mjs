// Profiling aid (not part of the suite): CPU nanoseconds per streamed delta (W2; process.cpuUsage,
// user + system) over a fixed number of runs after a warm-up — steadier than wall time on a shared
// machine. Prints the median of 5 samples. The W2 twin of loop-cpu.mjs: to compare two builds in
// the same window, alternate processes over two trees that each hold `bench/` and a
// `node_modules/@tinyagents/*` with the build to measure.
// Usage: node bench/tools/stream-cpu.mjs [tree=.] [adapter=tinyagents-sqlite] [deltas=10000] [runs=100]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [tree = ".", adapterName = "tinyagents-sqlite", deltasArg = "10000", runsArg = "100"] =
  process.argv.slice(2);
const root = pathToFileURL(resolve(tree)).href;
const { loadAdapter } = await import(`${root}/bench/adapters/index.mjs`);
const { newCounters } = await import(`${root}/bench/lib/script.mjs`);
const adapter = await loadAdapter(adapterName);
const deltas = Number(deltasArg);
const runs = Number(runsArg);
const run = adapter.createStream({ deltas, counters: newCounters() });
for (let i = 0; i < runs / 2; i++) await run();
const samples = [];
for (let k = 0; k < 5; k++) {
  const before = process.cpuUsage();
  for (let i = 0; i < runs / 5; i++) await run();
  const used = process.cpuUsage(before);
  samples.push(((used.user + used.system) * 1000) / ((runs / 5) * deltas));
}
samples.sort((a, b) => a - b);
console.log(`${adapter.info.name} deltas=${deltas}: ${(samples[2] ?? 0).toFixed(0)} ns CPU per delta`);
