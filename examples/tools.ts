/**
 * Tools: a custom tool (zod schema) next to built-ins from @tinyagents/harness/builtin-tools.
 * Run: npx tsx examples/tools.ts
 */
import { createAgent, tool } from "@tinyagents/harness";
import { calculatorTool, currentTimeTool } from "@tinyagents/harness/builtin-tools";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { z } from "zod";
import { pickModel } from "./support/pick-model.js";

const weather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: z.object({ city: z.string() }),
  policy: { sideEffects: "read" },
  execute: async ({ city }) => ({ city, forecast: "sunny", celsius: 21 }),
});

const { model } = pickModel(
  () =>
    new ScriptedModel([
      {
        toolCalls: [
          { name: "get_weather", arguments: { city: "Lisbon" } },
          { name: "calculator", arguments: { expression: "21 * 9 / 5 + 32" } },
          { name: "current_time", arguments: { timezone: "Europe/Lisbon" } },
        ],
      },
      "Lisbon is sunny at 21 °C (69.8 °F).",
    ]),
);

const agent = createAgent({
  model,
  instructions: "Use tools for facts and arithmetic.",
  tools: [weather, calculatorTool(), currentTimeTool()],
});

const run = await agent.run("Weather in Lisbon, in Fahrenheit too? And the local time.");
for (const message of run.messages) {
  if (message.role === "tool")
    console.log(`tool ${message.toolName}: ${JSON.stringify(message.content[0]).slice(0, 100)}`);
}
console.log(run.text);
console.log(`tool calls: ${run.toolCalls}`);
