import { validationError } from "@tinyagents/inference";
import type { ToolTimeout } from "./tool.js";

/**
 * How per-tool timeouts turn into milliseconds.
 *
 * - `inheritedMs`: the timeout of tools that say `"inherit"` (the default). `0` disables it;
 *   any other value is clamped to `[minMs, maxMs]`.
 * - `minMs` / `maxMs`: bounds for explicit `{ ms }` timeouts (and the inherited one).
 * - `graceMs`: added to explicit `{ ms }` timeouts, so a tool that honours its own deadline
 *   has time to return before being cut off.
 *
 * Immutable. Constructor arguments are checked: all must be finite, `minMs >= 1`,
 * `maxMs >= minMs`, `inheritedMs >= 0`, `graceMs >= 0`; otherwise a `validation` error.
 */
export class ToolTimeoutSettings {
  /** The effective inherited timeout after clamping (`0` = disabled). */
  readonly inheritedMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly graceMs: number;

  constructor(inheritedMs = 120_000, minMs = 1_000, maxMs = 3_600_000, graceMs = 5_000) {
    requireFinite("minMs", minMs);
    requireFinite("maxMs", maxMs);
    requireFinite("inheritedMs", inheritedMs);
    requireFinite("graceMs", graceMs);
    if (minMs < 1) throw settingError(`minMs must be >= 1, got ${minMs}`, "minMs");
    if (maxMs < minMs) throw settingError(`maxMs (${maxMs}) must be >= minMs (${minMs})`, "maxMs");
    if (inheritedMs < 0) {
      throw settingError(
        `inheritedMs must be >= 0 (0 disables the default timeout), got ${inheritedMs}`,
        "inheritedMs",
      );
    }
    if (graceMs < 0) throw settingError(`graceMs must be >= 0, got ${graceMs}`, "graceMs");
    this.minMs = minMs;
    this.maxMs = maxMs;
    this.graceMs = graceMs;
    this.inheritedMs = inheritedMs === 0 ? 0 : this.clamp(inheritedMs);
  }

  /** `ms` bounded to `[minMs, maxMs]`. */
  clamp(ms: number): number {
    return Math.min(this.maxMs, Math.max(this.minMs, ms));
  }

  /**
   * The deadline in milliseconds for a tool with `timeout`, or `undefined` for none:
   * `undefined`/`"inherit"` -> `inheritedMs` (`undefined` when it is 0); `"unbounded"` ->
   * `undefined`; `{ ms }` -> `clamp(ms) + graceMs`. A malformed `{ ms }` (negative, NaN,
   * infinite) throws a `validation` error.
   */
  resolve(timeout: ToolTimeout | undefined): number | undefined {
    if (timeout === undefined || timeout === "inherit")
      return this.inheritedMs === 0 ? undefined : this.inheritedMs;
    if (timeout === "unbounded") return undefined;
    if (typeof timeout.ms !== "number" || !Number.isFinite(timeout.ms) || timeout.ms < 0) {
      throw validationError(
        `invalid tool timeout { ms: ${String(timeout.ms)} }: ms must be a finite number >= 0; use "unbounded" for no timeout`,
        { field: "timeout" },
      );
    }
    return this.clamp(timeout.ms) + this.graceMs;
  }
}

function requireFinite(field: string, value: number): void {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw settingError(`${field} must be a finite number of milliseconds, got ${String(value)}`, field);
  }
}

function settingError(problem: string, field: string) {
  return validationError(`invalid ToolTimeoutSettings: ${problem}`, { field });
}
