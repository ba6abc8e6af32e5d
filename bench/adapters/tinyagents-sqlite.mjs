// tinyagents at default settings with the SQLite event journal and status store wired exactly as
// the CLI wires them (see cli-wiring.mjs), through the front door (`createAgent`, `agent.run` /
// `agent.stream` with the run's `events`). Compared with its storage floor (`sqlite-floor`) and
// with the bare `tinyagents` row of the same run. Same fake model and async zod tool.
import { PROMPT } from "../lib/script.mjs";
import { observedRun, openCliLikeStore } from "./cli-wiring.mjs";
import { consumeStream, scriptedAgent, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-sqlite", storage: "sqlite" };

export { settle } from "./cli-wiring.mjs";
export { loopText } from "./tinyagents.mjs";

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const agent = scriptedAgent(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  return observedRun(openCliLikeStore(), (runId, events) => agent.run(PROMPT, { runId, events }));
}

export function createStream({ deltas, counters }) {
  const agent = scriptedAgent(scriptedModel({ deltas, counters }), counters, 1);
  return observedRun(openCliLikeStore(), (runId, events) =>
    consumeStream(agent.stream(PROMPT, { runId, events })),
  );
}
