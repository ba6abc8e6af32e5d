// tinyagents, default settings, but with a SYNCHRONOUS tool: reported separately and labelled,
// because every other adapter (and the `tinyagents` row) uses an async tool. Shows what the
// async hop costs; not a comparison with the competitors.
import { PROMPT } from "../lib/script.mjs";
import { consumeStream, scriptedAgent, scriptedModel } from "./tinyagents.mjs";

export const info = { name: "tinyagents-sync-tool" };

export { loopText } from "./tinyagents.mjs";

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const model = scriptedModel({ steps, yieldEachCall, counters });
  const agent = scriptedAgent(model, counters, steps, { syncTool: true });
  return () => agent.run(PROMPT);
}

export function createStream({ deltas, counters }) {
  const agent = scriptedAgent(scriptedModel({ deltas, counters }), counters, 1, { syncTool: true });
  return () => consumeStream(agent.stream(PROMPT));
}
