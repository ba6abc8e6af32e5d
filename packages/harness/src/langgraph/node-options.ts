import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { ResolvedModel } from "@tinyagents/inference";
import type { GraphNodeCall } from "../config/graph-node.js";
import type { CostTotals } from "../cost/cost.js";
import type { EventSink } from "../events/event-sink.js";
import type { HarnessStatusStore } from "../observability/status-store.js";
import type { ContextSources } from "../runtime/create-context.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { GraphNodeCallSummary, TinyagentsGraphState, TinyagentsGraphUpdate } from "./graph-state.js";
import type { GraphNodeNaming, NodePlace } from "./node-identity.js";

/** Options every node factory takes. */
export interface GraphNodeOptions extends GraphNodeNaming {
  /**
   * One sink for the whole graph: every node call emits on it (offsets monotonic over the graph
   * run), so one journal (`attachObservability`, a `JsonlSink`) shows the graph with its node
   * calls nested. Default: each call gets its own sink.
   */
  events?: EventSink;
  /** Where each node call's status record is saved when the call ends or pauses. */
  statuses?: HarnessStatusStore;
  /** Called with each node call's status record when it ends or pauses. */
  onStatus?(status: HarnessRunStatus): void;
  /** Write every harness event to the graph's `custom` stream mode (default true). */
  stream?: boolean;
}

/** A node's update with the `tinyagents` channel entry the factory adds. */
export type NodeUpdate<U> = U & { tinyagents?: TinyagentsGraphUpdate };

/** A LangGraph node function: `graph.addNode(name, fn)`. */
export type GraphNodeFunction<S, U> = (state: S, config: LangGraphRunnableConfig) => Promise<NodeUpdate<U>>;

/** Report a status record to the node's store and callback. */
export async function reportStatus(options: GraphNodeOptions, status: HarnessRunStatus): Promise<void> {
  options.onStatus?.(status);
  await options.statuses?.save(status);
}

/** The caller's abort signal and shared sink, as run options. */
export function baseContextOptions(
  options: GraphNodeOptions,
  config: LangGraphRunnableConfig,
): ContextSources {
  const context: ContextSources = {};
  if (config.signal !== undefined) context.signal = config.signal;
  if (options.events !== undefined) context.events = options.events;
  return context;
}

/** The `tinyagents` channel of a graph state, when the graph declares it. */
export function channelOf(state: unknown): TinyagentsGraphState | undefined {
  if (typeof state !== "object" || state === null) return undefined;
  const channel = (state as { tinyagents?: unknown }).tinyagents;
  return typeof channel === "object" &&
    channel !== null &&
    Array.isArray((channel as TinyagentsGraphState).calls)
    ? (channel as TinyagentsGraphState)
    : undefined;
}

/**
 * Add the call's summary (and resolved model) to the node's update — only when the graph's state
 * declares the `tinyagents` channel (spread `tinyagentsState` into it), since LangGraph rejects
 * updates of undeclared channels.
 */
export function withChannel<U>(
  state: unknown,
  update: U,
  place: NodePlace,
  call: GraphNodeCall,
  totals: { modelCalls: number; toolCalls: number; usage: GraphNodeCallSummary["usage"]; cost: CostTotals },
  resolvedModel: ResolvedModel | undefined,
): NodeUpdate<U> {
  if (channelOf(state) === undefined) return update as NodeUpdate<U>;
  const summary: GraphNodeCallSummary = {
    name: place.identity.node,
    runId: place.runId,
    depth: 0,
    status: "completed",
    usage: totals.usage,
    cost: totals.cost,
    graphRunId: place.identity.graphRunId,
    node: place.identity.node,
    call,
    modelCalls: totals.modelCalls,
    toolCalls: totals.toolCalls,
  };
  const entry: TinyagentsGraphUpdate = { calls: [summary] };
  if (resolvedModel !== undefined) {
    summary.resolvedModel = resolvedModel;
    entry.resolvedModel = resolvedModel;
  }
  return { ...update, tinyagents: entry };
}
