// W1 for several adapters in ONE process, in alternating rounds (the order reversed every other
// round), so a load swing on a shared machine hits them all alike: the ratios between them are
// far steadier than those of separate processes. `npm run bench:check` and the profiling of
// issue 40 use it. Prints one JSON line: µs per step per adapter (median of the rounds) and the
// ratios named in --ratios (`a/b`, comma-separated).
// `--clock cpu` measures CPU time (user + system, this process) instead of wall time: on a
// machine shared with other work it moves far less (a descheduled process burns no CPU), which
// is what a regression check needs; SQLite's writes are system time, so they count.
// Usage: node workloads/w1-alternating.mjs --adapters a,b,c --steps S [--rounds 7] [--round-ms 120]
//        [--warmup-ms 400] [--clock wall|cpu] [--ratios tinyagents-sqlite/sqlite-floor,...]
import { loadAdapter } from "../adapters/index.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { emit, expectEqual } from "../lib/child.mjs";
import { finalText, newCounters } from "../lib/script.mjs";
import { median } from "../lib/stats.mjs";

const args = parseArgs();
const names = String(args.adapters).split(",");
const steps = intArg(args, "steps");
const rounds = intArg(args, "rounds", 7);
const roundMs = intArg(args, "round-ms", 120);
const warmupMs = intArg(args, "warmup-ms", 400);
const expected = finalText(steps);
const clock = args.clock ?? "wall";
if (clock !== "wall" && clock !== "cpu") throw new Error(`--clock must be wall or cpu, got ${clock}`);
/** Microseconds on the chosen clock. */
const nowUs = () => {
  if (clock === "wall") return performance.now() * 1000;
  const { user, system } = process.cpuUsage();
  return user + system;
};

const loops = [];
for (const name of names) {
  const adapter = await loadAdapter(name);
  const run = adapter.createLoop({ steps, counters: newCounters() });
  loops.push({ name, adapter, run, samples: [] });
}

/** Run `loop` back to back for `ms` of wall time; µs per step on the chosen clock. */
async function timed(loop, ms) {
  const wallStart = performance.now();
  const start = nowUs();
  let runs = 0;
  while (performance.now() - wallStart < ms) {
    expectEqual(`${loop.name} S=${steps} final text`, loop.adapter.loopText(await loop.run()), expected);
    runs++;
  }
  return (nowUs() - start) / (runs * steps);
}

for (const loop of loops) await timed(loop, warmupMs);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? loops : [...loops].reverse();
  for (const loop of order) loop.samples.push(await timed(loop, roundMs));
}
const usPerStep = Object.fromEntries(loops.map((l) => [l.name, median(l.samples)]));
const ratios = {};
for (const pair of typeof args.ratios === "string" ? args.ratios.split(",") : []) {
  const [a, b] = pair.split("/");
  // The median of the per-round ratios (each round's pair ran back to back).
  const la = loops.find((l) => l.name === a);
  const lb = loops.find((l) => l.name === b);
  if (la === undefined || lb === undefined)
    throw new Error(`--ratios ${pair}: both adapters must be in --adapters`);
  ratios[pair] = median(la.samples.map((x, i) => x / lb.samples[i]));
}
emit({ steps, rounds, clock, usPerStep, ratios });
