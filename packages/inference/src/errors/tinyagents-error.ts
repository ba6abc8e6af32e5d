import type { JsonObject } from "../json/json-value.js";
import type { ErrorCode } from "./error-code.js";

/** Brand shared by every copy of this package, so `isInstance` works across duplicate installs. */
const BRAND = Symbol.for("tinyagents.error");

/** Options accepted by every error constructor. */
export interface TinyAgentsErrorOptions {
  /** The underlying error, kept for debugging. */
  cause?: unknown;
  /** Structured, JSON-safe facts about the failure (limit name and value, field path, ...). */
  details?: JsonObject;
}

/**
 * The one base error of tinyagents. `code` is closed ({@link ErrorCode}); `details` carries
 * machine-readable facts; `message` says what went wrong and what to do about it.
 *
 * Use `TinyAgentsError.isInstance(e)` rather than `instanceof`: it also recognises errors
 * created by another copy of the package.
 */
export class TinyAgentsError extends Error {
  readonly code: ErrorCode;
  readonly details: JsonObject | undefined;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: TinyAgentsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TinyAgentsError";
    this.code = code;
    this.details = options.details;
  }

  /** True for any tinyagents error, from any copy of the package. Optionally narrows by code. */
  static isInstance(value: unknown, code?: ErrorCode): value is TinyAgentsError {
    if (typeof value !== "object" || value === null || (value as Record<symbol, unknown>)[BRAND] !== true) {
      return false;
    }
    return code === undefined || (value as TinyAgentsError).code === code;
  }

  /** A compact JSON-safe summary (for events, status records, journals). Never includes `cause`. */
  toJSON(): ErrorSummary {
    const summary: ErrorSummary = { name: this.name, code: this.code, message: this.message };
    if (this.details !== undefined) summary.details = this.details;
    return summary;
  }
}

/** The JSON shape of an error in events, status records and journals. */
export interface ErrorSummary {
  name: string;
  code: ErrorCode;
  message: string;
  details?: JsonObject;
}

/** Shorthand for a `validation` error. */
export function validationError(message: string, details?: JsonObject): TinyAgentsError {
  return new TinyAgentsError("validation", message, details === undefined ? {} : { details });
}
