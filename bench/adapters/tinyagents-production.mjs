// W5: tinyagents with what a production user switches on — retry, a token/cost budget, usage
// accounting — and persistence as the CLI wires it: the SQLite journal and status store
// (cli-wiring.mjs: per-run EventSink, attachObservability with its default redaction and
// projections, obs.close() per run). Same fake model and async zod tool as `tinyagents`.
import { budgetMiddleware, retryMiddleware, usageAccountingMiddleware } from "@tinyagents/harness";
import { PROMPT } from "../lib/script.mjs";
import { observedRun, openCliLikeStore } from "./cli-wiring.mjs";
import { consumeStream, scriptedHarness, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-production" };

export { loopText } from "./tinyagents.mjs";

function productionHarness(model, counters, steps) {
  return scriptedHarness(model, counters, steps)
    .use(retryMiddleware())
    .use(budgetMiddleware({ limits: { maxTotalTokens: 1e12, maxCost: 1e6 } }))
    .use(usageAccountingMiddleware());
}

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const harness = productionHarness(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  return observedRun(openCliLikeStore(), (runId, events) =>
    harness.invoke(undefined, undefined, { runId }, PROMPT, { events }),
  );
}

export function createStream({ deltas, counters }) {
  const harness = productionHarness(scriptedModel({ deltas, counters }), counters, 1);
  return observedRun(openCliLikeStore(), (runId, events) =>
    consumeStream(harness.invokeStreaming(undefined, undefined, { runId }, PROMPT, { events })),
  );
}
