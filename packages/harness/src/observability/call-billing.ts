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
 * terminal event (a retry's attempts follow one another; an attempt the run ends while it is in
 * flight folds its billing before the run emits its end). A reader that notes usage must call
 * {@link usageOf} (or {@link attemptEnded}) at every attempt end, and one that notes cost
 * {@link costOf}: each clears its note there; {@link attemptStarted} at every `model.started` /
 * `model.abandoned` drops a note whose attempt never reached its end (a crashed epoch's records).
 * Nothing is allocated for a run whose events carry no separate records.
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
   * An attempt of `callId` starts (`model.started`) or one a lost worker left open is closed
   * (`model.abandoned`): notes of an earlier attempt that never reached its end are dropped, so
   * they cannot hide this attempt's billing.
   */
  attemptStarted(callId: string): void {
    while (take(this.usageNoted, callId));
    while (take(this.costNoted, callId));
  }

  /**
   * What attempt end `end` adds ({@link usageOf}, {@link costOf}; call it instead of those), and
   * whether that attempt's cost is unknown: it billed usage (in its record or on its end) that no
   * cost priced (an unpriced model), it answered without reporting usage (not from the cache), or
   * it failed after the provider may have billed more than it reported (`usageUnknown`). For a
   * reader that shows cost per model or per attempt: a later attempt on a priced model does not
   * make an earlier unpriced one's cost known.
   */
  attemptEnded(end: ModelAttemptEnd): AttemptBilling {
    const usageNoted = take(this.usageNoted, end.callId);
    const costNoted = take(this.costNoted, end.callId);
    const fromCache = end.type === "model.completed" && end.servedFromCache;
    const usage = usageNoted || fromCache ? undefined : end.usage;
    const cost = costNoted ? undefined : end.cost;
    const billedUsage = usageNoted || usage !== undefined;
    const priced = costNoted || cost !== undefined;
    const costUnknown =
      (billedUsage && !priced) ||
      (end.type === "model.completed" ? end.usage === undefined && !fromCache : end.usageUnknown === true);
    return { usage, cost, costUnknown };
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

/** What one attempt's end adds to a reader's totals (see {@link CallBilling.attemptEnded}). */
export interface AttemptBilling {
  /** Usage its end carries that no `usage.recorded` of it applied (none for a cache hit). */
  usage: Usage | undefined;
  /** Cost its end carries that no `cost.recorded` of it applied. */
  cost: CostTotals | undefined;
  /** The attempt's cost is not known (billed without a price, or usage unreported). */
  costUnknown: boolean;
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
