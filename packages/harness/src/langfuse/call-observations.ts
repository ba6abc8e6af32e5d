import type { ErrorSummary, JsonObject, JsonValue } from "@tinyagents/inference";
import type { AgentEventOf, EventRecord } from "../contracts/agent-event.js";
import {
  chatSpanName,
  errorType,
  GEN_AI,
  genAiProviderName,
  httpStatus,
  requestAttributes,
  serverAttributes,
  TINYAGENTS_ATTR,
  toolSpanName,
  usageAttributes,
} from "../otel/gen-ai-conventions.js";
import type { AttributeScalar, ObservationLevel, TraceObservation } from "./trace-model.js";

/** A run's open observations while its records are folded in. */
export interface OpenRun {
  obs: TraceObservation;
  parentRunId: string | undefined;
  /** Open generations (one per model call, across its attempts) by call id. */
  chats: Map<string, OpenChat>;
  /** Every generation and tool observation of the run by call id (for the details that follow them). */
  generations: Map<string, TraceObservation>;
  toolsByCall: Map<string, TraceObservation>;
  /** `model.request` events by call id, until the call's first attempt starts. */
  requests: Map<string, AgentEventOf<"model.request">>;
  /** Open tool observations by call id, newest started last. */
  tools: Map<string, TraceObservation>;
  children: Set<string>;
}

/** An open generation, the answer text streamed so far (content capture only), its last failure. */
export interface OpenChat {
  obs: TraceObservation;
  text: string;
  /** The last failed attempt; the call's outcome when no later attempt starts. */
  failure?: { error: ErrorSummary; ts: number };
}

/**
 * The first `model.started` of a call -> a `generation` observation under the run: one per model
 * call, whatever its retries and fallbacks (they become attempts inside it, see {@link nextAttempt}).
 * With a `model.request` before it: model parameters, and with content capture the prompt.
 */
export function chatObservation(
  run: OpenRun,
  record: EventRecord,
  event: AgentEventOf<"model.started">,
  capture: boolean,
): TraceObservation {
  const obs: TraceObservation = {
    key: `model:${record.runId}:${event.callId}`,
    kind: "generation",
    name: chatSpanName(event.providerModelId),
    runId: record.runId,
    parentKey: run.obs.key,
    startTs: record.ts,
    endTs: record.ts,
    level: "DEFAULT",
    model: event.providerModelId,
    attributes: {
      [GEN_AI.operationName]: "chat",
      [GEN_AI.providerName]: genAiProviderName(event.provider),
      [GEN_AI.requestModel]: event.providerModelId,
      [TINYAGENTS_ATTR.modelName]: event.model,
      [TINYAGENTS_ATTR.callId]: event.callId,
      [TINYAGENTS_ATTR.attempt]: event.attempt,
      ...serverAttributes(event.endpoint),
    },
    metadata: { runId: record.runId, callId: event.callId, attempts: event.attempt, modelName: event.model },
  };
  const request = run.requests.get(event.callId);
  if (request !== undefined) {
    run.requests.delete(event.callId);
    obs.modelParameters = modelParameters(request.parameters);
    Object.assign(obs.attributes, requestAttributes(request.parameters));
    if (capture) {
      obs.input = requestInput(request);
      if (request.toolDefinitions !== undefined) obs.metadata.tools = request.toolDefinitions;
    }
  }
  return obs;
}

/** A later attempt of an open call (a retry, or a fallback model): counted in the same generation. */
export function nextAttempt(chat: OpenChat, event: AgentEventOf<"model.started">): void {
  const { obs } = chat;
  delete chat.failure;
  obs.metadata.attempts = event.attempt;
  obs.attributes[TINYAGENTS_ATTR.attempt] = event.attempt;
  if (event.model !== obs.metadata.modelName) {
    // A fallback: the generation reports the model that answered (Langfuse prices on it).
    obs.metadata.modelName = event.model;
    obs.attributes[TINYAGENTS_ATTR.modelName] = event.model;
    obs.attributes[GEN_AI.requestModel] = event.providerModelId;
    obs.attributes[GEN_AI.providerName] = genAiProviderName(event.provider);
    obs.model = event.providerModelId;
    obs.name = chatSpanName(event.providerModelId);
  }
  Object.assign(obs.attributes, serverAttributes(event.endpoint));
}

/**
 * A generation's input: the system instructions as a system message, then the input messages
 * (GenAI convention shapes).
 */
export function requestInput(request: AgentEventOf<"model.request">): JsonValue {
  const messages: JsonValue[] = [];
  if (request.systemInstructions !== undefined && request.systemInstructions.length > 0) {
    messages.push({ role: "system", parts: request.systemInstructions });
  }
  messages.push(...(request.inputMessages ?? []));
  return messages;
}

/** Langfuse `modelParameters` (scalars and string lists; structured values as JSON text). */
export function modelParameters(parameters: JsonObject): Record<string, AttributeScalar> {
  const out: Record<string, AttributeScalar> = {};
  for (const [key, value] of Object.entries(parameters)) {
    const name = PARAMETER_NAMES[key] ?? key;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      out[name] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === "string")) out[name] = value;
    else if (value !== null) out[name] = JSON.stringify(value);
  }
  return out;
}

/** The request option names Langfuse users know from the provider APIs. */
const PARAMETER_NAMES: Readonly<Record<string, string>> = {
  topP: "top_p",
  maxTokens: "max_tokens",
  toolChoice: "tool_choice",
  parallelToolCalls: "parallel_tool_calls",
  responseFormat: "response_format",
};

/** `model.completed`: end time, response model, finish reason and billed usage. */
export function completeChatObservation(
  chat: OpenChat,
  record: EventRecord,
  event: AgentEventOf<"model.completed">,
  capture: boolean,
): void {
  const { obs } = chat;
  obs.endTs = record.ts;
  obs.attributes[GEN_AI.responseModel] = obs.model ?? "";
  if (event.finishReason !== undefined) {
    obs.attributes[GEN_AI.responseFinishReasons] = [event.finishReason];
    obs.metadata.finishReason = event.finishReason;
  }
  if (event.usage !== undefined) {
    if (event.servedFromCache) {
      // Not billed: keep Langfuse from pricing it (it infers cost from usage and model).
      obs.metadata.cachedResponseUsage = { ...event.usage } as unknown as JsonObject;
    } else {
      obs.usage = event.usage;
      Object.assign(obs.attributes, usageAttributes(event.usage));
    }
  }
  obs.metadata.servedFromCache = event.servedFromCache;
  if (obs.completionStartTs !== undefined) obs.modelParameters = { ...obs.modelParameters, stream: true };
  if (capture && chat.text !== "") obs.output = chat.text;
}

/** `model.response`: the provider's response id and (content capture) the output messages. */
export function respondChatObservation(
  obs: TraceObservation,
  event: AgentEventOf<"model.response">,
  capture: boolean,
): void {
  if (event.responseId !== undefined) {
    obs.metadata.responseId = event.responseId;
    obs.attributes[GEN_AI.responseId] = event.responseId;
  }
  if (capture && event.outputMessages !== undefined) obs.output = event.outputMessages;
}

/** `tool.result`: the tool's description and (content capture) its result. */
export function toolResultObservation(
  obs: TraceObservation,
  event: AgentEventOf<"tool.result">,
  capture: boolean,
): void {
  if (event.description !== undefined) {
    obs.metadata.description = event.description;
    obs.attributes[GEN_AI.toolDescription] = event.description;
  }
  if (capture && event.result !== undefined) obs.output = event.result;
}

/** `tool.started` -> a `tool` observation under the run (arguments only with content capture). */
export function toolObservation(
  run: OpenRun,
  record: EventRecord,
  event: AgentEventOf<"tool.started">,
  capture: boolean,
): TraceObservation {
  const obs: TraceObservation = {
    key: `tool:${record.runId}:${event.callId}`,
    kind: "tool",
    name: toolSpanName(event.toolName),
    runId: record.runId,
    parentKey: run.obs.key,
    startTs: record.ts,
    endTs: record.ts,
    level: "DEFAULT",
    attributes: {
      [GEN_AI.operationName]: "execute_tool",
      [GEN_AI.toolName]: event.toolName,
      [GEN_AI.toolCallId]: event.callId,
      [GEN_AI.toolType]: "function",
    },
    metadata: { runId: record.runId, callId: event.callId },
  };
  if (capture) obs.input = event.arguments;
  return obs;
}

/** `tool.completed` / `tool.failed`: end time, duration, error state. */
export function finishToolObservation(
  tool: TraceObservation,
  record: EventRecord,
  event: AgentEventOf<"tool.completed"> | AgentEventOf<"tool.failed">,
): void {
  tool.endTs = record.ts;
  tool.metadata.durationMs = event.durationMs;
  if (event.type === "tool.failed") {
    fail(tool, event.error);
    return;
  }
  tool.metadata.isError = event.isError;
  tool.metadata.outputBytes = event.outputBytes;
  if (event.isError) {
    tool.level = "ERROR";
    tool.statusMessage = "the tool returned an error result";
  }
}

/**
 * An `event` observation for `record` under `parent` (its fields as metadata; tool progress
 * text only with content capture).
 */
export function eventObservation(
  parent: TraceObservation,
  record: EventRecord,
  level: ObservationLevel,
  capture: boolean,
): TraceObservation {
  const { type, ...fields } = record.event;
  const metadata: JsonObject = { runId: record.runId, eventId: record.id, offset: record.offset };
  for (const [key, value] of Object.entries(fields as Record<string, JsonValue | undefined>)) {
    if (value === undefined) continue;
    if (!capture && type === "tool.progress" && (key === "message" || key === "data")) continue;
    metadata[key] = value;
  }
  const error =
    "error" in fields && typeof fields.error === "object" ? (fields.error as ErrorSummary) : undefined;
  return {
    key: `event:${record.id}`,
    kind: "event",
    name: type,
    runId: record.runId,
    parentKey: parent.key,
    startTs: record.ts,
    endTs: record.ts,
    level,
    ...(error === undefined ? {} : { statusMessage: error.message }),
    attributes: error === undefined ? {} : { [GEN_AI.errorType]: errorType(error) },
    metadata,
  };
}

/** Level ERROR, the error's message as status, `error.type`, and the summary in metadata. */
export function fail(obs: TraceObservation, error: ErrorSummary): void {
  obs.level = "ERROR";
  obs.statusMessage = error.message;
  obs.attributes[GEN_AI.errorType] = errorType(error);
  const status = httpStatus(error);
  if (status !== undefined) obs.attributes[GEN_AI.httpResponseStatusCode] = status;
  obs.metadata.error = { ...error };
}

/** Close an observation its run (or the exported records) outlived. */
export function closeIncomplete(obs: TraceObservation, ts: number, failure: ErrorSummary | undefined): void {
  obs.endTs = ts;
  obs.metadata.incomplete = true;
  if (failure !== undefined) {
    fail(obs, failure);
    obs.statusMessage = `ended by the run's failure: ${failure.message}`;
  } else if (obs.level !== "ERROR") {
    obs.level = "WARNING";
    obs.statusMessage = "the exported records end before this observation finished";
  }
}
