import { type Message, system } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunConfig } from "../config/run-config.js";
import type { RunContext } from "../contracts/run-context.js";
import type { EventSink } from "../events/event-sink.js";
import type { SteeringHandle } from "../steering/steering-handle.js";
import type { WorkspaceIsolation } from "../workspace/workspace-isolation.js";
import type { AgentCore } from "./agent-core.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import { type AgentSnapshot, agentSnapshot } from "./agent-snapshot.js";
import { runAgent } from "./run-agent.js";
import type { RunOptions } from "./run-options.js";
import { assertChildName, type ChildRunExtras, type RunParent } from "./run-parent.js";

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

/** @internal Options of a fresh (parent-less) sub-agent run. */
export interface SubAgentInvokeOptions {
  /** Depth of the (absent) parent; the child runs at `parentDepth + 1` (default 0). */
  parentDepth?: number;
  /** Extra run config (caps, thread, tags, `maxDepth`); `runId` defaults to `{name}-d{depth}-{seq}`. */
  config?: Partial<RunConfig>;
  signal?: AbortSignal;
}

/** @internal Options of a run inside a parent context. */
export interface SubAgentParentOptions {
  signal?: AbortSignal;
  callId?: string;
}

/**
 * Options of {@link SubAgent.run} (and `SubAgentSession.send`): one object, like `agent.run`'s.
 * With `parent` the child runs inside that live run; without it, as a fresh run.
 */
export interface SubAgentRunOptions<State, Ctx> {
  /** The child run's state (what its tools and middleware see as `ctx.state`). */
  state?: State;
  /** The child run's context data (`ctx.run.data`). */
  context?: Ctx;
  /** The live run to run inside (a tool's `ctx.run`): depth, stream, cancellation, roll-up. */
  parent?: RunContext<unknown>;
  /**
   * The parent's tool call that runs the child (`ctx.callId` in a tool; any id that is the same
   * in every process otherwise). In a durable parent (`durable: { store }`) the child's run id is
   * derived from it (`<parentRunId>.<name>.<callId>`, `.t<n>` added for turn n >= 2 of a
   * `SubAgentSession`) and the child is durable too: it checkpoints and heartbeats, and a
   * recovered parent that calls it again continues it from its own checkpoint. Required in a
   * durable parent: without it the child's id would differ in the recovering process.
   */
  callId?: string;
  /** Also cancels the child (a tool passes its own signal, which also aborts on the tool's timeout). */
  signal?: AbortSignal;
  /** Without `parent`: where the child's events go. */
  events?: EventSink;
  /** Without `parent`: depth of the absent parent; the child runs at `parentDepth + 1` (default 0). */
  parentDepth?: number;
  /** Without `parent`: extra run config (caps, thread, tags, `maxDepth`); `runId` defaults to `{name}-d{depth}-{seq}`. */
  config?: Partial<RunConfig>;
}

/** @internal What `SubAgentSession` adds to a run. */
export interface SubAgentTurn {
  /** Messages of earlier turns, sent before the new input. */
  history: readonly Message[];
  /** 1-based turn number; `subagent.reused` is emitted from turn 2. */
  turn: number;
}

/**
 * An agent another agent can call (what `agent.asTool` builds): a name, a system prompt,
 * steering and workspace isolation around it. `run(input, { parent })` is `agent.run(input, {
 * parent })` (the same function, `run-agent.ts`) with those added; without `parent` it runs a
 * fresh, parent-less child. Inside a live parent run the child runs:
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
    assertChildName(options.name, "name");
    this.name = options.name;
    this.description = options.description;
    this.harness = options.harness;
    this.systemPrompt = options.systemPrompt;
    this.steering = options.steering;
    this.isolation = options.workspace;
  }

  /**
   * Run the sub-agent on `input`: inside `options.parent` when given (see the class contract),
   * else as a fresh child run at depth `parentDepth + 1`. Throws the child's error.
   */
  run(input: AgentInput, options: SubAgentRunOptions<State, Ctx> = {}): Promise<AgentRun> {
    return this.runTurn(input, options);
  }

  /** @internal `run`, plus what a `SubAgentSession` turn adds. */
  runTurn(
    input: AgentInput,
    options: SubAgentRunOptions<State, Ctx>,
    turn?: SubAgentTurn,
  ): Promise<AgentRun> {
    const state = options.state as State;
    const data = options.context as Ctx;
    if (options.parent !== undefined) {
      const link: SubAgentParentOptions = {};
      if (options.callId !== undefined) link.callId = options.callId;
      if (options.signal !== undefined) link.signal = options.signal;
      return this.runInParent(state, data, options.parent, input, link, turn);
    }
    const fresh: SubAgentInvokeOptions = {};
    if (options.parentDepth !== undefined) fresh.parentDepth = options.parentDepth;
    if (options.config !== undefined) fresh.config = options.config;
    if (options.signal !== undefined) fresh.signal = options.signal;
    return this.runFresh(state, data, input, options.events, fresh, turn);
  }

  /** @internal `run` inside a parent: `agent.run` with option `parent` (also what `SubAgentTool` calls). */
  async runInParent(
    state: State,
    data: Ctx,
    parent: RunContext<unknown>,
    input: AgentInput,
    options: SubAgentParentOptions = {},
    turn?: SubAgentTurn,
  ): Promise<AgentRun> {
    const link: RunParent = { run: parent };
    if (options.callId !== undefined) link.callId = options.callId;
    if (options.signal !== undefined) link.signal = options.signal;
    return this.runChild(this.harness[agentSnapshot](), state, data, input, { parent: link }, turn);
  }

  /** @internal `run` without a parent: a fresh child run. */
  async runFresh(
    state: State,
    data: Ctx,
    input: AgentInput,
    events: EventSink | undefined,
    options: SubAgentInvokeOptions,
    turn?: SubAgentTurn,
  ): Promise<AgentRun> {
    const agent = this.harness[agentSnapshot]();
    const depth = (options.parentDepth ?? 0) + 1;
    const config: Partial<RunConfig> = {
      ...options.config,
      runId: options.config?.runId ?? agent.defaults.ids.next(`${this.name}-d${depth}`),
      depth,
    };
    const runOptions: RunOptions<State, Ctx> = {};
    if (events !== undefined) runOptions.events = events;
    if (options.signal !== undefined) runOptions.signal = options.signal;
    return this.runChild(agent, state, data, input, runOptions, turn, config);
  }

  /** The child run, through the front door's run function (`run-agent.ts`); throws the child's error. */
  private async runChild(
    agent: AgentSnapshot<State, Ctx>,
    state: State,
    data: Ctx,
    input: AgentInput,
    options: RunOptions<State, Ctx>,
    turn: SubAgentTurn | undefined,
    config?: Partial<RunConfig>,
  ): Promise<AgentRun> {
    options.state = state;
    options.context = data;
    if (this.steering !== undefined) options.steering = this.steering;
    const extras: ChildRunExtras = { name: this.name };
    if (turn !== undefined) extras.turn = turn.turn;
    if (this.isolation !== undefined) extras.isolation = this.isolation;
    if (config !== undefined) extras.config = config;
    const outcome = await runAgent(agent, this.messages(input, turn), options, extras);
    if (outcome.error !== undefined) throw outcome.error;
    return outcome.run;
  }

  private messages(input: AgentInput, turn: SubAgentTurn | undefined): Message[] {
    const fresh = normalizeInput(input);
    const history = turn?.history ?? [];
    const prompt = this.systemPrompt === undefined ? [] : [system(this.systemPrompt)];
    return [...prompt, ...history, ...fresh];
  }
}
