import type { Message } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { EventSink } from "../events/event-sink.js";
import type { AgentInput } from "./agent-input.js";
import type { SubAgent, SubAgentRunOptions } from "./sub-agent.js";

/** Options of one {@link SubAgentSession.send} turn: state, context data, and the live parent run. */
export type SubAgentSendOptions<State, Ctx> = Pick<
  SubAgentRunOptions<State, Ctx>,
  "state" | "context" | "parent" | "callId" | "signal"
>;

/** Options of a {@link SubAgentSession}. */
export interface SubAgentSessionOptions {
  /** Events of fresh (parent-less) turns go here. */
  events?: EventSink;
  /** Depth of the absent parent for fresh turns (default 0). */
  parentDepth?: number;
}

/**
 * One sub-agent kept alive across turns (human-in-the-loop follow-ups): each `send` re-sends
 * the transcript of the earlier turns followed by the new input, as a new child run, and keeps
 * the result. From the second turn a `subagent.reused { name, turn }` event is emitted.
 *
 * Contract: a failed turn throws and leaves the transcript and turn count unchanged; `reset`
 * forgets the transcript. The system prompt is sent on every turn but never stored in the
 * transcript. Use a child harness without thread memory (the session is the memory).
 */
export class SubAgentSession<State = unknown, Ctx = undefined> {
  readonly agent: SubAgent<State, Ctx>;
  private readonly options: SubAgentSessionOptions;
  private history: Message[] = [];
  private completedTurns = 0;

  constructor(agent: SubAgent<State, Ctx>, options: SubAgentSessionOptions = {}) {
    this.agent = agent;
    this.options = options;
  }

  /** The conversation so far (earlier inputs and the child's replies, tool turns included). */
  get transcript(): readonly Message[] {
    return this.history;
  }

  /** Turns completed so far. */
  get turns(): number {
    return this.completedTurns;
  }

  /**
   * Run the next turn: inside `options.parent` when given (depth, stream, roll-up as
   * `SubAgent.run` with a parent), else as a fresh run. Returns the child run of this turn. In a
   * durable parent pass `options.callId` (the tool call's `ctx.callId`): each turn is then a durable child run
   * (`<parentRunId>.<name>.<callId>`, `.t<n>` from turn 2) continued from its own checkpoint when
   * the parent is recovered.
   */
  async send(input: AgentInput, options: SubAgentSendOptions<State, Ctx> = {}): Promise<AgentRun> {
    const turn = { history: this.history, turn: this.completedTurns + 1 };
    const runOptions: SubAgentRunOptions<State, Ctx> = { ...options };
    if (options.parent === undefined) {
      if (this.options.events !== undefined) runOptions.events = this.options.events;
      if (this.options.parentDepth !== undefined) runOptions.parentDepth = this.options.parentDepth;
    }
    const run = await this.agent.runTurn(input, runOptions, turn);
    const promptAt = this.agent.systemPrompt === undefined ? -1 : run.inputStart;
    this.history = run.messages.filter((_, i) => i !== promptAt);
    this.completedTurns++;
    return run;
  }

  /** Forget the transcript; the next `send` starts a new conversation (turn 1). */
  reset(): void {
    this.history = [];
    this.completedTurns = 0;
  }
}
