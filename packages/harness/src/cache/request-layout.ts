import type { CacheSegmentRole, Message, ModelRequest } from "@tinyagents/inference";

/** One segment of a request's layout, with its message range resolved. */
export interface LaidOutSegment {
  id: string;
  role: CacheSegmentRole;
  cacheable: boolean;
  /** Index in `request.messages` of the segment's first message. */
  start: number;
  /** One past its last message (`start` for a segment without messages, like `tools`). */
  end: number;
  /**
   * Part of the cacheable prefix: cacheable AND no non-cacheable segment before it (a stable
   * segment after a volatile one cannot be reused by a provider's prefix cache).
   */
  inPrefix: boolean;
}

/**
 * Resolve how `request` is laid out for prompt caching.
 *
 * - With `cacheSegments`: the segments tile `messages` in order (counts are clamped to the
 *   messages there are); messages left over after the last segment form an implicit
 *   non-cacheable `tail` segment (what a middleware appended at the end).
 * - Without: a `tools` segment when there are tool declarations, the leading system messages as
 *   `system`, everything after them up to (not including) the LAST user message as `history`,
 *   and the rest (the current turn) as a non-cacheable `tail`.
 *
 * Empty message segments are kept (they hash to nothing). O(segments), plus a scan for the last
 * user message when the request has no segments.
 */
export function layoutSegments(request: ModelRequest): LaidOutSegment[] {
  const messages = request.messages;
  const out: LaidOutSegment[] = [];
  let volatileSeen = false;
  const push = (id: string, role: CacheSegmentRole, cacheable: boolean, start: number, end: number) => {
    const inPrefix = cacheable && !volatileSeen;
    if (!cacheable) volatileSeen = true;
    out.push({ id, role, cacheable, start, end, inPrefix });
  };
  const segments = request.cacheSegments;
  if (segments !== undefined && segments.length > 0) {
    let start = 0;
    for (const segment of segments) {
      const end = Math.min(start + Math.max(0, segment.messageCount), messages.length);
      push(segment.id, segment.role, segment.cacheable, start, end);
      start = end;
    }
    if (start < messages.length) push("tail", "volatile", false, start, messages.length);
    return out;
  }
  if (request.tools !== undefined && request.tools.length > 0) push("tools", "tools", true, 0, 0);
  let systemEnd = 0;
  while (systemEnd < messages.length && messages[systemEnd]?.role === "system") systemEnd++;
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]?.role !== "user") lastUser--;
  const historyEnd = Math.max(systemEnd, lastUser);
  if (systemEnd > 0) push("system", "system", true, 0, systemEnd);
  if (historyEnd > systemEnd) push("history", "history", true, systemEnd, historyEnd);
  if (historyEnd < messages.length) push("tail", "volatile", false, historyEnd, messages.length);
  return out;
}

/** The messages of `segment` (a slice; messages are shared, not copied). */
export function segmentMessages(request: ModelRequest, segment: LaidOutSegment): Message[] {
  return request.messages.slice(segment.start, segment.end);
}
