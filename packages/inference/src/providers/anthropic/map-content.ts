import { validationError } from "../../errors/tinyagents-error.js";
import { isJsonObject } from "../../json/json-value.js";
import type { ContentBlock, ImageBlock } from "../../message/content-block.js";
import { isResponsesReasoningSignature } from "../../message/reasoning-signature.js";
import type {
  AnthropicImageBlock,
  AnthropicPassthroughBlock,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
} from "./wire-types.js";

/** A mapped block, or `undefined` when the neutral block has no Anthropic form here. */
export type MappedBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicThinkingBlock
  | { type: "redacted_thinking"; data: string }
  | AnthropicPassthroughBlock
  | undefined;

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/**
 * Map an image to an Anthropic `image` block: base64 bytes become a `base64` source; a `data:`
 * URL with base64 payload is unpacked into one; any other URL becomes a `url` source.
 */
export function toAnthropicImage(block: ImageBlock): AnthropicImageBlock {
  const { source } = block;
  if (source.kind === "base64") {
    return { type: "image", source: { type: "base64", media_type: source.mimeType, data: source.data } };
  }
  if (source.url.startsWith("data:")) {
    const match = DATA_URL.exec(source.url);
    if (match === null) {
      throw validationError(
        "Anthropic images given as data: URLs must be base64-encoded (data:<mime>;base64,<data>); " +
          "pass the bytes as { kind: 'base64', data, mimeType } instead",
        { field: "image.source.url" },
      );
    }
    return { type: "image", source: { type: "base64", media_type: match[1]!, data: match[2]! } };
  }
  return { type: "image", source: { type: "url", url: source.url } };
}

/**
 * Map one neutral content block as it appears in a user, assistant or tool message:
 * - `text` -> `text` (empty text is dropped: the API rejects empty text blocks);
 * - `json` -> `text` holding `JSON.stringify(value)`;
 * - `image` -> `image` (see {@link toAnthropicImage});
 * - `reasoning` WITH a signature -> `thinking` (text and signature verbatim); without one it is
 *   dropped, because the API rejects unsigned thinking (it came from another provider), and so is
 *   reasoning signed by the OpenAI Responses adapter (its signature is item state, not Anthropic's);
 * - `redacted_reasoning` -> `redacted_thinking` (data verbatim);
 * - `provider_extension` from provider `anthropic` whose value is an object with a string
 *   `type` -> that object, shallow-copied; other extensions are dropped.
 */
export function toAnthropicBlock(block: ContentBlock): MappedBlock {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : { type: "text", text: block.text };
    case "json":
      return { type: "text", text: JSON.stringify(block.value) };
    case "image":
      return toAnthropicImage(block);
    case "reasoning":
      return block.signature === undefined || isResponsesReasoningSignature(block.signature)
        ? undefined
        : { type: "thinking", thinking: block.text, signature: block.signature };
    case "redacted_reasoning":
      return { type: "redacted_thinking", data: block.data };
    case "provider_extension":
      if (block.provider !== "anthropic" || !isJsonObject(block.value)) return undefined;
      return typeof block.value.type === "string" ? { ...block.value } : undefined;
  }
}

/** Map a system message's blocks to system text blocks; only text and JSON are allowed there. */
export function toSystemBlock(block: ContentBlock, path: string): AnthropicTextBlock | undefined {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : { type: "text", text: block.text };
    case "json":
      return { type: "text", text: JSON.stringify(block.value) };
    case "reasoning":
    case "redacted_reasoning":
    case "provider_extension":
      return undefined;
    case "image":
      throw validationError(
        `${path}: Anthropic's system prompt accepts only text; move the image into a user message`,
        { field: path },
      );
  }
}
