import { describe, expect, it } from "vitest";
import { compareEvals } from "./compare.js";
import { agentPerCase } from "./eval.fixture.js";
import { evaluate } from "./evaluate.js";
import { contains } from "./scorers/contains.js";
import { exactMatch } from "./scorers/exact-match.js";

const dataset = {
  name: "capitals",
  cases: [
    { id: "paris", input: "Capital of France?", expected: "Paris" },
    { id: "rome", input: "Capital of Italy?", expected: "Rome" },
    { id: "oslo", input: "Capital of Norway?", expected: "Oslo" },
  ],
};
const scorers = [exactMatch(), contains({ name: "mentions" })];

describe("compareEvals", () => {
  it("flags regressions and improvements per case and per scorer", async () => {
    const baseline = await evaluate({
      agent: agentPerCase({ paris: ["Paris"], rome: ["Rome"], oslo: ["Bergen"] }),
      dataset,
      scorers,
      evalRunId: "eval-base",
    });
    // The "new prompt": Rome now answers with a sentence (exact fails, still mentions Rome), Oslo is fixed.
    const current = await evaluate({
      agent: agentPerCase({ paris: ["Paris"], rome: ["It is Rome."], oslo: ["Oslo"] }),
      dataset,
      scorers,
      evalRunId: "eval-new",
    });
    const comparison = compareEvals(baseline, current);
    expect(comparison.baselineId).toBe("eval-base");
    expect(comparison.currentId).toBe("eval-new");
    expect(comparison.regressions).toEqual([
      { caseId: "rome", baseline: 1, current: 0, delta: -1 },
      { caseId: "rome", scorer: "exact", baseline: 1, current: 0, delta: -1 },
    ]);
    expect(comparison.improvements).toEqual([
      { caseId: "oslo", baseline: 0, current: 1, delta: 1 },
      { caseId: "oslo", scorer: "exact", baseline: 0, current: 1, delta: 1 },
      { caseId: "oslo", scorer: "mentions", baseline: 0, current: 1, delta: 1 },
    ]);
    // paris: pass rate + 2 scorers; rome: mentions.
    expect(comparison.unchanged).toBe(4);
    expect(comparison.passRate).toEqual({ baseline: 2 / 3, current: 2 / 3, delta: 0 });
    expect(comparison.scorers).toEqual([
      { scorer: "exact", baseline: 2 / 3, current: 2 / 3, delta: 0 },
      { scorer: "mentions", baseline: 2 / 3, current: 1, delta: 1 - 2 / 3 },
    ]);
    expect(comparison.addedCases).toEqual([]);
  });

  it("a tolerance ignores small moves; added and removed cases are listed; different datasets are refused", async () => {
    const repeated = (answers: string[]) =>
      evaluate({
        agent: (evalCase, trial) => agentPerCase({ [evalCase.id]: [answers[trial] ?? ""] })(evalCase),
        dataset: { name: "one", cases: [{ id: "q", input: "?", expected: "yes" }] },
        scorers: [exactMatch()],
        repeats: 5,
      });
    const before = await repeated(["yes", "yes", "yes", "yes", "yes"]);
    const after = await repeated(["yes", "yes", "yes", "yes", "no"]);
    expect(compareEvals(before, after).regressions).toHaveLength(2);
    expect(compareEvals(before, after, { tolerance: 0.2 }).regressions).toHaveLength(0);
    expect(compareEvals(before, after, { tolerance: 0.1 }).regressions[0]).toMatchObject({
      delta: expect.closeTo(-0.2),
    });

    const grown = await evaluate({
      agent: agentPerCase({ q: ["yes"], extra: ["x"] }),
      dataset: { name: "one", cases: [{ id: "extra", input: "?", expected: "x" }] },
      scorers: [exactMatch()],
    });
    expect(compareEvals(before, grown)).toMatchObject({ addedCases: ["extra"], removedCases: ["q"] });
    const other = { ...before, dataset: { ...before.dataset, name: "other" } };
    expect(() => compareEvals(other, after)).toThrow(/ran dataset "other", the current run "one"/);
  });
});

describe("compareEvals across different repeat counts", () => {
  const one = { name: "one", cases: [{ id: "q", input: "?", expected: "yes" }] };
  const run = (repeats: number, evalRunId: string) =>
    evaluate({
      agent: agentPerCase({ q: ["yes"] }),
      dataset: one,
      scorers: [exactMatch()],
      repeats,
      evalRunId,
    });

  it("compares cost per trial and shows each side's repeats: 1 vs 3 repeats of the same agent is no regression", async () => {
    const baseline = await run(1, "eval-1x");
    const current = await run(3, "eval-3x");
    // Totals differ threefold; per trial they are the same.
    expect(current.report.cost.totalUsd).toBeCloseTo(3 * baseline.report.cost.totalUsd, 12);
    const comparison = compareEvals(baseline, current);
    expect(comparison.repeats).toEqual({ baseline: 1, current: 3 });
    expect(comparison.trials).toEqual({ baseline: 1, current: 3 });
    expect(comparison.costUsd.perTrial).toBe(true);
    expect(comparison.costUsd.unknown).toBe(false);
    expect(comparison.costUsd.baseline).toBeCloseTo(baseline.report.cost.totalUsd, 12);
    expect(comparison.costUsd.current).toBeCloseTo(baseline.report.cost.totalUsd, 12);
    expect(Math.abs(comparison.costUsd.delta)).toBeLessThan(1e-12);
    expect(comparison.regressions).toEqual([]);
  });
});
