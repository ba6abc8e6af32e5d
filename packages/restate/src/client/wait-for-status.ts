import {
  type StatusCondition as EngineStatusCondition,
  type WaitForStatusOptions,
  waitForRunStatus,
} from "@tinyagents/harness/durability";
import type { RestateRunPhase, RestateRunStatus } from "../services/run-protocol.js";

export type { WaitForStatusOptions };

/**
 * What {@link RestateAgentClient.waitForStatus} waits for: a phase, any of several phases, or a
 * predicate on the run's status (called only once the run has a status, i.e. has started).
 */
export type StatusCondition = EngineStatusCondition<RestateRunStatus, RestateRunPhase>;

const FINISHED: ReadonlySet<RestateRunPhase> = new Set(["completed", "failed"]);

/**
 * `waitForRunStatus` over a Restate run's status (`read`): phases are matched, `completed` and
 * `failed` are final. `clock` is for tests (virtual time).
 */
export function pollStatus(
  what: string,
  condition: StatusCondition,
  options: WaitForStatusOptions,
  read: () => Promise<RestateRunStatus | undefined>,
  clock?: { now(): number; sleep(ms: number, signal?: AbortSignal): Promise<void> },
): Promise<RestateRunStatus> {
  return waitForRunStatus(what, condition, options, {
    read,
    state: (status) => status.phase,
    finished: (status) => FINISHED.has(status.phase),
    ...(clock === undefined ? {} : { clock }),
  });
}
