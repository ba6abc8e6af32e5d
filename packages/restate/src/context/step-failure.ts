import { CancelledError, TerminalError, TimeoutError } from "@restatedev/restate-sdk";
import {
  type ErrorCode,
  isErrorCode,
  isJsonObject,
  type JsonObject,
  TinyAgentsError,
} from "@tinyagents/inference";

/**
 * How a failed step is recorded in Restate's journal, and how a recorded failure comes back.
 *
 * Terminal (journaled at once, never retried by Restate): every `TinyAgentsError` except the codes
 * in {@link RETRYABLE_STEP_CODES}. The harness already applied its own policy inside the step —
 * a model step holds the call's retries and fallbacks, a tool step the tool's error policy — so a
 * failure that escapes it is a decision (a provider that stayed down, a limit, a validation
 * error), and retrying it would only loop: the run must fail, with the same error on every replay.
 *
 * Retryable (Restate retries the step with backoff, bounded by `maxAttempts`, then records it as
 * terminal): `storage` failures (a store write inside the step that may succeed on the next try)
 * and errors that are not `TinyAgentsError`s at all (an exception the harness did not classify:
 * a dropped connection, a worker-side fault).
 */
export const RETRYABLE_STEP_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["storage"]);

const CODE_KEY = "tinyagents.code";
const DETAILS_KEY = "tinyagents.details";
/** Marks a retryable failure's message so the terminal error Restate builds after the last attempt keeps the code. */
const CODE_TAG = /\[tinyagents:([a-z_]+)\]/;

/** Whether Restate should retry a step that threw `error` (see {@link RETRYABLE_STEP_CODES}). */
export function isRetryableStepError(error: unknown): boolean {
  if (error instanceof TerminalError) return false;
  if (!TinyAgentsError.isInstance(error)) return true;
  return RETRYABLE_STEP_CODES.has(error.code);
}

/**
 * The error a step's closure throws to Restate for `error`: a `TerminalError` carrying the code
 * and details as metadata (journaled, replayed as is), or a plain `Error` Restate retries whose
 * message is tagged with the code.
 */
export function toRestateFailure(error: unknown, step: string): Error {
  if (error instanceof TerminalError) return error;
  const code: ErrorCode = TinyAgentsError.isInstance(error) ? error.code : "internal";
  const message = error instanceof Error ? error.message : String(error);
  if (isRetryableStepError(error)) {
    return new Error(`[tinyagents:${code}] step "${step}" failed: ${message}`, { cause: error });
  }
  const metadata: Record<string, string> = { [CODE_KEY]: code };
  const details = TinyAgentsError.isInstance(error) ? error.details : undefined;
  if (details !== undefined) metadata[DETAILS_KEY] = JSON.stringify(details);
  return new TerminalError(message, { errorCode: 500, metadata });
}

/**
 * The `TinyAgentsError` a failed step (or a failed durable call) surfaces to the run loop, from
 * what Restate rejected it with: the recorded code and details when this package journaled them,
 * `cancelled` for a cancelled invocation, `timeout` for a timed-out wait, the code tagged on a
 * retryable failure whose attempts ran out, else `internal`.
 */
export function fromRestateFailure(error: unknown, step: string): TinyAgentsError {
  if (TinyAgentsError.isInstance(error)) return error;
  if (error instanceof CancelledError) {
    return new TinyAgentsError("cancelled", `step "${step}": the Restate invocation was cancelled`, {
      cause: error,
      details: { step },
    });
  }
  if (error instanceof TimeoutError) {
    return new TinyAgentsError("timeout", `step "${step}" timed out in Restate`, {
      cause: error,
      details: { step },
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  const metadata = error instanceof TerminalError ? error.metadata : undefined;
  const recorded = metadata?.[CODE_KEY];
  const tagged = CODE_TAG.exec(message)?.[1];
  const code: ErrorCode = isErrorCode(recorded) ? recorded : isErrorCode(tagged) ? tagged : "internal";
  const details = parseDetails(metadata?.[DETAILS_KEY]) ?? { step };
  return new TinyAgentsError(code, message, { cause: error, details });
}

function parseDetails(text: string | undefined): JsonObject | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
