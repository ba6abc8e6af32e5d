import { isJsonObject, type JsonObject } from "../json/json-value.js";

/** The output item that followed a reasoning item (the API pairs the two by item id). */
export interface FollowingItem {
  type: "message" | "function_call";
  /** The output item id (`msg_...`, `fc_...`). */
  id: string;
  /** The function call's `call_id` (the neutral tool call id), for `function_call` items. */
  callId?: string;
}

/**
 * What a Responses API reasoning item needs to be sent back on the next turn, kept as the
 * `signature` of a neutral reasoning block so it survives journals and exports as plain JSON:
 * the item id, its `encrypted_content` (when `include: ["reasoning.encrypted_content"]` was
 * requested) and the item that followed it. The API rejects a reasoning item sent back without
 * its following item ("provided without its required following item"), so the following
 * item's id is kept too.
 */
export interface ResponsesReasoningState {
  id: string;
  encryptedContent?: string;
  following?: FollowingItem;
}

/** Marks a signature this adapter wrote (Anthropic signatures are base64 and never start with `{`). */
const SIGNATURE_TYPE = "openai.responses.reasoning";

/** Encode reasoning state as a reasoning block signature (compact JSON text). */
export function encodeReasoningSignature(state: ResponsesReasoningState): string {
  const value: JsonObject = { type: SIGNATURE_TYPE, id: state.id };
  if (state.encryptedContent !== undefined) value.encrypted_content = state.encryptedContent;
  if (state.following !== undefined) {
    const following: JsonObject = { type: state.following.type, id: state.following.id };
    if (state.following.callId !== undefined) following.call_id = state.following.callId;
    value.following = following;
  }
  return JSON.stringify(value);
}

/**
 * Decode a reasoning block signature written by {@link encodeReasoningSignature}; `undefined`
 * for any other signature (another provider's, or none), which the adapter then does not send.
 */
export function decodeReasoningSignature(signature: string | undefined): ResponsesReasoningState | undefined {
  if (signature === undefined || !signature.startsWith("{")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(signature);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value) || value.type !== SIGNATURE_TYPE || typeof value.id !== "string") return undefined;
  const state: ResponsesReasoningState = { id: value.id };
  if (typeof value.encrypted_content === "string") state.encryptedContent = value.encrypted_content;
  const following = value.following;
  if (
    isJsonObject(following) &&
    (following.type === "message" || following.type === "function_call") &&
    typeof following.id === "string"
  ) {
    state.following = { type: following.type, id: following.id };
    if (typeof following.call_id === "string") state.following.callId = following.call_id;
  }
  return state;
}

/** True when `signature` was written by this adapter (other adapters skip such reasoning). */
export function isResponsesReasoningSignature(signature: string | undefined): boolean {
  return decodeReasoningSignature(signature) !== undefined;
}
