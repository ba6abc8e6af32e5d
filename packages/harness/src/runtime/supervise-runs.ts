import {
  type Clock,
  startInterval,
  systemClock,
  TinyAgentsError,
  validationError,
} from "@tinyagents/inference";
import { abandonedStatus } from "../durability/reap-stale.js";
import type { DurableRunRecord } from "../durability/run-record.js";
import type { HarnessStatusStore } from "../observability/status-store.js";
import { checkpointStoreOf, type DurableRunStore } from "./durable-run-options.js";
import type { RunOptions } from "./run-options.js";
import type { RunResult } from "./run-result.js";

/** What a supervisor needs of an agent: the front door's `recover`. */
export interface RecoveringAgent {
  recover(runId: string, options: RunOptions<never, never>): Promise<RunResult<unknown>>;
}

/** Options of {@link superviseRuns} and {@link startSupervisor}. */
export interface SuperviseRunsOptions {
  /** The store the runs' durable records live in (the runs' `durable.store`). */
  store: DurableRunStore;
  /**
   * The agents that recover runs, by the name each run recorded (`durable.agent`). A dead run
   * whose agent is not here is reaped (marked failed, `abandoned`) unless `unknownAgent` is "skip".
   */
  agents?: Record<string, RecoveringAgent>;
  /** The agent for runs recorded without a name. */
  defaultAgent?: string;
  /** This supervisor's owner id (default a fresh `supervisor-<pid>-<n>` per pass): recovered runs are owned by it. */
  ownerId?: string;
  /** Lease of the recovered runs (default 30 s) and their heartbeat interval. */
  leaseMs?: number;
  heartbeatMs?: number;
  /** More options of each recovered run (its `events` sink continuing the journal, state, ...). */
  runOptions?: (record: DurableRunRecord) => RunOptions<never, never> | Promise<RunOptions<never, never>>;
  /** How many runs are recovered at once (default 4). */
  concurrency?: number;
  /** Grace past a run's lease before it counts as dead (default 0). */
  graceMs?: number;
  /** The supervisor's clock (default the system clock): leases are compared with it. */
  clock?: Clock;
  /** What to do with a dead run no agent here can recover: "reap" (default) or "skip". */
  unknownAgent?: "reap" | "skip";
  /** A status store to mark reaped runs `failed` / `abandoned` in (at the reap's epoch). */
  statusStore?: HarnessStatusStore;
}

let passes = 0;

/** What one supervision pass did, run by run. */
export interface SupervisionReport {
  /** Runs recovered and finished (completed, or ended as their own logic decided). */
  recovered: { runId: string; agent: string; stopReason: string }[];
  /** Runs recovered whose continuation failed (the run's own error). */
  failed: { runId: string; agent: string; error: TinyAgentsError }[];
  /** Runs marked failed / `abandoned` (no agent here could recover them). */
  reaped: string[];
  /** Dead runs left alone: another process took them first, or `unknownAgent: "skip"`. */
  skipped: { runId: string; reason: string }[];
}

/**
 * One supervision pass (a worker's boot, or each tick of {@link startSupervisor}): every root
 * run of `store` that is `running` but whose owner's lease lapsed (plus `graceMs`) is recovered
 * with the agent it recorded, or reaped when no agent here can take it. At most `concurrency`
 * runs at once. Each recovery is a fenced take: a run another supervisor took first is skipped,
 * never run twice. Resolves when every run it took has finished.
 */
export async function superviseRuns(options: SuperviseRunsOptions): Promise<SupervisionReport> {
  const store = checkpointStoreOf(options.store);
  const clock = options.clock ?? systemClock;
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw validationError(`supervisor concurrency must be an integer >= 1, got ${String(concurrency)}`, {
      field: "concurrency",
    });
  }
  const graceMs = options.graceMs ?? 0;
  const ownerId =
    options.ownerId ??
    `supervisor-${(globalThis as { process?: { pid?: number } }).process?.pid ?? 0}-${++passes}`;
  const report: SupervisionReport = { recovered: [], failed: [], reaped: [], skipped: [] };
  const now = clock.now();
  // The live index, not every record: a pass costs O(live runs), however many finished ones the store keeps.
  const dead = (await store.liveRecords(now)).filter(
    (r) => r.state === "running" && r.parentRunId === undefined && r.leaseUntil + graceMs <= now,
  );
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < dead.length; i = next++) {
      await superviseOne(dead[i] as DurableRunRecord, { ...options, ownerId }, store, clock, report);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, dead.length) }, worker));
  return report;
}

async function superviseOne(
  record: DurableRunRecord,
  options: SuperviseRunsOptions & { ownerId: string },
  store: ReturnType<typeof checkpointStoreOf>,
  clock: Clock,
  report: SupervisionReport,
): Promise<void> {
  const { runId } = record;
  const name = record.agent ?? options.defaultAgent;
  const agent = name === undefined ? undefined : options.agents?.[name];
  if (agent === undefined || name === undefined) {
    if (options.unknownAgent === "skip") {
      report.skipped.push({ runId, reason: `no agent "${name ?? "(unnamed)"}" here` });
      return;
    }
    await reap(record, options, store, clock, report);
    return;
  }
  const extra = (await options.runOptions?.(record)) ?? {};
  const durable = {
    store,
    ownerId: options.ownerId,
    agent: name,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  };
  try {
    const result = await agent.recover(runId, { clock, ...extra, durable });
    report.recovered.push({ runId, agent: name, stopReason: result.stopReason });
  } catch (error) {
    if (!TinyAgentsError.isInstance(error)) throw error;
    // A refused take (another process took the run first) executed nothing: skip it.
    if (error.code === "conflict" && (error.details as { mode?: unknown } | undefined)?.mode === "recover") {
      report.skipped.push({ runId, reason: error.message });
    } else report.failed.push({ runId, agent: name, error });
  }
}

async function reap(
  record: DurableRunRecord,
  options: SuperviseRunsOptions & { ownerId: string },
  store: ReturnType<typeof checkpointStoreOf>,
  clock: Clock,
  report: SupervisionReport,
): Promise<void> {
  const now = clock.now();
  try {
    const lease = await store.take({
      runId: record.runId,
      mode: "reap",
      ownerId: options.ownerId,
      leaseMs: options.leaseMs ?? 30_000,
      now,
    });
    report.reaped.push(record.runId);
    const status = await options.statusStore?.get(record.runId);
    if (status !== undefined && (status.status === "running" || status.status === "pending")) {
      await options.statusStore?.save({ ...abandonedStatus(status, now), epoch: lease.epoch });
    }
  } catch (error) {
    if (!TinyAgentsError.isInstance(error, "conflict")) throw error;
    report.skipped.push({ runId: record.runId, reason: error.message });
  }
}

/** A running supervisor ({@link startSupervisor}). */
export interface Supervisor {
  /** The report of the last finished pass (empty before the first). */
  readonly lastReport: SupervisionReport;
  /** Stop ticking; resolves when the pass in progress (if any) has finished. */
  stop(): Promise<void>;
}

/**
 * A supervisor for a worker: a pass at once (boot), then one every `intervalMs` on `clock`
 * (a pass still running skips the tick). Errors of a pass go to `onError` (default: the
 * console); the next tick tries again.
 */
export function startSupervisor(
  options: SuperviseRunsOptions & { intervalMs: number; onError?: (error: unknown) => void },
): Supervisor {
  const clock = options.clock ?? systemClock;
  let lastReport: SupervisionReport = { recovered: [], failed: [], reaped: [], skipped: [] };
  let running: Promise<void> | undefined;
  const pass = () => {
    if (running !== undefined) return;
    running = superviseRuns(options)
      .then((report) => {
        lastReport = report;
      })
      .catch((error: unknown) => (options.onError ?? console.error)(error))
      .finally(() => {
        running = undefined;
      });
  };
  pass();
  const timer = startInterval(clock, options.intervalMs, pass);
  return {
    get lastReport() {
      return lastReport;
    },
    async stop() {
      timer.cancel();
      await running;
    },
  };
}
