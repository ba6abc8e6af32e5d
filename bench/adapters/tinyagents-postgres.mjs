// tinyagents at default settings with the Postgres event journal and status store
// (`@tinyagents/postgres`) wired as the CLI wires its SQLite ones (see postgres-wiring.mjs),
// through the front door (`createAgent`, `agent.run` with the run's `events`). Compared with its
// storage floor (`postgres-floor`) and the bare `tinyagents` row. Same fake model and async zod tool.
import { PROMPT } from "../lib/script.mjs";
import { observedRun, openPostgresStore } from "./postgres-wiring.mjs";
import { consumeStream, scriptedAgent, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-postgres", storage: "postgres" };

export { loopText } from "./tinyagents.mjs";

const cli = await openPostgresStore();

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const agent = scriptedAgent(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  return observedRun(cli, (runId, events) => agent.run(PROMPT, { runId, events }));
}

export function createStream({ deltas, counters }) {
  const agent = scriptedAgent(scriptedModel({ deltas, counters }), counters, 1);
  return observedRun(cli, (runId, events) => consumeStream(agent.stream(PROMPT, { runId, events })));
}

/** `obs.close()` waited for every write of the run: nothing left to wait for. */
export async function settle() {}
