import { emptyUsageTotals, type Message, type Usage } from "@tinyagents/inference";
import type { RunPrefixHasher } from "../cache/run-prefix-hasher.js";
import type { LiveRunContext } from "../context/run-context.js";
import type { RunContext } from "../contracts/run-context.js";
import type { CallDetailsRecorder } from "../contracts/trace-details.js";
import { type CostTotals, emptyCost } from "../cost/cost.js";
import type { ShortTermMemory } from "../memory/short-term-memory.js";
import type { HookContext } from "../middleware/middleware.js";
import type { MiddlewareStack } from "../middleware/middleware-stack.js";
import type { ModelRegistry, ModelSelection } from "../model-registry/model-registry.js";
import type { RunStatusTracker } from "../status/run-status.js";
import type { PreparedStructured } from "../structured/prepared-structured.js";
import type { ToolTimeoutSettings } from "../tool/timeout-settings.js";
import type { ToolRegistry } from "../tool/tool-registry.js";
import type { AgentRun } from "./agent-run.js";
import type { OpenCalls } from "./open-calls.js";
import type { ResponseCacheBinding } from "./response-cache-binding.js";
import type { RunPolicy } from "./run-policy.js";
import type { RunReactions } from "./settlers.js";

/** The harness pieces a run reads (never writes). */
export interface HarnessParts<State, Ctx> {
  models: ModelRegistry<State>;
  tools: ToolRegistry<State, Ctx>;
  middleware: MiddlewareStack<State, Ctx>;
  policy: RunPolicy;
  toolTimeouts: ToolTimeoutSettings;
  memory?: ShortTermMemory;
  /** System prompt placed before the transcript on every request (never stored in memory). */
  instructions?: string;
  /** The agent's default model (set with `setDefaultModel`). */
  agentDefaultModel?: string;
  /** Per-call context placed in the volatile tail of every request (see {@link VolatileContext}). */
  volatileContext?(state: State, run: RunContext<Ctx>): string | undefined;
  /** The local response cache (`withResponseCache`). */
  responseCache?: ResponseCacheBinding;
  /** Structured output of this run, decided at its start (`withResponseFormat`, `policy.responseFormat`). */
  structured?: PreparedStructured<State, Ctx>;
}

/**
 * Computes per-call context (current time, retrieved documents, per-run facts) for the VOLATILE
 * TAIL of a request: it is sent as a system message after the transcript, never stored in it, so
 * the cacheable prefix stays byte-stable. `undefined` or `""` adds nothing.
 */
export type VolatileContext<State, Ctx> = (state: State, run: RunContext<Ctx>) => string | undefined;

/**
 * What one model turn folded into the run while its step executed: each usage record and its
 * cost (`null`: the price was unknown), in order. Collected only in journaled runs, by the code
 * that folds them into the run, so a replay re-applies them (see `durableModelTurn`).
 */
export interface TurnAccounting {
  usage: Usage[];
  cost: (CostTotals | null)[];
  /** A call of the turn reported no usage (the run's usage and cost became lower bounds). */
  unreported?: true;
}

/** The mutable state of one run, shared by the loop's phases. */
export interface LoopSession<State, Ctx> {
  parts: HarnessParts<State, Ctx>;
  ctx: LiveRunContext<Ctx>;
  hook: HookContext<State, Ctx>;
  state: State;
  /** Model calls go through `stream` and deltas are emitted. */
  streaming: boolean;
  /** The run's transcript (history + input + generated); `run.messages` is this array. */
  transcript: Message[];
  run: AgentRun;
  status: RunStatusTracker;
  /**
   * Tool call ids already used in this run (ids must be unique to correlate results), once the
   * run has more than a few: before that, the ids are read from `run.steps` (no set per run). A
   * resumed run has it from the start (its transcript's ids).
   */
  usedToolCallIds: Set<string> | undefined;
  /** Model attempts and tool calls started and not yet ended (closed before `run.failed`). */
  open: OpenCalls;
  /** The registry name of the model that served the previous call. */
  previousModel?: string;
  /** Why the run is being interrupted (set with `stopReason = "interrupted"`). */
  pauseReason?: string;
  /** Journaled runs only: how many times the run paused and waited for its resume signal. */
  pauses?: number;
  /** Steering messages held back until the current tool batch's results are appended. */
  heldMessages?: Message[] | undefined;
  /** Incremental prompt fingerprints of this run's requests (created on first use). */
  prefixHasher?: RunPrefixHasher;
  /** The system message built from `parts.instructions`, once per run (same object every turn). */
  systemMessage?: Message;
  /**
   * The model selection of this run's requests that name no model, hint or capability (built at
   * the first such call, then shared by all of them: `agentDefaultModel` is the run's).
   */
  plainSelection: ModelSelection | undefined;
  /** The reactions the run's model attempts and tool calls share (built at its first call). */
  reactions: RunReactions | undefined;
  /**
   * The trace details the run records on its calls' records (`traceDetailsMiddleware`), looked up
   * once at the run's start; `undefined`: none.
   */
  callDetails?: CallDetailsRecorder | undefined;
  /** When the last successful model attempt ended (its clock read, shared with the status record). */
  modelEndedAt: number;
  /** Journaled runs only: what the model step in flight folds into the run (see `durableModelTurn`). */
  turnAccounting?: TurnAccounting | undefined;
  /**
   * Journaled runs on an engine whose model steps double as `"once"` intents: whether the last
   * model step was executed (not replayed) by this execution, and the run's journaled operation
   * count right after it (see `durableModelTurn`).
   */
  lastModelStep?: { executedHere: boolean; operations: number } | undefined;
  /**
   * Set for the tool phase running now when its `"once"` calls need no intent step (see
   * `onceToolSteps`): `true` when this execution executed the model step that proposed them.
   */
  onceIntentByModelStep?: boolean | undefined;
}

/** A fresh AgentRun for a run that has not started. */
export function emptyRun(runId: string, threadId: string | undefined, transcript: Message[]): AgentRun {
  const run: AgentRun = {
    runId,
    messages: transcript,
    inputStart: 0,
    usage: emptyUsageTotals(),
    cost: emptyCost(),
    modelCalls: 0,
    toolCalls: 0,
    steps: [],
    stopReason: "completed",
  };
  if (threadId !== undefined) run.threadId = threadId;
  return run;
}
