import { usage } from "@tinyagents/inference";
import { AgentHarness } from "../runtime/agent-harness.js";
import { FakeTool } from "../testkit/fake-tool.js";
import type { ScriptStep } from "../testkit/scripted-model.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import type { EvalAgent } from "./agent-target.js";
import type { EvalCase } from "./eval-case.js";

/** Usage of every scripted reply: 10 in, 5 out. */
export const STEP_USAGE = usage({ inputTokens: 10, outputTokens: 5 });

/** A harness answering from `steps`, with a `lookup` tool that echoes its `city` argument, priced. */
export function scriptedAgent(steps: readonly ScriptStep[]): AgentHarness {
  return new AgentHarness()
    .registerModel("m", new ScriptedModel(steps, { usage: STEP_USAGE }), {
      pricing: { inputPerMillion: 1_000, outputPerMillion: 2_000 },
    })
    .registerTool(new FakeTool("lookup", (args) => ({ city: args.city ?? null, temp: 21 })));
}

/** An agent factory: a fresh scripted harness per run, from the case's script. */
export function agentPerCase(
  scripts: Record<string, readonly ScriptStep[]>,
): (evalCase: EvalCase) => EvalAgent {
  return (evalCase) => {
    const steps = scripts[evalCase.id];
    if (steps === undefined) throw new Error(`no script for case ${evalCase.id}`);
    return scriptedAgent(steps);
  };
}
