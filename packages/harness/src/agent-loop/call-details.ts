import type { CallDetailsRecorder } from "../contracts/trace-details.js";
import { CALL_DETAILS, type CarriesCallDetails } from "../middleware/call-details-key.js";
import type { MiddlewareStack } from "../middleware/middleware-stack.js";

/**
 * The recorder of the run's trace details (`traceDetailsMiddleware`), when one is registered:
 * the innermost such middleware's. Read once per run; a run without middleware reads nothing.
 */
export function callDetailsOf<State, Ctx>(
  stack: MiddlewareStack<State, Ctx>,
): CallDetailsRecorder | undefined {
  const list = stack.list;
  for (let i = list.length - 1; i >= 0; i--) {
    const recorder = (list[i] as CarriesCallDetails)[CALL_DETAILS];
    if (recorder !== undefined) return recorder;
  }
  return undefined;
}
