import { isJsonObject, type JsonObject, type JsonValue, TinyAgentsError } from "@tinyagents/inference";

/**
 * Reads the per-run state a library middleware saved at a pause (`saveState`), as handed back to
 * its `restoreState`. Each accessor checks the shape and throws `validation` naming the middleware
 * and the field when the value is not one the middleware writes (a hand-edited record, or one
 * saved by an incompatible version): guessing could silently lift a cap.
 */
export class SavedState {
  private readonly middleware: string;
  private readonly value: JsonObject;
  /** Where this object sits in the saved state (`""` at the top, else `"usage."`, ...). */
  private readonly at: string;

  constructor(middleware: string, saved: JsonValue, at = "") {
    this.middleware = middleware;
    this.at = at;
    if (!isJsonObject(saved)) throw savedStateError(middleware, at.slice(0, -1), "must be an object");
    this.value = saved;
  }

  /** The object at `key`, read the same way. */
  nested(key: string): SavedState {
    return new SavedState(this.middleware, this.value[key] ?? null, `${this.at}${key}.`);
  }

  /** A non-negative integer at `key`. */
  count(key: string): number {
    const n = this.value[key];
    if (!isCount(n)) throw savedStateError(this.middleware, this.at + key, "must be a non-negative integer");
    return n;
  }

  /** A non-negative finite number at `key`. */
  amount(key: string): number {
    const n = this.value[key];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
      throw savedStateError(this.middleware, this.at + key, "must be a non-negative number");
    }
    return n;
  }

  /** A string at `key`, or `undefined` when the key is absent. */
  optionalString(key: string): string | undefined {
    const s = this.value[key];
    if (s === undefined) return undefined;
    if (typeof s !== "string") throw savedStateError(this.middleware, this.at + key, "must be a string");
    return s;
  }

  /** An array of strings at `key`. */
  strings(key: string): string[] {
    const list = this.value[key];
    if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) {
      throw savedStateError(this.middleware, this.at + key, "must be an array of strings");
    }
    return list as string[];
  }

  /** An array of `[string, ...]` tuples at `key`, checked by `check` (true = well formed). */
  tuples<T extends JsonValue[]>(key: string, check: (entry: JsonValue[]) => entry is T): T[] {
    const list = this.value[key];
    if (!Array.isArray(list) || list.some((entry) => !Array.isArray(entry) || !check(entry))) {
      throw savedStateError(
        this.middleware,
        this.at + key,
        "must be an array of entries this middleware wrote",
      );
    }
    return list as T[];
  }
}

/** True for a non-negative integer. */
export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function savedStateError(middleware: string, key: string, problem: string): TinyAgentsError {
  const where = `PausedRun.middlewareState.${middleware}${key === "" ? "" : `.${key}`}`;
  return new TinyAgentsError(
    "validation",
    `${middleware}: cannot restore its saved run state: ${where} ${problem}; resume with the middleware ` +
      "version that paused the run, or remove the entry to let it start afresh",
    { details: { middleware, field: where } },
  );
}
