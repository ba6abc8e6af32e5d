import { validationError } from "@tinyagents/inference";
import { checkOptionalSetting } from "./check-setting.js";
import type { RunLimits } from "./run-limits.js";

const COUNT = { min: 0, integer: true } as const;

/**
 * Check a partial `RunLimits` (fields that are present): call and retry caps are integers >= 0,
 * `maxConcurrency` an integer >= 1, `maxWallClockMs` a finite number >= 0, `onCap` one of its two
 * values. Throws a `validation` error naming `where` and `limits.<field>`.
 */
export function validateRunLimits(where: string, limits: unknown): void {
  if (limits === undefined) return;
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
    throw validationError(`${where}: \`limits\` must be an object of RunLimits fields`, { field: "limits" });
  }
  const l = limits as Partial<Record<keyof RunLimits, unknown>>;
  checkOptionalSetting(where, "limits.maxModelCalls", l.maxModelCalls, COUNT);
  checkOptionalSetting(where, "limits.maxToolCalls", l.maxToolCalls, COUNT);
  checkOptionalSetting(where, "limits.maxRetriesPerCall", l.maxRetriesPerCall, COUNT);
  checkOptionalSetting(where, "limits.maxConcurrency", l.maxConcurrency, { min: 1, integer: true });
  checkOptionalSetting(where, "limits.maxDepth", l.maxDepth, COUNT);
  checkOptionalSetting(where, "limits.maxWallClockMs", l.maxWallClockMs, { min: 0 });
  if (l.onCap !== undefined && l.onCap !== "fail" && l.onCap !== "stopWithPartial") {
    throw validationError(
      `${where}: \`limits.onCap\` must be "fail" or "stopWithPartial", got ${String(l.onCap)}`,
      {
        field: "limits.onCap",
      },
    );
  }
}
