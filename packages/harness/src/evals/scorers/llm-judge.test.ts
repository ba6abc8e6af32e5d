import { ProviderError, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { agentPerCase } from "../eval.fixture.js";
import { evaluate } from "../evaluate.js";
import { llmJudge } from "./llm-judge.js";

const cases = [
  {
    id: "good",
    input: "Explain photosynthesis in one sentence.",
    expected: "Plants turn light, water and CO2 into sugar and oxygen.",
  },
  { id: "bad", input: "Explain photosynthesis in one sentence." },
];
const agent = agentPerCase({
  good: ["Plants use sunlight to turn water and carbon dioxide into glucose and oxygen."],
  bad: ["It is a kind of dance."],
});
const judgeUsage = usage({ inputTokens: 100, outputTokens: 20 });

describe("llmJudge", () => {
  it("asks the judge for a structured verdict on the rubric and normalizes the score; its cost is counted apart", async () => {
    const judge = new ScriptedModel(
      [
        '{"reason":"Accurate and complete.","score":5}',
        '{"reason":"Wrong: not about plants at all.","score":1}',
      ],
      { usage: judgeUsage },
    );
    const result = await evaluate({
      agent,
      dataset: cases,
      scorers: [
        llmJudge({
          model: judge,
          rubric: "The answer is a correct, one-sentence explanation of photosynthesis.",
          pricing: { inputPerMillion: 10, outputPerMillion: 50 },
        }),
      ],
      concurrency: 1,
    });
    const [good, bad] = result.trials;
    expect(good?.scores[0]).toMatchObject({
      scorer: "judge",
      score: 1,
      passed: true,
      reason: "5/5: Accurate and complete.",
    });
    expect(bad?.scores[0]).toMatchObject({
      score: 0,
      passed: false,
      reason: "1/5: Wrong: not about plants at all.",
    });
    // The judge saw the rubric, the input, the reference answer (when the case has one) and the answer, and was
    // asked for the verdict schema.
    const first = judge.requests[0];
    const prompt = JSON.stringify(first?.messages);
    expect(prompt).toContain(
      "RUBRIC:\\nThe answer is a correct, one-sentence explanation of photosynthesis.",
    );
    expect(prompt).toContain("REFERENCE ANSWER:\\nPlants turn light");
    expect(prompt).toContain("ASSISTANT ANSWER:\\nPlants use sunlight");
    expect(JSON.stringify(judge.requests[1]?.messages)).not.toContain("REFERENCE ANSWER");
    expect(first?.responseFormat).toMatchObject({ type: "json_schema", name: "verdict" });
    // 100 in x $10/M + 20 out x $50/M = $0.002 per verdict; the agent's cost is apart.
    expect(result.report.cost.judgeUsd).toBeCloseTo(0.004);
    expect(result.report.usage.judge.totalTokens).toBe(240);
    expect(result.report.cost.agentUsd).toBeCloseTo(0.04);
    expect(result.report.cost.totalUsd).toBeCloseTo(0.044);
  });

  it("maps a custom scale and honours the threshold", async () => {
    const judge = new ScriptedModel(['{"reason":"ok","score":7}', '{"reason":"meh","score":4}']);
    const result = await evaluate({
      agent,
      dataset: cases,
      scorers: [llmJudge({ model: judge, rubric: "Is it right?", scale: [0, 10], threshold: 0.6 })],
      concurrency: 1,
    });
    expect(result.trials.map((t) => t.scores[0])).toMatchObject([
      { score: 0.7, passed: true },
      { score: 0.4, passed: false },
    ]);
  });

  it("a judge that fails (provider error, verdict that never validates) is a scorer error, not a zero", async () => {
    const judge = new ScriptedModel([
      new ProviderError({
        message: "judge overloaded",
        provider: "scripted",
        kind: "non_retryable",
        status: 400,
      }),
      '{"reason":"no score here"}',
      "still not a verdict",
    ]);
    const result = await evaluate({
      agent,
      dataset: cases,
      scorers: [llmJudge({ model: judge, rubric: "Is it right?", maxReasks: 1 })],
      concurrency: 1,
    });
    const [first, second] = result.trials.map((t) => t.scores[0]);
    expect(first).toMatchObject({ scorer: "judge", error: { code: "provider" } });
    expect(second).toMatchObject({ scorer: "judge", error: { code: "structured_output" } });
    expect(result.report.scorers[0]).toMatchObject({ mean: null, scored: 0, errors: 2 });
  });

  it("refuses a missing rubric, model or bad scale at construction", () => {
    const model = new ScriptedModel([]);
    expect(() => llmJudge({ model, rubric: " " })).toThrow(/rubric must be a non-empty string/);
    expect(() => llmJudge({ model: {} as never, rubric: "x" })).toThrow(/model must be a ChatModel/);
    expect(() => llmJudge({ model, rubric: "x", scale: [5, 1] })).toThrow(/scale must be two integers/);
  });
});
