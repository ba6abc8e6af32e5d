import type { AgentObservation } from "../../observability/agent-observation.js";

/**
 * What is wrong with one run's journaled event stream, as an operator reading it would see it
 * (empty: it reads like one uninterrupted run). Checks: offsets strictly increase; exactly one
 * `run.started` of the root run and at most one end (`run.completed` / `run.failed`) with
 * nothing after it; every `model.started` / `tool.started` is closed by its `*.completed`,
 * `*.failed` or `*.abandoned` before the same call starts again and before the run ends; no
 * `journal.dropped`. For engine crash tests (Restate, DBOS) and chaos probes.
 */
export function streamProblems(records: readonly AgentObservation[]): string[] {
  const problems: string[] = [];
  const open = new Map<string, number>();
  let starts = 0;
  let ended: number | undefined;
  let previous = -1;
  for (const record of records) {
    const event = record.event;
    const at = `offset ${record.offset} (${event.type})`;
    if (record.offset <= previous) problems.push(`${at}: offset not after ${previous}`);
    previous = record.offset;
    const root = record.runId === record.rootRunId;
    if (ended !== undefined && root) problems.push(`${at}: after the run ended at offset ${ended}`);
    switch (event.type) {
      case "run.started":
        if (root && ++starts > 1) problems.push(`${at}: run.started again`);
        break;
      case "run.completed":
      case "run.failed":
        if (root) {
          for (const [call, offset] of open) problems.push(`${call} started at offset ${offset} never ended`);
          open.clear();
          ended = record.offset;
        }
        break;
      case "journal.dropped":
        problems.push(`${at}: the journal dropped events`);
        break;
      case "model.started":
      case "tool.started": {
        const call = `${event.type.split(".")[0]} ${record.runId}/${event.callId}`;
        const earlier = open.get(call);
        if (earlier !== undefined)
          problems.push(`${call} started again at ${record.offset} without ending (${earlier})`);
        open.set(call, record.offset);
        break;
      }
      case "model.completed":
      case "model.failed":
      case "model.abandoned":
      case "tool.completed":
      case "tool.failed":
      case "tool.abandoned": {
        const call = `${event.type.split(".")[0]} ${record.runId}/${event.callId}`;
        if (!open.delete(call)) problems.push(`${at}: ${call} ended without starting`);
        break;
      }
      default:
        break;
    }
  }
  if (starts === 0) problems.push("no run.started");
  return problems;
}
