import { TinyAgentsError } from "@tinyagents/inference";
import type { RestateRunPhase, RestateRunStatus } from "../services/run-protocol.js";

/**
 * What {@link RestateAgentClient.waitForStatus} waits for: a phase, any of several phases, or a
 * predicate on the run's status (called only once the run has a status, i.e. has started).
 */
export type StatusCondition =
  | RestateRunPhase
  | readonly RestateRunPhase[]
  | ((status: RestateRunStatus) => boolean);

/** Options of {@link RestateAgentClient.waitForStatus}. */
export interface WaitForStatusOptions {
  /** Give up after this long with a `timeout` error (default 30,000 ms). */
  timeoutMs?: number;
  /**
   * Longest pause between two reads of the status (default 250 ms). Reads start 10 ms apart and
   * back off (x1.5) to it, so a change soon after the call is seen soon, a long wait costs little.
   */
  maxPollMs?: number;
  /** Stops the wait (rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** How `waitForStatus` reads the status, sleeps and tells the time (the real ones, or a test's). */
export interface StatusPoller {
  read(): Promise<RestateRunStatus | undefined>;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  now(): number;
}

const FIRST_POLL_MS = 10;
const FINISHED: ReadonlySet<RestateRunPhase> = new Set(["completed", "failed"]);

/**
 * Read the run's status until `condition` holds and return that status. A run that has not
 * started yet (no status) is waited for. Fails with a typed error instead of waiting forever:
 * `timeout` after `timeoutMs` (details: the last phase seen, `null` when the run never started);
 * `conflict` at once when the run has finished without meeting the condition (a finished run's
 * status never changes again); `validation` for a bad condition or option. Errors of the read
 * itself (`not_found` for an agent the deployment does not serve, `unavailable`) pass through.
 */
export async function pollStatus(
  what: string,
  condition: StatusCondition,
  options: WaitForStatusOptions,
  poller: StatusPoller,
): Promise<RestateRunStatus> {
  const holds = toPredicate(what, condition);
  const timeoutMs = positive(what, "timeoutMs", options.timeoutMs ?? 30_000);
  const maxPollMs = positive(what, "maxPollMs", options.maxPollMs ?? 250);
  const deadline = poller.now() + timeoutMs;
  let pause = Math.min(FIRST_POLL_MS, maxPollMs);
  for (;;) {
    options.signal?.throwIfAborted();
    const status = await poller.read();
    if (status !== undefined && holds(status)) return status;
    if (status !== undefined && FINISHED.has(status.phase)) {
      throw new TinyAgentsError(
        "conflict",
        `${what}: the run finished (${status.phase}) without reaching the awaited status; it will not change again`,
        { details: { phase: status.phase } },
      );
    }
    const left = deadline - poller.now();
    if (left <= 0) {
      throw new TinyAgentsError(
        "timeout",
        `${what}: not reached within ${timeoutMs} ms (${status === undefined ? "the run has not started" : `phase: ${status.phase}`})`,
        { details: { timeoutMs, phase: status?.phase ?? null } },
      );
    }
    await poller.sleep(Math.min(pause, left), options.signal);
    pause = Math.min(maxPollMs, Math.ceil(pause * 1.5));
  }
}

function toPredicate(what: string, condition: StatusCondition): (status: RestateRunStatus) => boolean {
  if (typeof condition === "function") return condition;
  const phases = typeof condition === "string" ? [condition] : condition;
  if (!Array.isArray(phases) || phases.length === 0 || !phases.every((p) => typeof p === "string")) {
    throw new TinyAgentsError(
      "validation",
      `${what}: wait for a phase, a non-empty list of phases, or a predicate on the status`,
      { details: { field: "condition" } },
    );
  }
  const wanted = new Set<string>(phases);
  return (status) => wanted.has(status.phase);
}

function positive(what: string, field: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new TinyAgentsError("validation", `${what}: ${field} must be a positive number of milliseconds`, {
      details: { field },
    });
  }
  return value;
}
