// Profiling aid (not part of the suite): CPU microseconds per W1 step (process.cpuUsage, user +
// system) over a fixed number of runs after a warm-up — steadier than wall time on a shared
// machine. Prints the median of 5 samples. To compare two builds in the same window, alternate
// processes over two trees that each hold `bench/` and a `node_modules/@tinyagents/*` with the
// build to measure (e.g. the current one and one with the change reverted).
// Usage: node bench/tools/loop-cpu.mjs [tree=.] [adapter=tinyagents] [steps=10] [runs=8000]
import { loadTreeAdapter, medianCpuMicrosPerRun } from "../lib/cpu-sample.mjs";

const [tree = ".", adapterName = "tinyagents", stepsArg = "10", runsArg = "8000"] = process.argv.slice(2);
const { adapter, newCounters } = await loadTreeAdapter(tree, adapterName);
const steps = Number(stepsArg);
const run = adapter.createLoop({ steps, counters: newCounters() });
const perStep = (await medianCpuMicrosPerRun(run, Number(runsArg))) / steps;
console.log(`${adapter.info.name} S=${steps}: ${perStep.toFixed(3)} µs CPU per step`);
