import type { StandardSchemaV1 } from "@standard-schema/spec";
import {
  type ChatModel,
  createModel,
  type JsonValue,
  type ModelCallOptions,
  validationError,
} from "@tinyagents/inference";
import type { HookContext } from "../contracts/hook-context.js";
import type { ModelPricing } from "../cost/cost.js";
import type { Middleware } from "../middleware/middleware.js";
import type { AnyTool, ToolExecutionContext } from "../tool/tool.js";
import type { AgentHarnessOptions } from "./agent-core.js";
import { AgentHarness } from "./agent-harness.js";
import type { ResponseFormatInput } from "./run-options.js";

/*
 * How `createAgent` infers the agent's `State` and `Ctx` from what it is given.
 *
 * `Tool`, `Middleware` and `ChatModel` take the state and context in METHOD parameters, which
 * TypeScript compares bivariantly and so infers from covariantly: each tool, middleware and model
 * votes for its own type and the agent gets the common supertype of the votes. A tool that
 * accepts any context (`Tool<unknown, unknown>`, what `tool({...})` gives without type arguments)
 * votes `unknown`, which is the supertype of everything: `createAgent({ model, tools: [plainTool] })`
 * was an `AgentHarness<unknown, unknown>`, which neither an `AgentHarness` variable nor
 * `run(..., { context })` types usefully, and a typed tool beside a plain one was lost (the
 * parameter defaults, `Ctx = undefined`, only apply when there is no vote at all).
 *
 * So each of them is matched as two types: the full contract with inference switched off
 * (`NoInfer`), which only checks it, and a probe that reads the state and context as FUNCTION
 * parameters, which TypeScript infers from contravariantly: of the votes `unknown` and
 * `{ tenant: string }` it takes the narrowest, `{ tenant: string }`, the one context every tool
 * accepts. `tools` and `middleware` also admit a tuple (`readonly []`), so an array literal keeps
 * each element's own type instead of being reduced to the widest of two tools that differ only in
 * their context. Votes that cannot be reconciled (`{ tenant }` and `{ user }`) are a type error
 * naming the tool; pass the type arguments (`createAgent<State, Ctx>`) to say which you mean.
 *
 * When every vote is `unknown` (plain tools, plain middleware, no `defaultContext`) the agent has
 * no context: its `Ctx` is `undefined`, the default of `AgentHarness`. That is the first overload
 * of `createAgent` (its options fix the context to `unknown`; a tool or middleware typed for a
 * context does not fit it, so such a call falls to the second, which infers `Ctx`), rather than
 * a conditional return type: `unknown extends Ctx ? undefined : Ctx` would stay unresolved for a
 * generic `Ctx`, and a wrapper `<C>(tools: Tool<S, C>[]) => createAgent({ model, tools })` could
 * not return an `AgentHarness<S, C>`.
 */

/** A tool's `execute` context as a function parameter: the (contravariant) inference site. */
interface ToolContextProbe<State, Ctx> {
  readonly execute: (args: never, ctx: ToolExecutionContext<State, Ctx>) => unknown;
}

/** Every middleware hook's context as a function parameter: the (contravariant) inference site. */
type MiddlewareContextProbe<State, Ctx> = {
  readonly [Hook in Exclude<keyof Middleware, "name" | "changes">]?: (
    ctx: HookContext<State, Ctx>,
    ...rest: never[]
  ) => unknown;
};

/** A model's call options as a function parameter: the (contravariant) inference site of `State`. */
interface ModelStateProbe<State> {
  readonly invoke: (request: never, options?: ModelCallOptions<State>) => unknown;
}

/** A tool `createAgent` accepts: checked against the agent's types, inferred through the probe. */
export type CreateAgentTool<State, Ctx> = AnyTool<NoInfer<State>, NoInfer<Ctx>> &
  ToolContextProbe<State, Ctx>;
/** A middleware `createAgent` accepts: checked against the agent's types, inferred through the probe. */
export type CreateAgentMiddleware<State, Ctx> = Middleware<NoInfer<State>, NoInfer<Ctx>> &
  MiddlewareContextProbe<State, Ctx>;
/** A model `createAgent` accepts: checked against the agent's state, inferred through the probe. */
export type CreateAgentModel<State> = ChatModel<NoInfer<State>> & ModelStateProbe<State>;

/**
 * Options of an agent that takes no context (the first signature of {@link createAgent}): every
 * tool and middleware accepts any context (`unknown`), and there is no `defaultContext`. Its runs
 * get `context: undefined`, which they all accept: the agent is an `AgentHarness<State>`.
 */
export type ContextFreeAgentOptions<State, F extends ResponseFormatInput | undefined> = CreateAgentOptions<
  State,
  unknown,
  F
> & { defaultContext?: never };

/** Options of {@link createAgent}: the agent's options plus its model, tools and middleware. */
export interface CreateAgentOptions<State, Ctx, F extends ResponseFormatInput | undefined>
  extends Omit<AgentHarnessOptions<Ctx, State>, "responseFormat"> {
  /**
   * The model: a `ChatModel` (`compatible(baseUrl, model)`, `OpenAiChatModel`, a testkit model...)
   * or a `"provider:model"` spec built with `createModel` (`"openai:gpt-4.1-mini"`, `"ollama:qwen3:8b"`).
   */
  model: CreateAgentModel<State> | string;
  /** The model's registry name (default `"main"`): it appears in events, status and costs. */
  modelName?: string;
  /** Price of `model` (default: the built-in catalog's, when it knows the model). */
  pricing?: ModelPricing;
  /** More models by name: fallbacks (`policy.fallback`), or a per-run `model` choice. */
  models?: Record<string, CreateAgentModel<State>>;
  /** The tools: a tool typed for a context (`Tool<State, { tenant: string }>`) makes that the agent's `Ctx`. */
  tools?: readonly [] | readonly CreateAgentTool<State, Ctx>[];
  /** Middleware, outermost first (see `agent.use`). */
  middleware?: readonly [] | readonly CreateAgentMiddleware<State, Ctx>[];
  /** Structured output for every run: a Standard Schema (zod 4...), a JSON Schema, a `ResponseFormat`. */
  responseFormat?: F;
}

/** The structured answer type a response format gives: the schema's output, else JSON. */
export type ResponseFormatOutput<F> = [F] extends [undefined]
  ? unknown
  : F extends StandardSchemaV1
    ? StandardSchemaV1.InferOutput<F>
    : JsonValue;

/**
 * An agent in one call — the common case:
 *
 * ```ts
 * const agent = createAgent({ model: "openai:gpt-4.1-mini", tools: [weather], instructions: "Be brief." });
 * const result = await agent.run("Weather in Lisbon?");
 * ```
 *
 * It is an `AgentHarness` (typed by `responseFormat`): `run`, `stream`, `resume`, `recover`,
 * `callModel`, `asTool`, and the configuration methods (`withPolicy`, `use`, `withMemory`, ...). Throws `validation` for a
 * missing model (and `createModel`'s errors for a spec it cannot build, e.g. a missing API key).
 *
 * Its `State` and `Ctx` come from the tools, middleware, models and `defaultContext`: plain ones
 * give the plain `AgentHarness` (`Ctx` is `undefined`: runs take no `context`); a tool typed for a
 * context makes the agent take that context. Pass them explicitly (`createAgent<State, Ctx>`) to
 * fix them.
 */
export function createAgent<
  State = unknown,
  Ctx extends undefined = undefined,
  F extends ResponseFormatInput | undefined = undefined,
>(options: ContextFreeAgentOptions<State, F>): AgentHarness<State, Ctx, ResponseFormatOutput<F>>;
/** An agent whose tools, middleware or `defaultContext` give it a context type `Ctx`. */
export function createAgent<
  State = unknown,
  Ctx = undefined,
  F extends ResponseFormatInput | undefined = undefined,
>(options: CreateAgentOptions<State, Ctx, F>): AgentHarness<State, Ctx, ResponseFormatOutput<F>>;
export function createAgent<State, Ctx, F extends ResponseFormatInput | undefined>(
  options: CreateAgentOptions<State, Ctx, F>,
): AgentHarness<State, Ctx, ResponseFormatOutput<F>> {
  if (typeof options !== "object" || options === null) {
    throw validationError("createAgent needs an options object with at least a `model`", {
      field: "options",
    });
  }
  const { model, modelName, pricing, models, tools, middleware, responseFormat, ...rest } = options;
  if (model === undefined || model === null || (typeof model !== "string" && typeof model !== "object")) {
    throw validationError(
      'createAgent: `model` is required — a ChatModel, or a "provider:model" spec such as "openai:gpt-4.1-mini"',
      { field: "model" },
    );
  }
  const harnessOptions: AgentHarnessOptions<Ctx, State> = rest;
  if (responseFormat !== undefined) harnessOptions.responseFormat = responseFormat;
  const agent = new AgentHarness<State, Ctx, ResponseFormatOutput<F>>(harnessOptions);
  const chat = typeof model === "string" ? (createModel(model) as ChatModel<State>) : model;
  agent.registerModel(modelName ?? "main", chat, pricing === undefined ? {} : { pricing });
  for (const [name, extra] of Object.entries(models ?? {})) agent.registerModel(name, extra);
  for (const tool of tools ?? []) agent.registerTool(tool);
  for (const m of middleware ?? []) agent.use(m);
  return agent;
}
