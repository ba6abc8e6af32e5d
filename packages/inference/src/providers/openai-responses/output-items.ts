import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import type { FollowingItem } from "../../message/reasoning-signature.js";

/** The text of a reasoning item: its `content` reasoning text, then its summary parts, joined by a blank line. */
export function reasoningItemText(item: JsonObject): string {
  return [...partTexts(item.content, "reasoning_text"), ...partTexts(item.summary, "summary_text")].join(
    "\n\n",
  );
}

/** The texts of a message item's `output_text` parts and refusals, and whether it refused. */
export function messageItemText(item: JsonObject): { text: string; refused: boolean } {
  let text = "";
  let refused = false;
  if (Array.isArray(item.content)) {
    for (const part of item.content) {
      if (!isJsonObject(part)) continue;
      if (part.type === "output_text" && typeof part.text === "string") text += part.text;
      else if (part.type === "refusal" && typeof part.refusal === "string") {
        text += part.refusal;
        refused = true;
      }
    }
  }
  return { text, refused };
}

/** The item a reasoning item's state should point at, when `item` can follow one. */
export function followingItemOf(item: JsonValue | undefined): FollowingItem | undefined {
  if (!isJsonObject(item) || typeof item.id !== "string") return undefined;
  if (item.type === "message") return { type: "message", id: item.id };
  if (item.type === "function_call") {
    const following: FollowingItem = { type: "function_call", id: item.id };
    if (typeof item.call_id === "string") following.callId = item.call_id;
    return following;
  }
  return undefined;
}

function partTexts(parts: JsonValue | undefined, type: string): string[] {
  if (!Array.isArray(parts)) return [];
  const out: string[] = [];
  for (const part of parts) {
    if (isJsonObject(part) && part.type === type && typeof part.text === "string") out.push(part.text);
  }
  return out;
}
