import { validationError } from "@tinyagents/inference";
import type { ToolTimeout } from "./tool.js";

/**
 * How per-tool timeouts turn into milliseconds, on the run's clock.
 *
 * - `inheritedMs`: the timeout of tools that say `"inherit"` (the default); `0` disables it.
 * - `minMs` / `maxMs`: the range explicit `{ ms }` timeouts (and the inherited one) must fall in.
 *   A value outside it is a `validation` error naming the bound, never silently raised or
 *   lowered: a tool that asks for 20 ms gets 20 ms or a clear error.
 * - `graceMs`: NOT added to the timeout. At the timeout the tool's `ctx.signal` aborts and the
 *   call is over for the model (an error result); a tool that ignores its signal is then waited
 *   for at most `graceMs` more (so it can clean up) before it is abandoned. The error message
 *   names both figures.
 *
 * Immutable. Constructor arguments are checked: all must be finite, `minMs >= 1`,
 * `maxMs >= minMs`, `inheritedMs` 0 or within `[minMs, maxMs]`, `graceMs >= 0`; otherwise a
 * `validation` error.
 */
export class ToolTimeoutSettings {
  /** The inherited timeout (`0` = disabled). */
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
    if (inheritedMs !== 0 && (inheritedMs < minMs || inheritedMs > maxMs)) {
      throw settingError(
        `inheritedMs must be 0 (no default timeout) or within [minMs, maxMs] = [${minMs}, ${maxMs}], got ${inheritedMs}`,
        "inheritedMs",
      );
    }
    if (graceMs < 0) throw settingError(`graceMs must be >= 0, got ${graceMs}`, "graceMs");
    this.minMs = minMs;
    this.maxMs = maxMs;
    this.graceMs = graceMs;
    this.inheritedMs = inheritedMs;
  }

  /**
   * The timeout in milliseconds for a tool with `timeout`, or `undefined` for none:
   * `undefined`/`"inherit"` -> `inheritedMs` (`undefined` when it is 0); `"unbounded"` ->
   * `undefined`; `{ ms }` -> `ms`. A malformed `{ ms }` (negative, NaN, infinite) or one outside
   * `[minMs, maxMs]` throws a `validation` error.
   */
  resolve(timeout: ToolTimeout | undefined): number | undefined {
    if (timeout === undefined || timeout === "inherit")
      return this.inheritedMs === 0 ? undefined : this.inheritedMs;
    if (timeout === "unbounded") return undefined;
    const ms = timeout.ms;
    if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) {
      throw validationError(
        `invalid tool timeout { ms: ${String(ms)} }: ms must be a finite number >= 0; use "unbounded" for no timeout`,
        { field: "timeout" },
      );
    }
    if (ms < this.minMs || ms > this.maxMs) {
      const bound =
        ms < this.minMs ? `below the minimum ${this.minMs} ms` : `above the maximum ${this.maxMs} ms`;
      throw validationError(
        `tool timeout { ms: ${ms} } is ${bound} (ToolTimeoutSettings minMs/maxMs); change the tool's timeout or pass ToolTimeoutSettings with a wider range`,
        { field: "timeout", value: ms, minMs: this.minMs, maxMs: this.maxMs },
      );
    }
    return ms;
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
