// Issue 40 item 3: what each middleware costs a journaled step, measured alone. In ONE process,
// alternating rounds (order reversed every other round), CPU time (user + system), W1 at --steps:
// the SQLite-journaled CLI wiring (bench/adapters/cli-wiring.mjs) through the front door with no
// middleware, then with each of retry, budget, usage accounting, redaction and trace details
// alone. Prints µs per step and each one's cost as a share of the plain journaled step (target
// ≤ 10 %). "none again" is the plain wiring a second time: its share is the noise of the run
// (on a loaded shared machine, ±10 % is common; believe a share only well outside it).
// `--base DIR` adds another build (a tree holding `bench/` and a `node_modules/@tinyagents/*`
// with its build, as for `ab-builds.mjs`) with the same variants in the same rounds: each
// middleware's share over its own build's plain step, side by side, and each variant's new/base
// CPU ratio — a before/after figure the machine's load moves far less than two separate runs.
// Usage: node bench/tools/middleware-cost.mjs [--steps 10] [--rounds 9] [--round-ms 150]
//   [--only budget,redaction] (the plain wiring and these; to profile one with `node --cpu-prof`)
//   [--base DIR]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { intArg, parseArgs } from "../lib/args.mjs";
import { expectEqual } from "../lib/child.mjs";
import { alternateCpuRounds } from "../lib/cpu-sample.mjs";
import { finalText, newCounters, PROMPT } from "../lib/script.mjs";
import { median } from "../lib/stats.mjs";

const args = parseArgs();
// Each variant opens a store that closes on the process's exit (one listener each, two builds).
process.setMaxListeners(0);
const steps = intArg(args, "steps", 10);
const rounds = intArg(args, "rounds", 9);
const roundMs = intArg(args, "round-ms", 150);

/** The variants, built from one tree's harness (`h`: its root export; `o`: its observability). */
const VARIANTS = {
  none: () => [],
  "none again": () => [],
  retry: (h) => [h.retryMiddleware()],
  budget: (h) => [h.budgetMiddleware({ limits: { maxTotalTokens: 1e12, maxCost: 1e6 } })],
  usage: (h) => [h.usageAccountingMiddleware()],
  redaction: (h) => [h.redactionMiddleware()],
  "trace details": (_h, o) => [o.traceDetailsMiddleware()],
};

/** One tree's modules: this one's, or `--base`'s (its own bench adapters and harness build). */
async function treeModules(tree) {
  const root = pathToFileURL(resolve(tree)).href;
  const load = (path) => import(`${root}/${path}`);
  return {
    harness: await load("node_modules/@tinyagents/harness/dist/index.js"),
    observability: await load("node_modules/@tinyagents/harness/dist/observability/index.js"),
    wiring: await load("bench/adapters/cli-wiring.mjs"),
    agents: await load("bench/adapters/tinyagents.mjs"),
  };
}

const only = args.only === undefined ? undefined : new Set(["none", ...String(args.only).split(",")]);
const names = Object.keys(VARIANTS).filter((name) => only === undefined || only.has(name));
const trees =
  args.base === undefined
    ? [["", "."]]
    : [
        ["base ", String(args.base)],
        ["new ", "."],
      ];
const loops = [];
for (const [label, tree] of trees) {
  const { harness, observability, wiring, agents } = await treeModules(tree);
  for (const name of names) {
    const counters = newCounters();
    const agent = agents.scriptedAgent(agents.scriptedModel({ steps, counters }), counters, steps, {
      middleware: VARIANTS[name](harness, observability),
    });
    const run = wiring.observedRun(wiring.openCliLikeStore(), (runId, events) =>
      agent.run(PROMPT, { runId, events }),
    );
    loops.push({ name: label + name, variant: name, tree: label, run, samples: [] });
  }
}

await alternateCpuRounds(loops, { steps, rounds, roundMs, expected: finalText(steps), check: expectEqual });
// The mean of each variant's fastest quarter of rounds: the rounds least disturbed by other work
// on a shared machine (interference only ever adds time), a steadier figure under load.
const fastQuarter = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const k = Math.max(1, Math.floor(sorted.length / 4));
  return sorted.slice(0, k).reduce((a, b) => a + b, 0) / k;
};
const pct = (x) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(0)} %`;
console.log(
  `S=${steps}, CPU µs per journaled step over ${rounds} alternating rounds: median, and the cost ` +
    "as a share of the plain journaled step of the same build (median of per-round ratios; ratio " +
    "of fastest quarters)" +
    (args.base === undefined ? "" : `; then new/base per variant (same two measures). Base: ${args.base}`),
);
for (const loop of loops) {
  const base = loops.find((l) => l.tree === loop.tree && l.variant === "none");
  const us = median(loop.samples);
  const share = median(loop.samples.map((x, i) => x / base.samples[i] - 1));
  const fast = fastQuarter(loop.samples) / fastQuarter(base.samples) - 1;
  console.log(
    `${loop.name.padEnd(19)} ${us.toFixed(1).padStart(7)} µs/step${loop === base ? "" : `  ${pct(share).padStart(6)}  ${pct(fast).padStart(6)}`}`,
  );
}
if (args.base !== undefined) {
  for (const name of names) {
    const before = loops.find((l) => l.tree === "base " && l.variant === name);
    const after = loops.find((l) => l.tree === "new " && l.variant === name);
    const ratio = median(after.samples.map((x, i) => x / before.samples[i]));
    const fast = fastQuarter(after.samples) / fastQuarter(before.samples);
    console.log(`new/base ${name.padEnd(14)} ${ratio.toFixed(2)}×  ${fast.toFixed(2)}×`);
  }
}
