import type { HarnessRunStatus } from "../status/run-status.js";
import type { AgentObservation } from "./agent-observation.js";
import type { HarnessEventJournal } from "./event-journal.js";
import type { ProjectionSnapshot } from "./projection.js";
import { RunStatusProjection } from "./status-projection.js";
import { type RunTiming, TimingProjection } from "./timing-projection.js";
import { type RunUsageCost, UsageCostProjection } from "./usage-projection.js";

/** Snapshots of the standard projections. */
export interface ProjectionSnapshots {
  status: ProjectionSnapshot<HarnessRunStatus[]>;
  usage: ProjectionSnapshot<Record<string, RunUsageCost>>;
  timing: ProjectionSnapshot<Record<string, RunTiming>>;
}

/** The standard projections (latest status, usage and cost roll-ups, timing), fed together. */
export class ProjectionSet {
  readonly status = new RunStatusProjection();
  readonly usage = new UsageCostProjection();
  readonly timing = new TimingProjection();

  /** Fold one observation into every projection; returns the status change, if any (see RunStatusProjection.apply). */
  apply(observation: AgentObservation): HarnessRunStatus | undefined {
    this.usage.apply(observation);
    this.timing.apply(observation);
    return this.status.apply(observation);
  }

  snapshots(): ProjectionSnapshots {
    return { status: this.status.snapshot(), usage: this.usage.snapshot(), timing: this.timing.snapshot() };
  }
}

/**
 * Rebuild the standard projections of one run tree from its journal (replaying every
 * observation in order). Equal to the live projections of that tree when nothing was dropped.
 */
export async function rebuildProjections(
  journal: HarnessEventJournal,
  rootRunId: string,
): Promise<ProjectionSnapshots> {
  const set = new ProjectionSet();
  await journal.replay(rootRunId, 0, (observation) => {
    set.apply(observation);
  });
  return set.snapshots();
}
