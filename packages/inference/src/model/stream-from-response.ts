import type { ChatModel, ModelCallOptions } from "./chat-model.js";
import type { ModelRequest } from "./model-request.js";
import type { ModelResponse } from "./model-response.js";
import type { ModelStreamItem, StreamStartItem, TextDeltaItem } from "./stream-item.js";

/**
 * The stream items that describe `response`, in this order: `start` (with the message id, if
 * any); one `reasoning_delta` per reasoning block (text and signature together) and one
 * `redacted_reasoning` per redacted block, in content order; one `text_delta` per text block;
 * one `tool_call_delta` per call (`index`, `id`, `name`, and the arguments as
 * `JSON.stringify(arguments)`, or the raw text for an invalid call); `usage` when present;
 * `finish` (with `raw`) when the response has a finish reason or raw data.
 *
 * Round trip: `collect(responseToStreamItems(r))` deep-equals `r` for every CANONICAL response,
 * that is one the accumulator could have produced:
 * - no `resolvedModel`, `servedFromCache` or `message.usage` (set by the harness, not the model);
 * - a `finishReason` is set;
 * - content is reasoning/redacted blocks followed by at most one text block, with no reasoning
 *   block lacking a signature directly followed by another reasoning block (they would merge);
 * - json, image and provider-extension blocks have no stream item and are NOT streamed;
 * - tool call ids are non-empty, and an `invalid` call's `error` is what
 *   `parseToolArguments(raw)` reports (valid calls' arguments re-parse to themselves).
 */
export function responseToStreamItems(response: ModelResponse): ModelStreamItem[] {
  const { message } = response;
  const start: StreamStartItem = { type: "start" };
  if (message.id !== undefined) start.id = message.id;
  const items: ModelStreamItem[] = [start];
  const texts: TextDeltaItem[] = [];
  for (const block of message.content) {
    if (block.type === "reasoning") {
      items.push(
        block.signature === undefined
          ? { type: "reasoning_delta", text: block.text }
          : { type: "reasoning_delta", text: block.text, signature: block.signature },
      );
    } else if (block.type === "redacted_reasoning") {
      items.push({ type: "redacted_reasoning", data: block.data });
    } else if (block.type === "text") {
      texts.push({ type: "text_delta", text: block.text });
    }
  }
  for (const text of texts) items.push(text);
  message.toolCalls.forEach((call, index) => {
    items.push({
      type: "tool_call_delta",
      index,
      id: call.id,
      name: call.name,
      argumentsDelta: call.invalid === undefined ? JSON.stringify(call.arguments) : call.invalid.raw,
    });
  });
  if (response.usage !== undefined) items.push({ type: "usage", usage: response.usage });
  if (response.finishReason !== undefined || response.raw !== undefined) {
    const finishReason = response.finishReason ?? (message.toolCalls.length > 0 ? "tool_calls" : "stop");
    items.push(
      response.raw === undefined
        ? { type: "finish", finishReason }
        : { type: "finish", finishReason, raw: response.raw },
    );
  }
  return items;
}

/** {@link responseToStreamItems} as an async stream: the default `stream` of an invoke-only model. */
export async function* streamFromResponse(
  response: ModelResponse,
): AsyncGenerator<ModelStreamItem, void, undefined> {
  yield* responseToStreamItems(response);
}

/**
 * Stream a model call: `model.stream(...)` when the model implements it, otherwise the items of
 * `await model.invoke(...)` via {@link streamFromResponse}. Errors from `invoke` surface when the
 * stream is first iterated.
 */
export function streamModel<State>(
  model: ChatModel<State>,
  request: ModelRequest,
  options?: ModelCallOptions<State>,
): AsyncIterable<ModelStreamItem> {
  if (model.stream !== undefined) return model.stream(request, options);
  return invokeAsStream(model, request, options);
}

async function* invokeAsStream<State>(
  model: ChatModel<State>,
  request: ModelRequest,
  options: ModelCallOptions<State> | undefined,
): AsyncGenerator<ModelStreamItem, void, undefined> {
  yield* responseToStreamItems(await model.invoke(request, options));
}
