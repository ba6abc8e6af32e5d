import { validationError } from "@tinyagents/inference";
import { journalWriterConflict } from "../durability/durability-errors.js";
import type { AgentObservation } from "./agent-observation.js";
import {
  type HarnessEventJournal,
  type JournalQuery,
  queryFilter,
  type ReplayListener,
  validateQuery,
} from "./event-journal.js";

/** Default number of run trees an {@link InMemoryEventJournal} keeps. */
export const DEFAULT_MAX_JOURNAL_RUNS = 10_000;

/**
 * A HarnessEventJournal in memory, bounded by run trees: when a new root run would exceed
 * `maxRuns` (default 10,000), the oldest root run (first appended) is evicted whole.
 * Observations are stored by reference — the harness never mutates an emitted record; callers
 * must not either.
 */
export class InMemoryEventJournal implements HarnessEventJournal {
  readonly maxRuns: number;
  private readonly runs = new Map<string, AgentObservation[]>();

  constructor(options: { maxRuns?: number } = {}) {
    const maxRuns = options.maxRuns ?? DEFAULT_MAX_JOURNAL_RUNS;
    if (!Number.isInteger(maxRuns) || maxRuns < 1) {
      throw validationError(`maxRuns must be a positive integer, got ${String(maxRuns)}`, {
        field: "maxRuns",
      });
    }
    this.maxRuns = maxRuns;
  }

  async append(observation: AgentObservation): Promise<void> {
    await this.appendMany([observation]);
  }

  async appendMany(observations: readonly AgentObservation[]): Promise<void> {
    // Checked whole before anything is added: a conflicting batch leaves no trace.
    const last = new Map<string, number>();
    for (const o of observations) {
      const stored = last.get(o.rootRunId) ?? this.runs.get(o.rootRunId)?.at(-1)?.offset;
      if (stored !== undefined && o.offset <= stored)
        throw journalWriterConflict(o.rootRunId, stored, o.offset);
      last.set(o.rootRunId, o.offset);
    }
    for (const observation of observations) this.add(observation);
  }

  async lastOffset(rootRunId: string): Promise<number | undefined> {
    return this.runs.get(rootRunId)?.at(-1)?.offset;
  }

  async read(rootRunId: string, query: JournalQuery = {}): Promise<AgentObservation[]> {
    validateQuery(query);
    const keep = queryFilter(query);
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    const out: AgentObservation[] = [];
    for (const observation of this.runs.get(rootRunId) ?? []) {
      if (out.length >= limit) break;
      if (keep(observation)) out.push(observation);
    }
    return out;
  }

  async replay(rootRunId: string, fromOffset: number, listener: ReplayListener): Promise<number> {
    validateQuery({ fromOffset });
    const snapshot = (this.runs.get(rootRunId) ?? []).slice();
    let delivered = 0;
    for (const observation of snapshot) {
      if (observation.offset < fromOffset) continue;
      await listener(observation);
      delivered++;
    }
    return delivered;
  }

  async rootRuns(): Promise<string[]> {
    return [...this.runs.keys()];
  }

  /** Observations held, over all runs (diagnostics). */
  get size(): number {
    let total = 0;
    for (const list of this.runs.values()) total += list.length;
    return total;
  }

  private add(observation: AgentObservation): void {
    let list = this.runs.get(observation.rootRunId);
    if (list === undefined) {
      if (this.runs.size >= this.maxRuns) {
        const oldest = this.runs.keys().next().value;
        if (oldest !== undefined) this.runs.delete(oldest);
      }
      list = [];
      this.runs.set(observation.rootRunId, list);
    }
    list.push(observation);
  }
}
