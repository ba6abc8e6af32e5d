import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { TinyAgentsError } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { ApprovalBook } from "../middleware/library/approval-book.js";
import type { AgentHarness } from "../runtime/agent-harness.js";
import type { AgentInput } from "../runtime/agent-input.js";
import type { RunOptions } from "../runtime/run-options.js";
import { AgentRunError } from "../runtime/run-result.js";
import type { AgentStream } from "../runtime/run-stream.js";
import type { KeyValueStore } from "../store/key-value-store.js";
import type { GraphSteering } from "./graph-steering.js";
import { NodeEventFilter } from "./node-events.js";
import { nodePlace } from "./node-identity.js";
import {
  baseContextOptions,
  type GraphNodeFunction,
  type GraphNodeOptions,
  reportStatus,
  withChannel,
} from "./node-options.js";
import { applyResume, awaitResume, NodePauses, pausePayload } from "./node-pauses.js";

/** Options of {@link agentNode}. */
export interface AgentNodeOptions<S, U, AppState, Ctx> extends GraphNodeOptions {
  harness: AgentHarness<AppState, Ctx>;
  /** The agent's input, from the graph state (a string, a message, or messages). */
  input(state: S, config: LangGraphRunnableConfig): AgentInput;
  /** The node's state update, from the finished run. */
  output(run: AgentRun, state: S): U;
  /** The harness's application state for the run (default `undefined`). */
  appState?(state: S, config: LangGraphRunnableConfig): AppState;
  /** The run's context data (default `undefined`). */
  data?(state: S, config: LangGraphRunnableConfig): Ctx;
  /**
   * The `approvals` of the harness's `humanApprovalMiddleware`: a resume value's decisions are
   * applied to it, and its pending requests are shown in the interrupt payload.
   */
  approvals?: ApprovalBook;
  /** Lets a supervisor node steer this node's running call (see {@link GraphSteering}). */
  steering?: GraphSteering;
  /**
   * Where a paused call waits for `Command({ resume })` (default: in memory, for this factory).
   * Use a durable store when the graph's checkpointer is durable.
   */
  pauses?: KeyValueStore;
}

/**
 * A LangGraph node that runs a tinyagents agent loop:
 *
 * - the run is a graph-node call (`RunConfig.graphNode`): status component `graph_node`, parent
 *   and root the graph run, the graph's `thread_id`, `graphNode` on every event;
 * - the graph's abort signal cancels the run (in-flight model call and tools included) and the
 *   node rejects with the run's `cancelled` error;
 * - every event (model deltas included) goes to the graph's `custom` stream as a
 *   {@link GraphEventChunk};
 * - a pause (a human approval request, a steering `pause`) becomes LangGraph's `interrupt()`
 *   with a {@link GraphNodePause} payload; `new Command({ resume: GraphNodeResume })` continues
 *   the same run where it stopped (decisions applied, no model call repeated) — the graph needs
 *   a checkpointer, as for any interrupt;
 * - the update is `output(run, state)` plus, when the state declares `tinyagentsState`, the
 *   call's summary and resolved model in the `tinyagents` channel.
 *
 * A failed run rejects with its `TinyAgentsError` (its status record is still reported).
 * `AppState` defaults to `unknown`, the `AgentHarness` default, so `agentNode<S, U>` takes any
 * agent `createAgent` built without a state type (and one typed `AgentHarness<undefined>`).
 */
export function agentNode<S, U, AppState = unknown, Ctx = undefined>(
  options: AgentNodeOptions<S, U, AppState, Ctx>,
): GraphNodeFunction<S, U> {
  // A node runs its agent through the front door, in the graph's place (run id, graphNode); a
  // resume continues its own paused run (`agent.stream(paused, ...)` keeps the run's config).
  const agent = options.harness;
  const pauses = new NodePauses(options.pauses);
  return async (state, config) => {
    const place = nodePlace(config, options);
    const { identity, runId } = place;
    const filter = new NodeEventFilter(runId, identity.node, config, options.stream !== false);
    const base: RunOptions<AppState, Ctx> = {
      ...baseContextOptions(options, config),
      state: options.appState?.(state, config) as AppState,
      context: options.data?.(state, config) as Ctx,
    };
    if (options.steering !== undefined)
      base.steering = options.steering.handle(identity.graphRunId, identity.node);
    const pausePayloadOf = (paused: Parameters<typeof pausePayload>[0]) =>
      pausePayload(paused, identity.graphRunId, identity.node, options.approvals);
    try {
      const saved = await pauses.load(runId);
      let interrupts = saved?.interrupts ?? 0;
      let stream: AgentStream<unknown>;
      if (saved === undefined) {
        stream = agent.stream(options.input(state, config), { ...base, runId, graphNode: identity });
      } else {
        applyResume(awaitResume(interrupts, pausePayloadOf(saved.paused)), options.approvals);
        stream = agent.stream(saved.paused, base);
      }
      for (;;) {
        const run = await drain(stream, filter, options);
        if (run.stopReason === "interrupted" && run.paused !== undefined) {
          interrupts++;
          await pauses.save({ paused: run.paused, interrupts });
          // Throws LangGraph's GraphInterrupt: the task stops until Command({ resume }).
          applyResume(awaitResume(1, pausePayloadOf(run.paused)), options.approvals);
          stream = agent.stream(run.paused, base);
          continue;
        }
        if (interrupts > 0) await pauses.forget(runId);
        return withChannel(state, options.output(run, state), place, "agent", run, run.resolvedModel);
      }
    } finally {
      options.steering?.release(identity.graphRunId, identity.node);
    }
  };
}

/**
 * Consume a run's stream, offering each event to the custom stream, and report its status
 * record; returns the finished run, or rejects with the run's own error (its status reported).
 */
async function drain(
  stream: AgentStream<unknown>,
  filter: NodeEventFilter,
  options: GraphNodeOptions,
): Promise<AgentRun> {
  try {
    for await (const item of stream) {
      if (item.type === "event") filter.offer(item.record);
      else {
        await reportStatus(options, item.result.status);
        return item.result as AgentRun;
      }
    }
  } catch (error) {
    if (!AgentRunError.isAgentRunError(error)) throw error;
    await reportStatus(options, error.status);
    throw TinyAgentsError.isInstance(error.cause) ? error.cause : error;
  }
  throw new TinyAgentsError("internal", "a harness stream ended without a completed item");
}
