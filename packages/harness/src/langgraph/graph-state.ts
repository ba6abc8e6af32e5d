import { Annotation } from "@langchain/langgraph";
import {
  addUsageTotals,
  emptyUsageTotals,
  type ResolvedModel,
  type UsageTotals,
} from "@tinyagents/inference";
import type { ChildRunSummary } from "../agent-loop/child-run.js";
import type { GraphNodeCall } from "../config/graph-node.js";
import { addCost, type CostTotals, emptyCost } from "../cost/cost.js";

/**
 * One finished harness call of a graph node, as the graph's state records it: a sub-agent
 * summary (`name` is the node) plus the graph run, the kind of call, its counters and the model
 * that served it. Plain JSON data (it lives in the graph's checkpoints).
 */
export interface GraphNodeCallSummary extends ChildRunSummary {
  graphRunId: string;
  node: string;
  call: GraphNodeCall;
  modelCalls: number;
  toolCalls: number;
  resolvedModel?: ResolvedModel;
}

/** The value of the `tinyagents` state channel: the last resolved model and every node call. */
export interface TinyagentsGraphState {
  /** The model the last harness call resolved; a later node may reuse it (`reuseModel`). */
  resolvedModel?: ResolvedModel;
  /** Every finished node call, in completion order (appended by the channel's reducer). */
  calls: GraphNodeCallSummary[];
}

/** What a node writes to the `tinyagents` channel (merged by {@link mergeTinyagentsState}). */
export interface TinyagentsGraphUpdate {
  resolvedModel?: ResolvedModel;
  calls?: GraphNodeCallSummary[];
}

/** The channel's reducer: a newer resolved model replaces the older one, calls are appended. */
export function mergeTinyagentsState(
  current: TinyagentsGraphState,
  update: TinyagentsGraphUpdate | undefined,
): TinyagentsGraphState {
  if (update === undefined) return current;
  const next: TinyagentsGraphState = { calls: current.calls };
  const model = update.resolvedModel ?? current.resolvedModel;
  if (model !== undefined) next.resolvedModel = model;
  if (update.calls !== undefined && update.calls.length > 0) next.calls = current.calls.concat(update.calls);
  return next;
}

/**
 * The state channel the node factories write to. Spread it into your graph's state:
 *
 * ```ts
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...tinyagentsState, answer: Annotation<string>() });
 * ```
 */
export const tinyagentsState = {
  tinyagents: Annotation<TinyagentsGraphState, TinyagentsGraphUpdate | undefined>({
    reducer: mergeTinyagentsState,
    default: () => ({ calls: [] }),
  }),
};

/** Totals over a graph run's node calls, reported like a sub-agent tree. */
export interface GraphRunTotals {
  /** The graph run these totals are for (undefined: every call in the state). */
  graphRunId?: string;
  usage: UsageTotals;
  cost: CostTotals;
  modelCalls: number;
  toolCalls: number;
  /** The node calls, in completion order: the tree's children. */
  children: GraphNodeCallSummary[];
}

/**
 * Usage and cost of a graph run: the sum of its node calls (each already a tree total of the
 * call's own model calls and its sub-agents). `graphRunId` picks one run out of a thread that
 * ran the graph several times; without it every recorded call counts.
 */
export function graphRunTotals(
  state: { tinyagents?: TinyagentsGraphState } | TinyagentsGraphState,
  graphRunId?: string,
): GraphRunTotals {
  const channel = "calls" in state ? state : state.tinyagents;
  const children = (channel?.calls ?? []).filter(
    (c) => graphRunId === undefined || c.graphRunId === graphRunId,
  );
  let usage = emptyUsageTotals();
  let cost = emptyCost();
  let modelCalls = 0;
  let toolCalls = 0;
  for (const call of children) {
    usage = addUsageTotals(usage, call.usage);
    cost = addCost(cost, call.cost);
    modelCalls += call.modelCalls;
    toolCalls += call.toolCalls;
  }
  const totals: GraphRunTotals = { usage, cost, modelCalls, toolCalls, children };
  if (graphRunId !== undefined) totals.graphRunId = graphRunId;
  return totals;
}
