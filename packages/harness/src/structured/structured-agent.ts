import type { JsonValue } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { RunConfig } from "../context/run-config.js";
import type { RunContext } from "../context/run-context.js";
import type { AgentHarness, AgentStreamItem } from "../runtime/agent-harness.js";
import type { AgentInput } from "../runtime/agent-input.js";
import type { ContextOptions } from "../runtime/create-context.js";
import { structuredResponse } from "./structured-accessors.js";
import type { StructuredSpec } from "./structured-spec.js";

/** A finished run whose `structured` is the typed, validated answer. */
export type StructuredRun<T> = Omit<AgentRun, "structured"> & { structured: T };

/** `RunOutcome` of a structured agent: the run's `structured` is typed when present. */
export type StructuredRunOutcome<T> = Omit<RunOutcome, "run"> & {
  run: Omit<AgentRun, "structured"> & { structured?: T };
};

/**
 * The typed view `harness.withResponseFormat(schema)` returns: the same agent, asked for
 * structured output. The unary entry points resolve to a {@link StructuredRun} whose
 * `structured` is `T` (inferred from the schema), and throw `structured_output` when a run ends
 * without one (stopped early by a cap or a control request). The view is live: it reads the
 * harness's models, tools, middleware and policy at each run.
 */
export class StructuredAgent<State, Ctx, T = JsonValue> {
  /** The response format and how it is enforced. */
  readonly spec: StructuredSpec<T>;
  private readonly harness: AgentHarness<State, Ctx>;

  /** @internal Use `harness.withResponseFormat(schema)`. */
  constructor(harness: AgentHarness<State, Ctx>, spec: StructuredSpec<unknown>) {
    this.harness = harness;
    this.spec = spec as StructuredSpec<T>;
  }

  /** `harness.invoke`, typed. */
  async invoke(
    state: State,
    data: Ctx,
    config: Partial<RunConfig>,
    input: AgentInput,
    options?: ContextOptions,
  ): Promise<StructuredRun<T>> {
    return typed<T>(await this.harness.invoke(state, data, config, input, options));
  }

  /** `harness.invokeDefault`, typed. */
  async invokeDefault(state: State, input: AgentInput, options?: ContextOptions): Promise<StructuredRun<T>> {
    return typed<T>(await this.harness.invokeDefault(state, input, options));
  }

  /** `harness.invokeInContext`, typed. */
  async invokeInContext(state: State, ctx: RunContext<Ctx>, input: AgentInput): Promise<StructuredRun<T>> {
    return typed<T>(await this.harness.invokeInContext(state, ctx, input));
  }

  /** `harness.invokeCollectingPartial` (never throws for run failures; `structured` may be absent). */
  invokeCollectingPartial(
    state: State,
    data: Ctx,
    config: Partial<RunConfig>,
    input: AgentInput,
    options?: ContextOptions,
  ): Promise<StructuredRunOutcome<T>> {
    return this.harness.invokeCollectingPartial(state, data, config, input, options) as Promise<
      StructuredRunOutcome<T>
    >;
  }

  /** `harness.invokeStreaming` (the terminal item's run carries the structured value). */
  invokeStreaming(
    state: State,
    data: Ctx,
    config: Partial<RunConfig>,
    input: AgentInput,
    options?: ContextOptions,
  ): AsyncIterable<AgentStreamItem> {
    return this.harness.invokeStreaming(state, data, config, input, options);
  }
}

function typed<T>(run: AgentRun): StructuredRun<T> {
  structuredResponse<T>(run);
  return run as unknown as StructuredRun<T>;
}
