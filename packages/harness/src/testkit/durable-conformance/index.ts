export {
  checkLedger,
  type LedgerCheckOptions,
  type LedgerSummary,
  LedgerViolationError,
} from "./check-ledger.js";
export {
  CONFORMANCE_CALLS,
  CONFORMANCE_INPUT,
  ConformanceModel,
  conformanceReply,
} from "./conformance-model.js";
export { ExecutionLedger, type LedgerEntry, readLedger } from "./execution-ledger.js";
export {
  type CrashPoint,
  type DurableJournal,
  emptyJournal,
  type JournalEntry,
  journaledCallKeys,
  ReplayDurableContext,
  type ReplayDurableOptions,
  WorkerCrash,
} from "./replay-durable-context.js";
export {
  CONFORMANCE_APPROVAL_HASH,
  CONFORMANCE_MODEL,
  CONFORMANCE_PRICING,
  type ConformanceScenario,
  type ConformanceScenarioOptions,
  conformanceApprovalId,
  createConformanceAgent,
  type ExpectedConformanceRun,
  expectedConformanceRun,
  expectedTranscript,
} from "./scenario-agent.js";
export { streamProblems } from "./stream-problems.js";
