import type { AgentEvent, EventRecord } from "../contracts/agent-event.js";

/**
 * One observed event with its correlation envelope: event id, run id, parent and root run ids,
 * depth, stream offset, timestamp and the event. It IS the `EventRecord` an `EventSink`
 * delivers (an alias, not a copy), so sinks, journals and exporters all speak one shape.
 *
 * The stream is the root run's: a parent and its sub-agents share one sink, so `offset` is
 * monotonic across the whole run tree and `id` is `{rootRunId}-evt-{offset}` when the sink was
 * created by the harness.
 */
export type AgentObservation<E extends AgentEvent = AgentEvent> = EventRecord<E>;
