/** What a call throws or a promise rejects with, for tests that inspect the error itself. */
import { type ErrorCode, TinyAgentsError } from "@tinyagents/inference";

/**
 * The {@link TinyAgentsError} `fn` throws (of `code` when given). Rethrows anything else and
 * fails when `fn` returns normally, so a test never inspects `undefined` by mistake.
 */
export function thrownError(fn: () => unknown, code?: ErrorCode): TinyAgentsError {
  try {
    fn();
  } catch (error) {
    if (TinyAgentsError.isInstance(error, code)) return error;
    throw error;
  }
  throw new Error(
    `expected a TinyAgentsError${code === undefined ? "" : ` (${code})`}, but nothing was thrown`,
  );
}

/** Whatever `fn` throws (`undefined` when it returns normally). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/**
 * The {@link TinyAgentsError} `promise` rejects with. Rethrows any other rejection and fails when
 * it resolves.
 */
export async function rejection(promise: Promise<unknown>): Promise<TinyAgentsError> {
  try {
    await promise;
  } catch (error) {
    if (TinyAgentsError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection with a TinyAgentsError, but the promise resolved");
}
