export type { ChildRunSummary } from "../contracts/child-run-summary.js";
export {
  type ExecutionStatus,
  type HarnessComponent,
  type HarnessPhase,
  type HarnessRunStatus,
  RunStatusTracker,
  type RunTotals,
} from "./run-status.js";
