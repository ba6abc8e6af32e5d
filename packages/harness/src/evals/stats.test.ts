import { describe, expect, it } from "vitest";
import { confidenceInterval, mean, percentile } from "./stats.js";

describe("stats", () => {
  it("mean and nearest-rank percentiles", () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(mean([])).toBeNaN();
    const values = Array.from({ length: 20 }, (_, i) => 20 - i); // 20..1, unsorted input
    expect(percentile(values, 50)).toBe(10);
    expect(percentile(values, 95)).toBe(19);
    expect(percentile(values, 100)).toBe(20);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("a Student-t 95% interval of the mean, clamped to the bounds", () => {
    // [0.2, 0.4, 0.6]: mean 0.4, sd 0.2, t(0.975, 2) = 4.303 -> 0.4 +- 0.4969.
    const ci = confidenceInterval([0.2, 0.4, 0.6]);
    expect(ci?.low).toBeCloseTo(0.4 - 0.49687, 4);
    expect(ci?.high).toBeCloseTo(0.4 + 0.49687, 4);
    expect(confidenceInterval([0.2, 0.4, 0.6], 0, 1)).toMatchObject({
      low: 0,
      high: expect.closeTo(0.89687, 4),
    });
    // 40 values: df 39 uses the normal quantile 1.96.
    const forty = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const wide = confidenceInterval(forty);
    expect(wide?.high).toBeCloseTo(0.5 + (1.96 * Math.sqrt(40 / 39 / 4)) / Math.sqrt(40), 6);
    expect(confidenceInterval([0.5])).toBeUndefined();
    expect(confidenceInterval([1, 1, 1])).toEqual({ low: 1, high: 1, level: 0.95 });
  });
});
