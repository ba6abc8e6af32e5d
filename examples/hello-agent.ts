/**
 * Hello agent: one agent, one model, one question.
 * Run: npx tsx examples/hello-agent.ts   (offline; TINYAGENTS_MODEL=openai:gpt-4.1-mini for real)
 */
import { createAgent, formatTotalTokens } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { pickModel } from "./support/pick-model.js";

const { model } = pickModel(() => new ScriptedModel(["Hello! I am a tiny agent. Ask me anything."]));

const agent = createAgent({ model, instructions: "You are friendly and brief." });
const result = await agent.run("Say hello in one sentence.");

console.log(result.text);
console.log(
  `model calls: ${result.modelCalls}, tokens: ${formatTotalTokens(result.usage)}, run id: ${result.runId}`,
);
