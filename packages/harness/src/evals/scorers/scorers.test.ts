import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ScriptStep } from "../../testkit/scripted-model.js";
import { agentPerCase, scriptedAgent } from "../eval.fixture.js";
import type { EvalCase } from "../eval-case.js";
import type { ScoreOutcome } from "../eval-result.js";
import { evaluate } from "../evaluate.js";
import type { Scorer } from "../scorer.js";
import { contains } from "./contains.js";
import { defineScorer } from "./custom.js";
import { exactMatch } from "./exact-match.js";
import { withinLimits } from "./limits.js";
import { regexMatch } from "./regex-match.js";
import { schemaMatch } from "./schema-match.js";
import { structuredEqual } from "./structured-equal.js";
import { trajectoryMatch } from "./trajectory-match.js";

/** Score each case (one run each, through `evaluate`) and return the outcome of the one scorer per case. */
async function score(
  scorer: Scorer,
  cases: EvalCase[],
  scripts: Record<string, readonly ScriptStep[]>,
): Promise<Record<string, ScoreOutcome>> {
  const result = await evaluate({ agent: agentPerCase(scripts), dataset: cases, scorers: [scorer] });
  return Object.fromEntries(result.trials.map((trial) => [trial.caseId, trial.scores[0] as ScoreOutcome]));
}

const answer = (text: string) => [text];

describe("text scorers", () => {
  it("exactMatch: trimmed equality with the expected text; no expected text is an error, not a zero", async () => {
    const out = await score(
      exactMatch(),
      [
        { id: "pass", input: "q", expected: "Paris" },
        { id: "fail", input: "q", expected: "Paris" },
        { id: "none", input: "q" },
      ],
      { pass: answer("  Paris\n"), fail: answer("paris"), none: answer("Paris") },
    );
    expect(out.pass).toMatchObject({ scorer: "exact", score: 1, passed: true });
    expect(out.fail).toMatchObject({ score: 0, passed: false, reason: 'expected "Paris", got "paris"' });
    expect(out.none).toMatchObject({ scorer: "exact", error: { code: "validation" } });
    expect((out.none as { error: { message: string } }).error.message).toContain(
      'case "none" has no "expected" text',
    );
    const folded = await score(
      exactMatch({ caseSensitive: false }),
      [{ id: "a", input: "q", expected: "Paris" }],
      {
        a: answer("PARIS"),
      },
    );
    expect(folded.a).toMatchObject({ score: 1 });
  });

  it("contains: the fraction of the texts present, case-insensitive by default", async () => {
    const out = await score(
      contains({ value: ["Paris", "France"] }),
      [
        { id: "both", input: "q" },
        { id: "half", input: "q" },
      ],
      { both: answer("paris is in france"), half: answer("Paris, Texas") },
    );
    expect(out.both).toMatchObject({ score: 1, passed: true });
    expect(out.half).toMatchObject({ score: 0.5, passed: false });
    expect((out.half as { reason: string }).reason).toContain('lacks "France"');
    const expected = await score(contains(), [{ id: "a", input: "q", expected: "42" }], {
      a: answer("It is 42."),
    });
    expect(expected.a).toMatchObject({ score: 1 });
  });

  it("regexMatch: matches (or, negated, must not match) the final text", async () => {
    const cases = [
      { id: "num", input: "q" },
      { id: "word", input: "q" },
    ];
    const scripts = { num: answer("The answer is 42"), word: answer("no idea") };
    const out = await score(regexMatch(/\b\d+\b/), cases, scripts);
    expect(out.num).toMatchObject({ scorer: "regex", score: 1 });
    expect(out.word).toMatchObject({ score: 0, passed: false });
    const negated = await score(regexMatch("idea", { negate: true, name: "no-idea" }), cases, scripts);
    expect(negated.num).toMatchObject({ scorer: "no-idea", score: 1 });
    expect(negated.word).toMatchObject({ score: 0 });
    expect(() => regexMatch("(")).toThrow(/regexMatch/);
  });
});

describe("structured scorers", () => {
  const structuredAgent = (reply: string) =>
    scriptedAgent([reply]).withResponseFormat({
      type: "object",
      properties: { city: { type: "string" }, population: { type: "number" } },
      required: ["city"],
    });

  it("structuredEqual: deep equality with expectedStructured, naming the first difference", async () => {
    const result = await evaluate({
      agent: (evalCase) =>
        structuredAgent(
          evalCase.id === "pass" ? '{"population":2.1,"city":"Paris"}' : '{"city":"Lyon","population":2.1}',
        ),
      dataset: [
        { id: "pass", input: "q", expectedStructured: { city: "Paris", population: 2.1 } },
        { id: "fail", input: "q", expectedStructured: { city: "Paris", population: 2.1 } },
      ],
      scorers: [
        structuredEqual(),
        structuredEqual({ name: "partial", partial: true, expected: { city: "Lyon" } }),
      ],
    });
    const [pass, fail] = result.trials;
    expect(pass?.scores[0]).toMatchObject({ score: 1, passed: true });
    expect(fail?.scores[0]).toMatchObject({ score: 0, reason: '$.city: expected "Paris", got "Lyon"' });
    expect(fail?.scores[1]).toMatchObject({ scorer: "partial", score: 1 });
  });

  it("schemaMatch: a zod schema or a JSON Schema, over run.structured or the text parsed as JSON", async () => {
    const zodSchema = z.object({ city: z.string(), population: z.number().positive() });
    const out = await score(
      schemaMatch(zodSchema),
      [
        { id: "json", input: "q" },
        { id: "wrong", input: "q" },
        { id: "prose", input: "q" },
      ],
      {
        json: answer('```json\n{"city":"Oslo","population":0.7}\n```'),
        wrong: answer('{"city":"Oslo","population":-1}'),
        prose: answer("Oslo"),
      },
    );
    expect(out.json).toMatchObject({ scorer: "schema", score: 1 });
    expect(out.wrong).toMatchObject({ score: 0 });
    expect((out.wrong as { reason: string }).reason).toContain("population");
    expect(out.prose).toMatchObject({
      score: 0,
      reason: "the output is not JSON and there is no structured value",
    });
    const json = await score(
      schemaMatch({ type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } }),
      [{ id: "a", input: "q" }],
      { a: answer('{"ok":"yes"}') },
    );
    expect(json.a).toMatchObject({ score: 0 });
  });
});

describe("trajectoryMatch", () => {
  const lookupThenAnswer = (city: string): ScriptStep[] => [
    { toolCalls: [{ name: "lookup", arguments: { city } }] },
    `It is 21 degrees in ${city}.`,
  ];

  it("scores the fraction of trajectory checks that hold (called, arguments, not called, order, model calls)", async () => {
    const expectedTrajectory = {
      called: ["lookup", { name: "lookup", arguments: { city: "Oslo" } }],
      notCalled: ["delete_file"],
      order: ["tool:lookup", "tool.completed", "model.completed"],
      modelCalls: 2,
    };
    const out = await score(
      trajectoryMatch(),
      [
        { id: "good", input: "weather?", expectedTrajectory },
        { id: "wrong-city", input: "weather?", expectedTrajectory },
        { id: "no-tool", input: "weather?", expectedTrajectory },
      ],
      {
        good: lookupThenAnswer("Oslo"),
        "wrong-city": lookupThenAnswer("Bergen"),
        "no-tool": ["I think it is sunny."],
      },
    );
    expect(out.good).toMatchObject({ scorer: "trajectory", score: 1, passed: true });
    expect(out["wrong-city"]).toMatchObject({ score: 4 / 5, passed: false });
    expect((out["wrong-city"] as { reason: string }).reason).toContain(
      'expected tool "lookup" to be called with arguments matching {"city":"Oslo"}',
    );
    // Not called (2 checks), order fails, model calls 1 != 2; only notCalled holds.
    expect(out["no-tool"]).toMatchObject({ score: 1 / 5 });
  });

  it("a case without an expected trajectory is a scorer error", async () => {
    const out = await score(trajectoryMatch(), [{ id: "a", input: "q" }], { a: ["hi"] });
    expect(out.a).toMatchObject({ error: { code: "validation" } });
  });
});

describe("withinLimits", () => {
  it("checks cost, tokens, model calls and tool calls against bounds; the reason names each breach", async () => {
    // Each scripted call: 10 input + 5 output tokens at $1000/$2000 per million = $0.02.
    const limits = withinLimits({
      maxCostUsd: 0.03,
      maxTokens: 20,
      maxModelCalls: 1,
      maxToolCalls: 0,
      maxLatencyMs: 60_000,
    });
    const out = await score(
      limits,
      [
        { id: "one-call", input: "q" },
        { id: "two-calls", input: "q" },
      ],
      {
        "one-call": ["done"],
        "two-calls": [{ toolCalls: [{ name: "lookup", arguments: { city: "Oslo" } }] }, "done"],
      },
    );
    expect(out["one-call"]).toMatchObject({
      scorer: "limits",
      score: 1,
      passed: true,
      reason: "within 5 limit(s)",
    });
    expect(out["two-calls"]).toMatchObject({ score: 1 / 5, passed: false });
    expect((out["two-calls"] as { reason: string }).reason).toBe(
      "cost $0.04 > $0.03; tokens 30 > 20; model calls 2 > 1; tool calls 1 > 0",
    );
    expect(() => withinLimits({})).toThrow(/at least one of/);
    expect(() => withinLimits({ maxTokens: -1 })).toThrow(/maxTokens must be a non-negative number/);
  });
});

describe("defineScorer (custom)", () => {
  it("takes a number or a result; a throw or an out-of-range score is recorded as an error", async () => {
    const cases = [{ id: "a", input: "q" }];
    const scripts = { a: ["hello world"] };
    const length = defineScorer("length", ({ output }) => ({
      score: Math.min(1, output.length / 20),
      reason: `${output.length} chars`,
    }));
    expect((await score(length, cases, scripts)).a).toMatchObject({
      score: 11 / 20,
      passed: true,
      reason: "11 chars",
    });
    const bare = defineScorer("bare", () => 0.25);
    expect((await score(bare, cases, scripts)).a).toMatchObject({ score: 0.25, passed: false });
    const throws = defineScorer("throws", () => {
      throw new Error("scorer blew up");
    });
    expect((await score(throws, cases, scripts)).a).toEqual({
      scorer: "throws",
      error: { code: "internal", message: "scorer blew up" },
    });
    const outOfRange = defineScorer("range", () => 7);
    const range = (await score(outOfRange, cases, scripts)).a as { error: { code: string; message: string } };
    expect(range.error.code).toBe("validation");
    expect(range.error.message).toContain("scores must be numbers in [0, 1]");
    expect(() => defineScorer("t", () => 1, { threshold: 2 })).toThrow(
      /threshold must be a number in \[0, 1\]/,
    );
  });
});
