import type { ErrorCode } from "./error-code.js";
import { TinyAgentsError } from "./tinyagents-error.js";

/**
 * Turn anything thrown into a {@link TinyAgentsError}, at a public boundary:
 * - a `TinyAgentsError` (from any copy of the package) is returned as is;
 * - an error named `AbortError` -> `cancelled`, named `TimeoutError` -> `timeout` (this covers
 *   `DOMException`s from `AbortSignal.abort()` / `AbortSignal.timeout()`), original as `cause`;
 * - any other `Error` -> `fallbackCode` with the same message and the error as `cause`;
 * - anything else -> `fallbackCode` with `String(value)` (or its `message` property) as message.
 */
export function toTinyAgentsError(value: unknown, fallbackCode: ErrorCode = "internal"): TinyAgentsError {
  if (TinyAgentsError.isInstance(value)) return value;
  const name = errorName(value);
  if (name === "AbortError") {
    return new TinyAgentsError("cancelled", messageOf(value, "The operation was cancelled"), {
      cause: value,
    });
  }
  if (name === "TimeoutError") {
    return new TinyAgentsError("timeout", messageOf(value, "The operation timed out"), { cause: value });
  }
  return new TinyAgentsError(fallbackCode, messageOf(value, "Unknown error"), { cause: value });
}

/**
 * The error to throw when `signal` has aborted: its reason when that is already a
 * `TinyAgentsError`, `timeout` for a `TimeoutError` reason, otherwise `cancelled`.
 * `what` names the operation in the message ("MockModel call was cancelled").
 */
export function abortedError(signal: AbortSignal, what = "operation"): TinyAgentsError {
  const reason: unknown = signal.reason;
  if (TinyAgentsError.isInstance(reason)) return reason;
  if (errorName(reason) === "TimeoutError") {
    return new TinyAgentsError("timeout", `${what} timed out`, { cause: reason });
  }
  return new TinyAgentsError("cancelled", `${what} was cancelled`, { cause: reason });
}

function errorName(value: unknown): unknown {
  return typeof value === "object" && value !== null ? (value as { name?: unknown }).name : undefined;
}

function messageOf(value: unknown, fallback: string): string {
  if (value instanceof Error) return value.message === "" ? fallback : value.message;
  if (typeof value === "object" && value !== null) {
    const message = (value as { message?: unknown }).message;
    if (typeof message === "string" && message !== "") return message;
  }
  if (value === undefined) return fallback;
  try {
    return String(value);
  } catch {
    return fallback;
  }
}
