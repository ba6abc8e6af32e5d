import type { ModelRequest } from "@tinyagents/inference";
import { type PrefixLine, PrefixStream } from "./prefix-stream.js";
import { type LaidOutSegment, layoutSegments } from "./request-layout.js";

/** What {@link writePromptPrefix} produced besides the stream. */
export interface PrefixWriteResult {
  stream: PrefixStream;
  /** The fingerprint of the stable part: everything before the first `history` segment. */
  stableFingerprint: string;
  /** How many messages the (possibly cut) prefix holds. */
  prefixMessages: number;
}

/**
 * Write the canonical cacheable prefix of `request` (see `PrefixStream` for the format):
 * tool declarations at the position of the `tools` segment (first, when the request has no
 * segments), then each in-prefix segment with its messages, stopping at the first non-cacheable
 * segment. Segments contribute their header only when they contribute at least one message, so
 * empty segments do not change the fingerprint. `maxMessages` cuts the prefix after that many
 * messages (used to compare a grown request with its predecessor).
 */
export function writePromptPrefix(
  request: ModelRequest,
  options: {
    maxMessages?: number;
    segments?: LaidOutSegment[];
    trace?: PrefixLine[];
    /** Stop at the first `history` segment: only `stableFingerprint` is wanted (no history hashed). */
    stableOnly?: boolean;
  } = {},
): PrefixWriteResult {
  const stream = PrefixStream.start(options.trace);
  const segments = options.segments ?? layoutSegments(request);
  let budget = options.maxMessages ?? Number.POSITIVE_INFINITY;
  let stableFingerprint: string | undefined;
  let prefixMessages = 0;
  let toolsWritten = false;
  const tools = request.tools ?? [];
  const hasToolsSegment = segments.some((s) => s.role === "tools" && s.inPrefix);
  if (!hasToolsSegment) {
    stream.tools(tools);
    toolsWritten = true;
  }
  for (const segment of segments) {
    if (!segment.inPrefix) break;
    if (segment.role === "tools" && !toolsWritten) {
      stream.tools(tools);
      toolsWritten = true;
    }
    if (segment.role === "history" && stableFingerprint === undefined) {
      stableFingerprint = stream.digest();
      if (options.stableOnly === true) break;
    }
    const count = Math.min(segment.end - segment.start, budget);
    if (count <= 0) continue;
    stream.segment(segment.id, segment.role);
    for (let i = segment.start; i < segment.start + count; i++) {
      const message = request.messages[i];
      if (message !== undefined) stream.message(message);
    }
    budget -= count;
    prefixMessages += count;
  }
  return { stream, stableFingerprint: stableFingerprint ?? stream.digest(), prefixMessages };
}

/**
 * The prompt fingerprint of `request`: SHA-256 (hex) of the canonical serialization of its
 * cacheable prefix — tool declarations and the messages of the cacheable segments, with stable
 * key order (see `PrefixStream`). Equal fingerprints mean a byte-identical cacheable prefix.
 * This is the value the loop and `PromptBuilder` put in `ModelRequest.promptFingerprint`.
 *
 * Cost: O(prefix messages) digest lookups; each message is serialized once per object.
 */
export function promptFingerprint(request: ModelRequest, options: { maxMessages?: number } = {}): string {
  return writePromptPrefix(request, options).stream.digest();
}

/**
 * The fingerprint of the stable part of `request`'s cacheable prefix: everything before its first
 * `history` segment (tools, system, instructions), as `writePromptPrefix(request).stableFingerprint`
 * — without hashing the history, so its cost does not grow with the transcript.
 */
export function stablePrefixFingerprint(request: ModelRequest): string {
  return writePromptPrefix(request, { stableOnly: true }).stableFingerprint;
}
