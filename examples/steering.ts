/**
 * Steering: pause a running agent at its next checkpoint, keep the paused run as JSON, resume it.
 * Run: npx tsx examples/steering.ts
 */
import { createAgent, SteeringHandle, SteeringPolicy, tool } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { pickModel } from "./support/pick-model.js";

const steering = new SteeringHandle(new SteeringPolicy().allow("pause").allow("injectMessage"));

const step = tool({
  name: "do_step",
  description: "Do one step of the job",
  inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  execute: ({ n }) => {
    if (n === 1) steering.pauseWith("a human wants to review step 1"); // e.g. from a UI button
    return `step ${n} done`;
  },
});

const { model } = pickModel(
  () =>
    new ScriptedModel([
      { toolCalls: [{ name: "do_step", arguments: { n: 1 } }] },
      { toolCalls: [{ name: "do_step", arguments: { n: 2 } }] },
      "All steps done.",
    ]),
);
const agent = createAgent({ model, tools: [step] });

const paused = await agent.run("Do the two steps.", { runId: "job-1", steering });
console.log(`status: ${paused.stopReason}; paused at ${paused.modelCalls} model calls`);
const saved = JSON.stringify(paused.paused); // store it anywhere (PausedRunStore does this for you)
console.log(`paused run saved: ${saved.length} bytes of JSON`);

const resumed = await agent.run(JSON.parse(saved)); // a PausedRun as input resumes it
console.log(
  `resumed: ${resumed.text} (model calls: ${resumed.modelCalls}, tool calls: ${resumed.toolCalls})`,
);
