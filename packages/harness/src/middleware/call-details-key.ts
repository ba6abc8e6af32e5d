import type { CallDetailsRecorder } from "../contracts/trace-details.js";

/**
 * The key under which a middleware carries its {@link CallDetailsRecorder} (internal): a
 * runtime symbol, so it lives here and not in contracts/, which holds only types. A registered
 * symbol (`Symbol.for`): a `traceDetailsMiddleware` of another copy of the package (an agent
 * built against one copy, run under another's loop) carries the same key, so its details are
 * still recorded.
 */
export const CALL_DETAILS: unique symbol = Symbol.for("tinyagents.callDetails");

/** A middleware that asks the loop to record call details. */
export interface CarriesCallDetails {
  [CALL_DETAILS]?: CallDetailsRecorder;
}
