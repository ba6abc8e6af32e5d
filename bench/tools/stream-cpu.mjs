// Profiling aid (not part of the suite): CPU nanoseconds per streamed delta (W2; process.cpuUsage,
// user + system) over a fixed number of runs after a warm-up — steadier than wall time on a shared
// machine. Prints the median of 5 samples. The W2 twin of loop-cpu.mjs: to compare two builds in
// the same window, alternate processes over two trees that each hold `bench/` and a
// `node_modules/@tinyagents/*` with the build to measure.
// Usage: node bench/tools/stream-cpu.mjs [tree=.] [adapter=tinyagents-sqlite] [deltas=10000] [runs=100]
import { loadTreeAdapter, medianCpuMicrosPerRun } from "../lib/cpu-sample.mjs";

const [tree = ".", adapterName = "tinyagents-sqlite", deltasArg = "10000", runsArg = "100"] =
  process.argv.slice(2);
const { adapter, newCounters } = await loadTreeAdapter(tree, adapterName);
const deltas = Number(deltasArg);
const run = adapter.createStream({ deltas, counters: newCounters() });
const perDelta = ((await medianCpuMicrosPerRun(run, Number(runsArg))) * 1000) / deltas;
console.log(`${adapter.info.name} deltas=${deltas}: ${perDelta.toFixed(0)} ns CPU per delta`);
