/** One model turn of a run and the tool calls it asked for. */
export interface RunStep {
  index: number;
  /** The model call id (`{runId}-model-{n}`). */
  callId: string;
  model: string;
  toolCallIds: string[];
  finishReason?: string;
}
