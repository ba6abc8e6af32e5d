// Issue 40 item 5: a server idle between bursts. Bursts of --burst concurrent 5-step runs (every
// model call gives up an event-loop turn, like real I/O) through the front door, SQLite-journaled
// as the CLI wires it (--adapter tinyagents for in memory); between bursts the process goes quiet
// for --idle-ms after two full collections (what V8's memory reducer does to an idle process).
// Reports the latency of the FIRST --first runs of each burst after idle (p50 / p99 over all
// bursts) and of the whole burst. Used to decide whether module-level object retention
// (packages/harness/src/agent-loop/shape-anchors.ts) earns its keep: run it on two builds,
// alternating (docs/performance.md has the figures).
// Usage: node --expose-gc bench/tools/idle-burst.mjs [--adapter tinyagents-sqlite] [--bursts 12]
//        [--burst 200] [--first 20] [--idle-ms 300]
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { expectEqual } from "../lib/child.mjs";
import { finalText, newCounters } from "../lib/script.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const args = parseArgs();
const adapter = await loadAdapter(args.adapter ?? "tinyagents-sqlite");
const bursts = intArg(args, "bursts", 12);
const burst = intArg(args, "burst", 200);
const first = intArg(args, "first", 20);
const idleMs = intArg(args, "idle-ms", 300);
const STEPS = 5;
const run = adapter.createLoop({ steps: STEPS, yieldEachCall: true, counters: newCounters() });

const firstLatencies = [];
const burstMs = [];
for (let b = 0; b < bursts; b++) {
  globalThis.gc();
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const start = performance.now();
  const runs = [];
  for (let i = 0; i < burst; i++) {
    const t0 = performance.now();
    runs.push(
      run().then((result) => {
        expectEqual("final text", adapter.loopText(result), finalText(STEPS));
        if (i < first && b > 0) firstLatencies.push(performance.now() - t0); // burst 0 is cold start
      }),
    );
  }
  await Promise.all(runs);
  if (b > 0) burstMs.push(performance.now() - start);
}
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
console.log(
  JSON.stringify({
    adapter: adapter.info.name,
    firstP50Ms: pct(firstLatencies, 50),
    firstP99Ms: pct(firstLatencies, 99),
    burstMedianMs: pct(burstMs, 50),
  }),
);
