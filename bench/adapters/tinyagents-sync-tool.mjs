// tinyagents, default settings, but with a SYNCHRONOUS tool: reported separately and labelled,
// because every other adapter (and the `tinyagents` row) uses an async tool. Shows what the
// async hop costs; not a comparison with the competitors.
import { PROMPT } from "../lib/script.mjs";
import { consumeStream, scriptedHarness, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-sync-tool" };

export { loopText } from "./tinyagents.mjs";

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const model = scriptedModel({ steps, yieldEachCall, counters });
  const harness = scriptedHarness(model, counters, steps, { syncTool: true });
  return () => harness.invokeDefault(undefined, PROMPT);
}

export function createStream({ deltas, counters }) {
  const harness = scriptedHarness(scriptedModel({ deltas, counters }), counters, 1, { syncTool: true });
  return () => consumeStream(harness.invokeStreamingDefault(undefined, PROMPT));
}
