import { compareEvals } from "@tinyagents/harness/evals";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatComparison } from "../render/eval-table.js";
import { evalResultFixture } from "../ui/eval-result.fixture.js";
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
    expect(formatTokenTotal(1234, { reported: 2, made: 2, unknown: true })).toBe("≥ 1,234 tokens");
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

describe("eval baselines compare per trial (issue 35 #4), printed by the one formatter", () => {
  it("1 repeat against 3 of the same cost per trial is no change, with repeats and trials shown", () => {
    const baseline = evalResultFixture("base", 1, 0);
    const current = evalResultFixture("cur", 3, 1000);
    const text = formatComparison(compareEvals(baseline, current));
    expect(text).toContain(
      "cost per trial $0.000200 (2 trials, 1 repeat) -> $0.000200 (6 trials, 3 repeats) (±$0.000000)",
    );
  });

  it("an unknown cost on either side makes both and the difference unknown", () => {
    const baseline = evalResultFixture("base", 1, 0);
    baseline.report.cost.unknown = true;
    const current = evalResultFixture("cur", 3, 1000);
    const text = formatComparison(compareEvals(baseline, current));
    expect(text).toContain("cost per trial unknown (≥ $0.000200) (2 trials, 1 repeat)");
    expect(text).toContain("(6 trials, 3 repeats) (unknown)");
  });
});
