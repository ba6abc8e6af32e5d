/**
 * An offline eval of a travel assistant: 6 cases, deterministic scorers, a judge, limits and
 * thresholds. Run: npx tinyagents eval examples/evals/travel.eval.ts   (after npm run build)
 * Then compare a later run with it: npx tinyagents eval examples/evals/travel.eval.ts --baseline <eval-run-id>
 */
import { contains, defineEval, llmJudge, trajectoryMatch, withinLimits } from "@tinyagents/harness/evals";
import { rubricJudge } from "./rubric-judge.js";
import { travelAgent } from "./travel-agent.js";

export default defineEval({
  name: "travel-assistant",
  dataset: "./travel.jsonl",
  agent: travelAgent,
  scorers: [
    contains(),
    trajectoryMatch(),
    withinLimits({ maxModelCalls: 3, maxTokens: 1_000, maxCostUsd: 0.001 }),
    llmJudge({
      model: rubricJudge,
      rubric: "A good answer is correct, direct, and short enough to read on a phone.",
      pricing: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
    }),
  ],
  thresholds: { passRate: 0.8, scorers: { trajectory: 0.8 }, maxCostUsd: 0.01 },
  concurrency: 3,
});
