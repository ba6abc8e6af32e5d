import { validationError } from "@tinyagents/inference";
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
    this.add(observation);
  }

  async appendMany(observations: readonly AgentObservation[]): Promise<void> {
    for (const observation of observations) this.add(observation);
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
