import { describe, expect, it } from "vitest";
import { thrownError } from "../../test/support/thrown.js";
import { ToolTimeoutSettings } from "./timeout-settings.js";

describe("ToolTimeoutSettings", () => {
  it("has the documented defaults", () => {
    const settings = new ToolTimeoutSettings();
    expect(settings).toMatchObject({ inheritedMs: 120_000, minMs: 1_000, maxMs: 3_600_000, graceMs: 5_000 });
  });

  it("resolves inherit (and undefined) to the inherited timeout, without grace", () => {
    const settings = new ToolTimeoutSettings(30_000);
    expect(settings.resolve("inherit")).toBe(30_000);
    expect(settings.resolve(undefined)).toBe(30_000);
  });

  it("treats an inherited 0 as disabled", () => {
    const settings = new ToolTimeoutSettings(0);
    expect(settings.inheritedMs).toBe(0);
    expect(settings.resolve("inherit")).toBeUndefined();
    expect(settings.resolve({ ms: 2_000 })).toBe(2_000);
  });

  it("rejects an inherited timeout outside [min, max] instead of clamping it", () => {
    expect(thrownError(() => new ToolTimeoutSettings(10, 1_000, 5_000), "validation").message).toContain(
      "inheritedMs must be 0 (no default timeout) or within [minMs, maxMs] = [1000, 5000], got 10",
    );
    expect(thrownError(() => new ToolTimeoutSettings(9_999, 1_000, 5_000), "validation").details).toEqual({
      field: "inheritedMs",
    });
  });

  it("resolves unbounded to no timeout", () => {
    expect(new ToolTimeoutSettings().resolve("unbounded")).toBeUndefined();
  });

  it("takes explicit timeouts as given (the grace is not added) and rejects values outside [min, max]", () => {
    const settings = new ToolTimeoutSettings(5_000, 1_000, 10_000, 500);
    expect(settings.resolve({ ms: 5_000 })).toBe(5_000);
    expect(settings.resolve({ ms: 1_000 })).toBe(1_000);
    expect(settings.resolve({ ms: 10_000 })).toBe(10_000);
    const low = thrownError(() => settings.resolve({ ms: 20 }), "validation");
    expect(low.message).toContain("tool timeout { ms: 20 } is below the minimum 1000 ms");
    expect(low.details).toEqual({ field: "timeout", value: 20, minMs: 1_000, maxMs: 10_000 });
    expect(thrownError(() => settings.resolve({ ms: 0 }), "validation").message).toContain(
      "below the minimum 1000 ms",
    );
    expect(thrownError(() => settings.resolve({ ms: 999_999 }), "validation").message).toContain(
      "above the maximum 10000 ms",
    );
  });

  it("rejects malformed explicit timeouts", () => {
    const settings = new ToolTimeoutSettings();
    for (const ms of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = thrownError(() => settings.resolve({ ms }), "validation");
      expect(error.message).toContain("finite number >= 0");
      expect(error.details).toEqual({ field: "timeout" });
    }
  });

  it("validates its constructor arguments", () => {
    expect(thrownError(() => new ToolTimeoutSettings(1_000, 0), "validation").message).toContain(
      "minMs must be >= 1",
    );
    expect(thrownError(() => new ToolTimeoutSettings(1_000, 5_000, 4_000), "validation").message).toContain(
      "maxMs (4000) must be >= minMs (5000)",
    );
    expect(thrownError(() => new ToolTimeoutSettings(-5), "validation").message).toContain(
      "inheritedMs must be 0 (no default timeout) or within [minMs, maxMs]",
    );
    expect(thrownError(() => new ToolTimeoutSettings(5, 1, 10, -1), "validation").message).toContain(
      "graceMs must be >= 0",
    );
    expect(thrownError(() => new ToolTimeoutSettings(Number.NaN), "validation").details).toEqual({
      field: "inheritedMs",
    });
    expect(() => new ToolTimeoutSettings(5, 5, 5, 0)).not.toThrow();
  });
});
