import type { AgentEventOf } from "../contracts/agent-event.js";
import type { AgentObservation } from "./agent-observation.js";
import type { RawDeltaTexts } from "./raw-delta-texts.js";
import type { Redactor } from "./redaction.js";

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
 * is caught in the later record when it began at most this many characters before it.
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
  /**
   * The merged deltas' text so far (appended to: cheaper per delta than an array of parts):
   * with a redactor, their RAW text (redacted once, as a whole, when the merge is released).
   */
  text: string;
  /** How many deltas it holds. */
  deltas: number;
  /**
   * `[start, end, ...]` in `text` of the deltas whose redaction alone changed them (rare: a
   * secret inside one delta), redacted alone again at release: a key glued to the text before
   * it has a word boundary only there. Allocated for the first such delta.
   */
  alone: number[] | undefined;
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
   * By the same key (only with a redactor): the end of the RAW text the call already handed on
   * (of that kind). The next merge is redacted with it in front, so a secret that began in an
   * earlier record is redacted in this one.
   */
  private readonly carried = new Map<string, string>();
  private readonly redactor: Redactor | undefined;
  private readonly rawTexts: RawDeltaTexts | undefined;
  /** The merge the previous delta went to: the next delta of the same call skips the map (no key string). */
  private last: OpenMerge | undefined;

  /**
   * With a `redactor` (observations reaching `push` are redacted already), a merge keeps its
   * deltas' raw text — from `rawTexts` (the pipeline's `RedactingSink` notes there the raw text of
   * each delta it changed), else the delta's own — and is released as that text with the union of
   * these secret ranges replaced: the whole merge's, the merge's with the end of its call's
   * earlier raw text in front (see `carried`: a secret across a record boundary), and each delta's
   * that redaction alone changed. A secret streamed across deltas, or completed by one delta and
   * continued by the next, is then never journaled, even in part, in the merge.
   */
  constructor(redactor?: Redactor, rawTexts?: RawDeltaTexts) {
    this.redactor = redactor;
    this.rawTexts = rawTexts;
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
   * merge of the same run, call and kind, append the delta to it and return true — exactly what
   * {@link push} does with such a delta, without an observation (only its text is kept). False:
   * `push` the observation instead. `runId` and `callId` are the redacted ones, as `push` sees
   * them; `text` is the delta's redacted text, `raw` its text before redaction.
   */
  continueMerge(runId: string, callId: string, type: MergeableType, text: string, raw = text): boolean {
    const last = this.last;
    if (
      last === undefined ||
      last.runId !== runId ||
      last.callId !== callId ||
      last.first.event.type !== type
    )
      return false;
    this.append(last, text, raw);
    return true;
  }

  /** Add one delta (its redacted and raw text) to `merge`. */
  private append(merge: OpenMerge, text: string, raw: string): void {
    if (this.redactor === undefined) {
      merge.text += text;
    } else {
      if (raw !== text) {
        merge.alone ??= [];
        merge.alone.push(merge.text.length, merge.text.length + raw.length);
      }
      merge.text += raw;
    }
    merge.deltas++;
  }

  /** The raw text of a delta `push` received (see the constructor). */
  private rawOf(observation: AgentObservation<MergeableEvent>): string {
    return this.rawTexts?.take(observation) ?? observation.event.text;
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
    const redactor = this.redactor;
    if (redactor === undefined) {
      if (merge.deltas === 1) return merge.first;
      return { ...merge.first, event: { ...merge.first.event, text: merge.text, deltas: merge.deltas } };
    }
    const key = `${merge.runId}\u0000${merge.callId}\u0000${merge.first.event.type}`;
    const before = this.carried.get(key) ?? "";
    const text = redactMerge(redactor, before, merge.text, merge.alone);
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
    if (this.redactor === undefined) return;
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
      this.append(last, observation.event.text, this.rawOf(observation));
      return;
    }
    const key = `${runId}\u0000${callId}`;
    const merge = this.open.get(key);
    if (merge !== undefined && merge.first.event.type === type) {
      this.append(merge, observation.event.text, this.rawOf(observation));
      this.last = merge;
      return;
    }
    // The call switched from reasoning to text (or back): its merge is released (with the tree's
    // earlier ones) before this delta is handed on or opens a merge of the other kind.
    if (merge !== undefined) this.release(observation.rootRunId, out);
    const startedKey = `${key}\u0000${type}`;
    if (!this.started.has(startedKey)) {
      this.started.add(startedKey);
      this.carry(startedKey, this.rawOf(observation));
      if (this.open.size > 0) this.release(observation.rootRunId, out);
      out(observation);
      return;
    }
    const opened: OpenMerge = {
      runId,
      rootRunId: observation.rootRunId,
      callId,
      first: observation,
      text: "",
      deltas: 0,
      alone: undefined,
    };
    this.append(opened, observation.event.text, this.rawOf(observation));
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
 * The journaled text of a merge whose raw text is `raw`, continuing `before` (the end of its
 * call's raw text already handed on): `raw` with the union of these secret ranges replaced —
 * `raw`'s own; `before + raw`'s, where they reach into `raw` (a secret across the boundary: its
 * part in this record is replaced; its part in the earlier record, which matched nothing alone,
 * stays there); and those of each delta in `alone` (a key glued to the word before it has a word
 * boundary only in its own delta).
 */
function redactMerge(
  redactor: Redactor,
  before: string,
  raw: string,
  alone: readonly number[] | undefined,
): string {
  const own = redactor.secretRanges(raw);
  if (before.length === 0 && alone === undefined) return redactor.replaceRanges(raw, own);
  const ranges = [...own];
  if (before.length > 0) {
    const joined = redactor.secretRanges(before + raw);
    const shift = before.length;
    for (let i = 0; i < joined.length; i += 2) {
      const end = (joined[i + 1] as number) - shift;
      if (end > 0) ranges.push(Math.max((joined[i] as number) - shift, 0), end);
    }
  }
  if (alone !== undefined) {
    for (let i = 0; i < alone.length; i += 2) {
      const start = alone[i] as number;
      const found = redactor.secretRanges(raw.slice(start, alone[i + 1]));
      for (let j = 0; j < found.length; j++) ranges.push(start + (found[j] as number));
    }
  }
  return redactor.replaceRanges(raw, ranges);
}
