import type { AiSdkProviderOptions } from "./ai-sdk-types.js";

/** Marks a reasoning signature written by this bridge (native Anthropic signatures never start with `{`). */
const SIGNATURE_TYPE = "ai-sdk.reasoning";

/**
 * Keep an AI SDK reasoning part's `providerMetadata` (Anthropic's thinking `signature` or
 * `redactedData`, OpenAI's reasoning `itemId` and `reasoningEncryptedContent`, Gemini's
 * `thoughtSignature`) as the neutral reasoning block's `signature`: plain JSON, so it survives
 * journals, and sent back as the part's `providerOptions` on the next turn, which is how every
 * AI SDK provider reads it.
 */
export function encodeAiSdkReasoning(metadata: AiSdkProviderOptions, target?: ReasoningTarget): string {
  return JSON.stringify(
    target === undefined
      ? { type: SIGNATURE_TYPE, providerMetadata: metadata }
      : { type: SIGNATURE_TYPE, providerMetadata: metadata, for: target },
  );
}

/**
 * Reasoning state a provider attached to another part of the answer: Gemini's `thoughtSignature`
 * rides on a function call or on the text, and must go back on that same part. The bridge keeps it
 * in a reasoning block (it is reasoning state) that names the part.
 */
export type ReasoningTarget = { toolCallId: string } | { text: true };

/** {@link decodeAiSdkReasoning}'s result for a signature that names the part it belongs to. */
export interface TargetedMetadata {
  metadata: AiSdkProviderOptions;
  target: ReasoningTarget;
}

/** The target-carrying metadata of a signature written with a target, else `undefined`. */
export function decodeTargetedMetadata(signature: string | undefined): TargetedMetadata | undefined {
  if (signature === undefined || !signature.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(signature) as { type?: unknown; providerMetadata?: unknown; for?: unknown };
    if (value.type !== SIGNATURE_TYPE || !isRecord(value.providerMetadata) || !isRecord(value.for))
      return undefined;
    const target = value.for;
    const metadata = value.providerMetadata as AiSdkProviderOptions;
    if (typeof target.toolCallId === "string") return { metadata, target: { toolCallId: target.toolCallId } };
    if (target.text === true) return { metadata, target: { text: true } };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * The block a reasoning part's metadata becomes, so bridged and native Anthropic reasoning look
 * the same (and a conversation can move between `AnthropicModel` and the bridge): Anthropic's
 * `redactedData` alone -> a `redacted_reasoning` block; its `signature` alone -> that signature
 * verbatim; anything else -> {@link encodeAiSdkReasoning}.
 */
export function reasoningSignatureItem(
  metadata: AiSdkProviderOptions,
): { type: "redacted"; data: string } | { type: "signature"; signature: string } {
  const providers = Object.keys(metadata);
  const anthropic = metadata.anthropic;
  if (providers.length === 1 && anthropic !== undefined) {
    const keys = Object.keys(anthropic);
    if (keys.length === 1 && typeof anthropic.redactedData === "string") {
      return { type: "redacted", data: anthropic.redactedData };
    }
    if (keys.length === 1 && typeof anthropic.signature === "string") {
      return { type: "signature", signature: anthropic.signature };
    }
  }
  return { type: "signature", signature: encodeAiSdkReasoning(metadata) };
}

/** The provider metadata of a signature written by {@link encodeAiSdkReasoning}, else `undefined`. */
export function decodeAiSdkReasoning(signature: string | undefined): AiSdkProviderOptions | undefined {
  if (signature === undefined || !signature.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(signature) as { type?: unknown; providerMetadata?: unknown; for?: unknown };
    if (value.type !== SIGNATURE_TYPE || !isRecord(value.providerMetadata) || value.for !== undefined) {
      return undefined;
    }
    return value.providerMetadata as AiSdkProviderOptions;
  } catch {
    return undefined;
  }
}

/** Provider metadata worth keeping: an object with at least one provider entry. */
export function metadataOf(value: unknown): AiSdkProviderOptions | undefined {
  if (!isRecord(value)) return undefined;
  const out: AiSdkProviderOptions = {};
  for (const [provider, entry] of Object.entries(value)) {
    if (isRecord(entry) && Object.keys(entry).length > 0)
      out[provider] = entry as AiSdkProviderOptions[string];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Merge provider metadata (later keys win). */
export function mergeMetadata(
  a: AiSdkProviderOptions | undefined,
  b: AiSdkProviderOptions | undefined,
): AiSdkProviderOptions | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out: AiSdkProviderOptions = { ...a };
  for (const [provider, entry] of Object.entries(b)) out[provider] = { ...out[provider], ...entry };
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The reasoning state in metadata on a text or tool-call part: the `thoughtSignature` entries
 * (Gemini, on Google AI and Vertex). Other part metadata (Anthropic's `caller`, ...) describes
 * the call and is not sent back.
 */
export function thoughtSignatures(value: unknown): AiSdkProviderOptions | undefined {
  const metadata = metadataOf(value);
  if (metadata === undefined) return undefined;
  const out: AiSdkProviderOptions = {};
  for (const [provider, entry] of Object.entries(metadata)) {
    if (typeof entry.thoughtSignature === "string")
      out[provider] = { thoughtSignature: entry.thoughtSignature };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
