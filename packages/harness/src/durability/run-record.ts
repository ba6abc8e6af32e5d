import { type JsonObject, type Message, TinyAgentsError } from "@tinyagents/inference";
import type { ToolIntent } from "./checkpoint-contract.js";
import type { PausedRun } from "./paused-run.js";

/** Where a durable run stands: running (or died running), paused, or finished. */
export type DurableRunState = "running" | "paused" | "completed" | "failed";

/**
 * THE durable record of one run in a `CheckpointStore` (one key per run): who owns it (owner,
 * fencing epoch, lease), where it stands, its last checkpoint (or its paused record), and the
 * intents and results of its `sideEffects: "once"` tool calls. Every write of it is a
 * compare-and-set conditional on the owner's epoch, so a process that lost the run (its lease
 * lapsed and another process took it) can no longer write anything of it.
 */
export interface DurableRunRecord {
  kind: typeof RUN_RECORD_KIND;
  runId: string;
  rootRunId: string;
  parentRunId?: string;
  /** The agent that runs it (a supervisor picks the harness to recover it with by this name). */
  agent?: string;
  /** The owner of the current epoch (a worker or process id). */
  ownerId: string;
  /** The fencing token: bumped by every take (start, recover, resume, reap). */
  epoch: number;
  /** The owner's lease: the run counts as alive until then (epoch ms, the owner's clock). */
  leaseUntil: number;
  state: DurableRunState;
  /** The run's input and config, durable from its start (before any model call). */
  start?: { input: Message[]; config: JsonObject };
  /** The last safe boundary (state `running`), or the paused run (state `paused`). */
  checkpoint?: PausedRun;
  /** The checkpoint holds the final model response: recovery completes without a model call. */
  final?: boolean;
  /**
   * The run was completing (its memory saved): the journal offset of its `run.completed`. A
   * recovery whose journal continues past it does not emit `run.completed` again.
   */
  completingAt?: number;
  /** `"once"` tool calls by call id: kept after the run ends (a late owner must still find them). */
  intents: Record<string, ToolIntent>;
  /** How it ended (state `completed` / `failed`). */
  outcome?: { stopReason: string; errorCode?: string };
  updatedAt: number;
}

/** The `kind` of a {@link DurableRunRecord} (tells it from other values of the namespace). */
export const RUN_RECORD_KIND = "tinyagents.run/1";

/** How a run is taken: each is one compare-and-set that bumps the epoch. */
export type TakeMode = "start" | "recover" | "resume" | "reap";

/** What a take asks for. */
export interface TakeRequest {
  runId: string;
  mode: TakeMode;
  ownerId: string;
  leaseMs: number;
  /** The taker's clock (epoch ms): leases are compared with it. */
  now: number;
  rootRunId?: string;
  parentRunId?: string;
  agent?: string;
  /** `start`: the run's input and config. */
  start?: { input: Message[]; config: JsonObject };
  /** `resume`: the paused run being resumed (recorded when the store has no record of the run). */
  paused?: PausedRun;
  /**
   * `start` of a durable sub-agent's child run (its id derived from its parent's run id and tool
   * call id): an existing record of the same parent is continued from its own checkpoint
   * instead of refused — when its lease lapsed, or the caller owns the parent now (`parentOwned`).
   */
  continueChild?: boolean;
  /** Set by the store: the caller owns the running parent of this child run. */
  parentOwned?: boolean;
}

/** Whether `value` is a run record (and not some other value of the namespace). */
export function isRunRecord(value: unknown): value is DurableRunRecord {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === RUN_RECORD_KIND &&
    typeof (value as { runId?: unknown }).runId === "string"
  );
}

/**
 * The record after `request` takes the run, or the typed refusal (`conflict` naming the run).
 * Refusals never wait and never steal: starting an existing run id; recovering a run that is
 * unknown, finished, paused, a child, or whose lease is live in another owner's hands; resuming
 * a run that is not paused; reaping a run whose lease is live.
 */
export function takeRecord(current: DurableRunRecord | undefined, request: TakeRequest): DurableRunRecord {
  const { runId, mode, now } = request;
  const owned = (base: DurableRunRecord | undefined, state: DurableRunState): DurableRunRecord => {
    const next: DurableRunRecord = {
      kind: RUN_RECORD_KIND,
      runId,
      rootRunId: base?.rootRunId ?? request.rootRunId ?? runId,
      ownerId: request.ownerId,
      epoch: (base?.epoch ?? 0) + 1,
      leaseUntil: now + request.leaseMs,
      state,
      intents: base?.intents ?? {},
      updatedAt: now,
    };
    const parentRunId = base?.parentRunId ?? request.parentRunId;
    if (parentRunId !== undefined) next.parentRunId = parentRunId;
    const agent = request.agent ?? base?.agent;
    if (agent !== undefined) next.agent = agent;
    const start = base?.start ?? request.start;
    if (start !== undefined) next.start = start;
    if (base?.checkpoint !== undefined) next.checkpoint = base.checkpoint;
    if (base?.final === true) next.final = true;
    if (base?.completingAt !== undefined) next.completingAt = base.completingAt;
    return next;
  };
  if (current === undefined) {
    if (mode === "start") return owned(undefined, "running");
    if (mode === "resume") {
      const next = owned(undefined, "running");
      if (request.paused !== undefined) next.checkpoint = request.paused;
      return next;
    }
    throw refusal(
      runId,
      mode,
      "it has no durable record in this store (it never ran with it, or was deleted)",
      "not_found",
    );
  }
  const describe = `its record reads "${current.state}" (owner "${current.ownerId}", epoch ${current.epoch})`;
  const live = current.state === "running" && current.leaseUntil > now && current.ownerId !== request.ownerId;
  switch (mode) {
    case "start":
      if (request.continueChild === true && current.parentRunId === request.parentRunId) {
        if (current.state === "paused") throw refusal(runId, mode, `the child run is paused: ${describe}`);
        if (live && request.parentOwned !== true) {
          throw refusal(
            runId,
            mode,
            `the child run's owner "${current.ownerId}" holds a live lease: ${describe}`,
          );
        }
        return owned(current, "running");
      }
      throw refusal(runId, mode, `the run id already exists: ${describe}; start with a new run id`);
    case "resume":
      if (current.state !== "paused") throw refusal(runId, mode, `it is no longer paused: ${describe}`);
      return owned(current, "running");
    case "reap":
      if (current.state !== "running") throw refusal(runId, mode, `it is not running: ${describe}`);
      if (live) throw refusal(runId, mode, `its lease is live until ${iso(current.leaseUntil)}: ${describe}`);
      return { ...owned(current, "failed"), outcome: { stopReason: "abandoned", errorCode: "abandoned" } };
    case "recover":
      if (current.parentRunId !== undefined) {
        throw refusal(
          runId,
          mode,
          `it is a child run of "${current.parentRunId}": recover its root run "${current.rootRunId}"`,
        );
      }
      if (current.state === "paused")
        throw refusal(runId, mode, `it is paused, not crashed: resume it (${describe})`);
      if (current.state !== "running") throw refusal(runId, mode, `it has finished: ${describe}`);
      if (live) {
        throw refusal(
          runId,
          mode,
          `its owner "${current.ownerId}" holds a live lease until ${iso(current.leaseUntil)} (epoch ${current.epoch}); recover only runs whose owner died`,
        );
      }
      return owned(current, "running");
  }
}

/**
 * `conflict` (`not_found` for a run the store does not know): run `runId` cannot be taken this
 * way; what to do instead is in the message.
 */
export function refusal(
  runId: string,
  mode: TakeMode,
  why: string,
  code: "conflict" | "not_found" = "conflict",
): TinyAgentsError {
  return new TinyAgentsError(code, `cannot ${mode} run "${runId}": ${why}`, {
    details: { runId, mode },
  });
}

/**
 * `conflict`: this process lost run `runId` (another owner took it: a later epoch), so it stops
 * the run without executing anything more.
 */
export function fencedOut(
  runId: string,
  mine: { ownerId: string; epoch: number },
  current: DurableRunRecord | undefined,
): TinyAgentsError {
  const now =
    current === undefined
      ? "its record was deleted"
      : `it is now owned by "${current.ownerId}" at epoch ${current.epoch} (state "${current.state}")`;
  return new TinyAgentsError(
    "conflict",
    `run "${runId}" was taken from owner "${mine.ownerId}" (epoch ${mine.epoch}): ${now}; this process stopped the run without executing anything more`,
    {
      details: {
        runId,
        ownerId: mine.ownerId,
        epoch: mine.epoch,
        ...(current === undefined ? {} : { currentOwnerId: current.ownerId, currentEpoch: current.epoch }),
      },
    },
  );
}

function iso(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms);
}
