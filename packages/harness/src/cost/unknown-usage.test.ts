import { emptyUsageTotals, markUsageUnknown, type UsageTotals } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { formatTotalTokens } from "./unknown-usage.js";

const totals = (totalTokens: number): UsageTotals => ({ ...emptyUsageTotals(), totalTokens, calls: 1 });

describe("formatTotalTokens", () => {
  it("prints a known total as the number", () => {
    expect(formatTotalTokens(totals(150))).toBe("150");
    expect(formatTotalTokens(totals(0))).toBe("0");
  });

  it("prints a partly reported total as a lower bound, and nothing reported as unknown, never 0", () => {
    expect(formatTotalTokens(markUsageUnknown(totals(150)))).toBe("at least 150");
    expect(formatTotalTokens(markUsageUnknown(totals(0)))).toBe("unknown");
  });
});
