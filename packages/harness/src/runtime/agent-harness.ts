import type { StandardSchemaV1 } from "@standard-schema/spec";
import {
  type JsonObject,
  type JsonValue,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type ResponseFormat,
  system,
  text,
  type UsageTotals,
  validationError,
} from "@tinyagents/inference";
import { noop } from "../context/abort-hub.js";
import type { CostTotals } from "../cost/cost.js";
import type { PausedRun } from "../durability/paused-run.js";
import { refusal } from "../durability/run-record.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { nameCollision } from "../structured/prepared-structured.js";
import {
  type StructuredOutputOptions,
  type StructuredSpec,
  structuredSpec,
} from "../structured/structured-spec.js";
import type { Tool } from "../tool/tool.js";
import { AgentCore } from "./agent-core.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import { agentSnapshot } from "./agent-snapshot.js";
import { type AsToolOptions, agentAsTool } from "./as-tool.js";
import {
  contextOf,
  dataOf,
  overridesOf,
  prepareOptions,
  prepareRun,
  refuseParent,
  subscribe,
} from "./prepare-run.js";
import { runAgent } from "./run-agent.js";
import { callModelInContext, notStarted, startRun, takeForRecover } from "./run-engine.js";
import { isPausedRun, type RunOptions, resolveRunOptions } from "./run-options.js";
import { type RunResult, settleOutcome } from "./run-result.js";
import { AgentStream } from "./run-stream.js";
import { streamItems } from "./stream-items.js";

export type { AgentHarnessOptions, RunWithStatus } from "./agent-core.js";

const CHILD_EVENTS = "a child run's events already reach its parent's stream (run the child with agent.run)";

/** Options with a Standard Schema response format: the result's `structured` is its output type. */
type WithSchema<State, Ctx, S> = RunOptions<State, Ctx> & { responseFormat: S };
type WithJsonFormat<State, Ctx> = RunOptions<State, Ctx> & { responseFormat: JsonObject | ResponseFormat };

/** What `agent.callModel` resolves to: the model's response, its text, usage and cost. */
export interface ModelCallResult {
  /** The model's response (message, usage, finish reason, the model that served it). */
  response: ModelResponse;
  /** The response's text ("" when it only called tools). */
  text: string;
  /** The call's id (its events and status record carry it). */
  runId: string;
  /** Tokens of the call (retries and fallbacks included). */
  usage: UsageTotals;
  /** Its cost (unknown prices stay unknown, never zero). */
  cost: CostTotals;
  /** The call's status record (component `model_call`). */
  status: HarnessRunStatus;
}

/**
 * The agent: models, tools, middleware and policy (`AgentCore`), and its whole way in: `run`,
 * `stream`, `resume`, `recover`, `callModel` and `asTool`, each taking one `RunOptions` object.
 * Each turns its options into a run context in one place (`prepare-run.ts`) and hands the
 * agent's snapshot and that context to the run machinery (`run-engine.ts` -> `agent-loop/`),
 * which never calls back into this class.
 *
 * `State` is the caller's application state handed to models, tools and middleware; `Ctx` is the
 * per-run context data carried on the RunContext; `Out` the type of the structured answer.
 */
export class AgentHarness<State = unknown, Ctx = undefined, Out = unknown> extends AgentCore<State, Ctx> {
  /**
   * This agent, asking for structured output matching `schema` (a Standard Schema such as zod 4,
   * a raw JSON Schema, or a `ResponseFormat`): `run` / `stream` results carry the validated answer
   * typed as the schema's output in `structured`; every other entry point (resume, sub-agents,
   * `asTool`, status) works the same.
   *
   * ```ts
   * const result = await agent.withResponseFormat(z.object({ city: z.string() })).run("...");
   * result.structured?.city; // string
   * ```
   *
   * It returns a live view: models, tools, middleware and policy changes on this agent apply to
   * it (and this agent itself keeps its own response format). Throws `validation` for an
   * unusable schema or a name that collides with a registered tool.
   */
  withResponseFormat<S extends StandardSchemaV1>(
    schema: S,
    options?: StructuredOutputOptions,
  ): AgentHarness<State, Ctx, StandardSchemaV1.InferOutput<S>>;
  withResponseFormat(
    schema: JsonObject | ResponseFormat,
    options?: StructuredOutputOptions,
  ): AgentHarness<State, Ctx, JsonValue>;
  withResponseFormat<T>(
    schema: StandardSchemaV1 | JsonObject | ResponseFormat,
    options: StructuredOutputOptions = {},
  ): AgentHarness<State, Ctx, T> {
    const spec = structuredSpec(schema as JsonObject, options) as StructuredSpec<unknown>;
    if (this.tools.has(spec.name)) throw nameCollision(spec.name);
    const view = Object.create(this) as AgentHarness<State, Ctx, T>;
    view.structuredSpec = spec;
    return view;
  }

  /** The agent's response format, if it has one. */
  get responseFormat(): StructuredSpec<Out> | undefined {
    return this.structuredSpec as StructuredSpec<Out> | undefined;
  }

  // ---- the front door ------------------------------------------------------------------------

  /**
   * Run the agent on `input` (a prompt, a message, messages — or a `PausedRun` to resume it) and
   * resolve to the {@link RunResult}. A failed run rejects with an `AgentRunError`: the run's
   * error code and message, and the partial run (transcript, usage and cost spent) as `err.run`.
   * A paused run resolves with `stopReason: "interrupted"` and `result.paused`.
   */
  run<S extends StandardSchemaV1>(
    input: AgentInput | PausedRun,
    options: WithSchema<State, Ctx, S>,
  ): Promise<RunResult<StandardSchemaV1.InferOutput<S>>>;
  run(input: AgentInput | PausedRun, options: WithJsonFormat<State, Ctx>): Promise<RunResult<JsonValue>>;
  run(input: AgentInput | PausedRun, options?: RunOptions<State, Ctx>): Promise<RunResult<Out>>;
  run(input: AgentInput | PausedRun, options?: RunOptions<State, Ctx>): Promise<RunResult<unknown>> {
    return runAgent(this[agentSnapshot](), input, options).then(settleOutcome);
  }

  /**
   * Run the agent, streaming: see {@link AgentStream} (typed items, `result`, `textStream`,
   * `toReadableStream()`, `toResponse()`). The run starts on first use; bad options throw here.
   */
  stream<S extends StandardSchemaV1>(
    input: AgentInput | PausedRun,
    options: WithSchema<State, Ctx, S>,
  ): AgentStream<StandardSchemaV1.InferOutput<S>>;
  stream(input: AgentInput | PausedRun, options: WithJsonFormat<State, Ctx>): AgentStream<JsonValue>;
  stream(input: AgentInput | PausedRun, options?: RunOptions<State, Ctx>): AgentStream<Out>;
  stream<T>(input: AgentInput | PausedRun, options?: RunOptions<State, Ctx>): AgentStream<T> {
    // Validate now (a typo in the options throws at the call), build the context on first use.
    refuseParent(prepareOptions(this[agentSnapshot](), options), "stream", CHILD_EVENTS);
    if (!isPausedRun(input)) normalizeInput(input);
    return new AgentStream<T>(() => {
      const agent = this[agentSnapshot]();
      const { state, ctx, messages, resumed, overrides, release } = prepareRun(agent, input, options);
      return streamItems(
        ctx,
        () => startRun(agent, state, ctx, messages, true, resumed, noop, overrides),
        (error) => notStarted(agent, state, ctx, error),
        release,
      );
    });
  }

  /**
   * Continue a checkpointed run whose process died, from the front door: `options` are the run's
   * own (`durable: { store, ownerId, ... }` required; `events` from `continueEventSink` continues
   * its journal). The run is taken in one compare-and-set that bumps its fencing epoch: only when
   * its owner's lease lapsed (or the caller is that owner), so of concurrent recoverers exactly one
   * proceeds and a live owner is never robbed. Rejects at once, executing nothing, with `conflict`
   * naming the run when it is live, unknown, finished, paused (resume it) or a child run. A run
   * whose final response was checkpointed completes with no model or tool call; otherwise the
   * model call in flight is issued again and unrecorded tool calls run again (`"once"` tools
   * never: "outcome unknown"). Resolves like `run`.
   */
  recover(runId: string, options: RunOptions<State, Ctx>): Promise<RunResult<Out>> {
    return this.recoverRun(runId, options) as Promise<RunResult<Out>>;
  }

  /**
   * Continue a paused run from the front door: `target` is its run id (its paused record is read
   * from `options.durable.store`) or its `PausedRun`; `options` are the run's own. With a durable
   * store the resume takes the run in one compare-and-set: of concurrent resumers exactly one
   * proceeds; the others, and a resume of a run that is no longer paused, reject with `conflict`
   * naming the run, executing nothing. Resolves like `run`.
   */
  resume(target: string | PausedRun, options?: RunOptions<State, Ctx>): Promise<RunResult<Out>> {
    return this.resumeRun(target, options) as Promise<RunResult<Out>>;
  }

  /**
   * One model call through this agent — its model routing (`options.model` or the default,
   * fallbacks), middleware, retries, usage and cost, events (`onEvent`, `events`) and its own
   * status record (component `model_call`) — with no tools loop: tool calls in the response are
   * returned, not executed. `request` is a prompt (sent after the agent's instructions), or a
   * full `ModelRequest` sent as given (messages, tools, response format, sampling). Rejects with the call's `TinyAgentsError` (`provider`,
   * `limit_exceeded`, `cancelled`...); the failed call is reported on the events like a run.
   */
  async callModel(
    request: string | ModelRequest,
    options?: RunOptions<State, Ctx>,
  ): Promise<ModelCallResult> {
    const agent = this[agentSnapshot]();
    const o = prepareOptions(agent, options);
    refuseParent(o, "callModel", "a model call is not a child run");
    if (o.options.responseFormat !== undefined) {
      throw validationError("callModel takes its response format in the request (request.responseFormat)", {
        field: "responseFormat",
      });
    }
    // A prompt gets the agent's instructions as its system message; a ModelRequest goes as given.
    const modelRequest: ModelRequest =
      typeof request === "string" ? { messages: promptMessages(agent.parts.instructions, request) } : request;
    const { ctx, release } = contextOf(agent, o);
    try {
      const { response, status } = await callModelInContext(
        agent,
        o.options.state as State,
        ctx,
        modelRequest,
        overridesOf(agent, o),
      );
      return {
        response,
        text: text(response.message),
        runId: status.runId,
        usage: status.usage,
        cost: status.cost,
        status,
      };
    } finally {
      release();
    }
  }

  private async recoverRun(runId: string, options: RunOptions<State, Ctx>): Promise<RunResult<unknown>> {
    const agent = this[agentSnapshot]();
    const o = prepareOptions(agent, options);
    refuseParent(o, "recover", "recover a child run's root, which continues the child");
    if (o.durability === undefined) {
      throw validationError("recover needs options.durable: { store, ownerId?, leaseMs?, ... }", {
        field: "durable",
      });
    }
    const overrides = overridesOf(agent, o);
    const { ctx, input, paused } = await takeForRecover(
      agent,
      runId,
      dataOf(agent, o),
      o.options,
      o.durability,
      o.engine,
      o.config,
    );
    const release = subscribe(ctx, o);
    return startRun(agent, o.options.state as State, ctx, input, false, paused, release, overrides).then(
      settleOutcome,
    );
  }

  private async resumeRun(
    target: string | PausedRun,
    options: RunOptions<State, Ctx> | undefined,
  ): Promise<RunResult<unknown>> {
    const o = resolveRunOptions(options);
    refuseParent(o, "resume", "a paused child run is resumed through its parent");
    if (typeof target !== "string") return this.run(target, options);
    const durability = o.durability;
    if (durability?.checkpoints === undefined) {
      throw validationError("resume by run id needs options.durable: { store, ... } (where the run paused)", {
        field: "durable",
      });
    }
    const record = await durability.checkpoints.record(target);
    if (record === undefined)
      throw refusal(target, "resume", "it has no durable record in this store", "not_found");
    if (record.state !== "paused" || record.checkpoint === undefined) {
      throw refusal(target, "resume", `it is no longer paused: its record reads "${record.state}"`);
    }
    return this.run(record.checkpoint, options);
  }

  /**
   * This agent as a tool another agent can call, in one call: the parent model calls it with
   * `{ input }` (or your `parameters`), the child runs inside the live parent run — its events on
   * the parent's stream, cancelled with it, its usage and cost rolled into the parent's totals and
   * listed in `children` — and the tool returns its final text (or its structured answer). A
   * child that hits a limit or pauses returns an error result saying its work is incomplete.
   *
   * The tool is typed for the parent's context `ParentCtx`: by default this agent's own `Ctx` (the
   * child runs with the parent's context data), or any context when this agent takes none (`Ctx`
   * `undefined`), so a context-free agent fits in any parent. Map a different parent context
   * with `context`.
   */
  asTool<ParentCtx = [Ctx] extends [undefined] ? unknown : Ctx>(
    options: AsToolOptions<State, ParentCtx, Ctx>,
  ): Tool<State, ParentCtx, JsonObject> {
    return agentAsTool<State, Ctx, ParentCtx>(this, options);
  }
}

function promptMessages(instructions: string | undefined, prompt: string): Message[] {
  const messages = normalizeInput(prompt);
  return instructions === undefined ? messages : [system(instructions), ...messages];
}
