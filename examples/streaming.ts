/**
 * Streaming: every event as it happens — text deltas, tool calls — then the result. A failed run
 * throws from the loop (an AgentRunError carrying the partial run): it never ends silently.
 * Run: npx tsx examples/streaming.ts
 */
import { createAgent, tool } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { pickModel } from "./support/pick-model.js";

const lookup = tool({
  name: "lookup_population",
  description: "Population of a city, in millions",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: async () => 0.55,
});

const { model } = pickModel(
  () =>
    new ScriptedModel([
      { toolCalls: [{ name: "lookup_population", arguments: { city: "Lisbon" } }] },
      "Lisbon has about 0.55 million people in the city proper.",
    ]),
);
const agent = createAgent({ model, tools: [lookup] });

for await (const item of agent.stream("How many people live in Lisbon?")) {
  if (item.type === "event") {
    const { event } = item.record;
    if (event.type === "model.text_delta") process.stdout.write(event.text);
    if (event.type === "tool.started")
      console.log(`[tool ${event.toolName} ${JSON.stringify(event.arguments)}]`);
    if (event.type === "tool.completed") console.log(`[tool done in ${event.durationMs} ms]`);
  } else {
    const { result } = item;
    console.log(`\n[completed: ${result.modelCalls} model calls, status ${result.status.status}]`);
  }
}
