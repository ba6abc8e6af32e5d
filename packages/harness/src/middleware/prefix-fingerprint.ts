import type { CacheSegmentRole, Message, ModelRequest, ToolSchema } from "@tinyagents/inference";
import { freshMessageDigest, messageDigest, toolsDigest } from "../cache/digest.js";
import { PrefixStream } from "../cache/prefix-stream.js";
import { layoutSegments } from "../cache/request-layout.js";

/**
 * Snapshots of a request's cacheable prompt prefix, used by the middleware stack to notice a
 * `beforeModel` hook that changed it (`cache.layout_changed`, `protectPromptPrefix`). Built on
 * the prompt segment model of `cache/`: the parts are the in-prefix segments of
 * `layoutSegments(request)` (`tools`, `system`, `history`, ... — see there for requests without
 * `cacheSegments`), and `fingerprint` is the canonical `promptFingerprint` of the prefix, the same
 * value the loop puts in `ModelRequest.promptFingerprint`.
 *
 * Cost per snapshot, which is what keeps the guard O(1) amortized in transcript length:
 * - tool declarations: nothing for the registry's frozen list (hashed once), a hash otherwise;
 * - stable segments (system, instructions): their messages are hashed from their CURRENT content,
 *   so in-place edits are seen — O(size of those segments), independent of the transcript;
 * - history segments: message references only (a pointer copy). History messages are shared with
 *   the run's transcript and must be replaced, not mutated in place (a hook that mutates one in
 *   place also rewrites the run's transcript); replacing one is detected.
 * Fingerprints are computed only when a change is found (per-message digests are memoized).
 */
export interface PrefixLayout {
  /** The canonical prompt fingerprint of the prefix (computed on first read). */
  readonly fingerprint: string;
  readonly parts: readonly PrefixPart[];
}

/** One named part of the cacheable prefix. */
export interface PrefixPart {
  readonly id: string;
  /** A digest of the part's content (computed on first read). */
  readonly hash: string;
}

/** How the prefix changed: the first part that differs (if one can be named) and both fingerprints. */
export interface PrefixChange {
  segment?: string;
  before: string;
  after: string;
}

/**
 * The latest snapshot, kept reachable on purpose: a live instance keeps V8's hidden class of
 * `Snapshot` (and the optimized code that checks for it) alive between bursts of runs — the
 * reason the loop keeps its shape anchors (agent-loop/shape-anchors.ts), held here because
 * middleware sit below the loop.
 */
const anchor: { snapshot: Snapshot | undefined } = { snapshot: undefined };

/** A snapshot of the cacheable prefix of `request`, as it is now. */
export function prefixLayout(request: ModelRequest): PrefixLayout {
  const parts: SnapshotPart[] = [];
  const tools = request.tools ?? [];
  let toolsPart: SnapshotPart | undefined;
  const addTools = () => {
    if (toolsPart !== undefined || tools.length === 0) return;
    toolsPart = new ToolsPart(tools);
    parts.push(toolsPart);
  };
  const segments = layoutSegments(request);
  if (!segments.some((s) => s.role === "tools" && s.inPrefix)) addTools();
  for (const segment of segments) {
    if (!segment.inPrefix) break;
    if (segment.role === "tools") addTools();
    // A segment without messages contributes nothing to the prefix.
    if (segment.end === segment.start) continue;
    const messages = request.messages.slice(segment.start, segment.end);
    parts.push(
      segment.role === "history"
        ? new HistoryPart(segment.id, segment.role, messages)
        : new ContentPart(segment.id, segment.role, messages),
    );
  }
  const snapshot = new Snapshot(parts);
  anchor.snapshot = snapshot;
  return snapshot;
}

/** The change from `before` to `after`, or `undefined` when the prefix is the same. */
export function prefixChange(before: PrefixLayout, after: PrefixLayout): PrefixChange | undefined {
  const segment = firstDifferentPart(before, after);
  if (segment === null) return undefined;
  return {
    ...(segment === undefined ? {} : { segment }),
    before: before.fingerprint,
    after: after.fingerprint,
  };
}

/**
 * The first part, in prefix order, that changed, disappeared or appeared; `null` when nothing
 * changed; `undefined` when something changed that no single part explains (parts reordered).
 */
function firstDifferentPart(before: PrefixLayout, after: PrefixLayout): string | undefined | null {
  if (before instanceof Snapshot && after instanceof Snapshot) {
    // The usual case (a hook left the prefix alone): the same parts in the same order, all
    // equal. Answered without the maps and order strings the general comparison builds.
    if (sameParts(before.parts, after.parts)) return null;
    const now = new Map(after.parts.map((p) => [p.id, p]));
    for (const part of before.parts) {
      const other = now.get(part.id);
      if (other === undefined || !part.equals(other)) return part.id;
    }
    const old = new Set(before.parts.map((p) => p.id));
    const appeared = after.parts.find((part) => !old.has(part.id) && !part.empty);
    if (appeared !== undefined) return appeared.id;
    const order = (s: Snapshot) =>
      s.parts
        .filter((p) => !p.empty)
        .map((p) => p.id)
        .join("\u0000");
    return order(before) === order(after) ? null : undefined;
  }
  if (before.fingerprint === after.fingerprint) return null;
  const old = new Map(before.parts.map((p) => [p.id, p.hash]));
  for (const part of after.parts) if (old.get(part.id) !== part.hash) return part.id;
  return before.parts.find((p) => !after.parts.some((q) => q.id === p.id))?.id;
}

/** Whether `a` and `b` list the same parts, in the same order, each equal to its counterpart. */
function sameParts(a: readonly SnapshotPart[], b: readonly SnapshotPart[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const mine = a[i] as SnapshotPart;
    const theirs = b[i] as SnapshotPart;
    if (mine.id !== theirs.id || !mine.equals(theirs)) return false;
  }
  return true;
}

abstract class SnapshotPart implements PrefixPart {
  readonly id: string;
  private cached: string | undefined;

  constructor(id: string) {
    this.id = id;
  }

  get hash(): string {
    this.cached ??= this.computeHash();
    return this.cached;
  }

  /** Contributes nothing to the prefix (a segment without messages). */
  abstract get empty(): boolean;
  abstract equals(other: SnapshotPart): boolean;
  /** Write the part to the canonical prefix stream (see `writePromptPrefix`). */
  abstract write(stream: PrefixStream): void;
  protected abstract computeHash(): string;
}

class ToolsPart extends SnapshotPart {
  private readonly tools: readonly ToolSchema[];
  private readonly digest: string | undefined;

  constructor(tools: readonly ToolSchema[]) {
    super("tools");
    this.tools = tools;
    // A frozen list (the registry's) cannot change: hash it only if asked, once.
    this.digest = Object.isFrozen(tools) ? undefined : toolsDigest(tools);
  }

  get empty(): boolean {
    return false;
  }

  equals(other: SnapshotPart): boolean {
    if (!(other instanceof ToolsPart)) return false;
    return (other.tools === this.tools && this.digest === other.digest) || other.hash === this.hash;
  }

  write(stream: PrefixStream): void {
    stream.tools(this.tools);
  }

  protected computeHash(): string {
    return this.digest ?? toolsDigest(this.tools);
  }
}

/**
 * A stable segment, snapshotted as the JSON text of its messages NOW, so in-place edits are seen.
 * Comparing texts is cheap; the canonical digests (sorted keys) are computed only when a change
 * is reported or a fingerprint is needed, and also settle a difference in key order alone.
 */
class ContentPart extends SnapshotPart {
  private readonly role: CacheSegmentRole;
  private readonly texts: string[];
  private canonical: string[] | undefined;

  constructor(id: string, role: CacheSegmentRole, messages: readonly Message[]) {
    super(id);
    this.role = role;
    this.texts = messages.map((m) => JSON.stringify(m));
  }

  get empty(): boolean {
    return this.texts.length === 0;
  }

  equals(other: SnapshotPart): boolean {
    if (
      !(other instanceof ContentPart) ||
      other.role !== this.role ||
      other.texts.length !== this.texts.length
    ) {
      return false;
    }
    if (other.texts.every((t, i) => t === this.texts[i])) return true;
    const mine = this.digests();
    return other.digests().every((d, i) => d === mine[i]);
  }

  write(stream: PrefixStream): void {
    if (this.empty) return;
    stream.segment(this.id, this.role);
    for (const digest of this.digests()) stream.messageDigest(digest);
  }

  protected computeHash(): string {
    return this.digests().join(",");
  }

  private digests(): string[] {
    this.canonical ??= this.texts.map((t) => freshMessageDigest(JSON.parse(t) as Message));
    return this.canonical;
  }
}

/** A history segment: compared by message identity (messages are immutable once appended). */
class HistoryPart extends SnapshotPart {
  private readonly role: CacheSegmentRole;
  private readonly messages: readonly Message[];

  constructor(id: string, role: CacheSegmentRole, messages: readonly Message[]) {
    super(id);
    this.role = role;
    this.messages = messages;
  }

  get empty(): boolean {
    return this.messages.length === 0;
  }

  equals(other: SnapshotPart): boolean {
    if (!(other instanceof HistoryPart) || other.role !== this.role) return false;
    if (other.messages.length !== this.messages.length) return false;
    for (let i = 0; i < this.messages.length; i++) {
      const mine = this.messages[i] as Message;
      const theirs = other.messages[i] as Message;
      if (mine !== theirs && messageDigest(mine) !== messageDigest(theirs)) return false;
    }
    return true;
  }

  write(stream: PrefixStream): void {
    if (this.empty) return;
    stream.segment(this.id, this.role);
    for (const message of this.messages) stream.message(message);
  }

  protected computeHash(): string {
    const stream = PrefixStream.start();
    this.write(stream);
    return stream.digest();
  }
}

class Snapshot implements PrefixLayout {
  readonly parts: readonly SnapshotPart[];
  private cached: string | undefined;

  constructor(parts: SnapshotPart[]) {
    this.parts = parts;
  }

  get fingerprint(): string {
    if (this.cached === undefined) {
      const stream = PrefixStream.start();
      for (const part of this.parts) part.write(stream);
      this.cached = stream.digest();
    }
    return this.cached;
  }
}
