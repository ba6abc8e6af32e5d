// Profiling aid (not part of the suite): bytes allocated per run, by allocating function, for
// one adapter's W1 loop — V8's sampling heap profiler with collected objects kept, after a
// warm-up. Used to find what drives W3's garbage collection.
// Usage: node bench/tools/alloc-profile.mjs [adapter=tinyagents] [steps=5]
import { Session } from "node:inspector/promises";
import { loadAdapter } from "../adapters/index.mjs";
import { newCounters } from "../lib/script.mjs";

const adapter = await loadAdapter(process.argv[2] ?? "tinyagents");
const steps = Number(process.argv[3] ?? 5);
const run = adapter.createLoop({ steps, counters: newCounters() });
const RUNS = 2000;
for (let i = 0; i < 3000; i++) await run();

const session = new Session();
session.connect();
await session.post("HeapProfiler.enable");
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 256,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
for (let i = 0; i < RUNS; i++) await run();
const { profile } = await session.post("HeapProfiler.stopSampling");

const byFunction = new Map();
let total = 0;
const where = (frame) =>
  `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
const walk = (node) => {
  total += node.selfSize;
  const key = where(node.callFrame);
  byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
};
walk(profile.head);
console.log(
  `${adapter.info.name}: ~${(total / RUNS / 1024).toFixed(1)} KB allocated per run of ${steps} steps`,
);
for (const [key, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${(bytes / RUNS).toFixed(0).padStart(8)} B/run  ${key}`);
}
