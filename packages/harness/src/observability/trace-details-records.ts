import type { AgentEvent } from "../contracts/agent-event.js";

/** Anything that carries an event: an `EventRecord`, an `AgentObservation`. */
type Carrier = { event: AgentEvent };

/**
 * A record whose event carries trace details (`details`, from `traceDetailsMiddleware`) as the
 * records earlier versions wrote for them: `model.request` then `model.started`,
 * `model.completed` then `model.response`, `tool.completed` (or `tool.failed`) then
 * `tool.result`. Each keeps the record's envelope (id, offset, time); the lifecycle event loses
 * its `details`. A reader written for the separate records reads both kinds of journal through
 * this. `undefined`: the record carries no details (read it as it is).
 */
export function separateTraceDetails<R extends Carrier>(record: R): R[] | undefined {
  const event = record.event;
  switch (event.type) {
    case "model.started": {
      if (event.details === undefined) return undefined;
      const { details, ...started } = event;
      return [
        { ...record, event: { type: "model.request", callId: event.callId, ...details } },
        { ...record, event: started },
      ];
    }
    case "model.completed": {
      if (event.details === undefined) return undefined;
      const { details, ...completed } = event;
      const response: AgentEvent = { type: "model.response", callId: event.callId };
      if (details.responseId !== undefined) response.responseId = details.responseId;
      if (event.finishReason !== undefined) response.finishReason = event.finishReason;
      if (details.outputMessages !== undefined) response.outputMessages = details.outputMessages;
      return [
        { ...record, event: completed },
        { ...record, event: response },
      ];
    }
    case "tool.completed":
    case "tool.failed": {
      if (event.details === undefined) return undefined;
      const { details, ...ended } = event;
      const isError = event.type === "tool.failed" || event.isError;
      const result: AgentEvent = {
        type: "tool.result",
        callId: event.callId,
        toolName: event.toolName,
        isError,
        ...details,
      };
      return [
        { ...record, event: ended },
        { ...record, event: result },
      ];
    }
    default:
      return undefined;
  }
}

/**
 * `records` with every record that carries trace details replaced by its separate records (see
 * {@link separateTraceDetails}); the same array when none does.
 */
export function withSeparateTraceDetails<R extends Carrier>(records: readonly R[]): readonly R[] {
  let out: R[] | undefined;
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as R;
    const separate = separateTraceDetails(record);
    if (separate === undefined) {
      out?.push(record);
      continue;
    }
    out ??= records.slice(0, i);
    out.push(...separate);
  }
  return out ?? records;
}
