// tinyagents at default settings with the Postgres event journal and status store
// (`@tinyagents/postgres`) wired as the CLI wires its SQLite ones (see postgres-wiring.mjs).
// Compared with the bare `tinyagents` row of the same run, like the SQLite row. Same fake model
// and async zod tool.
import { PROMPT } from "../lib/script.mjs";
import { observedRun, openPostgresStore } from "./postgres-wiring.mjs";
import { consumeStream, scriptedHarness, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-postgres" };

export { loopText } from "./tinyagents.mjs";

const cli = await openPostgresStore();

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const harness = scriptedHarness(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  return observedRun(cli, (runId, events) =>
    harness.invoke(undefined, undefined, { runId }, PROMPT, { events }),
  );
}

export function createStream({ deltas, counters }) {
  const harness = scriptedHarness(scriptedModel({ deltas, counters }), counters, 1);
  return observedRun(cli, (runId, events) =>
    consumeStream(harness.invokeStreaming(undefined, undefined, { runId }, PROMPT, { events })),
  );
}
