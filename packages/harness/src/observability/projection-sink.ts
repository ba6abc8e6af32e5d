import type { HarnessRunStatus } from "../status/run-status.js";
import { KeyedMutex } from "../store/keyed-mutex.js";
import type { AgentObservation } from "./agent-observation.js";
import { ProjectionSet } from "./projection-set.js";
import type { ObservationSink } from "./sink.js";
import type { HarnessStatusStore } from "./status-store.js";

/**
 * Keeps the standard projections live and, when given a status store, saves each run's status
 * whenever it changes. Saves are serialized per run and coalesced (a burst of changes becomes one
 * save of the latest record); `flush()` waits for them. Save failures go to `onError`.
 */
export class ProjectionSink implements ObservationSink {
  readonly projections: ProjectionSet;
  private readonly statusStore: HarnessStatusStore | undefined;
  private readonly onError: (error: unknown) => void;
  private readonly latest = new Map<string, HarnessRunStatus>();
  private readonly mutex = new KeyedMutex();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    options: {
      statusStore?: HarnessStatusStore;
      projections?: ProjectionSet;
      onError?: (error: unknown) => void;
    } = {},
  ) {
    this.projections = options.projections ?? new ProjectionSet();
    this.statusStore = options.statusStore;
    this.onError = options.onError ?? (() => {});
  }

  write(observation: AgentObservation): void {
    const changed = this.projections.apply(observation);
    if (changed === undefined || this.statusStore === undefined) return;
    const runId = changed.runId;
    const scheduled = this.latest.has(runId);
    this.latest.set(runId, structuredClone(changed));
    if (scheduled) return;
    const store = this.statusStore;
    const save = this.mutex
      .run(runId, async () => {
        const status = this.latest.get(runId);
        this.latest.delete(runId);
        if (status !== undefined) await store.save(status);
      })
      .catch(this.onError)
      .finally(() => this.inFlight.delete(save));
    this.inFlight.add(save);
  }

  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  close(): Promise<void> {
    return this.flush();
  }
}
