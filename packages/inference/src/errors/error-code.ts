/**
 * The closed set of error codes. Every error the library raises carries exactly one of these,
 * so callers can `switch` on `error.code` exhaustively.
 */
export const ERROR_CODES = [
  /** A fail-closed run limit (model calls, tool calls, retries, budget) was reached. */
  "limit_exceeded",
  /** A deadline passed (run wall clock, model call or tool timeout). */
  "timeout",
  /** The run was cancelled through its abort signal. */
  "cancelled",
  /** The model called a tool that is not registered. */
  "tool_not_found",
  /** A tool failed and its error policy says to fail the run. */
  "tool",
  /** Input was malformed: a message, request, schema, tool name or argument. */
  "validation",
  /** A model provider failed (HTTP error, bad stream, network). */
  "provider",
  /** The prompt does not fit the model's context window. */
  "context_overflow",
  /** The model's final answer did not match the requested structured output. */
  "structured_output",
  /** A sub-agent would exceed the maximum nesting depth. */
  "sub_agent_depth",
  /** A steering command was rejected or failed. */
  "steering",
  /** A middleware hook failed. */
  "middleware",
  /** A guardrail check tripped: the input or output was blocked by policy (details say which check and why). */
  "guardrail",
  /** A model name is not registered, or no registered model satisfies the request. */
  "model_not_found",
  /** The model returned nothing usable where an answer was required. */
  "empty_response",
  /** A store, journal or file write or read failed. */
  "storage",
  /** A model lacks a capability the request needs. */
  "capability",
  /** The run was paused/interrupted at a checkpoint. */
  "interrupted",
  /** A value could not be serialized or deserialized. */
  "serialization",
  /**
   * Someone else holds what this call needed: a paused run or checkpoint already claimed by
   * another resumer, or a second writer of one run tree's journal stream (details name the run).
   */
  "conflict",
  /** The run's owner stopped heartbeating (its process died): `reapStale` marked it failed. */
  "abandoned",
  /** What the call named does not exist: an unknown agent, run or pending approval (details say which). */
  "not_found",
  /**
   * The engine that must do the work cannot be reached within the call's time bound (every
   * worker down, the server unreachable); nothing was changed. Retry later.
   */
  "unavailable",
  /** A bug: something the library did not expect. Please report it. */
  "internal",
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** True when `value` is one of the closed error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}
