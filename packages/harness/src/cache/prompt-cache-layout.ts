import type { ModelRequest } from "@tinyagents/inference";
import type { PrefixLine } from "./prefix-stream.js";
import { writePromptPrefix } from "./prompt-fingerprint.js";
import { type LaidOutSegment, layoutSegments } from "./request-layout.js";

/** Where and why a later request stopped sharing an earlier request's cacheable prefix. */
export interface PrefixBreak {
  /** The segment whose content (or presence) differs: `tools`, `system`, `history`, ... */
  segment: string;
  /** Index of the first differing message within that segment's prefix messages, when a message differs. */
  messageIndex?: number;
  /** A sentence saying what changed. */
  reason: string;
}

/** The outcome of {@link PromptCacheLayout.compare}. */
export interface PrefixComparison {
  /** Every line of the earlier prefix is, in order, the start of the later prefix. */
  preserved: boolean;
  /** Set when not preserved. */
  break?: PrefixBreak;
}

/**
 * The provider prompt-cache (KV-cache) layout of one request: its segments, which of them form
 * the cacheable prefix, and the prefix's canonical fingerprint.
 *
 * - `fingerprint` is `promptFingerprint(request)`: SHA-256 of the canonical prefix stream.
 * - `stableFingerprint` covers only what precedes the first `history` segment (system, tools,
 *   instructions): it stays equal across the turns of a conversation and is the natural
 *   provider routing key ({@link promptCacheKey}).
 * - {@link compare} says whether a later request preserves this prefix (a provider can reuse
 *   its cache) and, if not, which segment broke it.
 *
 * Built with O(prefix messages) digest lookups (messages are hashed once per object). A
 * diagnostic and testing tool: the loop itself fingerprints incrementally.
 */
export class PromptCacheLayout {
  readonly segments: readonly LaidOutSegment[];
  readonly fingerprint: string;
  readonly stableFingerprint: string;
  /** How many messages the cacheable prefix holds. */
  readonly prefixMessageCount: number;
  /** The canonical prefix stream, line by line (what the fingerprint hashes). */
  readonly lines: readonly PrefixLine[];

  private constructor(
    segments: LaidOutSegment[],
    fingerprint: string,
    stable: string,
    count: number,
    lines: PrefixLine[],
  ) {
    this.segments = segments;
    this.fingerprint = fingerprint;
    this.stableFingerprint = stable;
    this.prefixMessageCount = count;
    this.lines = lines;
  }

  /** The layout of `request` (see `layoutSegments` for requests without `cacheSegments`). */
  static fromRequest(request: ModelRequest): PromptCacheLayout {
    const segments = layoutSegments(request);
    const lines: PrefixLine[] = [];
    const written = writePromptPrefix(request, { segments, trace: lines });
    return new PromptCacheLayout(
      segments,
      written.stream.digest(),
      written.stableFingerprint,
      written.prefixMessages,
      lines,
    );
  }

  /** Ids of the segments in the cacheable prefix, in order. */
  prefixIds(): string[] {
    return this.segments.filter((s) => s.inPrefix).map((s) => s.id);
  }

  /**
   * Does `later` preserve this prefix — is this request's canonical prefix, line for line, the
   * start of `later`'s? True for an identical prefix and for one that only grew at its end
   * (a transcript that gained turns). Otherwise `break` names the first segment that differs.
   */
  compare(later: PromptCacheLayout): PrefixComparison {
    const mine = this.lines;
    const theirs = later.lines;
    let messageIndex = 0;
    let segment = "";
    for (let i = 0; i < mine.length; i++) {
      const line = mine[i] as PrefixLine;
      if (line.kind === "segment") {
        segment = line.segment;
        messageIndex = 0;
      }
      const other = theirs[i];
      if (other === undefined) {
        return {
          preserved: false,
          break: {
            segment: line.segment,
            reason: `segment "${line.segment}" is shorter or missing in the later request`,
          },
        };
      }
      if (other.text !== line.text) {
        return { preserved: false, break: describe(line, other, segment, messageIndex) };
      }
      if (line.kind === "message") messageIndex++;
    }
    return { preserved: true };
  }

  /** `compare(later).preserved`. */
  isPrefixStableAgainst(later: PromptCacheLayout): boolean {
    return this.compare(later).preserved;
  }
}

function describe(line: PrefixLine, other: PrefixLine, segment: string, messageIndex: number): PrefixBreak {
  if (line.kind === "tools" || other.kind === "tools") {
    return { segment: "tools", reason: "the tool declarations differ (added, removed, reordered or edited)" };
  }
  if (line.kind === "segment" && other.kind === "segment") {
    return {
      segment: line.segment,
      reason: `segment "${line.segment}" was replaced by "${other.segment}" (different order, id or role)`,
    };
  }
  if (line.kind === "segment") {
    return {
      segment: other.segment,
      reason: `segment "${other.segment}" holds more messages where segment "${line.segment}" began`,
    };
  }
  if (other.kind === "segment") {
    return {
      segment,
      messageIndex,
      reason: `segment "${segment}" ends after ${messageIndex} message(s) in the later request (messages removed)`,
    };
  }
  return {
    segment,
    messageIndex,
    reason: `message ${messageIndex} of segment "${segment}" differs (edited, replaced or removed)`,
  };
}

/**
 * A provider routing key for the request's stable prefix (`tap-` + 32 hex characters of the
 * stable fingerprint): the same for every turn of a conversation with the same system prompt
 * and tools. Put it in `ModelRequest.promptCache.key` (OpenAI-compatible `prompt_cache_key`).
 */
export function promptCacheKey(request: ModelRequest | PromptCacheLayout): string {
  const layout = request instanceof PromptCacheLayout ? request : PromptCacheLayout.fromRequest(request);
  return `tap-${layout.stableFingerprint.slice(0, 32)}`;
}
