import type { JsonValue } from "@tinyagents/inference";
import type { RunContext } from "../context/run-context.js";

/** What a tool sees while it runs. */
export interface ToolExecutionContext<State = unknown, Ctx = unknown> {
  state: State;
  /** The live run context (config, data, stores, events, clock, ...). */
  run: RunContext<Ctx>;
  /** The tool call id (correlates with the assistant message and the result). */
  callId: string;
  /** Aborts when the run is cancelled or this tool's timeout passes. Pass it on to I/O. */
  signal: AbortSignal;
  /** Report progress; becomes a `tool.progress` event and reaches `onToolDelta` middleware. */
  progress(message: string, data?: JsonValue): void;
}
