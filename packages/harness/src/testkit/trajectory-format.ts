import type { EventRecord } from "../contracts/agent-event.js";

/** At most this many (collapsed) entries are shown; the middle of longer sequences is elided. */
const MAX_SHOWN = 60;

/**
 * A compact label for one record: the event type, with the detail that tells events apart
 * (`tool:search` for a tool start, `tool.completed(search)`, `run.failed(timeout)`, ...).
 * Records of sub-runs (depth > 0) are suffixed `@d<depth>`.
 */
export function recordLabel(record: EventRecord): string {
  const event = record.event;
  let label: string;
  switch (event.type) {
    case "tool.started":
      label = `tool:${event.toolName}`;
      break;
    case "tool.completed":
      label = `tool.completed(${event.toolName}${event.isError ? ", error" : ""})`;
      break;
    case "tool.failed":
      label = `tool.failed(${event.toolName}, ${event.error.code})`;
      break;
    case "tool.unknown":
      label = `tool.unknown(${event.toolName})`;
      break;
    case "tool.invalid_args":
      label = `tool.invalid_args(${event.toolName})`;
      break;
    case "model.started":
      label = event.attempt > 1 ? `model.started(attempt ${event.attempt})` : "model.started";
      break;
    case "model.failed":
      label = `model.failed(${event.error.code})`;
      break;
    case "run.failed":
      label = `run.failed(${event.error.code})`;
      break;
    case "limit.reached":
      label = `limit.reached(${event.limit})`;
      break;
    default:
      label = event.type;
  }
  return record.depth > 0 ? `${label}@d${record.depth}` : label;
}

/** Labels joined with arrows; consecutive repeats collapse to `label ×n`; long sequences are elided. */
export function describeRecords(records: readonly EventRecord[]): string {
  if (records.length === 0) return "(no events)";
  const entries: string[] = [];
  let previous: string | undefined;
  let repeats = 0;
  const flush = () => {
    if (previous !== undefined) entries.push(repeats > 1 ? `${previous} ×${repeats}` : previous);
  };
  for (const record of records) {
    const label = recordLabel(record);
    if (label === previous) {
      repeats++;
      continue;
    }
    flush();
    previous = label;
    repeats = 1;
  }
  flush();
  if (entries.length > MAX_SHOWN) {
    const head = entries.slice(0, MAX_SHOWN - 10);
    const tail = entries.slice(-10);
    return [...head, `... ${entries.length - head.length - tail.length} more ...`, ...tail].join(" → ");
  }
  return entries.join(" → ");
}
