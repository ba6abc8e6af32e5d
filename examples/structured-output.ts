/**
 * Structured output: ask for JSON matching a schema; the validated value lands in `run.structured`.
 * Run: npx tsx examples/structured-output.ts
 */
import { AgentHarness, runText } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { pickModel } from "./support/pick-model.js";

const schema = {
  type: "object",
  properties: {
    city: { type: "string" },
    country: { type: "string" },
    population_millions: { type: "number" },
  },
  required: ["city", "country", "population_millions"],
  additionalProperties: false,
};

const { model } = pickModel(
  () => new ScriptedModel(['{"city":"Paris","country":"France","population_millions":2.1}']),
);
const agent = new AgentHarness()
  .registerModel("main", model)
  .withPolicy({ responseFormat: { type: "json_schema", name: "capital", schema, strict: true } });

const run = await agent.invokeDefault(undefined, "The capital of France and its population, as JSON.");
console.log("raw text:", runText(run));
console.log("structured:", JSON.stringify(run.structured));
