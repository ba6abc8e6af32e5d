import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import {
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  validationError,
} from "@tinyagents/inference";
import type { EventRecord } from "../contracts/agent-event.js";
import { RunStatusProjection } from "../observability/status-projection.js";
import type { AgentHarness } from "../runtime/agent-harness.js";
import type { RunOptions } from "../runtime/run-options.js";
import { NodeEventFilter } from "./node-events.js";
import { nodePlace } from "./node-identity.js";
import {
  baseContextOptions,
  channelOf,
  type GraphNodeFunction,
  type GraphNodeOptions,
  reportStatus,
  withChannel,
} from "./node-options.js";

/**
 * Whether a model node reuses the model an earlier node resolved (the `tinyagents` channel's
 * `resolvedModel`), the spec's reusable resolved-model policy:
 * - `"never"` (default): resolve as usual (request model, hints, agent and registry defaults);
 * - `"prefer"`: reuse it when the state has one and it is registered here (resolution source
 *   `state_reuse`), else resolve as usual;
 * - `"require"`: reuse it or fail with `validation` (none in the state, or not registered).
 * A request's own `model` override still wins over reuse.
 */
export type ReuseModelPolicy = "never" | "prefer" | "require";

/** Options of {@link modelNode}. */
export interface ModelNodeOptions<S, U, AppState> extends GraphNodeOptions {
  harness: AgentHarness<AppState, unknown> | AgentHarness<AppState, undefined>;
  /** The model request, from the graph state. */
  request(state: S, config: LangGraphRunnableConfig): ModelRequest;
  /** The node's state update, from the response. */
  output(response: ModelResponse, state: S): U;
  /** The harness's application state for the call (default `undefined`). */
  appState?(state: S, config: LangGraphRunnableConfig): AppState;
  reuseModel?: ReuseModelPolicy;
}

/**
 * A LangGraph node that makes one direct model call (`harness.callModel`): the same model
 * resolution, middleware, retry and fallback, usage, cost, events and status record as a call
 * inside the loop, as a graph-node call (component `graph_node`, `call: "model_call"`), cancelled
 * by the graph's abort signal, its events in the graph's `custom` stream. The update is
 * `output(response, state)` plus, when the state declares `tinyagentsState`, the call's summary
 * and resolved model. A failed call rejects with its `TinyAgentsError` (its status record, rebuilt
 * from its events, is still reported). `AppState` defaults to `unknown`, as for `agentNode`.
 */
export function modelNode<S, U, AppState = unknown>(
  options: ModelNodeOptions<S, U, AppState>,
): GraphNodeFunction<S, U> {
  const harness = options.harness as AgentHarness<AppState, unknown>;
  const reuse = options.reuseModel ?? "never";
  if (reuse !== "never" && reuse !== "prefer" && reuse !== "require") {
    throw validationError(
      `modelNode: reuseModel must be "never", "prefer" or "require", got ${String(reuse)}`,
      {
        field: "reuseModel",
      },
    );
  }
  return async (state, config) => {
    const place = nodePlace(config, options);
    const { identity, runId } = place;
    const request = { ...options.request(state, config) };
    const context: RunOptions<AppState, unknown> = baseContextOptions(options, config);
    const previous = reuse === "never" ? undefined : channelOf(state)?.resolvedModel;
    if (reuse === "require" && previous === undefined) {
      throw validationError(
        `modelNode "${identity.node}": reuseModel is "require" but the graph state has no resolved model; run a tinyagents node first, or spread tinyagentsState into the state`,
        { field: "reuseModel" },
      );
    }
    if (previous !== undefined) {
      context.previousModel = previous.name;
      request.reusePreviousModel = true;
    }
    const filter = new NodeEventFilter(runId, identity.node, config, options.stream !== false);
    const statuses = new RunStatusProjection();
    const onEvent = (record: EventRecord) => {
      if (!filter.owns(record)) return;
      filter.offer(record);
      statuses.apply(record);
    };
    try {
      const { response, status } = await harness.callModel(request, {
        ...context,
        state: options.appState?.(state, config) as AppState,
        runId,
        graphNode: identity,
        onEvent,
      });
      await reportStatus(options, status);
      if (reuse === "require" && response.resolvedModel?.source !== "state_reuse") {
        throw validationError(
          `modelNode "${identity.node}": reuseModel is "require" but model "${previous?.name}" from the graph state was not used (not registered with this harness?)`,
          { field: "reuseModel" },
        );
      }
      return withChannel(
        state,
        options.output(response, state),
        place,
        "model_call",
        status,
        response.resolvedModel,
      );
    } catch (error) {
      const failed = statuses.get(runId);
      if (failed !== undefined && TinyAgentsError.isInstance(error) && failed.status !== "completed") {
        await reportStatus(options, failed);
      }
      throw error;
    }
  };
}
