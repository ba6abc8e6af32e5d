import type { Usage } from "@tinyagents/inference";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { CostTotals } from "../contracts/cost-totals.js";

/** The event that ends a model attempt, which carries what the attempt billed. */
export type ModelAttemptEnd = Extract<AgentEvent, { type: "model.completed" } | { type: "model.failed" }>;

/**
 * Counts each model attempt's usage and cost once, whoever wrote the events. A billed attempt
 * emits `usage.recorded` (and, for a priced model, `cost.recorded`) and then its
 * `model.completed` / `model.failed`, which carries the same `usage` and `cost`. Live events and
 * an `"all"` journal have both; an `"essential"` journal (see `JournalEvents`) only the second; a
 * journal written by a version before `cost` was on `model.completed` has both, without `cost`
 * on the terminal event. So: apply a `usage.recorded` / `cost.recorded` when it comes and tell
 * this; at the attempt's end apply only what {@link usageOf} / {@link costOf} return.
 *
 * One per run: call ids are unique within a run, and an attempt's records come before its
 * terminal event (a retry's attempts follow one another). A reader that notes usage must call
 * {@link usageOf} at every attempt end, and one that notes cost {@link costOf}: each clears its
 * note there. Nothing is allocated for a run whose events carry no separate records.
 */
export class CallBilling {
  // Attempts whose separate record was applied and whose end has not come yet: nearly always
  // none or one (the current attempt), so a short array rather than a Set.
  private usageNoted: string[] | undefined;
  private costNoted: string[] | undefined;

  /** A `usage.recorded` of `callId` was applied: its attempt's end adds no usage. */
  usageRecorded(callId: string): void {
    if (this.usageNoted === undefined) this.usageNoted = [callId];
    else this.usageNoted.push(callId);
  }

  /** A `cost.recorded` of `callId` was applied: its attempt's end adds no cost. */
  costRecorded(callId: string): void {
    if (this.costNoted === undefined) this.costNoted = [callId];
    else this.costNoted.push(callId);
  }

  /**
   * The billed usage `end` adds: its `usage` unless its `usage.recorded` was applied, or the
   * response was served from the cache (never billed).
   */
  usageOf(end: ModelAttemptEnd): Usage | undefined {
    if (take(this.usageNoted, end.callId)) return undefined;
    if (end.type === "model.completed" && end.servedFromCache) return undefined;
    return end.usage;
  }

  /** The cost `end` adds: its `cost` unless its `cost.recorded` was applied. */
  costOf(end: ModelAttemptEnd): CostTotals | undefined {
    if (take(this.costNoted, end.callId)) return undefined;
    return end.cost;
  }
}

/** The {@link CallBilling} of run `runId` in `byRun` (a reader of several runs' events), made on first use. */
export function callBillingOf(byRun: Map<string, CallBilling>, runId: string): CallBilling {
  let billing = byRun.get(runId);
  if (billing === undefined) {
    billing = new CallBilling();
    byRun.set(runId, billing);
  }
  return billing;
}

/** Remove `callId` from `noted`; whether it was there. */
function take(noted: string[] | undefined, callId: string): boolean {
  if (noted === undefined || noted.length === 0) return false;
  const i = noted.indexOf(callId);
  if (i < 0) return false;
  noted[i] = noted[noted.length - 1] as string;
  noted.pop();
  return true;
}
