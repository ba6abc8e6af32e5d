import { validationError } from "../../errors/tinyagents-error.js";
import type { CacheSegment, CacheTtl, PromptCachePolicy } from "../../model/model-request.js";
import type { AnthropicCacheableBlock } from "./map-messages.js";
import type { AnthropicMessageParam, AnthropicTextBlock } from "./wire-types.js";

/** The API rejects a request with more than this many `cache_control` markers. */
export const ANTHROPIC_MAX_CACHE_BREAKPOINTS = 4;

/** Where breakpoints can go: the mapped body plus the per-message cache targets. */
export interface AnthropicCacheLayout {
  tools: readonly AnthropicCacheableBlock[];
  system: readonly AnthropicTextBlock[];
  messages: readonly AnthropicMessageParam[];
  /** Per neutral message, the last block that may carry `cache_control` (see `toAnthropicMessages`). */
  cacheTargets: ReadonlyArray<AnthropicCacheableBlock | undefined>;
}

/**
 * Place `cache_control` breakpoints on the mapped body (mutating its blocks) and return how many
 * were placed.
 *
 * - `promptCache.enabled === false` -> none.
 * - With `cacheSegments`: segments tile the messages in order; walking them from the start, every
 *   cacheable segment gets one breakpoint at the END of its content (the last tool for a `tools`
 *   segment, else the last markable block of its last message that produced one), stopping at
 *   the first volatile or non-cacheable segment (anything after it is not a stable prefix).
 * - Without segments but with `promptCache.enabled === true` -> one breakpoint at the end of the
 *   system prompt, or on the last tool when there is no system prompt.
 * - At most {@link ANTHROPIC_MAX_CACHE_BREAKPOINTS}: candidates are ordered by prefix position (tools ->
 *   system -> messages); when there are more, the first three (the most stable prefixes) and the
 *   last (the longest prefix) are kept.
 * - TTL per breakpoint: the segment's own `ttl`, else `"1h"` when `promptCache.retention ===
 *   "long"`, else five minutes. `"1h"` marks `{type:"ephemeral", ttl:"1h"}`, five minutes
 *   `{type:"ephemeral"}` (the API default). A `"1h"` breakpoint after a five-minute one in
 *   prefix order is rejected by the API, so it throws a `validation` error naming the segments.
 */
export function placeAnthropicCacheBreakpoints(
  layout: AnthropicCacheLayout,
  segments: readonly CacheSegment[] | undefined,
  policy: PromptCachePolicy | undefined,
): number {
  if (policy?.enabled === false) return 0;
  const fallbackTtl: CacheTtl = policy?.retention === "long" ? "1h" : "5m";
  /** Each candidate block with its TTL and the segment that asked for it. */
  const candidates = new Map<AnthropicCacheableBlock, { ttl: CacheTtl; segment: string }>();
  if (segments !== undefined && segments.length > 0) {
    let offset = 0;
    for (const segment of segments) {
      if (!segment.cacheable || segment.role === "volatile") break;
      const mark = { ttl: segment.ttl ?? fallbackTtl, segment: segment.id };
      const end = Math.min(offset + segment.messageCount, layout.cacheTargets.length);
      if (segment.role === "tools") addIfDefined(candidates, layout.tools[layout.tools.length - 1], mark);
      for (let i = end - 1; i >= offset; i--) {
        const target = layout.cacheTargets[i];
        if (target !== undefined) {
          candidates.set(target, mark);
          break;
        }
      }
      offset = end;
    }
  } else if (policy?.enabled === true) {
    addIfDefined(
      candidates,
      layout.system[layout.system.length - 1] ?? layout.tools[layout.tools.length - 1],
      {
        ttl: fallbackTtl,
        segment: "system",
      },
    );
  }
  const chosen = choose(orderByPrefix(layout, candidates));
  let shortSeen: string | undefined;
  for (const block of chosen) {
    const { ttl, segment } = candidates.get(block)!;
    if (ttl === "5m") shortSeen ??= segment;
    else if (shortSeen !== undefined) {
      throw validationError(
        `cache segment "${segment}" asks for a 1h prompt-cache TTL after segment "${shortSeen}" with 5m; Anthropic requires 1h breakpoints before 5m ones: give the earlier segments ttl "1h" (or this one "5m")`,
        { field: "cacheSegments", segment, after: shortSeen },
      );
    }
    block.cache_control = ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  }
  return chosen.length;
}

function addIfDefined<V>(
  map: Map<AnthropicCacheableBlock, V>,
  block: AnthropicCacheableBlock | undefined,
  value: V,
): void {
  if (block !== undefined) map.set(block, value);
}

function orderByPrefix(
  layout: AnthropicCacheLayout,
  candidates: ReadonlyMap<AnthropicCacheableBlock, unknown>,
): AnthropicCacheableBlock[] {
  if (candidates.size <= 1) return [...candidates.keys()];
  const ordered: AnthropicCacheableBlock[] = [];
  const visit = (block: object) => {
    if (candidates.has(block as AnthropicCacheableBlock)) ordered.push(block as AnthropicCacheableBlock);
  };
  layout.tools.forEach(visit);
  layout.system.forEach(visit);
  for (const message of layout.messages) message.content.forEach(visit);
  return ordered;
}

function choose(ordered: AnthropicCacheableBlock[]): AnthropicCacheableBlock[] {
  if (ordered.length <= ANTHROPIC_MAX_CACHE_BREAKPOINTS) return ordered;
  return [...ordered.slice(0, ANTHROPIC_MAX_CACHE_BREAKPOINTS - 1), ordered[ordered.length - 1]!];
}
