import { interrupt } from "@langchain/langgraph";
import { isJsonObject, type JsonValue, TinyAgentsError, validationError } from "@tinyagents/inference";
import { type PausedRun, validatePausedRun } from "../durability/paused-run.js";
import type { ApprovalBook, ApprovalRecord } from "../middleware/library/approval-book.js";
import { InMemoryKeyValueStore, type KeyValueStore } from "../store/key-value-store.js";

/** The namespace paused node calls are kept under in a {@link KeyValueStore}. */
export const GRAPH_NODE_PAUSES_NAMESPACE = "langgraph_node_pauses";

/**
 * The value a paused node call hands to LangGraph's `interrupt()`: it shows up in the graph's
 * result and stream under `__interrupt__`. `approvals` lists the run's pending approval requests
 * (decide them in the resume value); a steering pause has none.
 */
export interface GraphNodePause {
  type: "tinyagents.pause";
  graphRunId: string;
  node: string;
  runId: string;
  reason: string;
  approvals: ApprovalRecord[];
}

/**
 * What to pass as `new Command({ resume })` to continue a paused node call. `approvals` decides
 * pending requests by id (`"approve"` or `{ reject: reason }`); omit it to continue after a
 * steering pause. A request left undecided fails the resumed run with `validation`.
 */
export interface GraphNodeResume {
  approvals?: Record<string, "approve" | { reject: string }>;
}

/** A paused node call as kept between its interrupt and its resume. */
interface SavedPause {
  paused: PausedRun;
  /** How many times this task has interrupted (LangGraph matches resume values by position). */
  interrupts: number;
}

/**
 * Keeps a node call's `PausedRun` between the `interrupt()` that stops the task and the
 * re-execution that `Command({ resume })` starts, keyed by the node's run id (stable across
 * re-executions of one task), so the resumed call continues where it stopped instead of
 * repeating its model and tool calls. In memory by default; pass a durable store (file, SQLite)
 * when the graph's checkpointer is durable too.
 */
export class NodePauses {
  private readonly store: KeyValueStore;

  constructor(store: KeyValueStore = new InMemoryKeyValueStore()) {
    this.store = store;
  }

  async load(runId: string): Promise<SavedPause | undefined> {
    const value = await this.store.get(GRAPH_NODE_PAUSES_NAMESPACE, runId);
    if (value === undefined) return undefined;
    const saved = value as unknown as SavedPause;
    return { paused: validatePausedRun(saved.paused), interrupts: saved.interrupts };
  }

  async save(saved: SavedPause): Promise<void> {
    await this.store.put(
      GRAPH_NODE_PAUSES_NAMESPACE,
      saved.paused.runId,
      JSON.parse(JSON.stringify(saved)) as JsonValue,
    );
  }

  async forget(runId: string): Promise<void> {
    await this.store.delete(GRAPH_NODE_PAUSES_NAMESPACE, runId);
  }
}

/** The interrupt payload of a paused run. */
export function pausePayload(
  paused: PausedRun,
  graphRunId: string,
  node: string,
  approvals: ApprovalBook | undefined,
): GraphNodePause {
  return {
    type: "tinyagents.pause",
    graphRunId,
    node,
    runId: paused.runId,
    reason: paused.reason,
    approvals: approvals?.pending().filter((r) => r.runId === paused.runId) ?? [],
  };
}

/**
 * Ask LangGraph for the resume value of interrupt number `count` of this task. The first
 * `count - 1` interrupts were answered in earlier executions (their values were applied then):
 * they are replayed to move LangGraph's interrupt counter. The last one throws LangGraph's
 * `GraphInterrupt` (the task stops, the graph reports `payload`) until `Command({ resume })`
 * supplies a value.
 */
export function awaitResume(count: number, payload: GraphNodePause): unknown {
  for (let i = 1; i < count; i++) interrupt(payload);
  return interrupt(payload);
}

/** Apply a resume value's decisions to the approval book. Throws `validation` for a bad value. */
export function applyResume(value: unknown, approvals: ApprovalBook | undefined): void {
  if (value === undefined || value === null || value === true) return;
  if (!isJsonObject(value)) {
    throw validationError(
      "the resume value of a paused tinyagents node must be an object { approvals?: { [id]: 'approve' | { reject } } }",
      { field: "resume" },
    );
  }
  const decisions = (value as GraphNodeResume).approvals;
  if (decisions === undefined) return;
  if (!isJsonObject(decisions))
    throw validationError("resume.approvals must be an object keyed by approval id");
  if (approvals === undefined) {
    throw new TinyAgentsError(
      "validation",
      "the resume value decides approvals, but the node has no `approvals` book; pass the humanApprovalMiddleware's `approvals` to the node factory",
      { details: { field: "approvals" } },
    );
  }
  for (const [id, decision] of Object.entries(decisions)) {
    if (decision === "approve") approvals.approve(id);
    else if (isJsonObject(decision) && typeof decision.reject === "string")
      approvals.reject(id, decision.reject);
    else {
      throw validationError(`resume.approvals["${id}"] must be "approve" or { reject: "<reason>" }`, {
        field: `approvals.${id}`,
      });
    }
  }
}
