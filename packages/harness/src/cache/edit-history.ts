import type { CacheSegment, Message, ModelRequest } from "@tinyagents/inference";
import { promptFingerprint } from "./prompt-fingerprint.js";
import { defineLazyFingerprint } from "./run-prefix-hasher.js";

/** A half-open range of `request.messages`. */
export interface MessageRange {
  start: number;
  end: number;
}

/**
 * Where the conversation history sits in `request.messages` — what trimming and compression may
 * rewrite. With `cacheSegments`: from the first to the last segment whose role is `history`
 * (an empty range after the stable segments when there is none). Without: everything after the
 * leading system messages.
 */
export function historyRange(request: ModelRequest): MessageRange {
  const messages = request.messages;
  const segments = request.cacheSegments;
  if (segments !== undefined && segments.length > 0) {
    let offset = 0;
    let start = -1;
    let end = -1;
    let stableEnd = 0;
    for (const segment of segments) {
      const next = Math.min(offset + Math.max(0, segment.messageCount), messages.length);
      if (segment.role === "history") {
        if (start < 0) start = offset;
        end = next;
      } else if (start < 0 && segment.role !== "volatile") stableEnd = next;
      offset = next;
    }
    return start < 0 ? { start: stableEnd, end: stableEnd } : { start, end };
  }
  let start = 0;
  while (start < messages.length && messages[start]?.role === "system") start++;
  return { start, end: messages.length };
}

/** The history messages of `request` (a slice; the messages are shared). */
export function historyOf(request: ModelRequest): Message[] {
  const range = historyRange(request);
  return request.messages.slice(range.start, range.end);
}

/**
 * A copy of `request` whose history (see {@link historyRange}) is `history`, with
 * `cacheSegments` kept consistent: the first history segment takes the new message count, any
 * later history segments become empty, every other segment is unchanged. The copy's
 * `promptFingerprint` is recomputed on first read. `request` itself is not modified.
 *
 * This is how compression middleware edit a request: the cacheable layout stays truthful, so
 * the prompt-prefix guard and providers' cache breakpoints see exactly what changed.
 */
export function replaceHistory(request: ModelRequest, history: readonly Message[]): ModelRequest {
  const range = historyRange(request);
  const messages = request.messages;
  const copy = shallowCopy(request);
  copy.messages = [...messages.slice(0, range.start), ...history, ...messages.slice(range.end)];
  const segments = request.cacheSegments;
  if (segments !== undefined && segments.length > 0) {
    let first = true;
    copy.cacheSegments = segments.map((segment): CacheSegment => {
      if (segment.role !== "history") return segment;
      const messageCount = first ? history.length : 0;
      first = false;
      return { ...segment, messageCount };
    });
    if (first) {
      // No history segment: the history lived in the uncovered tail; nothing to adjust.
      copy.cacheSegments = segments.slice();
    }
  }
  if (Object.hasOwn(request, "promptFingerprint")) defineLazyFingerprint(copy, () => promptFingerprint(copy));
  return copy;
}

/**
 * A shallow copy of a request that does NOT read `promptFingerprint` (a loop request computes it
 * lazily; copying it would compute a value about to be stale). Other fields are shared.
 */
export function shallowCopy(request: ModelRequest): ModelRequest {
  const copy = { messages: request.messages } as ModelRequest;
  for (const key of Object.keys(request) as (keyof ModelRequest)[]) {
    if (key === "promptFingerprint" || key === "messages") continue;
    (copy as unknown as Record<string, unknown>)[key] = request[key];
  }
  return copy;
}

/**
 * Give `to` the `promptFingerprint` of `from` without computing it: a lazily computed one stays
 * lazy. Use when `to` has the same cacheable prefix as `from` (only the tail or options differ).
 */
export function copyFingerprint(from: ModelRequest, to: ModelRequest): void {
  const descriptor = Object.getOwnPropertyDescriptor(from, "promptFingerprint");
  if (descriptor === undefined) return;
  if ("value" in descriptor) to.promptFingerprint = descriptor.value as string;
  else defineLazyFingerprint(to, () => from.promptFingerprint as string);
}
