import type { AgentEventOf } from "../contracts/agent-event.js";
import type { AgentObservation } from "./agent-observation.js";

/**
 * How a journal stores streamed model deltas:
 * - `"coalesce"` (default): the first text (or reasoning) delta of each model call is stored as
 *   emitted (it marks the first token, so latency projections rebuild from the journal); the
 *   rest of the call's consecutive deltas of that kind become ONE record, written when the run
 *   emits its next non-delta event (`model.completed`, ...) or the sink is flushed — or earlier,
 *   when another run of the same tree hands a record on first (a journal keeps a tree's records
 *   in offset order): then the text takes several records. That record
 *   carries the envelope (id, offset, ts) of its first delta, the concatenated `text`, and
 *   `deltas`: how many deltas it stands for. Reasoning deltas with a signature, redacted
 *   reasoning and tool-call deltas are stored one record each.
 * - `"all"`: every delta is its own record (still written in batches).
 */
export type JournalDeltas = "coalesce" | "all";

/**
 * How much of a call's already handed-on text (per kind) a merge is redacted together with: a
 * secret streamed across a record boundary of the call (its first delta, a merge released early)
 * is caught when it is at most this long.
 */
const CARRY_MAX = 1024;

/** The delta events a merge folds (a reasoning delta only without a signature). */
export type MergeableType = "model.text_delta" | "model.reasoning_delta";
type MergeableEvent = AgentEventOf<MergeableType>;

interface OpenMerge {
  runId: string;
  rootRunId: string;
  callId: string;
  first: AgentObservation<MergeableEvent>;
  /** The merged deltas' text so far (appended to: cheaper per delta than an array of parts). */
  text: string;
  /** How many deltas it holds. */
  deltas: number;
}

/**
 * Folds each model call's streamed text into a few journal records (see {@link JournalDeltas}).
 * Order is kept: the pending merges of a run tree are released, in order, before any later
 * record of that tree is handed on — a journal stores a tree's records in offset order, and a
 * merge carries its first delta's offset, so a parent's and its sub-agents' streams (or two
 * sub-agents streaming at once) must not overtake each other's pending merges.
 */
export class DeltaCoalescer {
  /** Pending merges by `runId \0 callId`. */
  private readonly open = new Map<string, OpenMerge>();
  /** `runId \0 callId \0 type` of calls whose first delta of that type was passed through. */
  private readonly started = new Set<string>();
  /**
   * By the same key (only with `mergeText`): the end of the text the call already handed on (of
   * that kind), as it was before `mergeText`. The next merge is redacted with it in front, so a
   * secret that began in an earlier record is redacted in this one.
   */
  private readonly carried = new Map<string, string>();
  private readonly mergeText: ((text: string) => string) | undefined;
  /** The merge the previous delta went to: the next delta of the same call skips the map (no key string). */
  private last: OpenMerge | undefined;

  /**
   * `mergeText` redacts a merged record's concatenated text again as a whole (a secret streamed
   * across several deltas matches no single delta), with the end of the text its call already
   * handed on in front (see `carried`): a secret across a record boundary is caught too.
   */
  constructor(mergeText?: (text: string) => string) {
    this.mergeText = mergeText;
  }

  /** Hand `observation` (or what it releases) to `out`, in order. */
  push(observation: AgentObservation, out: (observation: AgentObservation) => void): void {
    const event = observation.event;
    if (
      event.type === "model.text_delta" ||
      (event.type === "model.reasoning_delta" && event.signature === undefined)
    ) {
      this.pushDelta(observation as AgentObservation<MergeableEvent>, out);
      return;
    }
    if (this.open.size > 0) this.release(observation.rootRunId, out);
    if (this.started.size > 0) {
      if (event.type === "model.completed" || event.type === "model.failed") {
        const call = `${observation.runId}\u0000${event.callId}\u0000`;
        this.started.delete(`${call}model.text_delta`);
        this.started.delete(`${call}model.reasoning_delta`);
        this.carried.delete(`${call}model.text_delta`);
        this.carried.delete(`${call}model.reasoning_delta`);
      } else if (
        event.type === "run.completed" ||
        event.type === "run.failed" ||
        event.type === "run.interrupted"
      ) {
        for (const key of this.started)
          if (key.startsWith(`${observation.runId}\u0000`)) {
            this.started.delete(key);
            this.carried.delete(key);
          }
      }
    }
    out(observation);
  }

  /**
   * The short cut for the bulk of a streamed response: when the previous delta went to a pending
   * merge of the same run, call and kind, append `text` to it and return true — exactly what
   * {@link push} does with such a delta, without an observation (only its text is kept). False:
   * `push` the observation instead. `runId` and `callId` are the redacted ones, as `push` sees them.
   */
  continueMerge(runId: string, callId: string, type: MergeableType, text: string): boolean {
    const last = this.last;
    if (
      last === undefined ||
      last.runId !== runId ||
      last.callId !== callId ||
      last.first.event.type !== type
    )
      return false;
    last.text += text;
    last.deltas++;
    return true;
  }

  /** Release every pending merge (a flush or close). */
  drain(out: (observation: AgentObservation) => void): void {
    for (const [key, merge] of this.open) {
      this.open.delete(key);
      out(this.merged(merge));
    }
  }

  /** The record a closed merge becomes (every merge leaving `open` goes through here). */
  private merged(merge: OpenMerge): AgentObservation {
    if (this.last === merge) this.last = undefined;
    const mergeText = this.mergeText;
    if (mergeText === undefined) {
      if (merge.deltas === 1) return merge.first;
      return { ...merge.first, event: { ...merge.first.event, text: merge.text, deltas: merge.deltas } };
    }
    const key = `${merge.runId}\u0000${merge.callId}\u0000${merge.first.event.type}`;
    const before = this.carried.get(key) ?? "";
    const text = carriedRedaction(before, merge.text, mergeText);
    this.carry(key, before + merge.text);
    if (merge.deltas === 1 && text === merge.first.event.text) return merge.first;
    const event: MergeableEvent =
      merge.deltas === 1
        ? { ...merge.first.event, text }
        : { ...merge.first.event, text, deltas: merge.deltas };
    return { ...merge.first, event };
  }

  /** Keep the end of a call's handed-on text (see `carried`). */
  private carry(key: string, text: string): void {
    if (this.mergeText === undefined) return;
    this.carried.set(key, text.length > CARRY_MAX ? text.slice(text.length - CARRY_MAX) : text);
  }

  private pushDelta(
    observation: AgentObservation<MergeableEvent>,
    out: (observation: AgentObservation) => void,
  ): void {
    const { runId } = observation;
    const { callId, type } = observation.event;
    const last = this.last;
    if (
      last !== undefined &&
      last.runId === runId &&
      last.callId === callId &&
      last.first.event.type === type
    ) {
      last.text += observation.event.text;
      last.deltas++;
      return;
    }
    const key = `${runId}\u0000${callId}`;
    const merge = this.open.get(key);
    if (merge !== undefined && merge.first.event.type === type) {
      merge.text += observation.event.text;
      merge.deltas++;
      this.last = merge;
      return;
    }
    // The call switched from reasoning to text (or back): its merge is released (with the tree's
    // earlier ones) before this delta is handed on or opens a merge of the other kind.
    if (merge !== undefined) this.release(observation.rootRunId, out);
    const startedKey = `${key}\u0000${type}`;
    if (!this.started.has(startedKey)) {
      this.started.add(startedKey);
      this.carry(startedKey, observation.event.text);
      if (this.open.size > 0) this.release(observation.rootRunId, out);
      out(observation);
      return;
    }
    const opened: OpenMerge = {
      runId,
      rootRunId: observation.rootRunId,
      callId,
      first: observation,
      text: observation.event.text,
      deltas: 1,
    };
    this.open.set(key, opened);
    this.last = opened;
  }

  /** Release the pending merges of one run tree, in the order they opened (their offsets' order). */
  private release(rootRunId: string, out: (observation: AgentObservation) => void): void {
    for (const [key, merge] of this.open) {
      if (merge.rootRunId !== rootRunId) continue;
      this.open.delete(key);
      out(this.merged(merge));
    }
  }
}

/**
 * The redacted `text` of a record that continues `before` (the call's text already handed on):
 * `redact(before + text)` from where it departs from `redact(before)` — with a secret across the
 * boundary, the part of it in this record is redacted (the part in the earlier record, which
 * matched nothing alone, stays there) — and redacted again alone: what `text` matches only on its
 * own (a key glued to the word before it, which has no word boundary in the joined text) too.
 */
function carriedRedaction(before: string, text: string, redact: (text: string) => string): string {
  if (before.length === 0) return redact(text);
  const joined = redact(before + text);
  const earlier = redact(before);
  const limit = Math.min(joined.length, earlier.length);
  let common = 0;
  while (common < limit && joined.charCodeAt(common) === earlier.charCodeAt(common)) common++;
  return redact(joined.slice(common));
}
