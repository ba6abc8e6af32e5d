import type { EventRecord } from "../contracts/agent-event.js";
import { TraceBuilder } from "./trace-builder.js";
import type { TraceModel, TraceModelOptions } from "./trace-model.js";

/**
 * Turn a run's event records (a journal, a recorder, `EventRecorder.records`) into one
 * {@link TraceModel} per root run id, in emission order:
 *
 * - every run -> an `agent` observation; a child run nests under the parent run's newest open
 *   tool observation at the time it started (the tool that spawned it), else under the parent run;
 * - every model call -> one `generation` with model, parameters, usage, cost and completion start;
 *   its retries and fallbacks are attempts inside it (`metadata.attempts`, and `model.failed`,
 *   `retry.scheduled`, `fallback.selected` events under it), never extra generations;
 * - every executed tool call -> a `tool` observation; interesting events -> `event` observations.
 *
 * Failures give level ERROR and a status message. Records of a run whose `run.started` is not in
 * the input open it implicitly (metadata `startMissing`); observations still open at the end of the
 * input are closed at the last record's time with level WARNING (metadata `incomplete`).
 */
export function buildTraceModels(
  records: readonly EventRecord[],
  options: TraceModelOptions = {},
): TraceModel[] {
  const builders = new Map<string, TraceBuilder>();
  for (const record of records) {
    let builder = builders.get(record.rootRunId);
    if (builder === undefined) {
      builder = new TraceBuilder(record.rootRunId, options);
      builders.set(record.rootRunId, builder);
    }
    builder.add(record);
  }
  return [...builders.values()].map((builder) => builder.finish());
}
