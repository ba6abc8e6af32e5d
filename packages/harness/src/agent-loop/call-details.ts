import type { ModelRequest, ModelResponse } from "@tinyagents/inference";
import type { ToolResult } from "../contracts/tool-result.js";
import type {
  CallDetailsRecorder,
  ModelRequestDetails,
  ModelResponseDetails,
  ToolResultDetails,
} from "../contracts/trace-details.js";
import { CALL_DETAILS, type CarriesCallDetails } from "../middleware/call-details-key.js";
import type { MiddlewareStack } from "../middleware/middleware-stack.js";

/**
 * The recorder of the run's trace details (`traceDetailsMiddleware`), when one is registered.
 * Registered more than once (an app's and a library's), one recorder serves the run: the
 * innermost's, unless an outer one captures content and it does not (content if any asks).
 * Read once per run; a run without middleware reads nothing.
 */
export function callDetailsOf<State, Ctx>(
  stack: MiddlewareStack<State, Ctx>,
): CallDetailsRecorder | undefined {
  const list = stack.list;
  let chosen: CallDetailsRecorder | undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    const recorder = (list[i] as CarriesCallDetails)[CALL_DETAILS];
    if (recorder === undefined) continue;
    if (chosen === undefined || (recorder.capturesContent && !chosen.capturesContent)) chosen = recorder;
  }
  return chosen;
}

// A recorder that throws (a request it cannot hash or convert: a bigint or a cycle in a tool
// schema or a message) must never fail or retry the call it describes: the call's record goes
// out without `details`, and the provider or the tool meets the bad input on its own.

/** A request's details, or `undefined` when the recorder threw (see above). */
export function requestDetails(
  recorder: CallDetailsRecorder,
  request: ModelRequest,
): ModelRequestDetails | undefined {
  try {
    return recorder.request(request);
  } catch {
    return undefined;
  }
}

/** A response's details, or `undefined` when the recorder threw (see above). */
export function responseDetails(
  recorder: CallDetailsRecorder,
  response: ModelResponse,
): ModelResponseDetails | undefined {
  try {
    return recorder.response(response);
  } catch {
    return undefined;
  }
}

/** A tool result's details, or `undefined` when the recorder threw (see above). */
export function toolResultDetails(
  recorder: CallDetailsRecorder,
  result: ToolResult,
  description: string | undefined,
): ToolResultDetails | undefined {
  try {
    return recorder.toolResult(result, description);
  } catch {
    return undefined;
  }
}
