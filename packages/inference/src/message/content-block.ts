import type { JsonValue } from "../json/json-value.js";

/** Plain text. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** A JSON value (for example a structured tool result). */
export interface JsonBlock {
  type: "json";
  value: JsonValue;
}

/** Where an image comes from: a URL (http(s) or data:) or inline base64 bytes with their MIME type. */
export type ImageSource = { kind: "url"; url: string } | { kind: "base64"; data: string; mimeType: string };

/** An image reference. */
export interface ImageBlock {
  type: "image";
  source: ImageSource;
  /** Provider hint for how much detail to spend tokens on. */
  detail?: "auto" | "low" | "high";
}

/**
 * Model reasoning ("thinking"). The `signature` is opaque provider data that must be sent back
 * verbatim on the next turn (Anthropic extended thinking), so it is kept next to the text.
 */
export interface ReasoningBlock {
  type: "reasoning";
  text: string;
  signature?: string;
}

/** Reasoning the provider returned encrypted; only ever sent back verbatim. */
export interface RedactedReasoningBlock {
  type: "redacted_reasoning";
  data: string;
}

/** Provider-specific content the neutral model has no slot for; passed through untouched. */
export interface ProviderExtensionBlock {
  type: "provider_extension";
  provider: string;
  value: JsonValue;
}

/** One piece of message content. A discriminated union on `type`. */
export type ContentBlock =
  | TextBlock
  | JsonBlock
  | ImageBlock
  | ReasoningBlock
  | RedactedReasoningBlock
  | ProviderExtensionBlock;

/** The closed list of content block types, for validation. */
export const CONTENT_BLOCK_TYPES = [
  "text",
  "json",
  "image",
  "reasoning",
  "redacted_reasoning",
  "provider_extension",
] as const satisfies readonly ContentBlock["type"][];
