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
 * An agent another agent can call (what `agent.asTool` builds): a name, a system prompt,
 * steering and workspace isolation around it. `invokeInParent` is `agent.run(input, { parent })`
 * (the same function, `run-agent.ts`) with those added; `invoke` / `invokeWithEvents` run a
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

  /** @internal Shared by `invokeInParent` and `SubAgentSession`: `agent.run` with option `parent`. */
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
    return this.run(this.harness[agentSnapshot](), state, data, input, { parent: link }, turn);
  }

  /** @internal Shared by `invoke`, `invokeWithEvents` and `SubAgentSession`: a parent-less child. */
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
    return this.run(agent, state, data, input, runOptions, turn, config);
  }

  /** The child run, through the front door's run function (`run-agent.ts`); throws the child's error. */
  private async run(
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
