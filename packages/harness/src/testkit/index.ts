/**
 * @tinyagents/harness/testkit — deterministic building blocks for testing agents: scripted and
 * streaming models, a slow model, fake tools, a virtual clock, predictable ids, an event
 * recorder, trajectory assertions, and the store conformance suites every store backend runs.
 */
export {
  DEFAULT_CLOCK_START,
  DeterministicClock,
  type DeterministicClockOptions,
} from "./deterministic-clock.js";
export { DeterministicIds } from "./deterministic-ids.js";
// The engine-neutral durability conformance scenario (issue 18): agent, ledger, expected run.
export * from "./durable-conformance/index.js";
export { EventRecorder } from "./event-recorder.js";
export { FakeTool, type FakeToolCall, type FakeToolHandler, type FakeToolOptions } from "./fake-tool.js";
export {
  expectPrefixBusted,
  expectPrefixPreserved,
  PrefixAssertionError,
  PrefixRecorder,
} from "./prefix-assertions.js";
// Record and replay (issue 38): a journaled run becomes a deterministic regression test.
export {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteApproval,
  type CassetteModelCall,
  type CassetteRequest,
  type CassetteResponse,
  type CassetteRun,
  type CassetteSource,
  type CassetteTolerances,
  type CassetteToolCall,
  parseCassette,
  serializeCassette,
} from "./replay/cassette.js";
export {
  type CassetteBuildOptions,
  cassetteFromObservations,
  LIBRARY_CAPTURE_HINT,
} from "./replay/cassette-from-journal.js";
export {
  type ExportedAgent,
  type ExportedFile,
  type ExportedRunTest,
  type ExportRunOptions,
  exportRunAsTest,
  type JournalSource,
} from "./replay/export-run-as-test.js";
export {
  type ReplayDivergence,
  type ReplayOptions,
  type ReplayReport,
  replayRun,
} from "./replay/replay-run.js";
export type { FieldDifference } from "./replay/request-diff.js";
export { type RunScriptOptions, runScript, type ScriptRunResult } from "./run-script.js";
export {
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedToolCalls,
  type ScriptReply,
  type ScriptStep,
} from "./scripted-model.js";
export { SlowModel, type SlowModelOptions } from "./slow-model.js";
// Store conformance: the contract every store backend keeps (memory, files, SQLite, Postgres, yours)
export {
  type AppendLogConformanceSubject,
  appendLogConformance,
  type ConformanceCase,
  ConformanceFailure,
  claimConformance,
  conformancePausedRun,
  conformanceStatus,
  deepEqual,
  HOSTILE_IDS,
  hostileKeyConformance,
  hostileStreamConformance,
  type KeyValueConformanceSubject,
  keyValueStoreConformance,
  type ResponseCacheConformanceSubject,
  responseCacheConformance,
  type StatusStoreConformanceSubject,
  statusStoreConformance,
  UNSTORABLE_IDS,
} from "./store-conformance/store-conformance.js";
export { StreamingMock, type StreamingMockOptions } from "./streaming-mock.js";
export {
  type ArgsMatcher,
  type ObservedToolCall,
  Trajectory,
  TrajectoryAssertionError,
} from "./trajectory.js";
