import { classifyProviderFailure } from "../../errors/classify.js";
import { ProviderError } from "../../errors/provider-error.js";
import { isJsonObject, type JsonValue } from "../../json/json-value.js";
import type { ContentBlock } from "../../message/content-block.js";
import type { AssistantMessage } from "../../message/message.js";
import type { ModelResponse } from "../../model/model-response.js";
import type { ToolCall } from "../../tool/tool-call.js";
import { readOllamaToolCall, toToolCall } from "./tool-calls.js";
import { mapOllamaDoneReason, normalizeOllamaUsage } from "./usage.js";

/**
 * Turn a non-streaming `/api/chat` body (`stream: false`) into a {@link ModelResponse} shaped as
 * a `StreamAccumulator` would build it from the equivalent stream:
 * - `message.thinking` -> one reasoning block (no signature), first; `message.content` -> one
 *   text block (omitted when empty);
 * - `message.tool_calls` -> tool calls in order; a missing id is synthesized from `salt` (see
 *   `ollamaToolCallId`), arguments are the object Ollama sent;
 * - counters -> usage (see `normalizeOllamaUsage`); `done_reason` mapped (tool calls win);
 *   no message id (Ollama has none); the body as `raw`.
 * Throws a `ProviderError` for an `{error: "..."}` body and a non-retryable one for a body that
 * is not a chat response.
 */
export function parseOllamaResponse(body: JsonValue, model: string, salt: number): ModelResponse {
  if (!isJsonObject(body)) throw notChat(body, model);
  if (typeof body.error === "string") throw ollamaBodyError(body.error, model, JSON.stringify(body));
  if (!isJsonObject(body.message)) throw notChat(body, model);
  const { message: wire } = body;
  const content: ContentBlock[] = [];
  if (typeof wire.thinking === "string" && wire.thinking !== "") {
    content.push({ type: "reasoning", text: wire.thinking });
  }
  if (typeof wire.content === "string" && wire.content !== "")
    content.push({ type: "text", text: wire.content });
  const toolCalls: ToolCall[] = [];
  if (Array.isArray(wire.tool_calls)) {
    for (const entry of wire.tool_calls) {
      const parts = readOllamaToolCall(entry);
      if (parts !== undefined) toolCalls.push(toToolCall(parts, toolCalls.length, salt));
    }
  }
  const message: AssistantMessage = { role: "assistant", content, toolCalls };
  return {
    message,
    usage: normalizeOllamaUsage(body),
    finishReason: mapOllamaDoneReason(body.done_reason, toolCalls.length > 0),
    raw: body,
  };
}

/**
 * The `ProviderError` for an Ollama `{error: "..."}` body that arrived with a success status.
 * Classified from the message (a context overflow is recognised); anything else is treated as an
 * upstream failure of the model runner (`upstream_unhealthy`, retryable).
 */
export function ollamaBodyError(message: string, model: string, rawBody: string): ProviderError {
  const kind = classifyProviderFailure({ message });
  return new ProviderError({
    provider: "ollama",
    model,
    message: `Ollama reported an error: ${message}`,
    kind: kind === "non_retryable" ? "upstream_unhealthy" : kind,
    rawBody,
  });
}

function notChat(body: JsonValue, model: string): ProviderError {
  return new ProviderError({
    provider: "ollama",
    model,
    message:
      "Ollama returned a body that is not an /api/chat response (no `message` object); check that baseUrl points at an Ollama server",
    kind: "non_retryable",
    rawBody: JSON.stringify(body).slice(0, 2000),
  });
}
