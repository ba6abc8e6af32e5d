import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { ToolTimeoutSettings } from "./timeout-settings.js";

function errorOf(fn: () => unknown): TinyAgentsError {
  try {
    fn();
  } catch (error) {
    if (TinyAgentsError.isInstance(error, "validation")) return error;
    throw error;
  }
  throw new Error("expected a validation error");
}

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
    expect(settings.resolve({ ms: 2_000 })).toBe(7_000);
  });

  it("clamps the inherited timeout into [min, max]", () => {
    expect(new ToolTimeoutSettings(10, 1_000, 5_000).inheritedMs).toBe(1_000);
    expect(new ToolTimeoutSettings(9_999, 1_000, 5_000).resolve("inherit")).toBe(5_000);
  });

  it("resolves unbounded to no timeout", () => {
    expect(new ToolTimeoutSettings().resolve("unbounded")).toBeUndefined();
  });

  it("clamps explicit timeouts and adds grace", () => {
    const settings = new ToolTimeoutSettings(60_000, 1_000, 10_000, 500);
    expect(settings.resolve({ ms: 5_000 })).toBe(5_500);
    expect(settings.resolve({ ms: 1 })).toBe(1_500);
    expect(settings.resolve({ ms: 0 })).toBe(1_500);
    expect(settings.resolve({ ms: 1_000 })).toBe(1_500);
    expect(settings.resolve({ ms: 10_000 })).toBe(10_500);
    expect(settings.resolve({ ms: 999_999 })).toBe(10_500);
    expect(settings.clamp(20)).toBe(1_000);
  });

  it("rejects malformed explicit timeouts", () => {
    const settings = new ToolTimeoutSettings();
    for (const ms of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = errorOf(() => settings.resolve({ ms }));
      expect(error.message).toContain("finite number >= 0");
      expect(error.details).toEqual({ field: "timeout" });
    }
  });

  it("validates its constructor arguments", () => {
    expect(errorOf(() => new ToolTimeoutSettings(1_000, 0)).message).toContain("minMs must be >= 1");
    expect(errorOf(() => new ToolTimeoutSettings(1_000, 5_000, 4_000)).message).toContain(
      "maxMs (4000) must be >= minMs (5000)",
    );
    expect(errorOf(() => new ToolTimeoutSettings(-5)).message).toContain("inheritedMs must be >= 0");
    expect(errorOf(() => new ToolTimeoutSettings(1_000, 1, 10, -1)).message).toContain(
      "graceMs must be >= 0",
    );
    expect(errorOf(() => new ToolTimeoutSettings(Number.NaN)).details).toEqual({ field: "inheritedMs" });
    expect(() => new ToolTimeoutSettings(5, 5, 5, 0)).not.toThrow();
  });
});
