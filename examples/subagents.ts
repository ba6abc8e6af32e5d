/**
 * Sub-agents: an orchestrator delegates to two specialists (each a whole agent, `agent.asTool`).
 * Usage and cost roll up into the orchestrator's run.
 * Run: npx tsx examples/subagents.ts
 */
import { createAgent, formatCost, formatTotalTokens } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { usage } from "@tinyagents/inference";
import { pickModel } from "./support/pick-model.js";

const tokens = usage({ inputTokens: 120, outputTokens: 30 });
const pricing = { pricing: { inputPerMillion: 0.4, outputPerMillion: 1.6 } };

const { model, live } = pickModel(
  () =>
    new ScriptedModel(
      [
        { toolCalls: [{ name: "researcher", arguments: { input: "How big is Lisbon?" } }] },
        { toolCalls: [{ name: "writer", arguments: { input: "Summarize: Lisbon metro ~2.9M people." } }] },
        "Summary: Lisbon's metro area has about 2.9 million people.",
      ],
      { usage: tokens },
    ),
);

const specialist = (name: string, description: string, answer: string) =>
  createAgent({
    model: live ? model : new ScriptedModel([answer], { usage: tokens }),
    ...pricing,
    instructions: `You are the ${name}.`,
  }).asTool({ name, description });

const orchestrator = createAgent({
  model,
  ...pricing,
  instructions: "Delegate research, then writing.",
  tools: [
    specialist("researcher", "Finds facts.", "Lisbon hosts about 2.9 million people in its metro area."),
    specialist("writer", "Writes a tight summary.", "Lisbon: a metro area of ~2.9M people."),
  ],
});

const run = await orchestrator.run("Give me a one-line fact sheet about Lisbon.");
console.log(run.text);
for (const child of run.children ?? []) {
  console.log(
    `child ${child.name} (${child.runId}, depth ${child.depth}): ${formatTotalTokens(child.usage)} tokens, ${formatCost(child.cost)}`,
  );
}
console.log(
  `tree total: ${formatTotalTokens(run.usage)} tokens, ${formatCost(run.cost)} (own model calls: ${run.modelCalls})`,
);
