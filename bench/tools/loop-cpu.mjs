// Profiling aid (not part of the suite): CPU microseconds per W1 step (process.cpuUsage, user +
// system) over a fixed number of runs after a warm-up — steadier than wall time on a shared
// machine. Prints the median of 5 samples. To compare two builds in the same window, alternate
// processes over two trees that each hold `bench/` and a `node_modules/@tinyagents/*` with the
// build to measure (e.g. the current one and one with the change reverted).
// Usage: node bench/tools/loop-cpu.mjs [tree=.] [adapter=tinyagents] [steps=10] [runs=8000]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [tree = ".", adapterName = "tinyagents", stepsArg = "10", runsArg = "8000"] = process.argv.slice(2);
const root = pathToFileURL(resolve(tree)).href;
const { loadAdapter } = await import(`${root}/bench/adapters/index.mjs`);
const { newCounters } = await import(`${root}/bench/lib/script.mjs`);
const adapter = await loadAdapter(adapterName);
const steps = Number(stepsArg);
const runs = Number(runsArg);
const run = adapter.createLoop({ steps, counters: newCounters() });
for (let i = 0; i < runs / 2; i++) await run();
const samples = [];
for (let k = 0; k < 5; k++) {
  const before = process.cpuUsage();
  for (let i = 0; i < runs / 5; i++) await run();
  const used = process.cpuUsage(before);
  samples.push((used.user + used.system) / ((runs / 5) * steps));
}
samples.sort((a, b) => a - b);
console.log(`${adapter.info.name} S=${steps}: ${(samples[2] ?? 0).toFixed(3)} µs CPU per step`);
