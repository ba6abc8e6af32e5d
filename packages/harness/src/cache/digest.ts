import type { Message, ToolSchema } from "@tinyagents/inference";
import { canonicalJson } from "./canonical-json.js";
import { sha256Hex } from "./sha256.js";

export { sha256Hex } from "./sha256.js";

const messageDigests = new WeakMap<object, string>();

/**
 * SHA-256 hex of a message's canonical JSON ({@link canonicalJson}). Memoized per message
 * OBJECT: a message is hashed once however many requests carry it, which is what keeps prompt
 * fingerprints, cache keys and message ids O(new messages) per turn.
 *
 * Contract: messages are immutable once appended to a transcript (the loop shares them between
 * requests instead of copying). Edit a copy; an object mutated in place keeps its old digest.
 * Use {@link freshMessageDigest} to hash a message that may have been mutated.
 */
export function messageDigest(message: Message): string {
  let digest = messageDigests.get(message);
  if (digest === undefined) {
    digest = sha256Hex(canonicalJson(message));
    messageDigests.set(message, digest);
  }
  return digest;
}

/** {@link messageDigest} without the memo: always hashes the message's current content. */
export function freshMessageDigest(message: Message): string {
  return sha256Hex(canonicalJson(message));
}

const frozenToolDigests = new WeakMap<readonly ToolSchema[], string>();

/**
 * SHA-256 hex of the canonical JSON of a tool declaration list (order matters: the registry
 * sorts by name). Frozen arrays (the tool registry's `schemas()`) are hashed once; other arrays
 * are hashed on every call, so in-place edits are seen.
 */
export function toolsDigest(tools: readonly ToolSchema[]): string {
  const frozen = Object.isFrozen(tools);
  if (frozen) {
    const known = frozenToolDigests.get(tools);
    if (known !== undefined) return known;
  }
  const digest = sha256Hex(canonicalJson(tools));
  if (frozen) frozenToolDigests.set(tools, digest);
  return digest;
}
