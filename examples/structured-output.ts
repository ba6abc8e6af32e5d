/**
 * Structured output: ask for JSON matching a schema; the validated value lands in `result.structured`
 * (typed by the schema when it is a zod / Standard Schema; JSON for a raw JSON Schema like this one).
 * Run: npx tsx examples/structured-output.ts
 */
import { createAgent } from "@tinyagents/harness";
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
const agent = createAgent({
  model,
  responseFormat: schema,
  responseFormatOptions: { name: "capital", strategy: "native" },
});

const result = await agent.run("The capital of France and its population, as JSON.");
console.log("raw text:", result.text);
console.log("structured:", JSON.stringify(result.structured));
