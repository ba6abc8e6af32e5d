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
export function encodeAiSdkReasoning(metadata: AiSdkProviderOptions): string {
  return JSON.stringify({ type: SIGNATURE_TYPE, providerMetadata: metadata });
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
    const value = JSON.parse(signature) as { type?: unknown; providerMetadata?: unknown };
    if (value.type !== SIGNATURE_TYPE || !isRecord(value.providerMetadata)) return undefined;
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
