import type { JsonValue } from "@tinyagents/inference";
import type { RunContext } from "./run-context.js";

/** What a tool sees while it runs. */
export interface ToolExecutionContext<State = unknown, Ctx = unknown> {
  state: State;
  /** The live run context (config, data, stores, events, clock, ...). */
  run: RunContext<Ctx>;
  /** The tool call id (correlates with the assistant message and the result). */
  callId: string;
  /**
   * `runId:callId`: the same for every execution of this tool call — a retry, a resumed run, a
   * run recovered after a crash. Pass it to the systems the tool changes (a payment API's
   * idempotency key, a unique column) to dedupe side effects: tools are at-least-once unless
   * they declare `sideEffects: "once"` (see docs/durability.md). The harness sets it on every
   * call; it is optional only so contexts built by hand (unit tests of a tool) need not.
   */
  readonly idempotencyKey?: string;
  /** Aborts when the run is cancelled or this tool's timeout passes. Pass it on to I/O. */
  signal: AbortSignal;
  /** Report progress; becomes a `tool.progress` event and reaches `onToolDelta` middleware. */
  progress(message: string, data?: JsonValue): void;
}
