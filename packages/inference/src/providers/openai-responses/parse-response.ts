import { ProviderError } from "../../errors/provider-error.js";
import { factsFromObject } from "../../http/error-body.js";
import { providerErrorFromFacts } from "../../http/provider-error-from-response.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import type { ContentBlock } from "../../message/content-block.js";
import type { AssistantMessage } from "../../message/message.js";
import { encodeReasoningSignature, type ResponsesReasoningState } from "../../message/reasoning-signature.js";
import type { ModelResponse } from "../../model/model-response.js";
import { parseToolArguments } from "../../model/stream-accumulator.js";
import type { ToolCall } from "../../tool/tool-call.js";
import { followingItemOf, messageItemText, reasoningItemText } from "./output-items.js";
import { normalizeResponsesUsage, responsesFinishReason } from "./usage.js";

/** Who is parsing, for errors. */
export interface ResponsesParseContext {
  provider: string;
  model: string;
  secrets?: readonly string[] | undefined;
}

/**
 * Turn a Responses API `response` object (a unary body, or the one `response.completed`
 * carries) into a {@link ModelResponse} shaped exactly like the accumulated stream:
 * - each `reasoning` item -> a reasoning block (its reasoning text and summary parts joined by a
 *   blank line) whose `signature` keeps the item id, `encrypted_content` and the id of the item
 *   after it, so the next turn can send it back (see `reasoning-signature.ts`);
 * - every `message` item's `output_text` (and `refusal`) parts joined into one text block;
 * - `function_call` items -> tool calls (`call_id` as id, `arguments` parsed; unusable JSON is
 *   kept as `invalid`);
 * - other items (built-in tool calls) are ignored; they stay visible in `raw`;
 * - usage normalized; finish reason from `status` / `incomplete_details`; `id` as message id.
 * Throws a classified `ProviderError` for a `failed` response or an error envelope, and a
 * non-retryable one for a body that is not a response.
 */
export function parseResponsesBody(body: JsonValue, context: ResponsesParseContext): ModelResponse {
  if (!isJsonObject(body) || !Array.isArray(body.output)) throw unexpectedBody(body, context);
  if (body.status === "failed") throw failedResponseError(body, context);
  const reasoning: ContentBlock[] = [];
  let text: string | undefined;
  let refused = false;
  const toolCalls: ToolCall[] = [];
  const output = body.output;
  output.forEach((item, index) => {
    if (!isJsonObject(item)) return;
    switch (item.type) {
      case "reasoning": {
        if (typeof item.id !== "string") return;
        const state: ResponsesReasoningState = { id: item.id };
        if (typeof item.encrypted_content === "string") state.encryptedContent = item.encrypted_content;
        const following = followingItemOf(output[index + 1]);
        if (following !== undefined) state.following = following;
        reasoning.push({
          type: "reasoning",
          text: reasoningItemText(item),
          signature: encodeReasoningSignature(state),
        });
        return;
      }
      case "message": {
        const part = messageItemText(item);
        text = (text ?? "") + part.text;
        refused ||= part.refused;
        return;
      }
      case "function_call": {
        const parsed = parseToolArguments(typeof item.arguments === "string" ? item.arguments : "");
        const call: ToolCall = {
          id:
            typeof item.call_id === "string" && item.call_id !== ""
              ? item.call_id
              : `call_${toolCalls.length}`,
          name: typeof item.name === "string" ? item.name : "",
          arguments: parsed.arguments,
        };
        if (parsed.invalid !== undefined) call.invalid = parsed.invalid;
        toolCalls.push(call);
        return;
      }
    }
  });
  const content = [...reasoning];
  if (text !== undefined) content.push({ type: "text", text });
  const message: AssistantMessage = { role: "assistant", content, toolCalls };
  if (typeof body.id === "string") message.id = body.id;
  const response: ModelResponse = {
    message,
    finishReason: responsesFinishReason(body, { calledTools: toolCalls.length > 0, refused }),
    raw: body,
  };
  const usage = normalizeResponsesUsage(body.usage);
  if (usage !== undefined) response.usage = usage;
  return response;
}

/** The classified error of a `failed` response (`response.error: {code, message}`). */
export function failedResponseError(response: JsonObject, context: ResponsesParseContext): ProviderError {
  const error = isJsonObject(response.error) ? response.error : {};
  const facts = factsFromObject(error);
  if (facts.message === undefined) facts.message = "the response failed without an error message";
  return providerErrorFromFacts(facts, {
    provider: context.provider,
    model: context.model,
    secrets: context.secrets,
  });
}

function unexpectedBody(body: JsonValue, context: ResponsesParseContext): ProviderError {
  if (isJsonObject(body) && body.error !== undefined && body.error !== null) {
    return providerErrorFromFacts(factsFromObject(body), {
      provider: context.provider,
      model: context.model,
      secrets: context.secrets,
      rawBody: JSON.stringify(body),
    });
  }
  return new ProviderError({
    provider: context.provider,
    model: context.model,
    kind: "non_retryable",
    providerCode: "malformed_response",
    message: `${context.provider}: the response is not a Responses API response (no \`output\` array); check that the base URL points at an API serving POST /responses`,
    rawBody: JSON.stringify(body).slice(0, 2000),
  });
}
