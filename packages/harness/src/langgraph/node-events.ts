import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { EventRecord } from "../contracts/agent-event.js";

/**
 * A harness event as it appears in the graph's `custom` stream mode
 * (`graph.stream(input, { streamMode: "custom" })`): the node that emitted it and the record
 * with its full correlation envelope (run ids, offset, time, `graphNode`).
 */
export interface GraphEventChunk {
  type: "tinyagents.event";
  node: string;
  record: EventRecord;
}

/** Whether a custom-stream chunk is a harness event (other nodes may write their own chunks). */
export function isGraphEventChunk(chunk: unknown): chunk is GraphEventChunk {
  return (
    typeof chunk === "object" &&
    chunk !== null &&
    (chunk as { type?: unknown }).type === "tinyagents.event" &&
    typeof (chunk as { record?: unknown }).record === "object"
  );
}

/**
 * Keeps the records of one node call's run tree (the call and its sub-agents) out of a sink
 * other nodes may share, and writes them to LangGraph's custom stream.
 */
export class NodeEventFilter {
  private readonly runs = new Set<string>();
  private readonly writer: ((chunk: unknown) => void) | undefined;

  constructor(
    runId: string,
    private readonly node: string,
    config: LangGraphRunnableConfig,
    stream: boolean,
  ) {
    this.runs.add(runId);
    this.writer = stream && typeof config.writer === "function" ? config.writer : undefined;
  }

  /** Whether `record` belongs to this node's call (learning its sub-agents as they start). */
  owns(record: EventRecord): boolean {
    if (this.runs.has(record.runId)) return true;
    if (record.parentRunId !== undefined && this.runs.has(record.parentRunId)) {
      this.runs.add(record.runId);
      return true;
    }
    return false;
  }

  /** Forward `record` to the custom stream when it is this call's. */
  offer(record: EventRecord): void {
    if (this.writer !== undefined && this.owns(record)) {
      const chunk: GraphEventChunk = { type: "tinyagents.event", node: this.node, record };
      this.writer(chunk);
    }
  }
}
