import { validationError } from "@tinyagents/inference";
import type { AgentObservation } from "./agent-observation.js";

/**
 * Which events a journal stores:
 * - `"essential"` (the default of `attachObservability`): every event a journal reader uses —
 *   replay and cassette export, `rebuildProjections`, the inspector and `show`, the OTel and
 *   Langfuse exporters — and not the bookkeeping none of them reads: `state.updated`,
 *   `middleware.started` / `middleware.completed` (a `middleware.failed` is kept), the budget
 *   middleware's per-call `budget.reserved` / `budget.reconciled` (its `budget.warning` and
 *   `budget.exceeded` are kept), and `route.selected` when the agent's or registry's default model was picked (`model.started`
 *   names it anyway; a fallback, a per-run choice or a router's pick is kept), and each attempt's
 *   `usage.recorded` / `cost.recorded` (its `model.completed` / `model.failed`, the next record
 *   of the call, carries the same `usage` and `cost`; journals written by earlier versions have
 *   both, and every reader counts an attempt once: `CallBilling`). Live subscribers, projections
 *   and extra sinks still see every event; only the journal leaves them out, so a step that calls
 *   a tool journals 4 records (`model.started`, `model.completed`, `tool.started`,
 *   `tool.completed`; 8 or more in an `"all"` journal), and a 1-step run 4 (`run.started` and
 *   `run.completed` around the model call's two); a middleware hook adds none.
 * - `"all"`: every event.
 */
export type JournalEvents = "essential" | "all";

/** Validate a `journalEvents` option (undefined: `fallback`). */
export function journalEventsOption(value: unknown, fallback: JournalEvents): JournalEvents {
  if (value === undefined) return fallback;
  if (value === "essential" || value === "all") return value;
  throw validationError(`journalEvents must be "essential" or "all", got ${JSON.stringify(value)}`, {
    field: "journalEvents",
  });
}

/** Whether an `"essential"` journal stores `observation` (see {@link JournalEvents}). */
export function isEssentialForJournal(observation: AgentObservation): boolean {
  const event = observation.event;
  switch (event.type) {
    case "state.updated":
    case "middleware.started":
    case "middleware.completed":
    case "budget.reserved":
    case "budget.reconciled":
    case "usage.recorded":
    case "cost.recorded":
      return false;
    case "route.selected":
      return event.source !== "registry_default" && event.source !== "agent_default";
    default:
      return true;
  }
}
