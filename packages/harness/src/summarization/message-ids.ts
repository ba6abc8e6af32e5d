import type { Message } from "@tinyagents/inference";
import { messageDigest } from "../cache/digest.js";

/**
 * The stable id of a message at `position` of the message list it sits in (a request's
 * `messages`, or a transcript): `"<position>:<first 12 hex of its content digest>"`, for example
 * `"4:9f2c1a7be03d"`. Messages carry no ids of their own; this one is
 * - stable: the loop's transcript only grows and its requests keep their stable segments, so the
 *   same message has the same id on every turn of a run and in its journal;
 * - content-checked: an edited message gets a different id (the digest is of its canonical JSON).
 * Computing it is cheap: the digest is memoized per message object.
 */
export function messageId(message: Message, position: number): string {
  return `${position}:${messageDigest(message).slice(0, 12)}`;
}

/** {@link messageId} of `messages[start..end)`, with positions offset by `base` (default: the index). */
export function messageIds(
  messages: readonly Message[],
  start = 0,
  end = messages.length,
  base = 0,
): string[] {
  const ids: string[] = [];
  for (let i = start; i < end; i++) ids.push(messageId(messages[i] as Message, base + i));
  return ids;
}
