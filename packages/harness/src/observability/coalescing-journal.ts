import { canonicalJson } from "../cache/canonical-json.js";
import type { AgentObservation } from "./agent-observation.js";
import type { HarnessEventJournal, JournalQuery, ReplayListener } from "./event-journal.js";
import { afterThisTurn } from "./next-turn.js";

interface Waiting {
  records: readonly AgentObservation[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One journal shared by the many runs a worker process executes at once (the engine adapters'
 * journal): the appends every run makes in one event-loop turn, and those made while a write is
 * in flight, become ONE `appendMany` of the wrapped journal — one group commit of every run's
 * records (on Postgres: one offset allocation, one tail check and one insert for all of them)
 * instead of one per run. Each caller's promise settles once its own records are stored.
 *
 * A failed merged write is settled caller by caller: a caller whose records the journal already
 * holds (the wrapped journal may have stored the other run trees before refusing one) is
 * resolved, any other caller's records are written alone, so a `conflict` (a second writer of one
 * run tree) or a storage failure reaches only the callers it concerns.
 * Reads go straight to the wrapped journal.
 */
export class CoalescingJournal implements HarnessEventJournal {
  private waiting: Waiting[] = [];
  private writing: Promise<void> | undefined;

  constructor(private readonly journal: HarnessEventJournal) {}

  append(observation: AgentObservation): Promise<void> {
    return this.appendMany([observation]);
  }

  appendMany(observations: readonly AgentObservation[]): Promise<void> {
    if (observations.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ records: [...observations], resolve, reject });
      this.writing ??= afterThisTurn().then(() => this.drain());
    });
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

  /** Write what waits, one merged batch at a time, until nothing does. */
  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        try {
          await this.journal.appendMany(batch.flatMap((w) => w.records));
          for (const w of batch) w.resolve();
        } catch (error) {
          if (batch.length === 1) (batch[0] as Waiting).reject(error);
          else await this.settleEach(batch);
        }
        // The writers just answered hand in their next records within this turn (a run's sink
        // writes one batch at a time): take them into the next write rather than the one after.
        await afterThisTurn();
      }
    } finally {
      this.writing = undefined;
    }
  }

  /** After a failed merged write: resolve callers already stored, write the others alone. */
  private async settleEach(batch: readonly Waiting[]): Promise<void> {
    for (const w of batch) {
      try {
        if (!(await this.holds(w.records))) await this.journal.appendMany(w.records);
        w.resolve();
      } catch (error) {
        w.reject(error);
      }
    }
  }

  /** Whether the journal already stores exactly these records (same offsets, same content). */
  private async holds(records: readonly AgentObservation[]): Promise<boolean> {
    const byRoot = new Map<string, AgentObservation[]>();
    for (const record of records) {
      const list = byRoot.get(record.rootRunId) ?? [];
      list.push(record);
      byRoot.set(record.rootRunId, list);
    }
    for (const [root, list] of byRoot) {
      const from = Math.min(...list.map((r) => r.offset));
      const to = Math.max(...list.map((r) => r.offset)) + 1;
      const stored = new Map(
        (await this.journal.read(root, { fromOffset: from, toOffset: to })).map((r) => [r.offset, r]),
      );
      for (const record of list) {
        const found = stored.get(record.offset);
        if (found === undefined || canonicalJson(found) !== canonicalJson(record)) return false;
      }
    }
    return true;
  }
}
