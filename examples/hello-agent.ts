/**
 * Hello agent: one harness, one model, one question.
 * Run: npx tsx examples/hello-agent.ts   (offline; TINYAGENTS_MODEL=openai:gpt-4.1-mini for real)
 */
import { AgentHarness, runText } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { pickModel } from "./support/pick-model.js";

const { model } = pickModel(() => new ScriptedModel(["Hello! I am a tiny agent. Ask me anything."]));

const agent = new AgentHarness({ instructions: "You are friendly and brief." }).registerModel("main", model);
const run = await agent.invokeDefault(undefined, "Say hello in one sentence.");

console.log(runText(run));
console.log(`model calls: ${run.modelCalls}, tokens: ${run.usage.totalTokens}, run id: ${run.runId}`);
