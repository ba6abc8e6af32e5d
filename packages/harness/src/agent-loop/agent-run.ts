import { text } from "@tinyagents/inference";
import type { AgentRun } from "../contracts/agent-run.js";

export type { AgentRun } from "../contracts/agent-run.js";
export type { RecordsLost } from "../contracts/records-lost.js";
export type { RunStep } from "../contracts/run-step.js";
export type { StopReason } from "../contracts/stop-reason.js";

/** The final answer text of a run ("" when it has none). */
export function runText(run: AgentRun): string {
  return text(run.finalResponse?.message);
}
