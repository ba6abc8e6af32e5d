import {
  type JsonValue,
  type Message,
  system,
  TinyAgentsError,
  toTinyAgentsError,
} from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { ChildRunSummary } from "../agent-loop/child-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { RunConfig } from "../config/run-config.js";
import { liveRunOf } from "../context/run-context.js";
import type { RunContext } from "../contracts/run-context.js";
import type { EventSink } from "../events/event-sink.js";
import type { SteeringHandle } from "../steering/steering-handle.js";
import {
  cleanupWorkspace,
  prepareWorkspace,
  type WorkspaceIsolation,
} from "../workspace/workspace-isolation.js";
import type { AgentCore } from "./agent-core.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import type { ContextOptions } from "./create-context.js";
import { lowerLayer } from "./lower-layer.js";

/** Construction options of a {@link SubAgent}. */
export interface SubAgentOptions<State, Ctx> {
  /** Stable name: appears in child run ids (`{name}-d{depth}-{seq}`), events and tool names. */
  name: string;
  /** What the agent is for (the default description of its SubAgentTool). */
  description: string;
  harness: AgentCore<State, Ctx>;
  /** Sent as a system message before every input of the child run. */
  systemPrompt?: string;
  /** Lets the parent (or anyone holding it) steer the child runs. */
  steering?: SteeringHandle;
  /** Give every child run its own workspace instead of inheriting the parent's. */
  workspace?: WorkspaceIsolation;
}

/** Options of a fresh (parent-less) sub-agent run. */
export interface SubAgentInvokeOptions {
  /** Depth of the (absent) parent; the child runs at `parentDepth + 1` (default 0). */
  parentDepth?: number;
  /** Extra run config (caps, thread, tags, `maxDepth`); `runId` defaults to `{name}-d{depth}-{seq}`. */
  config?: Partial<RunConfig>;
  signal?: AbortSignal;
}

/** Options of a run inside a parent context. */
export interface SubAgentParentOptions {
  /** Also cancels the child (a tool passes its own signal, which also aborts on the tool's timeout). */
  signal?: AbortSignal;
  /**
   * The parent's tool call that runs the child (`ctx.callId` in a tool; any id that is the same
   * in every process otherwise). In a durable parent (`durable: { store }`) the child's run id is
   * derived from it (`<parentRunId>.<name>.<callId>`, `.t<n>` added for turn n >= 2 of a
   * `SubAgentSession`) and the child is durable too: it checkpoints and heartbeats, and a
   * recovered parent that calls it again continues it from its own checkpoint. Required in a
   * durable parent: without it the child's id would differ in the recovering process.
   */
  callId?: string;
}

/** @internal What `SubAgentSession` adds to a run. */
export interface SubAgentTurn {
  /** Messages of earlier turns, sent before the new input. */
  history: readonly Message[];
  /** 1-based turn number; `subagent.reused` is emitted from turn 2. */
  turn: number;
}

/**
 * An agent another agent can call. `invoke` / `invokeWithEvents` run a fresh child loop;
 * `invokeInParent` runs it inside a live parent run:
 * - at `parent.depth + 1`; past the parent's `maxDepth` it fails with `sub_agent_depth` naming
 *   the limit (and a `subagent.failed` event) before anything runs;
 * - on the parent's event sink, so the child's events sit on the parent's stream with the child
 *   run id `{name}-d{depth}-{seq}` (from the parent's ids), `parentRunId` and `rootRunId`;
 * - cancelled with the parent (its abort signal is linked for the duration of the child run);
 * - sharing the parent's stores and workspace (unless `workspace` isolation is configured), and
 *   a child thread `{parentThread}-subagent-{childRunId}` when the parent has a thread;
 * - rolling its usage and cost (its whole subtree's) into the parent run's totals and status,
 *   listed in `run.children` — also when the child fails, since its tokens were spent.
 * `subagent.started` / `subagent.completed` / `subagent.failed` go on the parent's scope.
 */
export class SubAgent<State = unknown, Ctx = undefined> {
  readonly name: string;
  readonly description: string;
  readonly harness: AgentCore<State, Ctx>;
  readonly systemPrompt: string | undefined;
  readonly steering: SteeringHandle | undefined;
  private readonly isolation: WorkspaceIsolation | undefined;

  constructor(options: SubAgentOptions<State, Ctx>) {
    if (typeof options.name !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(options.name)) {
      throw new TinyAgentsError(
        "validation",
        `sub-agent name ${JSON.stringify(options.name)} must be 1-64 characters of letters, digits, "_", "." or "-" (it names child runs)`,
        { details: { field: "name" } },
      );
    }
    this.name = options.name;
    this.description = options.description;
    this.harness = options.harness;
    this.systemPrompt = options.systemPrompt;
    this.steering = options.steering;
    this.isolation = options.workspace;
  }

  /** A fresh child run (no parent context). Throws the child's error. */
  invoke(state: State, data: Ctx, input: AgentInput, options: SubAgentInvokeOptions = {}): Promise<AgentRun> {
    return this.runFresh(state, data, input, undefined, options);
  }

  /** `invoke` with the child's events on `events`. */
  invokeWithEvents(
    state: State,
    data: Ctx,
    input: AgentInput,
    events: EventSink,
    options: SubAgentInvokeOptions = {},
  ): Promise<AgentRun> {
    return this.runFresh(state, data, input, events, options);
  }

  /** Run inside the live `parent` run (see the class contract). Throws the child's error. */
  invokeInParent(
    state: State,
    data: Ctx,
    parent: RunContext<unknown>,
    input: AgentInput,
    options: SubAgentParentOptions = {},
  ): Promise<AgentRun> {
    return this.runInParent(state, data, parent, input, options);
  }

  /** @internal Shared by `invokeInParent` and `SubAgentSession`. */
  async runInParent(
    state: State,
    data: Ctx,
    parent: RunContext<unknown>,
    input: AgentInput,
    options: SubAgentParentOptions = {},
    turn?: SubAgentTurn,
  ): Promise<AgentRun> {
    const depth = parent.depth + 1;
    const maxDepth = parent.config.maxDepth;
    if (depth > maxDepth) {
      const error = depthError(this.name, depth, maxDepth);
      parent.emit({ type: "subagent.failed", name: this.name, depth, error: error.toJSON() });
      throw error;
    }
    const messages = this.messages(input, turn);
    // Through the engine when journaled: a re-driven parent gives the child the same id (and so
    // the same step names).
    const prefix = `${this.name}-d${depth}`;
    const lease = liveRunOf(parent)?.durability;
    const durableParent = !parent.journaled && lease?.lease !== undefined;
    if (durableParent && (typeof options.callId !== "string" || options.callId === "")) {
      throw missingCallId(this.name, parent.runId);
    }
    const runId = parent.journaled
      ? parent.durable.randomId(prefix)
      : durableParent
        ? durableChildId(parent.runId, this.name, options.callId as string, turn)
        : parent.ids.next(prefix);
    const config: Partial<RunConfig> = {
      runId,
      depth,
      maxDepth,
      parentRunId: parent.runId,
      rootRunId: parent.scope.rootRunId,
      tags: parent.config.tags.slice(),
      ...(parent.threadId === undefined ? {} : { threadId: `${parent.threadId}-subagent-${runId}` }),
    };
    const contextOptions: ContextOptions = { events: parent.events, stores: parent.stores };
    if (parent.workspace !== undefined) contextOptions.workspace = parent.workspace;
    if (durableParent && lease?.checkpoints !== undefined) {
      // The child is durable like its parent: same store, owner, lease and heartbeat.
      contextOptions.durability = {
        checkpoints: lease.checkpoints,
        ownerId: lease.ownerId,
        leaseMs: lease.leaseMs,
        heartbeatMs: lease.heartbeatMs,
        ...(lease.flush === undefined ? {} : { flush: lease.flush }),
      };
    }
    const execute = () =>
      this.execute(
        state,
        data,
        config,
        contextOptions,
        messages,
        parent,
        [parent.signal, options.signal],
        turn,
      );
    return parent.journaled ? this.durableChild(parent, runId, depth, messages, execute) : execute();
  }

  /**
   * A child run of a journaled parent, through `durable.child` (named `child:<runId>`, with this
   * agent's name and input, so an engine may run it on another worker). Its value is the child's
   * `AgentRun` as JSON. When the engine answers from its journal (or ran the child elsewhere),
   * nothing ran here: the child's totals are rolled into the parent as `execute` would have.
   */
  private async durableChild(
    parent: RunContext<unknown>,
    runId: string,
    depth: number,
    messages: Message[],
    execute: () => Promise<AgentRun>,
  ): Promise<AgentRun> {
    let live: AgentRun | undefined;
    const recorded = await parent.durable.child(
      `child:${runId}`,
      async () => {
        live = await execute();
        return JSON.parse(JSON.stringify(live)) as JsonValue;
      },
      { runId, agent: this.name, input: JSON.parse(JSON.stringify(messages)) as JsonValue },
    );
    if (live !== undefined) return live;
    const run = recorded as unknown as AgentRun;
    parent.recordChild({
      name: this.name,
      runId: run.runId,
      depth,
      status: run.stopReason === "interrupted" ? "interrupted" : "completed",
      usage: run.usage,
      cost: run.cost,
    });
    return run;
  }

  /** @internal Shared by `invoke`, `invokeWithEvents` and `SubAgentSession`. */
  async runFresh(
    state: State,
    data: Ctx,
    input: AgentInput,
    events: EventSink | undefined,
    options: SubAgentInvokeOptions,
    turn?: SubAgentTurn,
  ): Promise<AgentRun> {
    const depth = (options.parentDepth ?? 0) + 1;
    const messages = this.messages(input, turn);
    const config: Partial<RunConfig> = {
      ...options.config,
      runId: options.config?.runId ?? this.harness.idGenerator.next(`${this.name}-d${depth}`),
      depth,
    };
    const contextOptions: ContextOptions = events === undefined ? {} : { events };
    return this.execute(state, data, config, contextOptions, messages, undefined, [options.signal], turn);
  }

  private async execute(
    state: State,
    data: Ctx,
    config: Partial<RunConfig>,
    contextOptions: ContextOptions,
    messages: Message[],
    parent: RunContext<unknown> | undefined,
    signals: (AbortSignal | undefined)[],
    turn: SubAgentTurn | undefined,
  ): Promise<AgentRun> {
    if (this.steering !== undefined) contextOptions.steering = this.steering;
    // A child runs on its parent's clock and ids (a per-run DeterministicClock covers the tree),
    // and in its parent's engine (the in-process default is per run: each child builds its own).
    if (parent !== undefined) {
      contextOptions.clock ??= parent.clock;
      contextOptions.ids ??= parent.ids;
      if (parent.journaled) contextOptions.durable ??= parent.durable;
    }
    const layer = lowerLayer(this.harness);
    const ctx = layer.createContext(config, data, contextOptions);
    if (parent !== undefined && liveRunOf(parent)?.streamsDeltas === true) ctx.streamsDeltas = true;
    // Events about the child go on the parent's scope; a fresh run reports on its own.
    const host: RunContext<unknown> = parent ?? ctx;
    const { name } = this;
    const depth = ctx.depth;
    if (depth > ctx.config.maxDepth) {
      const error = depthError(name, depth, ctx.config.maxDepth);
      host.emit({ type: "subagent.failed", name, depth, childRunId: ctx.runId, error: error.toJSON() });
      throw error;
    }
    const unlink = signals.map((signal) => linkAbort(signal, ctx));
    host.emit({ type: "subagent.started", name, depth, childRunId: ctx.runId });
    if (turn !== undefined && turn.turn > 1) host.emit({ type: "subagent.reused", name, turn: turn.turn });
    let outcome: RunOutcome;
    try {
      if (this.isolation !== undefined) await prepareWorkspace(this.isolation, ctx);
      outcome = await layer.invokeInContextCollectingPartial(state, ctx, messages);
    } catch (thrown) {
      const error = toTinyAgentsError(thrown);
      host.emit({ type: "subagent.failed", name, depth, childRunId: ctx.runId, error: error.toJSON() });
      throw error;
    } finally {
      for (const stop of unlink) stop();
      if (this.isolation !== undefined) await cleanupWorkspace(this.isolation, ctx);
    }
    const { run, status, error } = outcome;
    const summary: ChildRunSummary = {
      name,
      runId: run.runId,
      depth,
      status: status.status === "pending" || status.status === "running" ? "failed" : status.status,
      usage: run.usage,
      cost: run.cost,
    };
    parent?.recordChild(summary);
    if (error !== undefined) {
      host.emit({ type: "subagent.failed", name, depth, childRunId: run.runId, error: error.toJSON() });
      throw error;
    }
    host.emit({
      type: "subagent.completed",
      name,
      depth,
      childRunId: run.runId,
      usage: run.usage,
      cost: run.cost,
    });
    return run;
  }

  private messages(input: AgentInput, turn: SubAgentTurn | undefined): Message[] {
    const fresh = normalizeInput(input);
    const history = turn?.history ?? [];
    const prompt = this.systemPrompt === undefined ? [] : [system(this.systemPrompt)];
    return [...prompt, ...history, ...fresh];
  }
}

/**
 * The run id of a durable parent's child: the same in every process (`<parentRunId>.<name>.<callId>`,
 * and `.t<n>` for turn n >= 2 of a session, whose turns are separate child runs).
 */
function durableChildId(
  parentRunId: string,
  name: string,
  callId: string,
  turn: SubAgentTurn | undefined,
): string {
  const base = `${parentRunId}.${name}.${callId}`;
  return turn === undefined || turn.turn <= 1 ? base : `${base}.t${turn.turn}`;
}

/** `validation`: a durable parent's child needs a call id that names it in every process. */
function missingCallId(name: string, parentRunId: string): TinyAgentsError {
  return new TinyAgentsError(
    "validation",
    `sub-agent "${name}" runs inside durable run "${parentRunId}" without options.callId: pass the tool call's ` +
      "id (ctx.callId), or another id that is the same in every process, so the child's run id is too " +
      "(it is checkpointed and continued from its own checkpoint when the parent is recovered)",
    { details: { field: "callId", name, parentRunId } },
  );
}

/** The `sub_agent_depth` error: names the agent, the depth it would run at and the limit. */
function depthError(name: string, depth: number, maxDepth: number): TinyAgentsError {
  return new TinyAgentsError(
    "sub_agent_depth",
    `sub-agent "${name}" would run at depth ${depth}, past the maximum depth ${maxDepth} ` +
      "(RunConfig.maxDepth / RunLimits.maxDepth); raise the limit or flatten the agent tree",
    { details: { name, depth, maxDepth } },
  );
}

/** Cancel `ctx` when `signal` aborts; returns the unlink function (no listener outlives the run). */
function linkAbort(signal: AbortSignal | undefined, ctx: RunContext<unknown>): () => void {
  if (signal === undefined) return noop;
  if (signal.aborted) {
    ctx.cancel(signal.reason);
    return noop;
  }
  const onAbort = () => ctx.cancel(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function noop(): void {}
