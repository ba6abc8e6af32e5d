// W5: tinyagents with what a production user would switch on — retry, a token/cost budget,
// usage accounting, and observability wired as docs/persistence-observability.md shows (a
// per-run EventSink, attachObservability with its default redaction and projections, a shared
// JSONL sink, closed after every run). Same fake model and tool as the `tinyagents` adapter.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  attachObservability,
  budgetMiddleware,
  EventSink,
  retryMiddleware,
  runText,
  usageAccountingMiddleware,
} from "@tinyagents/harness";
import { JsonlSink } from "@tinyagents/harness/node";
import { PROMPT } from "../lib/script.mjs";
import { consumeStream, scriptedHarness, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-production" };

const dir = mkdtempSync(join(tmpdir(), "tinyagents-bench-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
let files = 0;
let runs = 0;

function productionHarness(model, counters, steps) {
  return scriptedHarness(model, counters, steps)
    .use(retryMiddleware())
    .use(budgetMiddleware({ limits: { maxTotalTokens: 1e12, maxCost: 1e6 } }))
    .use(usageAccountingMiddleware());
}

/** One run with its own event sink and observability attached, closed (flushed) at the end. */
function observed(sink, start) {
  return async () => {
    const runId = `run-${++runs}`;
    const events = new EventSink(runId);
    const obs = attachObservability(events, { sinks: [sink] });
    try {
      return await start(runId, events);
    } finally {
      await obs.close();
    }
  };
}

/** The final answer of a finished run (an AgentRun). */
export const loopText = runText;

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const harness = productionHarness(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  const sink = new JsonlSink(join(dir, `events-${++files}.jsonl`));
  return observed(sink, (runId, events) =>
    harness.invoke(undefined, undefined, { runId }, PROMPT, { events }),
  );
}

export function createStream({ deltas, counters }) {
  const harness = productionHarness(scriptedModel({ deltas, counters }), counters, 1);
  const sink = new JsonlSink(join(dir, `events-${++files}.jsonl`));
  return observed(sink, (runId, events) =>
    consumeStream(harness.invokeStreaming(undefined, undefined, { runId }, PROMPT, { events })),
  );
}
