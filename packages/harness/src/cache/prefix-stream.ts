import type { CacheSegmentRole, Message, ToolSchema } from "@tinyagents/inference";
import { canonicalJson } from "./canonical-json.js";
import { messageDigest, toolsDigest } from "./digest.js";
import { createSha256, type Sha256 } from "./sha256.js";

/** Version tag hashed first: bump it when the canonical stream below changes. */
export const PROMPT_PREFIX_VERSION = "tinyagents.prompt-prefix.v1";

/**
 * The canonical byte stream of a cacheable prompt prefix, hashed with SHA-256 as it is written.
 * The stream is, line by line (`\n`-terminated):
 *
 * ```
 * tinyagents.prompt-prefix.v1
 * tools <sha256 of the canonical JSON of the tool declaration list>
 * segment {"id":"system","role":"system"}
 * <sha256 of the canonical JSON of each message of the segment, one per line>
 * segment {"id":"history","role":"history"}
 * ...
 * ```
 *
 * A message is written as the digest of its canonical JSON (keys sorted, see `canonicalJson`),
 * so the stream is short and each message is serialized once (digests are memoized per message
 * object). Segment headers carry no message count: the stream of a prefix cut after message k is
 * exactly the stream of the shorter request, which is what lets a grown transcript be checked
 * against its predecessor's fingerprint.
 *
 * `copy()` forks the running state (O(1)); `digest()` reads the hex fingerprint without ending
 * the stream. This is how the loop keeps fingerprinting O(new messages) per turn.
 */
export class PrefixStream {
  private readonly hash: Sha256;
  private readonly trace: PrefixLine[] | undefined;
  private segmentId = "";

  private constructor(hash: Sha256, trace: PrefixLine[] | undefined) {
    this.hash = hash;
    this.trace = trace;
  }

  /** A stream holding only the version line; with `trace`, every line written is also recorded. */
  static start(trace?: PrefixLine[]): PrefixStream {
    return new PrefixStream(createSha256().update(`${PROMPT_PREFIX_VERSION}\n`), trace);
  }

  /** Write the tool declaration list (nothing for an empty list). */
  tools(tools: readonly ToolSchema[]): this {
    if (tools.length > 0) this.line("tools", "tools", `tools ${toolsDigest(tools)}`);
    return this;
  }

  /** Write a segment header. */
  segment(id: string, role: CacheSegmentRole): this {
    this.segmentId = id;
    this.line("segment", id, `segment ${canonicalJson({ id, role })}`);
    return this;
  }

  /** Write one message (its memoized digest). */
  message(message: Message): this {
    this.line("message", this.segmentId, messageDigest(message));
    return this;
  }

  /** Write a precomputed message digest (for content that must not be memoized). */
  messageDigest(digest: string): this {
    this.line("message", this.segmentId, digest);
    return this;
  }

  /** An independent copy of the running state (the trace is not copied). */
  copy(): PrefixStream {
    const copy = new PrefixStream(this.hash.copy(), undefined);
    copy.segmentId = this.segmentId;
    return copy;
  }

  /** The SHA-256 hex fingerprint of what was written so far (the stream stays writable). */
  digest(): string {
    return this.hash.hex();
  }

  private line(kind: PrefixLine["kind"], segment: string, text: string): void {
    this.hash.update(`${text}\n`);
    this.trace?.push({ kind, segment, text });
  }
}

/** One line of the canonical prefix stream, as recorded by a traced {@link PrefixStream}. */
export interface PrefixLine {
  kind: "tools" | "segment" | "message";
  /** The segment the line belongs to (`tools` for the tool list). */
  segment: string;
  /** The line's text without its newline. */
  text: string;
}
