// tinyagents at default settings with the SQLite event journal and status store wired exactly as
// the CLI wires them (see cli-wiring.mjs). The "SQLite-journaled" targets compare it with the
// bare `tinyagents` row of the same run. Same fake model and async zod tool.
import { PROMPT } from "../lib/script.mjs";
import { observedRun, openCliLikeStore } from "./cli-wiring.mjs";
import { consumeStream, scriptedHarness, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-sqlite" };

export { loopText } from "./tinyagents.mjs";

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const harness = scriptedHarness(scriptedModel({ steps, yieldEachCall, counters }), counters, steps);
  return observedRun(openCliLikeStore(), (runId, events) =>
    harness.invoke(undefined, undefined, { runId }, PROMPT, { events }),
  );
}

export function createStream({ deltas, counters }) {
  const harness = scriptedHarness(scriptedModel({ deltas, counters }), counters, 1);
  return observedRun(openCliLikeStore(), (runId, events) =>
    consumeStream(harness.invokeStreaming(undefined, undefined, { runId }, PROMPT, { events })),
  );
}
