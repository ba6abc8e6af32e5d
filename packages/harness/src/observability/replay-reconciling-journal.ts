import { canonicalJson } from "../cache/canonical-json.js";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { AgentObservation } from "./agent-observation.js";
import type { HarnessEventJournal, JournalQuery, ReplayListener } from "./event-journal.js";

/** Why a journaled run's earlier attempt at a call never finished. */
export const WORKER_LOST = "worker lost";

type CallKind = "model" | "tool";

/** Options of {@link ReplayReconcilingJournal.open}. */
export interface ReconcileOptions {
  /**
   * How an event that is not part of a call is recognised as already stored:
   * - `content` (default): the engine replays the whole run and re-emits every event (DBOS); an
   *   event is dropped while the stored stream holds more identical ones than this execution
   *   emitted so far;
   * - `offset`: the engine delivers only new work and keeps the first execution's offsets
   *   (Restate's `ReplayAwareEventSink`); an event is dropped when the stored record at its
   *   offset is the same event. Records keep their offsets unless one is taken.
   */
  match?: "content" | "offset";
  /**
   * Called with the next free offset when a record had to be moved past the stored ones, so the
   * execution's sink can continue from there (`EventSink.advanceTo`).
   */
  onRenumber?: (nextOffset: number) => void;
}

/** What one call (model or tool, by call id) looks like in the stored stream. */
interface StoredCall {
  kind: CallKind;
  callId: string;
  toolName?: string;
  /** Attempts started so far (each `*.started`). */
  attempts: number;
  /** The last attempt started and was neither completed, failed nor abandoned. */
  open: boolean;
  /** The record of its last `*.started` (run ids and depth for an `*.abandoned`). */
  started: AgentObservation;
}

/**
 * An event journal for ONE execution of a run on an engine that re-drives the run after a worker
 * died (Restate, DBOS): it makes the run's stream read like one uninterrupted run, whatever the
 * engine replayed. Built over the stream as stored ({@link ReplayReconcilingJournal.open}), it
 * takes the execution's events in order and:
 *
 * - drops what was already journaled: a call (model or tool, by call id) that the stored stream
 *   completed is a replay, so its events are dropped (their timestamps stay the original ones) —
 *   unless the engine says this execution runs the call again ({@link liveCall}): then the new
 *   attempt is written after the stored one;
 *   any other event is dropped when the stored stream already has it (`run.started`, middleware
 *   and state events of replayed turns, a re-sent `approval.requested`; see
 *   {@link ReconcileOptions.match});
 * - closes what the dead worker left open: when a call the stored stream left open starts again,
 *   `model.abandoned` / `tool.abandoned` (attempt, reason "worker lost") closes the earlier
 *   attempt first; calls still open when the run ends are closed the same way before its end;
 * - renumbers: everything written continues the stored offsets (strictly increasing, ids
 *   `<root>-evt-<offset>`), whatever offsets the execution's sink assigned (with `offset`
 *   matching, a record keeps its offset when it is free).
 *
 * Appends of other run trees and every read go straight to the wrapped journal.
 */
export class ReplayReconcilingJournal implements HarnessEventJournal {
  private next: number;
  /** Identical unscoped events still stored and not yet re-emitted, by canonical content. */
  private readonly stored = new Map<string, number>();
  private readonly calls = new Map<string, StoredCall>();
  /** Calls this execution re-emits from the stored stream (dropped) or runs itself (written). */
  private readonly modes = new Map<string, "replay" | "live">();
  private chain: Promise<void> = Promise.resolve();
  /** `offset` matching: the stored events by offset (canonical content). */
  private readonly byOffset = new Map<number, string>();
  /** Calls the engine told this execution it runs itself (see {@link liveCall}). */
  private readonly runsLive = new Set<string>();

  private constructor(
    private readonly journal: HarnessEventJournal,
    private readonly rootRunId: string,
    existing: readonly AgentObservation[],
    private readonly options: ReconcileOptions,
  ) {
    this.next = (existing.at(-1)?.offset ?? -1) + 1;
    for (const record of existing) this.learn(record);
  }

  /** Read run `rootRunId`'s stored stream from `journal` and reconcile this execution against it. */
  static async open(
    journal: HarnessEventJournal,
    rootRunId: string,
    options: ReconcileOptions = {},
  ): Promise<ReplayReconcilingJournal> {
    return new ReplayReconcilingJournal(journal, rootRunId, await journal.read(rootRunId), options);
  }

  /** The offset the next written observation gets. */
  get nextOffset(): number {
    return this.next;
  }

  /**
   * The engine runs call `callId` in THIS execution (it had no record of the call's step), so
   * its events are written even when the stored stream already closed an earlier attempt. That
   * happens when a worker died after journaling a call's end but before the engine recorded the
   * step: the call runs again (an at-least-once tool, a model billed twice) and its new attempt,
   * whose result is the one the run goes on with, must not be dropped as a replay. Call it
   * before the call's first event is appended (the adapter does, as the step starts).
   */
  liveCall(kind: "model" | "tool", callId: string): void {
    this.runsLive.add(`${kind}:${callId}`);
  }

  append(observation: AgentObservation): Promise<void> {
    return this.appendMany([observation]);
  }

  appendMany(observations: readonly AgentObservation[]): Promise<void> {
    const own = observations.filter((o) => o.rootRunId === this.rootRunId);
    const other = observations.filter((o) => o.rootRunId !== this.rootRunId);
    // One batch at a time: offsets are assigned in the order the execution emitted.
    const done = this.chain.then(async () => {
      if (other.length > 0) await this.journal.appendMany(other);
      const kept = own.flatMap((o) => this.reconcile(o));
      if (kept.length > 0) await this.journal.appendMany(kept);
      if (this.renumbered) {
        this.renumbered = false;
        this.options.onRenumber?.(this.next);
      }
    });
    this.chain = done.catch(() => {});
    return done;
  }

  read(rootRunId: string, query?: JournalQuery): Promise<AgentObservation[]> {
    return this.journal.read(rootRunId, query);
  }

  replay(rootRunId: string, fromOffset: number, listener: ReplayListener): Promise<number> {
    return this.journal.replay(rootRunId, fromOffset, listener);
  }

  rootRuns(): Promise<string[]> {
    return this.journal.rootRuns();
  }

  async lastOffset(rootRunId: string): Promise<number | undefined> {
    if (this.journal.lastOffset !== undefined) return this.journal.lastOffset(rootRunId);
    return (await this.journal.read(rootRunId)).at(-1)?.offset;
  }

  /** The records to write for `record` (none when it repeats the stored stream). */
  private reconcile(record: AgentObservation): AgentObservation[] {
    const event = record.event;
    const call = callOf(event);
    if (call === undefined) {
      const out: AgentObservation[] = [];
      if (isRunEnd(record)) out.push(...this.abandonOpenCalls(record));
      const key = contentKey(event);
      if (this.options.match === "offset") {
        if (this.byOffset.get(record.offset) === key) return out;
      } else {
        const left = this.stored.get(key) ?? 0;
        if (left > 0) {
          this.stored.set(key, left - 1);
          return out;
        }
      }
      out.push(this.write(record));
      return out;
    }
    const key = `${call.kind}:${call.callId}`;
    const mode = this.modes.get(key);
    const stored = this.calls.get(key);
    if (isStart(event)) {
      if (mode === "live" || stored === undefined) {
        this.modes.set(key, "live");
        return [this.write(record)];
      }
      if (stored.open) {
        // The dead worker's attempt never finished: close it, then this execution's attempt.
        this.modes.set(key, "live");
        stored.open = false;
        return [this.abandon(stored, record), this.write(record)];
      }
      if (this.runsLive.has(key)) {
        // The stored attempt ended, but the engine lost its result: this is a further attempt.
        this.modes.set(key, "live");
        return [this.write(record)];
      }
      this.modes.set(key, "replay");
      return [];
    }
    if (mode === "replay") return [];
    if (mode === undefined && stored !== undefined && !stored.open) return [];
    if (stored !== undefined && isEnd(event)) stored.open = false;
    return [this.write(record)];
  }

  /** `*.abandoned` for every stored call left open that this execution did not run again. */
  private abandonOpenCalls(at: AgentObservation): AgentObservation[] {
    const out: AgentObservation[] = [];
    for (const stored of this.calls.values()) {
      if (!stored.open) continue;
      stored.open = false;
      out.push(this.abandon(stored, at));
    }
    return out;
  }

  private abandon(stored: StoredCall, at: AgentObservation): AgentObservation {
    const event: AgentEvent =
      stored.kind === "model"
        ? { type: "model.abandoned", callId: stored.callId, attempt: stored.attempts, reason: WORKER_LOST }
        : {
            type: "tool.abandoned",
            callId: stored.callId,
            toolName: stored.toolName ?? "",
            attempt: stored.attempts,
            reason: WORKER_LOST,
          };
    return this.write({ ...stored.started, ts: at.ts, event });
  }

  private write(record: AgentObservation): AgentObservation {
    let offset = this.next;
    if (this.options.match === "offset") {
      if (record.offset >= this.next) offset = record.offset;
      else this.renumbered = true;
    }
    this.next = offset + 1;
    return { ...record, offset, id: `${this.rootRunId}-evt-${offset}` };
  }

  private renumbered = false;

  /** Account for one stored record. */
  private learn(record: AgentObservation): void {
    const event = record.event;
    const call = callOf(event);
    if (call === undefined) {
      const key = contentKey(event);
      this.byOffset.set(record.offset, key);
      this.stored.set(key, (this.stored.get(key) ?? 0) + 1);
      return;
    }
    const key = `${call.kind}:${call.callId}`;
    const known = this.calls.get(key);
    if (isStart(event)) {
      const attempts = (known?.attempts ?? 0) + 1;
      const entry: StoredCall = {
        kind: call.kind,
        callId: call.callId,
        attempts,
        open: true,
        started: record,
      };
      if (event.type === "tool.started") entry.toolName = event.toolName;
      this.calls.set(key, entry);
    } else if (known !== undefined && (isEnd(event) || isAbandoned(event))) {
      known.open = false;
    }
  }
}

/** The call an event belongs to, for the events that bracket or stream inside one call. */
function callOf(event: AgentEvent): { kind: CallKind; callId: string } | undefined {
  switch (event.type) {
    case "model.started":
    case "model.text_delta":
    case "model.reasoning_delta":
    case "model.redacted_reasoning":
    case "model.tool_call_delta":
    case "model.completed":
    case "model.failed":
    case "model.abandoned":
      return { kind: "model", callId: event.callId };
    case "tool.started":
    case "tool.progress":
    case "tool.completed":
    case "tool.failed":
    case "tool.abandoned":
      return { kind: "tool", callId: event.callId };
    default:
      return undefined;
  }
}

function isStart(event: AgentEvent): boolean {
  return event.type === "model.started" || event.type === "tool.started";
}

function isEnd(event: AgentEvent): boolean {
  return (
    event.type === "model.completed" ||
    event.type === "model.failed" ||
    event.type === "tool.completed" ||
    event.type === "tool.failed"
  );
}

function isAbandoned(event: AgentEvent): boolean {
  return event.type === "model.abandoned" || event.type === "tool.abandoned";
}

/** The end of the root run itself (not of a sub-agent in its tree). */
function isRunEnd(record: AgentObservation): boolean {
  const type = record.event.type;
  return (
    record.runId === record.rootRunId &&
    (type === "run.completed" || type === "run.failed" || type === "run.interrupted")
  );
}

function contentKey(event: AgentEvent): string {
  return canonicalJson(event);
}
