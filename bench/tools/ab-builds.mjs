// Profiling aid (not part of the suite): two builds of the same adapters in ONE process, in
// alternating rounds (order reversed every other round), CPU time — the way to see a 10-30 %
// change on a loaded shared machine, where separate processes move more than that. The other
// build is a tree that holds `bench/` and a `node_modules/@tinyagents/*` with its build (e.g. a
// `git archive` of the base commit, its own `npm run build`, the rest of node_modules linked).
// Prints µs per step of each, the second adapter over the first within each build, and each
// adapter's new/base ratio: median of per-round ratios and ratio of the fastest quarters.
// `--prefill N` runs each loop N times before timing (untimed): e.g. 11000 puts a SQLite store at
// its bound of 10,000 finished runs, where each run's end evicts, as in a long-lived store.
// `--yield-each-call` makes the fake model yield a turn per call, as a real model's I/O does: a
// journaled run then commits once per step instead of once per run.
// Usage: node bench/tools/ab-builds.mjs --base DIR [--steps 10] [--rounds 15] [--round-ms 60]
//   [--adapters tinyagents-sqlite,tinyagents-production] [--prefill 0] [--yield-each-call]

import { intArg, parseArgs } from "../lib/args.mjs";
import { loadTreeAdapter } from "../lib/cpu-sample.mjs";
import { median } from "../lib/stats.mjs";

const args = parseArgs();
const steps = intArg(args, "steps", 10);
const rounds = intArg(args, "rounds", 15);
const roundMs = intArg(args, "round-ms", 60);
const yieldEachCall = args["yield-each-call"] !== undefined;
const names = String(args.adapters ?? "tinyagents-sqlite,tinyagents-production").split(",");
const loops = [];
for (const tree of [args.base, "."])
  for (const name of names) {
    const { adapter, newCounters } = await loadTreeAdapter(tree, name);
    loops.push({
      key: `${tree === "." ? "new" : "base"} ${name}`,
      run: adapter.createLoop({ steps, yieldEachCall, counters: newCounters() }),
      samples: [],
    });
  }
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
async function timed(l, ms) {
  const w = performance.now();
  const c = cpu();
  let n = 0;
  while (performance.now() - w < ms) {
    await l.run();
    n++;
  }
  return (cpu() - c) / (n * steps);
}
const prefill = intArg(args, "prefill", 0);
for (const l of loops) for (let i = 0; i < prefill; i++) await l.run();
for (const l of loops) await timed(l, 300);
for (let r = 0; r < rounds; r++)
  for (const l of r % 2 ? [...loops].reverse() : loops) l.samples.push(await timed(l, roundMs));
const q = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const k = Math.max(1, Math.floor(s.length / 4));
  return s.slice(0, k).reduce((a, b) => a + b, 0) / k;
};
const get = (k) => loops.find((l) => l.key === k);
console.log(`S=${steps}`);
for (const l of loops)
  console.log(
    l.key.padEnd(34),
    median(l.samples).toFixed(1),
    "µs/step; fast quarter",
    q(l.samples).toFixed(1),
  );
const ratio = (a, b) =>
  `median ${median(a.samples.map((x, i) => x / b.samples[i])).toFixed(2)}× fastq ${(q(a.samples) / q(b.samples)).toFixed(2)}×`;
for (const t of ["base", "new"])
  if (names.length > 1)
    console.log(`${t}: ${names[1]}/${names[0]}`, ratio(get(`${t} ${names[1]}`), get(`${t} ${names[0]}`)));
for (const n of names) console.log(`new/base ${n}`, ratio(get(`new ${n}`), get(`base ${n}`)));
