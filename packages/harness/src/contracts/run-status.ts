import type { ErrorSummary, UsageTotals } from "@tinyagents/inference";
import type { CostTotals } from "./cost-totals.js";
import type { GraphNodeRef } from "./graph-node.js";

/** Lifecycle of a run. */
export type ExecutionStatus = "pending" | "running" | "interrupted" | "completed" | "failed" | "cancelled";

/** What the run is doing right now. */
export type HarnessPhase =
  | "idle"
  | "building_request"
  | "model"
  | "tools"
  | "middleware"
  | "persisting"
  | "done";

/**
 * What kind of harness execution a status record describes: an agent loop, a direct model call,
 * or either of them run as a node of a graph (`graphNode` then says which graph, node and call).
 */
export type HarnessComponent = "agent" | "model_call" | "graph_node";

/**
 * A compact, JSON-safe answer to "what is this run doing now?". Operational only: it never
 * holds prompts, tool outputs or raw provider payloads.
 */
export interface HarnessRunStatus {
  runId: string;
  parentRunId?: string;
  rootRunId: string;
  threadId?: string;
  /** The run's `RunConfig.tags`, when it has any (a sub-agent inherits its parent's). */
  tags?: string[];
  component: HarnessComponent;
  /** Set for component `graph_node`: the graph, the node and the kind of call it made. */
  graphNode?: GraphNodeRef;
  status: ExecutionStatus;
  phase: HarnessPhase;
  modelCalls: number;
  toolCalls: number;
  activeModelCall?: string;
  activeToolCalls: string[];
  lastEventId?: string;
  usage: UsageTotals;
  cost: CostTotals;
  startedAt: number;
  updatedAt: number;
  endedAt?: number;
  error?: ErrorSummary;
  /** Liveness (runs with `ContextOptions.durability`): the worker or process running it. */
  ownerId?: string;
  /** The run's last sign of life (epoch ms). */
  heartbeatAt?: number;
  /** The run counts as alive until then; past it (plus a grace) `reapStale` marks it `abandoned`. */
  leaseUntil?: number;
  /**
   * The fencing epoch of the owner that wrote it (checkpointed runs): a status store never
   * replaces a record with one of a lower epoch, so a process that lost the run cannot overwrite
   * the status its new owner writes.
   */
  epoch?: number;
}

/**
 * The counters a status record reports, read live from their owner (the run's `AgentRun`): the
 * loop updates them once, and the record never keeps a second copy.
 */
export interface RunTotals {
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly usage: UsageTotals;
  readonly cost: CostTotals;
}
