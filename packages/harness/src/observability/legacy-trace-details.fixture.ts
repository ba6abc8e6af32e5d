import type { ModelRequest, ModelResponse } from "@tinyagents/inference";
import type { AgentEventOf } from "../contracts/agent-event.js";
import type { Middleware } from "../middleware/middleware.js";
import {
  genAiAssistantMessage,
  genAiInputMessages,
  genAiSystemInstructions,
  genAiToolDefinitions,
  genAiToolResult,
} from "./gen-ai-messages.js";
import { requestParameters, responseId, StablePrefixMemo } from "./trace-details-middleware.js";

// `traceDetailsMiddleware` as earlier versions shipped it (tests only): three records of its own
// per step, emitted from its wraps — `model.request` before the call, `model.response` after
// it, `tool.result` after each tool call. Journals written by those versions hold these; the
// tests compare what every reader makes of them with what it makes of the folded details.

/** The earlier `traceDetailsMiddleware`, emitting the separate records. */
export function legacyTraceDetailsMiddleware(options: { captureContent?: boolean } = {}): Middleware {
  const content = options.captureContent === true;
  const stablePrefix = new StablePrefixMemo();
  return {
    name: "traceDetails",
    wrapModelCall(ctx, request, next) {
      const callId = ctx.callId ?? "";
      ctx.run.emit(requestEvent(callId, request, content, stablePrefix.of(request)));
      return next(request).then((response) => {
        ctx.run.emit(responseEvent(callId, response, content));
        return response;
      });
    },
    wrapToolCall(ctx, call, next) {
      return next(call).then((result) => {
        const description = ctx.tools?.get(call.name)?.description;
        const event: AgentEventOf<"tool.result"> = {
          type: "tool.result",
          callId: call.id,
          toolName: result.toolName,
          isError: result.isError,
        };
        if (description !== undefined && description !== "") event.description = description;
        if (content) event.result = genAiToolResult(result.content);
        ctx.run.emit(event);
        return result;
      });
    },
  };
}

function requestEvent(
  callId: string,
  request: ModelRequest,
  content: boolean,
  stablePrefix: string,
): AgentEventOf<"model.request"> {
  const event: AgentEventOf<"model.request"> = {
    type: "model.request",
    callId,
    parameters: requestParameters(request),
    stablePrefix,
  };
  if (content) {
    const system = genAiSystemInstructions(request.messages);
    if (system.length > 0) event.systemInstructions = system;
    event.inputMessages = genAiInputMessages(request.messages);
    if (request.tools !== undefined && request.tools.length > 0) {
      event.toolDefinitions = genAiToolDefinitions(request.tools);
    }
    if (request.responseFormat !== undefined) event.responseFormat = request.responseFormat;
  }
  return event;
}

function responseEvent(
  callId: string,
  response: ModelResponse,
  content: boolean,
): AgentEventOf<"model.response"> {
  const event: AgentEventOf<"model.response"> = { type: "model.response", callId };
  const id = responseId(response);
  if (id !== undefined) event.responseId = id;
  if (response.finishReason !== undefined) event.finishReason = response.finishReason;
  if (content) event.outputMessages = [genAiAssistantMessage(response.message, response.finishReason)];
  return event;
}
