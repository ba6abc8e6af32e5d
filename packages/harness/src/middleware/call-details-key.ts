import type { CallDetailsRecorder } from "../contracts/trace-details.js";

/**
 * The key under which a middleware carries its {@link CallDetailsRecorder} (internal): a
 * runtime symbol, so it lives here and not in contracts/, which holds only types.
 */
export const CALL_DETAILS: unique symbol = Symbol("tinyagents.callDetails");

/** A middleware that asks the loop to record call details. */
export interface CarriesCallDetails {
  [CALL_DETAILS]?: CallDetailsRecorder;
}
