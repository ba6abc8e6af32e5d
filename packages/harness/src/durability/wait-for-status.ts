import { systemClock, TinyAgentsError } from "@tinyagents/inference";

/**
 * What an engine client's `waitForStatus` waits for: a state, any of several states, or a
 * predicate on the status (called only once the run has a status).
 */
export type StatusCondition<Status, State extends string = string> =
  | State
  | readonly State[]
  | ((status: Status) => boolean);

/** Options of an engine client's `waitForStatus`. */
export interface WaitForStatusOptions {
  /** Give up after this long with a `timeout` error (default 30,000 ms). */
  timeoutMs?: number;
  /**
   * Longest pause between two reads of the status (default 250 ms). Reads start 10 ms apart and
   * back off (x1.5) to it: a change soon after the call is seen soon, a long wait costs little.
   */
  maxPollMs?: number;
  /** Stops the wait (rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** Where {@link waitForRunStatus} reads a run's status, and what its states mean. */
export interface RunStatusSource<Status> {
  /** The run's status now; `undefined` while it has none (not started yet). */
  read(): Promise<Status | undefined>;
  /** The status's state (`running`, `SUCCESS`, ...), matched by a state condition. */
  state(status: Status): string;
  /** True when the status is final: a run there never changes state again. */
  finished(status: Status): boolean;
  /** Default: the system clock's sleep and time (a test passes a `DeterministicClock`). */
  clock?: { now(): number; sleep(ms: number, signal?: AbortSignal): Promise<void> };
}

const FIRST_POLL_MS = 10;

/**
 * Read a run's status until `condition` holds and return that status; a run with no status yet
 * is waited for. Ends with a typed error instead of waiting forever: `timeout` after `timeoutMs`
 * (details: the last state seen, `null` when the run never had a status); `conflict` at once when
 * the run is finished without meeting the condition (its status will not change again);
 * `validation` for a bad condition or option. Errors of `read` pass through (an engine client
 * throws `not_found` there for a run or agent it does not know).
 */
export async function waitForRunStatus<Status>(
  what: string,
  condition: StatusCondition<Status>,
  options: WaitForStatusOptions,
  source: RunStatusSource<Status>,
): Promise<Status> {
  const holds = toPredicate(what, condition, source);
  const timeoutMs = positive(what, "timeoutMs", options.timeoutMs ?? 30_000);
  const maxPollMs = positive(what, "maxPollMs", options.maxPollMs ?? 250);
  const clock = source.clock ?? systemClock;
  const deadline = clock.now() + timeoutMs;
  let pause = Math.min(FIRST_POLL_MS, maxPollMs);
  for (;;) {
    options.signal?.throwIfAborted();
    const status = await source.read();
    if (status !== undefined && holds(status)) return status;
    const state = status === undefined ? null : source.state(status);
    if (status !== undefined && source.finished(status)) {
      throw new TinyAgentsError(
        "conflict",
        `${what}: the run finished (${state}) without reaching the awaited status; it will not change again`,
        { details: { state } },
      );
    }
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new TinyAgentsError(
        "timeout",
        `${what}: not reached within ${timeoutMs} ms (${state === null ? "the run has not started" : `state: ${state}`})`,
        { details: { timeoutMs, state } },
      );
    }
    await clock.sleep(Math.min(pause, left), options.signal);
    pause = Math.min(maxPollMs, Math.ceil(pause * 1.5));
  }
}

function toPredicate<Status>(
  what: string,
  condition: StatusCondition<Status>,
  source: RunStatusSource<Status>,
): (status: Status) => boolean {
  if (typeof condition === "function") return condition as (status: Status) => boolean;
  const states = typeof condition === "string" ? [condition] : condition;
  if (!Array.isArray(states) || states.length === 0 || !states.every((s) => typeof s === "string")) {
    throw new TinyAgentsError(
      "validation",
      `${what}: wait for a state, a non-empty list of states, or a predicate on the status`,
      { details: { field: "condition" } },
    );
  }
  const wanted = new Set<string>(states);
  return (status) => wanted.has(source.state(status));
}

function positive(what: string, field: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new TinyAgentsError("validation", `${what}: ${field} must be a positive number of milliseconds`, {
      details: { field },
    });
  }
  return value;
}
