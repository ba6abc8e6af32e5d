import { type Clock, TinyAgentsError, validationError } from "@tinyagents/inference";
import { isInsideToolStep } from "../agent-loop/tool-step-calls.js";
import type { RunConfig } from "../config/run-config.js";
import { liveRunOf } from "../context/run-context.js";
import type { EventRecord } from "../contracts/agent-event.js";
import type { DurableContext } from "../contracts/durable-context.js";
import type { EventListener } from "../contracts/event-scope.js";
import type { IdGenerator } from "../contracts/id-generator.js";
import type { RunContext } from "../contracts/run-context.js";
import type { RunEventSink } from "../contracts/run-event-sink.js";
import type { RunStores } from "../contracts/run-stores.js";
import type { RunWorkspace } from "../contracts/run-workspace.js";
import type { RunDurability } from "../durability/run-durability.js";
import type { WorkspaceIsolation } from "../workspace/workspace-isolation.js";

/**
 * `agent.run(input, { parent })`: run this agent as a child of a live run. Inside a tool, pass
 * the tool's own context (`parent: ctx`, a `ToolExecutionContext`: its run, call id and signal);
 * elsewhere `{ run: someRunContext }`. The child runs:
 * - at the parent's depth + 1 (past the parent's `maxDepth` it fails with `sub_agent_depth`
 *   before anything runs), with run id `{name}-d{depth}-{n}` from the parent's ids;
 * - with `parentRunId` and `rootRunId` the parent's (status, every event), on the parent's
 *   event sink, clock, ids, stores and workspace, and thread `{parentThread}-subagent-{runId}`;
 * - cancelled with the parent (and with `signal`);
 * - rolled into the parent's usage, cost and `children` (also when it fails: its tokens were spent);
 * - durable like a durable parent (`durable: { store }`): its run id is then
 *   `<parentRunId>.<name>.<callId>` (`.2`, `.3`... for further children of the same call and
 *   name, in start order), the same in every process, and it checkpoints; in an engine
 *   (`durable: restateContext`...) it is one `durable.child` step, started from a tool declared
 *   `runsChild: true` (from another tool call it is refused: its steps would nest in the call's step).
 * `subagent.started` / `.completed` / `.failed` (with `name`) go on the parent's scope.
 */
export interface RunParent {
  /** The parent run's context (`ctx.run` in a tool). */
  run: RunContext<unknown>;
  /**
   * The parent's tool call running the child (`ctx.callId` in a tool). Required in a durable
   * parent: it names the child's run (`<parentRunId>.<name>.<callId>`) in every process.
   */
  callId?: string;
  /** Names the child: its run ids and the `subagent.*` events (default `"child"`). 1-64 of `A-Za-z0-9_.-`. */
  name?: string;
  /** Also cancels the child (a tool's `ctx.signal`, which also aborts on the tool's timeout). */
  signal?: AbortSignal;
}

/** @internal What `SubAgent` adds to a child run beyond `RunOptions` (see `sub-agent.ts`). */
export interface ChildRunExtras {
  /** Names the child (run ids, `subagent.*` events); wins over `parent.name`. */
  name: string;
  /** 1-based turn of a `SubAgentSession`: `subagent.reused` from turn 2, `.t<n>` on a durable child id. */
  turn?: number;
  /** Give the child its own workspace for the run. */
  isolation?: WorkspaceIsolation;
  /** A parent-less child only: its run config (depth, caps...), over the options'. */
  config?: Partial<RunConfig>;
}

/**
 * A child run, resolved: the one shape `prepare-run.ts` and `child-run.ts` share (the `parent`
 * option, or what `SubAgent` asks for). `parent` undefined: a parent-less child that reports its
 * `subagent.*` events on its own scope (`SubAgent.invoke`).
 */
export interface ChildRun {
  name: string;
  parent: RunContext<unknown> | undefined;
  callId: string | undefined;
  /** Signals that cancel the child besides the run's own `signal` option. */
  signals: AbortSignal[];
  turn: number | undefined;
  isolation: WorkspaceIsolation | undefined;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Check a child's name (it names run ids and store keys). */
export function assertChildName(name: unknown, field: string): asserts name is string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new TinyAgentsError(
      "validation",
      `sub-agent name ${JSON.stringify(name)} must be 1-64 characters of letters, digits, "_", "." or "-" (it names child runs)`,
      { details: { field } },
    );
  }
}

/** Check the `parent` run option: a `RunParent` (a tool's `ctx` is one) or a bare `RunContext`. */
export function checkParent(value: unknown): RunParent {
  if (typeof value !== "object" || value === null) throw parentShape();
  const v = value as Partial<RunParent> & Partial<RunContext<unknown>>;
  const parent: RunParent = isRunContext(v) ? { run: v as RunContext<unknown> } : (v as RunParent);
  if (!isRunContext(parent.run)) throw parentShape();
  if (parent.callId !== undefined && (typeof parent.callId !== "string" || parent.callId === ""))
    throw validationError("run option parent.callId must be a non-empty string", { field: "parent.callId" });
  if (parent.name !== undefined) assertChildName(parent.name, "parent.name");
  if (parent.signal !== undefined && !(parent.signal instanceof AbortSignal))
    throw validationError("run option parent.signal must be an AbortSignal", { field: "parent.signal" });
  return parent;
}

/** The child run the options ask for, if any: the `parent` option, and/or `SubAgent`'s extras. */
export function childRunOf(
  parent: RunParent | undefined,
  extras: ChildRunExtras | undefined,
): ChildRun | undefined {
  if (parent === undefined && extras === undefined) return undefined;
  const signals: AbortSignal[] = [];
  if (parent !== undefined) signals.push(parent.run.signal);
  if (parent?.signal !== undefined) signals.push(parent.signal);
  return {
    name: extras?.name ?? parent?.name ?? "child",
    parent: parent?.run,
    callId: parent?.callId,
    signals,
    turn: extras?.turn,
    isolation: extras?.isolation,
  };
}

/**
 * The run config of a child of `child.parent`: its depth, run id, lineage, tags and thread.
 * Throws `sub_agent_depth` (after a `subagent.failed` on the parent) past the parent's
 * `maxDepth`, and `validation` for a durable parent's child without a call id.
 */
export function childConfig(child: ChildRun & { parent: RunContext<unknown> }): Partial<RunConfig> {
  const { parent, name } = child;
  const depth = parent.depth + 1;
  const maxDepth = parent.config.maxDepth;
  if (depth > maxDepth) {
    const error = depthError(name, depth, maxDepth);
    parent.emit({ type: "subagent.failed", name, depth, error: error.toJSON() });
    throw error;
  }
  if (parent.journaled && child.callId !== undefined && isInsideToolStep(parent, child.callId))
    throw nestedInToolStep(name, child.callId);
  const prefix = `${name}-d${depth}`;
  // Through the engine when journaled: a re-driven parent gives the child the same id (and so
  // the same step names). A durable parent's child is named by its call, the same in every process.
  const durableParent = isDurableParent(parent);
  if (durableParent && child.callId === undefined) throw missingCallId(name, parent.runId);
  const runId = parent.journaled
    ? parent.durable.randomId(prefix)
    : durableParent
      ? repeatedChildId(parent, durableChildId(parent.runId, name, child.callId as string, child.turn))
      : parent.ids.next(prefix);
  const config: Partial<RunConfig> = {
    runId,
    depth,
    maxDepth,
    parentRunId: parent.runId,
    rootRunId: parent.scope.rootRunId,
    tags: parent.config.tags.slice(),
  };
  if (parent.threadId !== undefined) config.threadId = `${parent.threadId}-subagent-${runId}`;
  return config;
}

/** What a child run takes from its parent's context (see {@link inheritedContext}). */
export interface InheritedContext {
  events: RunEventSink;
  stores: RunStores;
  clock: Clock;
  ids: IdGenerator;
  workspace?: RunWorkspace;
  durable?: DurableContext;
  durability?: RunDurability;
}

/**
 * What a child takes from its parent's context: its sink, stores, workspace, clock and ids (a
 * per-run `DeterministicClock` covers the tree), its engine when journaled, and its durability
 * (same store, owner, lease and heartbeat) when the parent is checkpointed.
 */
export function inheritedContext(parent: RunContext<unknown>): InheritedContext {
  const inherited: InheritedContext = {
    events: parent.events,
    stores: parent.stores,
    clock: parent.clock,
    ids: parent.ids,
  };
  if (parent.workspace !== undefined) inherited.workspace = parent.workspace;
  if (parent.journaled) inherited.durable = parent.durable;
  const lease = liveRunOf(parent)?.durability;
  if (isDurableParent(parent) && lease?.checkpoints !== undefined) {
    inherited.durability = {
      checkpoints: lease.checkpoints,
      ownerId: lease.ownerId,
      leaseMs: lease.leaseMs,
      heartbeatMs: lease.heartbeatMs,
      ...(lease.flush === undefined ? {} : { flush: lease.flush }),
    };
  }
  return inherited;
}

/**
 * `listener`, called only for the events of run `runId` and of its descendants (a child shares
 * its parent's sink: its `onEvent` must not see the parent's or its siblings' events). The
 * descendants are learned as they appear, by `parentRunId` (a run's first event comes after
 * its parent's `subagent.started`).
 */
export function lineageListener(runId: string, listener: EventListener): EventListener {
  const runs = new Set([runId]);
  return (record: EventRecord) => {
    if (!runs.has(record.runId)) {
      if (record.parentRunId === undefined || !runs.has(record.parentRunId)) return;
      runs.add(record.runId);
    }
    return listener(record);
  };
}

/** The `sub_agent_depth` error: names the agent, the depth it would run at and the limit. */
export function depthError(name: string, depth: number, maxDepth: number): TinyAgentsError {
  return new TinyAgentsError(
    "sub_agent_depth",
    `sub-agent "${name}" would run at depth ${depth}, past the maximum depth ${maxDepth} ` +
      "(RunConfig.maxDepth / RunLimits.maxDepth); raise the limit or flatten the agent tree",
    { details: { name, depth, maxDepth } },
  );
}

/** A checkpointed (leased) parent outside an engine: its children are durable too. */
function isDurableParent(parent: RunContext<unknown>): boolean {
  return !parent.journaled && liveRunOf(parent)?.durability?.lease !== undefined;
}

function isRunContext(value: unknown): boolean {
  const v = value as Partial<RunContext<unknown>> | undefined;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.emit === "function" &&
    typeof v.recordChild === "function" &&
    typeof v.config === "object"
  );
}

function parentShape(): TinyAgentsError {
  return validationError(
    "run option parent must be the parent run: a tool's ctx ({ run, callId, signal }), { run: RunContext, callId?, name?, signal? }, or a RunContext",
    { field: "parent" },
  );
}

/**
 * The run id of a durable parent's child: the same in every process (`<parentRunId>.<name>.<callId>`,
 * and `.t<n>` for turn n >= 2 of a session, whose turns are separate child runs).
 */
function durableChildId(parentRunId: string, name: string, callId: string, turn: number | undefined): string {
  const base = `${parentRunId}.${name}.${callId}`;
  return turn === undefined || turn <= 1 ? base : `${base}.t${turn}`;
}

/** Per parent run: how many children each durable child id has named so far (see `repeatedChildId`). */
const durableChildStarts = new WeakMap<RunContext<unknown>, Map<string, number>>();

/**
 * A durable child id made unique within its parent run: the first child of a call keeps `id`,
 * the next ones of the same call and name get `id.2`, `id.3`... in start order. Tool code
 * replays in order when the parent is recovered (a fresh context, so the count restarts), so a
 * repeat gets the same id in every process and continues its own checkpoint, not its sibling's.
 */
function repeatedChildId(parent: RunContext<unknown>, id: string): string {
  let starts = durableChildStarts.get(parent);
  if (starts === undefined) {
    starts = new Map();
    durableChildStarts.set(parent, starts);
  }
  const n = (starts.get(id) ?? 0) + 1;
  starts.set(id, n);
  return n === 1 ? id : `${id}.${n}`;
}

/** `validation`: a child started by a tool call that runs inside its engine step would nest steps. */
function nestedInToolStep(name: string, callId: string): TinyAgentsError {
  return new TinyAgentsError(
    "validation",
    `sub-agent "${name}" is started by tool call "${callId}" of a run under an engine, inside the call's ` +
      "tool step: its own steps would nest in that step, which an engine cannot replay. Declare the tool " +
      "with `runsChild: true` (tool({ ..., runsChild: true })) so its call is not wrapped in a step",
    { details: { field: "runsChild", name, callId } },
  );
}

/** `validation`: a durable parent's child needs a call id that names it in every process. */
function missingCallId(name: string, parentRunId: string): TinyAgentsError {
  return new TinyAgentsError(
    "validation",
    `sub-agent "${name}" runs inside durable run "${parentRunId}" without a call id: pass the tool call's ` +
      "id (parent: ctx in a tool, or parent.callId), or another id that is the same in every process, so the " +
      "child's run id is too (it is checkpointed and continued from its own checkpoint when the parent is recovered)",
    { details: { field: "callId", name, parentRunId } },
  );
}
