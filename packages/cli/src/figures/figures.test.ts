import type { EvalResult } from "@tinyagents/harness/evals";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { costPerTrial, formatComparison } from "../render/eval-table.js";
import {
  formatCostFigure,
  formatCount,
  formatDelta,
  formatDuration,
  formatPercent,
  formatTokenTotal,
} from "./figures.js";

describe("the one formatter of figures", () => {
  it("durations carry their unit; an unknown duration is unknown", () => {
    expect(formatDuration(350)).toBe("350 ms");
    expect(formatDuration(1600)).toBe("1.6 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
    expect(formatDuration(119_700)).toBe("2 min 0 s");
    expect(formatDuration(undefined)).toBe("unknown");
  });

  it("deltas carry sign and unit (issue 39 #2: `-1253` beside `1.6 s` and `350 ms`)", () => {
    expect(formatDelta("duration", 1603, 350)).toBe("−1.3 s");
    expect(formatDelta("duration", 350, 1603)).toBe("+1.3 s");
    expect(formatDelta("duration", 100, 100)).toBe("±0 ms");
    expect(formatDelta("count", 3, 15)).toBe("+12");
    expect(formatDelta("count", 1500, 0)).toBe("−1,500");
    expect(formatDelta("usd", 0.0003, 0.0001)).toBe("−$0.000200");
  });

  it("unknown minus anything is unknown (issue 39 #2: `0` between two unknowns)", () => {
    expect(formatDelta("usd", undefined, undefined)).toBe("unknown");
    expect(formatDelta("usd", 0.5, undefined)).toBe("unknown");
    expect(formatDelta("duration", undefined, 10)).toBe("unknown");
    expect(formatDelta("count", Number.NaN, 10)).toBe("unknown");
  });

  it("counts are grouped, shares are percents, unknown stays unknown", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(formatCount(undefined)).toBe("unknown");
    expect(formatPercent(0.9)).toBe("90%");
    expect(formatPercent(undefined)).toBe("unknown");
  });

  it("a token total is a lower bound when some calls reported no usage, unknown when none did", () => {
    expect(formatTokenTotal(1234)).toBe("1,234 tokens");
    expect(formatTokenTotal(1234, { reported: 2, made: 2 })).toBe("1,234 tokens");
    expect(formatTokenTotal(1234, { reported: 1, made: 2 })).toBe("≥ 1,234 tokens");
    expect(formatTokenTotal(0, { reported: 0, made: 2 })).toBe("unknown tokens");
  });

  it("property: an unknown cost never prints as $0 or 0; a known one prints its amount", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1000, noNaN: true }), fc.boolean(), (total, unknown) => {
        const text = formatCostFigure({ total, unknown });
        if (unknown) {
          expect(text.startsWith("unknown")).toBe(true);
          expect(text).not.toMatch(/^\$0\.0*$/);
          // The priced part, when there is one, is a lower bound, never the figure.
          if (total > 0) expect(text).toContain("≥");
        } else {
          expect(text).toBe(`$${total.toFixed(6)}`);
        }
      }),
    );
  });
});

/** A finished eval result with `trials` trials costing `usd` each (unknown when told). */
function evalResult(id: string, trials: number, usd: number, unknown = false): EvalResult {
  return {
    evalRunId: id,
    trials: Array.from({ length: trials }, (_, i) => ({
      caseId: "c1",
      trial: i,
      runId: `${id}-r${i}`,
      cost: { total: usd, unknown },
    })),
    report: { cost: { totalUsd: usd * trials, agentUsd: usd * trials, judgeUsd: 0, unknown } },
  } as unknown as EvalResult;
}

const comparison = (baseline: EvalResult, current: EvalResult) =>
  ({
    baselineId: baseline.evalRunId,
    currentId: current.evalRunId,
    regressions: [],
    improvements: [],
    unchanged: 1,
    addedCases: [],
    removedCases: [],
    passRate: { baseline: 1, current: 1, delta: 0 },
    scorers: [],
    costUsd: {
      baseline: baseline.report.cost.totalUsd,
      current: current.report.cost.totalUsd,
      delta: current.report.cost.totalUsd - baseline.report.cost.totalUsd,
    },
    p95LatencyMs: { baseline: null, current: null, delta: null },
  }) as Parameters<typeof formatComparison>[0];

describe("eval baselines compare per trial (issue 35 #4)", () => {
  it("1 repeat against 3 of the same cost per trial is no change, with the trial counts shown", () => {
    const baseline = evalResult("base", 1, 0.001);
    const current = evalResult("cur", 3, 0.001);
    expect(costPerTrial(current).perTrial.total).toBeCloseTo(0.001, 9);
    const text = formatComparison(comparison(baseline, current), { baseline, current });
    expect(text).toContain("cost per trial $0.001000 (1 trials) -> $0.001000 (3 trials) (±$0.000000)");
  });

  it("an unknown cost on either side makes the difference unknown", () => {
    const baseline = evalResult("base", 2, 0, true);
    const current = evalResult("cur", 2, 0.002);
    const text = formatComparison(comparison(baseline, current), { baseline, current });
    expect(text).toContain("cost per trial unknown (2 trials) -> $0.002000 (2 trials) (unknown)");
  });
});
