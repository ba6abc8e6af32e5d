/**
 * Streaming: every event as it happens — text deltas, tool calls — then the final run.
 * Run: npx tsx examples/streaming.ts
 */
import { AgentHarness, tool } from "@tinyagents/harness";
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
const agent = new AgentHarness().registerModel("main", model).registerTool(lookup);

for await (const item of agent.invokeStreamingDefault(undefined, "How many people live in Lisbon?")) {
  if (item.type === "event") {
    const { event } = item.record;
    if (event.type === "model.text_delta") process.stdout.write(event.text);
    if (event.type === "tool.started")
      console.log(`[tool ${event.toolName} ${JSON.stringify(event.arguments)}]`);
    if (event.type === "tool.completed") console.log(`[tool done in ${event.durationMs} ms]`);
  } else if (item.type === "completed") {
    console.log(`\n[completed: ${item.run.modelCalls} model calls, status ${item.status.status}]`);
  } else {
    console.log(`\n[failed: ${item.error.message}]`);
  }
}
