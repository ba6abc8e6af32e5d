// Issue 40 item 3: what each middleware costs a journaled step, measured alone. In ONE process,
// alternating rounds (order reversed every other round), CPU time (user + system), W1 at --steps:
// the SQLite-journaled CLI wiring (bench/adapters/cli-wiring.mjs) through the front door with no
// middleware, then with each of retry, budget, usage accounting, redaction and trace details
// alone. Prints µs per step and each one's cost as a share of the plain journaled step (target
// ≤ 10 %). "none again" is the plain wiring a second time: its share is the noise of the run
// (on a loaded shared machine, ±10 % is common; believe a share only well outside it).
// Usage: node bench/tools/middleware-cost.mjs [--steps 10] [--rounds 9] [--round-ms 150]
//   [--only budget,redaction] (the plain wiring and these; to profile one with `node --cpu-prof`).
import {
  budgetMiddleware,
  redactionMiddleware,
  retryMiddleware,
  usageAccountingMiddleware,
} from "@tinyagents/harness";
import { traceDetailsMiddleware } from "@tinyagents/harness/observability";
import { observedRun, openCliLikeStore } from "../adapters/cli-wiring.mjs";
import { scriptedAgent, scriptedModel } from "../adapters/tinyagents.mjs";
import { intArg, parseArgs } from "../lib/args.mjs";
import { expectEqual } from "../lib/child.mjs";
import { alternateCpuRounds } from "../lib/cpu-sample.mjs";
import { finalText, newCounters, PROMPT } from "../lib/script.mjs";
import { median } from "../lib/stats.mjs";

const args = parseArgs();
const steps = intArg(args, "steps", 10);
const rounds = intArg(args, "rounds", 9);
const roundMs = intArg(args, "round-ms", 150);

const VARIANTS = {
  none: () => [],
  "none again": () => [],
  retry: () => [retryMiddleware()],
  budget: () => [budgetMiddleware({ limits: { maxTotalTokens: 1e12, maxCost: 1e6 } })],
  usage: () => [usageAccountingMiddleware()],
  redaction: () => [redactionMiddleware()],
  "trace details": () => [traceDetailsMiddleware()],
};

const only = args.only === undefined ? undefined : new Set(["none", ...String(args.only).split(",")]);
const loops = Object.entries(VARIANTS)
  .filter(([name]) => only === undefined || only.has(name))
  .map(([name, middleware]) => {
    const counters = newCounters();
    const agent = scriptedAgent(scriptedModel({ steps, counters }), counters, steps, {
      middleware: middleware(),
    });
    const run = observedRun(openCliLikeStore(), (runId, events) => agent.run(PROMPT, { runId, events }));
    return { name, run, samples: [] };
  });

await alternateCpuRounds(loops, { steps, rounds, roundMs, expected: finalText(steps), check: expectEqual });
const base = loops[0];
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
    "as a share of the plain journaled step (median of per-round ratios; ratio of fastest quarters)",
);
for (const loop of loops) {
  const us = median(loop.samples);
  const share = median(loop.samples.map((x, i) => x / base.samples[i] - 1));
  const fast = fastQuarter(loop.samples) / fastQuarter(base.samples) - 1;
  console.log(
    `${loop.name.padEnd(14)} ${us.toFixed(1).padStart(7)} µs/step${loop === base ? "" : `  ${pct(share).padStart(6)}  ${pct(fast).padStart(6)}`}`,
  );
}
