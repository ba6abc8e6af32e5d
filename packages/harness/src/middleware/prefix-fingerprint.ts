import type { Message, ModelRequest, ToolSchema } from "@tinyagents/inference";

/**
 * A cheap fingerprint of a request's cacheable prompt prefix, used by the middleware stack to
 * notice a `beforeModel` hook that changed it (`cache.layout_changed`, `protectPromptPrefix`).
 *
 * Stand-in for the prompt segment model: replace this file when that lands; the stack only
 * needs `prefixLayout` and `prefixChange`.
 *
 * What counts as the cacheable prefix:
 * - the tool declarations (`request.tools`), part id `"tools"`;
 * - with `request.cacheSegments`: the messages of every segment marked `cacheable`, one part per
 *   segment (part id = segment id);
 * - without segments: the leading system messages (part `"system"`) and everything after them
 *   up to, not including, the last user message (part `"history"`). Messages from the last user
 *   turn on — the tool loop of the current run, a note appended at the end — are the volatile tail.
 *
 * Cost: one pass over the prefix's JSON text (a run's own turns are in the tail, so this does not
 * grow with the steps of a run). Frozen tool arrays (the registry's) are hashed once.
 */
export interface PrefixLayout {
  /** One hash over every part: the value reported as `before` / `after`. */
  fingerprint: string;
  parts: PrefixPart[];
}

/** One named part of the cacheable prefix. */
export interface PrefixPart {
  id: string;
  hash: string;
}

/** How the prefix changed: the first part that differs (if one can be named) and both fingerprints. */
export interface PrefixChange {
  segment?: string;
  before: string;
  after: string;
}

/** The cacheable prefix of `request`, as hashed parts. */
export function prefixLayout(request: ModelRequest): PrefixLayout {
  const parts: PrefixPart[] = [];
  const tools = request.tools;
  if (tools !== undefined && tools.length > 0) parts.push({ id: "tools", hash: toolsHash(tools) });
  const messages = request.messages;
  const segments = request.cacheSegments;
  if (segments !== undefined && segments.length > 0) {
    let start = 0;
    for (const segment of segments) {
      const end = Math.min(start + Math.max(0, segment.messageCount), messages.length);
      if (segment.cacheable) parts.push({ id: segment.id, hash: messagesHash(messages, start, end) });
      start = end;
    }
  } else {
    let systemEnd = 0;
    while (systemEnd < messages.length && messages[systemEnd]?.role === "system") systemEnd++;
    let lastUser = messages.length - 1;
    while (lastUser >= 0 && messages[lastUser]?.role !== "user") lastUser--;
    if (systemEnd > 0) parts.push({ id: "system", hash: messagesHash(messages, 0, systemEnd) });
    if (lastUser > systemEnd)
      parts.push({ id: "history", hash: messagesHash(messages, systemEnd, lastUser) });
  }
  const all = new Hasher();
  for (const part of parts) all.update(`${part.id}=${part.hash};`);
  return { fingerprint: all.digest(), parts };
}

/** The change from `before` to `after`, or `undefined` when the prefix is the same. */
export function prefixChange(before: PrefixLayout, after: PrefixLayout): PrefixChange | undefined {
  if (before.fingerprint === after.fingerprint) return undefined;
  const segment = firstDifferentPart(before.parts, after.parts);
  return {
    ...(segment === undefined ? {} : { segment }),
    before: before.fingerprint,
    after: after.fingerprint,
  };
}

/** The first part, in prefix order, that changed, disappeared or appeared. */
function firstDifferentPart(before: PrefixPart[], after: PrefixPart[]): string | undefined {
  const now = new Map(after.map((p) => [p.id, p.hash]));
  for (const part of before) {
    if (now.get(part.id) !== part.hash) return part.id;
  }
  const old = new Set(before.map((p) => p.id));
  return after.find((part) => !old.has(part.id))?.id;
}

const frozenToolHashes = new WeakMap<readonly ToolSchema[], string>();

function toolsHash(tools: readonly ToolSchema[]): string {
  const frozen = Object.isFrozen(tools);
  if (frozen) {
    const known = frozenToolHashes.get(tools);
    if (known !== undefined) return known;
  }
  const hasher = new Hasher();
  for (const tool of tools) hasher.update(JSON.stringify(tool));
  const hash = hasher.digest();
  if (frozen) frozenToolHashes.set(tools, hash);
  return hash;
}

function messagesHash(messages: readonly Message[], start: number, end: number): string {
  const hasher = new Hasher();
  for (let i = start; i < end; i++) hasher.update(JSON.stringify(messages[i]));
  return hasher.digest();
}

/** A 53-bit streaming string hash (cyrb53); each `update` is separated from the next. */
class Hasher {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

  update(text: string): void {
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    // A separator so ["ab", "c"] and ["a", "bc"] differ.
    this.h1 = Math.imul(h1 ^ 0x1f, 2654435761);
    this.h2 = Math.imul(h2 ^ 0x1f, 1597334677);
  }

  digest(): string {
    let h1 = this.h1;
    let h2 = this.h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
  }
}
