// Issue 40: what journaling only the essential events saves, in ONE process, alternating rounds,
// CPU time (user + system): the SQLite CLI wiring with `journalEvents: "all"` (every event, as
// before issue 40) against the default (`"essential"`), without and with retry, budget and usage
// middleware. Prints CPU µs per step and journal rows per run for each.
// Usage: node bench/tools/journal-events-ab.mjs [--steps 10] [--rounds 9] [--round-ms 150]
import {
  AppendLogEventJournal,
  attachObservability,
  budgetMiddleware,
  EventSink,
  retryMiddleware,
  usageAccountingMiddleware,
} from "@tinyagents/harness";
import { openCliLikeStore } from "../adapters/cli-wiring.mjs";
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
const production = () => [
  retryMiddleware(),
  budgetMiddleware({ limits: { maxTotalTokens: 1e12, maxCost: 1e6 } }),
  usageAccountingMiddleware(),
];
let runIds = 0;

function variant(name, journalEvents, middleware) {
  const counters = newCounters();
  const agent = scriptedAgent(scriptedModel({ steps, counters }), counters, steps, { middleware });
  const cli = openCliLikeStore();
  let lastRunId;
  const run = async () => {
    const runId = `run-${++runIds}`;
    const events = new EventSink(runId);
    const obs = attachObservability(events, {
      journal: cli.journal,
      statusStore: cli.store.statusStore,
      journalEvents,
    });
    try {
      return await agent.run(PROMPT, { runId, events });
    } finally {
      await obs.close();
      lastRunId = runId;
    }
  };
  const rows = async () =>
    (await new AppendLogEventJournal(cli.store.appendLog, { streamPrefix: "journal-" }).read(lastRunId))
      .length;
  return { name, run, rows, samples: [] };
}

const loops = [
  variant('plain, journalEvents "all"', "all", []),
  variant("plain, essential (default)", "essential", []),
  variant('W5 middleware, "all"', "all", production()),
  variant("W5 middleware, essential", "essential", production()),
];
await alternateCpuRounds(loops, { steps, rounds, roundMs, expected: finalText(steps), check: expectEqual });
console.log(`S=${steps}, CPU µs per journaled step, median of ${rounds} alternating rounds`);
for (const loop of loops) {
  console.log(
    `${loop.name.padEnd(30)} ${median(loop.samples).toFixed(1).padStart(7)} µs/step, ${await loop.rows()} journal rows per run`,
  );
}
for (const [a, b] of [
  [0, 1],
  [2, 3],
]) {
  const ratio = median(loops[b].samples.map((x, i) => x / loops[a].samples[i]));
  console.log(`${loops[b].name} / ${loops[a].name}: ${ratio.toFixed(2)}×`);
}
