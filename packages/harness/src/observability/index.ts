/**
 * `@tinyagents/harness/observability`: journals, sinks and projections of a run's events: event
 * journals (in memory, on an append log, coalescing, replay-reconciling), sinks (fan-out, bounded
 * queue, redacting, journal), projections and status stores with the run status types, latency
 * metrics, trace details and the GenAI message shapes exporters build on. The root re-exports
 * `attachObservability` and the common journal and status store.
 */

export type { RunEventSink } from "../contracts/run-event-sink.js";
export {
  type ChildRunSummary,
  type ExecutionStatus,
  type HarnessComponent,
  type HarnessPhase,
  type HarnessRunStatus,
  RunStatusTracker,
  type RunTotals,
} from "../status/index.js";
export type { AgentObservation } from "./agent-observation.js";
export { AppendLogEventJournal } from "./append-log-event-journal.js";
export {
  attachObservability,
  type ObservabilityHandle,
  type ObservabilityOptions,
} from "./attach-observability.js";
export {
  BoundedObservationQueue,
  type DropReason,
  type DropReport,
  type QueuedSinkOptions,
} from "./bounded-queue.js";
export { type AttemptBilling, CallBilling, callBillingOf, type ModelAttemptEnd } from "./call-billing.js";
export { CoalescingJournal } from "./coalescing-journal.js";
export type { JournalDeltas } from "./delta-coalescer.js";
export type { HarnessEventJournal, JournalQuery, ReplayListener } from "./event-journal.js";
export { FanOutSink } from "./fan-out-sink.js";
export { databaseEvictBatch, FinishedRunRetention } from "./finished-run-retention.js";
export {
  type GenAiPart,
  genAiAssistantMessage,
  genAiInputMessages,
  genAiParts,
  genAiSystemInstructions,
  genAiToolDefinitions,
  genAiToolResult,
} from "./gen-ai-messages.js";
export { DEFAULT_MAX_JOURNAL_RUNS, InMemoryEventJournal } from "./in-memory-event-journal.js";
export {
  DEFAULT_MAX_FINISHED_RUNS,
  InMemoryHarnessStatusStore,
  type InMemoryStatusStoreOptions,
} from "./in-memory-status-store.js";
export { continueEventSink, journalNextOffset } from "./journal-continuity.js";
export type { JournalEvents } from "./journal-events.js";
export { JournalSink, type JournalSinkOptions } from "./journal-sink.js";
export {
  KeyValueHarnessStatusStore,
  type KeyValueStatusStoreOptions,
} from "./key-value-status-store.js";
export { AgentLatencyMetrics, type LatencySummary, summarizeLatencies } from "./latency-metrics.js";
export { afterThisTurn, commitAtTurnEnd } from "./next-turn.js";
export type { Projection, ProjectionSnapshot } from "./projection.js";
export { ProjectionSet, type ProjectionSnapshots, rebuildProjections } from "./projection-set.js";
export { ProjectionSink } from "./projection-sink.js";
export { RedactingSink } from "./redacting-sink.js";
export {
  DEFAULT_REDACTED_FIELDS,
  DEFAULT_SECRET_PATTERNS,
  type RedactionOptions,
  Redactor,
} from "./redaction.js";
export {
  type ReconcileOptions,
  ReplayReconcilingJournal,
  WORKER_LOST,
} from "./replay-reconciling-journal.js";
export { attachSink, type ObservationSink } from "./sink.js";
export { RunStatusProjection } from "./status-projection.js";
export {
  compareStatus,
  type HarnessStatusStore,
  isActiveStatus,
  type StatusQuery,
  shouldReplaceStatus,
  statusFilter,
  validateStatus,
} from "./status-store.js";
export { type RunTiming, TimingProjection } from "./timing-projection.js";
export {
  requestParameters,
  responseId,
  type TraceDetailsOptions,
  traceDetailsMiddleware,
} from "./trace-details-middleware.js";
export { separateTraceDetails, withSeparateTraceDetails } from "./trace-details-records.js";
export { type RunUsageCost, UsageCostProjection } from "./usage-projection.js";
