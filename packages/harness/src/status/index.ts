export {
  type ExecutionStatus,
  type HarnessComponent,
  type HarnessPhase,
  type HarnessRunStatus,
  RunStatusTracker,
} from "./run-status.js";
