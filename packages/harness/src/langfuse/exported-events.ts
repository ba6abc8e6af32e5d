import type { AgentEvent } from "../contracts/agent-event.js";
import type { ObservationLevel } from "./trace-model.js";

/**
 * Events exported as Langfuse `event` observations, with their level. Lifecycle events
 * (run/model/tool start and end) become spans and generations instead, except `model.failed`: a
 * failed attempt is an event inside its call's generation (the generation fails only when no
 * attempt succeeds); high-volume noise
 * (`model.*_delta`, `state.updated`, middleware start/end, `route.selected`) is left out.
 */
export const EXPORTED_EVENT_LEVELS: Readonly<Partial<Record<AgentEvent["type"], ObservationLevel>>> = {
  "model.failed": "WARNING",
  "retry.scheduled": "WARNING",
  "fallback.selected": "WARNING",
  "limit.reached": "WARNING",
  "tool.unknown": "WARNING",
  "tool.invalid_args": "WARNING",
  "middleware.failed": "ERROR",
  "run.interrupted": "WARNING",
  "model.override_skipped": "DEFAULT",
  "control.applied": "DEFAULT",
  "memory.loaded": "DEFAULT",
  "memory.saved": "DEFAULT",
  "tool.progress": "DEFAULT",
};
