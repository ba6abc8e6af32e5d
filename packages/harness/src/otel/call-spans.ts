import { type Attributes, type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { AgentEventOf, EventRecord, ModelDeltaEvent } from "../contracts/agent-event.js";
import {
  chatSpanName,
  GEN_AI,
  genAiProviderName,
  outputMessagesJson,
  requestAttributes,
  serverAttributes,
  TINYAGENTS_ATTR,
  toolSpanName,
  usageAttributes,
} from "./gen-ai-conventions.js";
import { type ChatSpanState, endIncomplete, markFailed, type SpanBook } from "./span-state.js";

// Span handlers for model-call attempts (`chat {model}`) and tool calls (`execute_tool {name}`).
// Each one ignores records of runs the book does not hold (never seen starting, or ended).

/** `model.started`: open a CLIENT `chat {providerModelId}` span under the run span. */
export function startChat(book: SpanBook, record: EventRecord, event: AgentEventOf<"model.started">): void {
  const run = book.runs.get(record.runId);
  if (run === undefined) return;
  const previous = run.chats.get(event.callId);
  if (previous !== undefined) endIncomplete(previous.span, record.ts, undefined);
  const provider = (book.options.providerName ?? genAiProviderName)(event.provider);
  const legacy = book.options.legacySystemAttribute === true;
  const attributes: Attributes = {
    [GEN_AI.operationName]: "chat",
    [GEN_AI.providerName]: provider,
    [GEN_AI.requestModel]: event.providerModelId,
    [TINYAGENTS_ATTR.modelName]: event.model,
    [TINYAGENTS_ATTR.callId]: event.callId,
    [TINYAGENTS_ATTR.attempt]: event.attempt,
  };
  if (legacy) attributes[GEN_AI.legacySystem] = provider;
  Object.assign(attributes, serverAttributes(event.endpoint), run.requests.get(event.callId));
  const span = book.tracer.startSpan(
    chatSpanName(event.providerModelId),
    { kind: SpanKind.CLIENT, startTime: record.ts, attributes },
    run.context,
  );
  run.chats.set(event.callId, {
    span,
    providerModelId: event.providerModelId,
    startedAt: record.ts,
    firstChunkAt: undefined,
    text: "",
  });
  if (!run.providerSet) {
    // `gen_ai.provider.name` is required on the agent span too; the first call tells us.
    run.providerSet = true;
    run.span.setAttributes({ [GEN_AI.providerName]: provider, [GEN_AI.requestModel]: event.providerModelId });
    if (legacy) run.span.setAttribute(GEN_AI.legacySystem, provider);
  }
}

/**
 * `model.request` (trace details, before the call's first attempt: on its `model.started` in
 * current journals, a record of its own in earlier ones): request parameters and, with content
 * capture, the prompt — kept for every attempt's chat span.
 */
export function chatRequest(book: SpanBook, record: EventRecord, event: AgentEventOf<"model.request">): void {
  const run = book.runs.get(record.runId);
  if (run === undefined) return;
  run.detailed = true;
  const attributes: Attributes = requestAttributes(event.parameters);
  if (book.options.captureContent === true) {
    if (event.systemInstructions !== undefined) {
      attributes[GEN_AI.systemInstructions] = JSON.stringify(event.systemInstructions);
    }
    if (event.inputMessages !== undefined)
      attributes[GEN_AI.inputMessages] = JSON.stringify(event.inputMessages);
    if (event.toolDefinitions !== undefined) {
      attributes[GEN_AI.toolDefinitions] = JSON.stringify(event.toolDefinitions);
    }
  }
  run.requests.set(event.callId, attributes);
}

/** `model.response`: response id and (content capture) output messages; end the settled chat span. */
export function chatResponse(
  book: SpanBook,
  record: EventRecord,
  event: AgentEventOf<"model.response">,
): void {
  const run = book.runs.get(record.runId);
  if (run === undefined) return;
  run.requests.delete(event.callId);
  const settling = run.settlingChats.get(event.callId);
  if (settling === undefined) return;
  run.settlingChats.delete(event.callId);
  if (event.responseId !== undefined) settling.span.setAttribute(GEN_AI.responseId, event.responseId);
  if (book.options.captureContent === true && event.outputMessages !== undefined) {
    settling.span.setAttribute(GEN_AI.outputMessages, JSON.stringify(event.outputMessages));
  }
  settling.span.end(settling.endTs);
}

/** `model.*_delta`: time to first chunk (once), streamed text when capturing content. */
export function chatChunk(book: SpanBook, record: EventRecord, event: ModelDeltaEvent): void {
  const chat = book.runs.get(record.runId)?.chats.get(event.callId);
  if (chat === undefined) return;
  if (chat.firstChunkAt === undefined) {
    chat.firstChunkAt = record.ts;
    chat.span.setAttributes({
      [GEN_AI.requestStream]: true,
      [GEN_AI.responseTimeToFirstChunk]: (record.ts - chat.startedAt) / 1000,
    });
  }
  if (book.options.captureContent === true && event.type === "model.text_delta") chat.text += event.text;
}

/**
 * `cost.recorded`: the harness-computed cost of the attempt, in USD (an "essential" journal has
 * none: the attempt's `model.completed` / `model.failed` sets the same attribute from its `cost`).
 */
export function chatCost(book: SpanBook, record: EventRecord, event: AgentEventOf<"cost.recorded">): void {
  const chat = book.runs.get(record.runId)?.chats.get(event.callId);
  chat?.span.setAttribute(TINYAGENTS_ATTR.costTotalUsd, event.cost.total);
}

/** `model.completed`: response model, usage, finish reason; end the span. */
export function completeChat(
  book: SpanBook,
  record: EventRecord,
  event: AgentEventOf<"model.completed">,
): void {
  const chat = takeChat(book, record.runId, event.callId);
  if (chat === undefined) return;
  const attributes: Attributes = {
    [GEN_AI.responseModel]: chat.providerModelId,
    [TINYAGENTS_ATTR.servedFromCache]: event.servedFromCache,
  };
  if (event.usage !== undefined) Object.assign(attributes, usageAttributes(event.usage));
  if (event.cost !== undefined) attributes[TINYAGENTS_ATTR.costTotalUsd] = event.cost.total;
  if (event.finishReason !== undefined) attributes[GEN_AI.responseFinishReasons] = [event.finishReason];
  const run = book.runs.get(record.runId);
  if (run?.requests.has(event.callId) === true) {
    // `model.response` follows with the response id and output: end the span then.
    chat.span.setAttributes(attributes);
    run.settlingChats.set(event.callId, { span: chat.span, endTs: record.ts });
    return;
  }
  if (book.options.captureContent === true && chat.text !== "") {
    attributes[GEN_AI.outputMessages] = outputMessagesJson(chat.text, event.finishReason);
  }
  chat.span.setAttributes(attributes);
  chat.span.end(record.ts);
}

/** `model.failed`: status ERROR with `error.type`; end the span. */
export function failChat(book: SpanBook, record: EventRecord, event: AgentEventOf<"model.failed">): void {
  const chat = takeChat(book, record.runId, event.callId);
  if (chat === undefined) return;
  if (event.cost !== undefined) chat.span.setAttribute(TINYAGENTS_ATTR.costTotalUsd, event.cost.total);
  markFailed(chat.span, event.error, record.ts);
  chat.span.end(record.ts);
}

/** `tool.started`: open an INTERNAL `execute_tool {name}` span under the run span. */
export function startTool(book: SpanBook, record: EventRecord, event: AgentEventOf<"tool.started">): void {
  const run = book.runs.get(record.runId);
  if (run === undefined) return;
  const previous = run.tools.get(event.callId);
  if (previous !== undefined) endIncomplete(previous, record.ts, undefined);
  const attributes: Attributes = {
    [GEN_AI.operationName]: "execute_tool",
    [GEN_AI.toolName]: event.toolName,
    [GEN_AI.toolCallId]: event.callId,
    [GEN_AI.toolType]: "function",
  };
  if (book.options.captureContent === true) {
    attributes[GEN_AI.toolCallArguments] = JSON.stringify(event.arguments);
  }
  const span = book.tracer.startSpan(
    toolSpanName(event.toolName),
    { kind: SpanKind.INTERNAL, startTime: record.ts, attributes },
    run.context,
  );
  // Re-insert so the map's order stays "newest started last" (see `spawningSpan`).
  run.tools.delete(event.callId);
  run.tools.set(event.callId, span);
}

/** `tool.progress`: a span event (the message only when capturing content). */
export function toolProgress(
  book: SpanBook,
  record: EventRecord,
  event: AgentEventOf<"tool.progress">,
): void {
  const span = book.runs.get(record.runId)?.tools.get(event.callId);
  const attributes = book.options.captureContent === true ? { message: event.message } : {};
  span?.addEvent("tool.progress", attributes, record.ts);
}

/** `tool.completed`: an error result sets status ERROR (`error.type` = `tool_error`); end the span. */
export function completeTool(
  book: SpanBook,
  record: EventRecord,
  event: AgentEventOf<"tool.completed">,
): void {
  const span = takeTool(book, record.runId, event.callId);
  if (span === undefined) return;
  span.setAttributes({
    [TINYAGENTS_ATTR.toolIsError]: event.isError,
    [TINYAGENTS_ATTR.toolOutputBytes]: event.outputBytes,
  });
  if (event.isError) {
    span.setAttribute(GEN_AI.errorType, "tool_error");
    span.setStatus({ code: SpanStatusCode.ERROR, message: "the tool returned an error result" });
  }
  const run = book.runs.get(record.runId);
  if (run?.detailed === true) {
    // `tool.result` follows (from `traceDetailsMiddleware`): end the span then.
    run.settlingTools.set(event.callId, { span, endTs: record.ts });
    return;
  }
  span.end(record.ts);
}

/** `tool.result`: the tool's description and (content capture) its result; end the settled span. */
export function toolResult(book: SpanBook, record: EventRecord, event: AgentEventOf<"tool.result">): void {
  const run = book.runs.get(record.runId);
  const settling = run?.settlingTools.get(event.callId);
  if (run === undefined || settling === undefined) return;
  run.settlingTools.delete(event.callId);
  if (event.description !== undefined) settling.span.setAttribute(GEN_AI.toolDescription, event.description);
  if (book.options.captureContent === true && event.result !== undefined) {
    settling.span.setAttribute(
      GEN_AI.toolCallResult,
      typeof event.result === "string" ? event.result : JSON.stringify(event.result),
    );
  }
  settling.span.end(settling.endTs);
}

/** `tool.failed`: status ERROR with `error.type`; end the span. */
export function failTool(book: SpanBook, record: EventRecord, event: AgentEventOf<"tool.failed">): void {
  const span = takeTool(book, record.runId, event.callId);
  if (span === undefined) return;
  markFailed(span, event.error, record.ts);
  span.end(record.ts);
}

function takeChat(book: SpanBook, runId: string, callId: string): ChatSpanState | undefined {
  const chats = book.runs.get(runId)?.chats;
  const chat = chats?.get(callId);
  if (chat !== undefined) chats?.delete(callId);
  return chat;
}

function takeTool(book: SpanBook, runId: string, callId: string): Span | undefined {
  const tools = book.runs.get(runId)?.tools;
  const span = tools?.get(callId);
  if (span !== undefined) tools?.delete(callId);
  return span;
}
