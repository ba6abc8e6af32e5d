// W5: tinyagents with what a production user switches on — retry, a token/cost budget, usage
// accounting — and persistence as the CLI wires it: the SQLite journal and status store
// (cli-wiring.mjs: per-run EventSink, attachObservability with its default redaction and
// projections, obs.close() per run), through the front door (`createAgent({ middleware })`,
// `agent.run`). Compared with the SQLite floor. Same fake model and async zod tool.
import { budgetMiddleware, retryMiddleware, usageAccountingMiddleware } from "@tinyagents/harness";
import { PROMPT } from "../lib/script.mjs";
import { observedRun, openCliLikeStore } from "./cli-wiring.mjs";
import { consumeStream, scriptedAgent, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-production", storage: "sqlite" };

export { settle } from "./cli-wiring.mjs";
export { loopText } from "./tinyagents.mjs";

function productionAgent(model, counters, steps) {
  return scriptedAgent(model, counters, steps, {
    middleware: [
      retryMiddleware(),
      budgetMiddleware({ limits: { maxTotalTokens: 1e12, maxCost: 1e6 } }),
      usageAccountingMiddleware(),
    ],
  });
}

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const agent = productionAgent(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  return observedRun(openCliLikeStore(), (runId, events) => agent.run(PROMPT, { runId, events }));
}

export function createStream({ deltas, counters }) {
  const agent = productionAgent(scriptedModel({ deltas, counters }), counters, 1);
  return observedRun(openCliLikeStore(), (runId, events) =>
    consumeStream(agent.stream(PROMPT, { runId, events })),
  );
}
