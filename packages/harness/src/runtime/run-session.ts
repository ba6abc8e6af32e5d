import { type ChatModel, createModel, validationError } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import { callDetailsOf } from "../agent-loop/call-details.js";
import { foldChildRun } from "../agent-loop/child-run.js";
import { emptyRun, type HarnessParts, type LoopSession } from "../agent-loop/loop-session.js";
import { OpenCalls } from "../agent-loop/open-calls.js";
import type { GraphNodeCall, GraphNodeRef } from "../config/graph-node.js";
import type { LiveRunContext } from "../context/run-context.js";
import type { ModelRegistry } from "../model-registry/model-registry.js";
import { type HarnessComponent, RunStatusTracker } from "../status/run-status.js";
import { prepareStructured } from "../structured/prepared-structured.js";
import { type StructuredSpec, structuredSpec } from "../structured/structured-spec.js";

/**
 * What one run changes about the agent (`agent.run(input, { model, responseFormat })`); the
 * agent itself is never modified.
 */
export interface RunOverrides<State> {
  /** Registry name of the run's model (the agent default for this run). */
  model?: string;
  /** A registry with a model only this run uses (see {@link runModel}). */
  models?: ModelRegistry<State>;
  /** The run's response format (over the agent's). */
  structured?: StructuredSpec<unknown>;
}

/**
 * Resolve a run's `model` option: a registered name; a `ChatModel` (its registered name, or a
 * copy of the registry with it added, used by this run only); or a `"provider:model"` spec that
 * is not a registered name (built with `createModel`). Throws `model_not_found` for an unknown
 * plain name, `validation` for anything else.
 */
export function runModel<State>(
  models: ModelRegistry<State>,
  model: string | ChatModel<State>,
): Pick<RunOverrides<State>, "model" | "models"> {
  if (typeof model === "string") {
    if (models.has(model) || !model.includes(":")) {
      models.require(model);
      return { model };
    }
    return withRunModel(models, model, createModel(model) as ChatModel<State>);
  }
  if (typeof model !== "object" || model === null || typeof model.invoke !== "function") {
    throw validationError(
      'run option model must be a registered model\'s name, a ChatModel, or a "provider:model" spec',
      { field: "model" },
    );
  }
  const known = models.nameOf(model);
  if (known !== undefined) return { model: known };
  return withRunModel(models, `${model.provider}:${model.modelId}`, model);
}

function withRunModel<State>(
  models: ModelRegistry<State>,
  wanted: string,
  model: ChatModel<State>,
): Pick<RunOverrides<State>, "model" | "models"> {
  let name = wanted;
  for (let n = 2; models.has(name); n++) name = `${wanted}#${n}`;
  return { model: name, models: models.withModel(name, model) };
}

/**
 * The parts one run reads: the agent's, with the run's overrides applied, and its structured
 * output prepared (the agent's or the run's response format, else `policy.responseFormat`).
 */
export function runParts<State, Ctx>(
  agent: HarnessParts<State, Ctx>,
  agentSpec: StructuredSpec<unknown> | undefined,
  overrides: RunOverrides<State> | undefined,
): HarnessParts<State, Ctx> {
  const format = agent.policy.responseFormat;
  const plain = format === undefined || format.type === "text";
  // The common case (no override, no response format): the agent's parts as they are.
  if (overrides === undefined && agentSpec === undefined && plain) return agent;
  const parts: HarnessParts<State, Ctx> = Object.assign({}, agent);
  if (overrides?.models !== undefined) parts.models = overrides.models;
  if (overrides?.model !== undefined) parts.agentDefaultModel = overrides.model;
  const spec =
    overrides?.structured ??
    agentSpec ??
    (plain ? undefined : structuredSpec(format, { strategy: "native" }));
  if (spec !== undefined) {
    const structured = prepareStructured(spec, parts.models, parts.tools, parts.agentDefaultModel);
    parts.structured = structured;
    // Tool strategy: the run's tools include the synthetic final-answer tool.
    if (structured.tools !== undefined) parts.tools = structured.tools;
  }
  return parts;
}

/**
 * A fresh loop session for one run (or one direct model call) in `ctx`. Hooks see `hookTools`,
 * the agent's own tools (never the structured-output overlay with the final-answer tool).
 */
export function openSession<State, Ctx>(
  parts: HarnessParts<State, Ctx>,
  hookTools: HarnessParts<State, Ctx>["tools"],
  state: State,
  ctx: LiveRunContext<Ctx>,
  streaming: boolean,
  call: GraphNodeCall,
): LoopSession<State, Ctx> {
  const graph = ctx.config.graphNode;
  const component: HarnessComponent = graph === undefined ? call : "graph_node";
  const identity: ConstructorParameters<typeof RunStatusTracker>[0] = {
    runId: ctx.runId,
    rootRunId: ctx.scope.rootRunId,
    component,
  };
  if (ctx.scope.parentRunId !== undefined) identity.parentRunId = ctx.scope.parentRunId;
  if (ctx.threadId !== undefined) identity.threadId = ctx.threadId;
  if (ctx.config.tags.length > 0) identity.tags = ctx.config.tags.slice();
  let graphNode: GraphNodeRef | undefined;
  if (graph !== undefined) {
    // One frozen object for the status record and every event record of the node's call.
    graphNode = Object.freeze({ graphId: graph.graphId, node: graph.node, call });
    ctx.scope.graphNode = graphNode;
  }
  const transcript: AgentRun["messages"] = [];
  const run = emptyRun(ctx.runId, ctx.threadId, transcript);
  // The status record reads counts, usage and cost from the run itself.
  const status = new RunStatusTracker(identity, ctx.clock, ctx.events, run, graphNode);
  ctx.attachStatus(status);
  // A sub-agent run in this context inherits it: a streaming parent streams its children too.
  if (streaming) ctx.streamsDeltas = true;
  const session: LoopSession<State, Ctx> = {
    parts,
    ctx,
    hook: { state, run: ctx, tools: hookTools },
    state,
    streaming,
    transcript,
    run,
    status,
    usedToolCallIds: undefined,
    open: new OpenCalls(),
    plainSelection: undefined,
    reactions: undefined,
    modelEndedAt: 0,
    callDetails: parts.middleware.list.length === 0 ? undefined : callDetailsOf(parts.middleware),
  };
  if (ctx.previousModel !== undefined) session.previousModel = ctx.previousModel;
  ctx.attachChildFold(session, foldChildRun);
  return session;
}
