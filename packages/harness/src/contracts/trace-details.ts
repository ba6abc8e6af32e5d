import type { JsonObject, JsonValue, ModelRequest, ModelResponse } from "@tinyagents/inference";
import type { ToolResult } from "./tool-result.js";

// The details `traceDetailsMiddleware` records for exporters and the inspector, carried by the
// records a call writes anyway (`model.started`, `model.completed`, `tool.completed` /
// `tool.failed`) instead of three records of their own. Content fields are set only with content
// capture; messages follow the OpenTelemetry GenAI conventions. Redacted like every event.

/** A model call's request, on its first attempt's `model.started` (`details`). */
export type ModelRequestDetails = {
  /** Request options: temperature, maxTokens, topP, seed, stop, toolChoice, parallelToolCalls, ... */
  parameters: JsonObject;
  /**
   * The stable-prefix fingerprint: SHA-256 of the tool declarations and the messages before the
   * first history segment (what a provider's prompt cache keys on). Equal on two calls: the
   * cacheable prefix was preserved; different: it was busted.
   */
  stablePrefix?: string;
  /** `gen_ai.system_instructions` parts (content capture only). */
  systemInstructions?: JsonValue[];
  /** `gen_ai.input.messages` (content capture only). */
  inputMessages?: JsonValue[];
  /** `gen_ai.tool.definitions` (content capture only). */
  toolDefinitions?: JsonValue[];
  /**
   * The request's full response format, schema included (content capture only; `parameters`
   * carries only its type). Replay (`exportRunAsTest`) compares it call by call.
   */
  responseFormat?: JsonValue;
};

/** A model call's answer, on `model.completed` (`details`; the finish reason is the event's own). */
export type ModelResponseDetails = {
  /** The provider's response id, when it returned one. */
  responseId?: string;
  /** `gen_ai.output.messages` (content capture only). */
  outputMessages?: JsonValue[];
};

/**
 * A tool call's result, on `tool.completed`, or on `tool.failed` when the failure became an error
 * result the model sees (`details`; the error flag is `tool.completed`'s own).
 */
export type ToolResultDetails = {
  /** The tool's description, when it has one. */
  description?: string;
  /** `gen_ai.tool.call.result`: the result's content (content capture only). */
  result?: JsonValue;
};

/**
 * Builds the details above from what the loop has at hand (the request it dispatches, the
 * response it got, the result it returns). `traceDetailsMiddleware` carries one under
 * `CALL_DETAILS` (middleware/call-details-key.ts); the loop looks for it once per run and fills the records' `details`.
 * A method that throws costs the record its `details`, never the call (agent-loop/call-details.ts).
 */
export interface CallDetailsRecorder {
  /** Whether the details include content (prompts, answers, tool results). */
  readonly capturesContent: boolean;
  request(request: ModelRequest): ModelRequestDetails;
  response(response: ModelResponse): ModelResponseDetails;
  toolResult(result: ToolResult, description: string | undefined): ToolResultDetails;
}
