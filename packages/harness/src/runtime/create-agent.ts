import type { StandardSchemaV1 } from "@standard-schema/spec";
import { type ChatModel, createModel, type JsonValue, validationError } from "@tinyagents/inference";
import type { ModelPricing } from "../cost/cost.js";
import type { Middleware } from "../middleware/middleware.js";
import type { AnyTool } from "../tool/tool.js";
import type { AgentHarnessOptions } from "./agent-core.js";
import { AgentHarness } from "./agent-harness.js";
import type { ResponseFormatInput } from "./run-options.js";

/** Options of {@link createAgent}: the agent's options plus its model, tools and middleware. */
export interface CreateAgentOptions<State, Ctx, F extends ResponseFormatInput | undefined>
  extends Omit<AgentHarnessOptions<Ctx, State>, "responseFormat"> {
  /**
   * The model: a `ChatModel` (`compatible(baseUrl, model)`, `OpenAiChatModel`, a testkit model...)
   * or a `"provider:model"` spec built with `createModel` (`"openai:gpt-4.1-mini"`, `"ollama:qwen3:8b"`).
   */
  model: ChatModel<State> | string;
  /** The model's registry name (default `"main"`): it appears in events, status and costs. */
  modelName?: string;
  /** Price of `model` (default: the built-in catalog's, when it knows the model). */
  pricing?: ModelPricing;
  /** More models by name: fallbacks (`policy.fallback`), or a per-run `model` choice. */
  models?: Record<string, ChatModel<State>>;
  tools?: readonly AnyTool<State, Ctx>[];
  middleware?: readonly Middleware<State, Ctx>[];
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
 */
export function createAgent<
  State = unknown,
  Ctx = undefined,
  F extends ResponseFormatInput | undefined = undefined,
>(options: CreateAgentOptions<State, Ctx, F>): AgentHarness<State, Ctx, ResponseFormatOutput<F>> {
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
