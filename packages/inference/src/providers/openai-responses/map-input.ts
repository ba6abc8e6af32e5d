import { validationError } from "../../errors/tinyagents-error.js";
import type { JsonObject, JsonValue } from "../../json/json-value.js";
import type { ContentBlock, ImageBlock } from "../../message/content-block.js";
import type { AssistantMessage, Message, ToolMessage } from "../../message/message.js";
import { decodeReasoningSignature, type ResponsesReasoningState } from "../../message/reasoning-signature.js";

/** What input mapping needs to know. */
export interface InputMappingContext {
  /** Provider name for error messages and `provider_extension` matching. */
  provider: string;
  /**
   * Whether the server keeps responses (`store`, default true). Without storage a reasoning
   * item can only be sent back with its `encrypted_content`; one without it is dropped.
   */
  store: boolean;
}

/**
 * Map neutral messages to Responses API `input` items:
 * - system -> `{role:"developer", content}` (text blocks joined by a blank line; an image is a
 *   `validation` error);
 * - user -> `{role:"user", content}`: a string when all blocks are text/json, else
 *   `input_text` / `input_image` parts (URL or `data:` URI, `detail` default `auto`);
 * - assistant -> its reasoning blocks written by this adapter as `reasoning` items (`id`,
 *   `summary`, `encrypted_content`), each followed by the item the API pairs it with, then the
 *   text as an assistant `message` item and the tool calls as `function_call` items
 *   (`call_id`, `name`, `arguments` JSON text; an invalid call is sent with `{}`). Items that
 *   followed a reasoning item keep their output item id so the API can pair them. Reasoning from
 *   other providers (or without a signature) is not sent; nor is reasoning the server cannot
 *   find again (`store: false` and no encrypted content);
 * - tool -> `function_call_output` with `call_id` and the result text (`Error: ` first for
 *   `isError`), or `input_text` / `input_image` parts when the result has images.
 * json blocks become their JSON text; `provider_extension` blocks for this provider (or
 * `openai`) are passed through as raw items or parts, others are a `validation` error.
 */
export function mapInput(messages: readonly Message[], context: InputMappingContext): JsonObject[] {
  const out: JsonObject[] = [];
  messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    switch (message.role) {
      case "system":
        out.push({ role: "developer", content: systemText(message.content, context, where) });
        return;
      case "user":
        out.push({ role: "user", content: userContent(message.content, context, where) });
        return;
      case "assistant":
        out.push(...assistantItems(message, context));
        return;
      case "tool":
        out.push(toolOutput(message, context, where));
        return;
    }
  });
  return out;
}

function assistantItems(message: AssistantMessage, context: InputMappingContext): JsonObject[] {
  const items: JsonObject[] = [];
  const text = assistantText(message.content, context);
  let textSent = text === "";
  const callsSent = new Set<string>();
  const messageItem = (id?: string): JsonObject => {
    const item: JsonObject = {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
      status: "completed",
    };
    if (id !== undefined) item.id = id;
    return item;
  };
  const callItem = (index: number, id?: string): JsonObject => {
    const call = message.toolCalls[index]!;
    const item: JsonObject = {
      type: "function_call",
      call_id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.invalid === undefined ? call.arguments : {}),
    };
    if (id !== undefined) item.id = id;
    return item;
  };
  for (const block of message.content) {
    if (block.type === "provider_extension" && ownExtension(block.provider, context)) {
      if (typeof block.value === "object" && block.value !== null && !Array.isArray(block.value)) {
        items.push(block.value);
      }
      continue;
    }
    if (block.type !== "reasoning") continue;
    const state = decodeReasoningSignature(block.signature);
    if (state === undefined) continue;
    if (!context.store && state.encryptedContent === undefined) continue;
    items.push(reasoningItem(block.text, state));
    const following = state.following;
    if (following?.type === "message" && !textSent) {
      items.push(messageItem(following.id));
      textSent = true;
    } else if (following?.type === "function_call" && following.callId !== undefined) {
      const index = message.toolCalls.findIndex((call) => call.id === following.callId);
      if (index !== -1 && !callsSent.has(following.callId)) {
        items.push(callItem(index, following.id));
        callsSent.add(following.callId);
      }
    }
  }
  if (!textSent) items.push(messageItem());
  message.toolCalls.forEach((call, index) => {
    if (!callsSent.has(call.id)) items.push(callItem(index));
  });
  return items;
}

function reasoningItem(text: string, state: ResponsesReasoningState): JsonObject {
  // `summary` is required even when empty; the text was the summary parts joined.
  const item: JsonObject = {
    type: "reasoning",
    id: state.id,
    summary: text === "" ? [] : [{ type: "summary_text", text }],
  };
  if (state.encryptedContent !== undefined) item.encrypted_content = state.encryptedContent;
  return item;
}

function toolOutput(message: ToolMessage, context: InputMappingContext, where: string): JsonObject {
  const hasImage = message.content.some((block) => block.type === "image");
  const prefix = message.isError ? "Error: " : "";
  if (!hasImage) {
    return {
      type: "function_call_output",
      call_id: message.toolCallId,
      output: prefix + plainText(message.content, context, `${where} (tool)`),
    };
  }
  const parts: JsonValue[] = [];
  if (prefix !== "") parts.push({ type: "input_text", text: prefix.trim() });
  for (const block of message.content) {
    const part = inputPart(block, context, `${where} (tool)`);
    if (part !== undefined) parts.push(part);
  }
  return { type: "function_call_output", call_id: message.toolCallId, output: parts };
}

function systemText(blocks: readonly ContentBlock[], context: InputMappingContext, where: string): string {
  if (blocks.some((block) => block.type === "image")) {
    throw validationError(
      `${where} (system): ${context.provider} cannot take images in system messages; move the image to a user message`,
      { field: where },
    );
  }
  return plainText(blocks, context, `${where} (system)`);
}

function plainText(blocks: readonly ContentBlock[], context: InputMappingContext, where: string): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "json") parts.push(JSON.stringify(block.value));
    else if (block.type === "provider_extension") {
      rejectForeign(block.provider, context, where);
      if (typeof block.value === "string") parts.push(block.value);
    }
  }
  return parts.join("\n\n");
}

function userContent(
  blocks: readonly ContentBlock[],
  context: InputMappingContext,
  where: string,
): JsonValue {
  const simple = blocks.every(
    (block) => block.type === "text" || block.type === "json" || block.type === "reasoning",
  );
  if (simple) return plainText(blocks, context, where);
  const parts: JsonValue[] = [];
  for (const block of blocks) {
    const part = inputPart(block, context, where);
    if (part !== undefined) parts.push(part);
  }
  return parts;
}

function inputPart(block: ContentBlock, context: InputMappingContext, where: string): JsonValue | undefined {
  switch (block.type) {
    case "text":
      return { type: "input_text", text: block.text };
    case "json":
      return { type: "input_text", text: JSON.stringify(block.value) };
    case "image":
      return imagePart(block);
    case "provider_extension":
      rejectForeign(block.provider, context, where);
      return block.value;
    default:
      return undefined;
  }
}

function assistantText(blocks: readonly ContentBlock[], context: InputMappingContext): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "json") parts.push(JSON.stringify(block.value));
    else if (block.type === "provider_extension" && ownExtension(block.provider, context)) {
      if (typeof block.value === "string") parts.push(block.value);
    }
  }
  return parts.join("\n\n");
}

function imagePart(block: ImageBlock): JsonObject {
  const url =
    block.source.kind === "url"
      ? block.source.url
      : `data:${block.source.mimeType};base64,${block.source.data}`;
  return { type: "input_image", image_url: url, detail: block.detail ?? "auto" };
}

function ownExtension(provider: string, context: InputMappingContext): boolean {
  return provider === context.provider || provider === "openai" || provider === "openai-responses";
}

function rejectForeign(provider: string, context: InputMappingContext, where: string): void {
  if (ownExtension(provider, context)) return;
  throw validationError(
    `${where}: a "${provider}" provider_extension block cannot be sent to ${context.provider}; remove it or convert it to text`,
    { field: where },
  );
}
