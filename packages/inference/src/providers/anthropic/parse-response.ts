import { classifyProviderFailure } from "../../errors/classify.js";
import { ProviderError } from "../../errors/provider-error.js";
import { isJsonObject, type JsonValue } from "../../json/json-value.js";
import type { ContentBlock } from "../../message/content-block.js";
import type { AssistantMessage } from "../../message/message.js";
import type { ModelResponse } from "../../model/model-response.js";
import type { ToolCall } from "../../tool/tool-call.js";
import { mapAnthropicStopReason, normalizeAnthropicUsage } from "./usage.js";

/**
 * Turn a non-streaming Anthropic Messages response body into a {@link ModelResponse} with the
 * same shape a `StreamAccumulator` builds from the equivalent stream:
 * - `thinking` blocks -> reasoning blocks (text and signature verbatim), `redacted_thinking` ->
 *   redacted reasoning, in their order, first;
 * - all `text` blocks joined into ONE text block after them (omitted when the text is empty);
 * - `tool_use` blocks -> tool calls in order (`input` as arguments, `{}` when not an object);
 * - unknown block types (server tools, ...) are ignored; they stay visible in `raw`;
 * - `usage` normalized (cache tokens inside `inputTokens`), `stop_reason` mapped, `id` kept as
 *   the message id, the whole body as `raw`.
 * Throws a non-retryable `ProviderError` when the body is not a message object (for example an
 * `error` envelope that arrived with a 2xx status).
 */
export function parseAnthropicResponse(body: JsonValue, model: string): ModelResponse {
  if (!isJsonObject(body) || !Array.isArray(body.content)) {
    throw unexpectedBody(body, model);
  }
  const content: ContentBlock[] = [];
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of body.content) {
    if (!isJsonObject(block)) continue;
    switch (block.type) {
      case "thinking": {
        if (block.thinking === "" && (block.signature === undefined || block.signature === "")) break;
        const reasoning: ContentBlock = { type: "reasoning", text: stringOr(block.thinking) };
        if (typeof block.signature === "string" && block.signature !== "") {
          reasoning.signature = block.signature;
        }
        content.push(reasoning);
        break;
      }
      case "redacted_thinking":
        content.push({ type: "redacted_reasoning", data: stringOr(block.data) });
        break;
      case "text":
        texts.push(stringOr(block.text));
        break;
      case "tool_use":
        toolCalls.push({
          id: stringOr(block.id),
          name: stringOr(block.name),
          arguments: isJsonObject(block.input) ? block.input : {},
        });
        break;
    }
  }
  const text = texts.join("");
  if (text !== "") content.push({ type: "text", text });
  const message: AssistantMessage = { role: "assistant", content, toolCalls };
  if (typeof body.id === "string") message.id = body.id;
  const response: ModelResponse = {
    message,
    finishReason: mapAnthropicStopReason(body.stop_reason),
    raw: body,
  };
  if (isJsonObject(body.usage)) response.usage = normalizeAnthropicUsage(body.usage);
  return response;
}

function stringOr(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}

function unexpectedBody(body: JsonValue, model: string): ProviderError {
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : undefined;
  const message =
    error !== undefined && typeof error.message === "string"
      ? `Anthropic returned an error body with a success status: ${error.message}`
      : "Anthropic returned a response that is not a Messages API message (no `content` array); check baseUrl points at the Anthropic API";
  const code = error !== undefined && typeof error.type === "string" ? error.type : undefined;
  return new ProviderError({
    provider: "anthropic",
    model,
    message,
    kind: error === undefined ? "non_retryable" : classifyProviderFailure({ code, message }),
    ...(code === undefined ? {} : { providerCode: code }),
    rawBody: JSON.stringify(body),
  });
}
