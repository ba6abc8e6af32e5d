import { validationError } from "../../errors/tinyagents-error.js";
import type { JsonObject, JsonValue } from "../../json/json-value.js";
import type { ContentBlock, ImageBlock } from "../../message/content-block.js";
import type { Message, ToolMessage } from "../../message/message.js";
import type { OpenAiQuirks } from "./quirks.js";
import { isCurrentOpenAiFamily } from "./quirks.js";
import { toMistralToolCallId } from "./tool-call-ids.js";

/** What message mapping needs to know about the target. */
export interface MessageMappingContext {
  provider: string;
  modelId: string;
  quirks: OpenAiQuirks;
}

/**
 * Map neutral messages to Chat Completions messages:
 * - system -> `system` (or `developer` per `quirks.systemRole`; `"auto"` picks developer for
 *   the current OpenAI families: o1+, gpt-5, gpt-4o, gpt-4.1), content as one string (text blocks joined by a blank line);
 * - user -> a string when all blocks are text/json, else content parts (`text`, `image_url`
 *   with a URL or a `data:` URI and `detail`); `name` passed through;
 * - assistant -> text content (`null` when it only calls tools), `tool_calls` with
 *   `arguments` as a JSON string (an invalid call's arguments are sent as `{}`, its raw text is
 *   not replayed); reasoning is sent back as `reasoning_content` only when
 *   `quirks.reasoningEcho` says so (`""` when there was none);
 * - tool -> `{role:"tool", tool_call_id, content}` (plus the tool's `name` with
 *   `quirks.toolMessageName`: Mistral); `isError` results are prefixed `Error: `;
 *   images in tool results (which the role cannot carry) follow the tool messages of that turn
 *   as one user message.
 * json blocks become their JSON text. provider_extension blocks for this provider (or
 * `openai`) are passed through as raw content parts; in an assistant message others are dropped,
 * elsewhere they are a `validation` error, as is an image in a system message. With
 * `quirks.toolCallIds = "mistral9"` every call id is rewritten deterministically to 9 letters/digits.
 */
export function mapMessages(messages: readonly Message[], context: MessageMappingContext): JsonObject[] {
  const out: JsonObject[] = [];
  const mapId = context.quirks.toolCallIds === "mistral9" ? toMistralToolCallId : (id: string): string => id;
  const systemRole =
    context.quirks.systemRole === "auto"
      ? isCurrentOpenAiFamily(context.modelId)
        ? "developer"
        : "system"
      : context.quirks.systemRole;
  let pendingImages: JsonObject[] = [];
  const flushImages = (): void => {
    if (pendingImages.length === 0) return;
    out.push({
      role: "user",
      content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...pendingImages],
    });
    pendingImages = [];
  };
  messages.forEach((message, index) => {
    if (message.role !== "tool") flushImages();
    const where = `messages[${index}]`;
    switch (message.role) {
      case "system":
        out.push({ role: systemRole, content: textOnly(message.content, context, `${where} (system)`) });
        return;
      case "user": {
        const mapped: JsonObject = { role: "user", content: userContent(message.content, context, where) };
        if (message.name !== undefined) mapped.name = message.name;
        out.push(mapped);
        return;
      }
      case "assistant": {
        const text = assistantText(message.content, context);
        const mapped: JsonObject = {
          role: "assistant",
          content: text === "" && message.toolCalls.length > 0 ? null : text,
        };
        if (message.toolCalls.length > 0) {
          mapped.tool_calls = message.toolCalls.map((call) => ({
            id: mapId(call.id),
            type: "function",
            function: {
              name: call.name,
              arguments: JSON.stringify(call.invalid === undefined ? call.arguments : {}),
            },
          }));
        }
        if (context.quirks.reasoningEcho === "reasoning_content") {
          let reasoning = "";
          for (const block of message.content) if (block.type === "reasoning") reasoning += block.text;
          mapped.reasoning_content = reasoning;
        }
        out.push(mapped);
        return;
      }
      case "tool":
        out.push(toolMessage(message, context, where, mapId, pendingImages));
        return;
    }
  });
  flushImages();
  return out;
}

function toolMessage(
  message: ToolMessage,
  context: MessageMappingContext,
  where: string,
  mapId: (id: string) => string,
  images: JsonObject[],
): JsonObject {
  let text = "";
  for (const block of message.content) {
    if (block.type === "image") images.push(imagePart(block));
    else if (block.type === "text") text += (text === "" ? "" : "\n\n") + block.text;
    else if (block.type === "json") text += (text === "" ? "" : "\n\n") + JSON.stringify(block.value);
    else if (block.type === "provider_extension") rejectForeign(block.provider, context, `${where} (tool)`);
  }
  const mapped: JsonObject = {
    role: "tool",
    tool_call_id: mapId(message.toolCallId),
    content: message.isError ? `Error: ${text}` : text,
  };
  if (context.quirks.toolMessageName && message.toolName !== "") mapped.name = message.toolName;
  return mapped;
}

function textOnly(blocks: readonly ContentBlock[], context: MessageMappingContext, where: string): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "json") parts.push(JSON.stringify(block.value));
    else if (block.type === "image") {
      throw validationError(
        `${where}: ${context.provider} cannot take images in system messages; move the image to a user message`,
        { field: where },
      );
    } else if (block.type === "provider_extension") rejectForeign(block.provider, context, where);
  }
  return parts.join("\n\n");
}

function userContent(
  blocks: readonly ContentBlock[],
  context: MessageMappingContext,
  where: string,
): JsonValue {
  const simple = blocks.every(
    (block) => block.type === "text" || block.type === "json" || block.type === "reasoning",
  );
  if (simple) return textOnly(blocks, context, where);
  const parts: JsonValue[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push({ type: "text", text: block.text });
        break;
      case "json":
        parts.push({ type: "text", text: JSON.stringify(block.value) });
        break;
      case "image":
        parts.push(imagePart(block));
        break;
      case "provider_extension":
        if (!ownExtension(block.provider, context)) rejectForeign(block.provider, context, where);
        parts.push(block.value);
        break;
      default:
        break;
    }
  }
  return parts;
}

function assistantText(blocks: readonly ContentBlock[], context: MessageMappingContext): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "json") parts.push(JSON.stringify(block.value));
    else if (block.type === "provider_extension" && ownExtension(block.provider, context)) {
      const value = block.value;
      if (typeof value === "string") parts.push(value);
    }
  }
  return parts.join("\n\n");
}

function imagePart(block: ImageBlock): JsonObject {
  const url =
    block.source.kind === "url"
      ? block.source.url
      : `data:${block.source.mimeType};base64,${block.source.data}`;
  const image: JsonObject = { url };
  if (block.detail !== undefined) image.detail = block.detail;
  return { type: "image_url", image_url: image };
}

function ownExtension(provider: string, context: MessageMappingContext): boolean {
  return provider === context.provider || provider === "openai";
}

function rejectForeign(provider: string, context: MessageMappingContext, where: string): void {
  if (ownExtension(provider, context)) return;
  throw validationError(
    `${where}: a "${provider}" provider_extension block cannot be sent to ${context.provider}; remove it or convert it to text`,
    { field: where },
  );
}
