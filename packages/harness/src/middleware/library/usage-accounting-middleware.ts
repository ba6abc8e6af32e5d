import { emptyUsageTotals, recordUsage, type Usage, type UsageTotals } from "@tinyagents/inference";
import type { Middleware } from "../middleware.js";
import { callable, middlewareName, optionError } from "./option-checks.js";

/** One model call's usage, as recorded by {@link usageAccountingMiddleware}. */
export interface UsageEntry {
  runId: string;
  callId: string;
  /** Registry name of the model that served the call. */
  model: string;
  usage: Usage;
}

/** Usage folded over every call a ledger saw: in total and by model. */
export interface UsageReport {
  total: UsageTotals;
  byModel: Record<string, UsageTotals>;
}

/** Accumulates usage across runs (share one across harnesses to account for a whole app). */
export class UsageLedger {
  private total: UsageTotals = emptyUsageTotals();
  private readonly byModel = new Map<string, UsageTotals>();

  /** Fold one call's usage in. */
  record(model: string, usage: Usage): void {
    this.total = recordUsage(this.total, usage);
    this.byModel.set(model, recordUsage(this.byModel.get(model) ?? emptyUsageTotals(), usage));
  }

  /** A copy of the totals. Plain JSON data. */
  report(): UsageReport {
    return structuredClone({ total: this.total, byModel: Object.fromEntries(this.byModel) });
  }

  reset(): void {
    this.total = emptyUsageTotals();
    this.byModel.clear();
  }
}

/** Options of {@link usageAccountingMiddleware}. */
export interface UsageAccountingOptions {
  /** Where usage accumulates (default: a new ledger, exposed as `ledger`). */
  ledger?: UsageLedger;
  /** Called for each recorded call (export to billing, metrics, ...). */
  onUsage?: (entry: UsageEntry) => void;
  /** Middleware name (default `"usage_accounting"`). */
  name?: string;
}

/**
 * Folds the reported usage of every model call (`afterModel`) into a {@link UsageLedger}, in
 * total and by model, across every run of the harness (the run's own `run.usage` covers one run).
 * Responses served from a local cache cost nothing and are skipped.
 * Throws `validation` at construction for a bad ledger or callback.
 */
export function usageAccountingMiddleware<State = unknown, Ctx = unknown>(
  options: UsageAccountingOptions = {},
): Middleware<State, Ctx> & { readonly ledger: UsageLedger } {
  const name = middlewareName("usage_accounting", options.name);
  const ledger = options.ledger ?? new UsageLedger();
  if (!(ledger instanceof UsageLedger)) throw optionError(name, "ledger", "must be a UsageLedger");
  const onUsage = options.onUsage === undefined ? undefined : callable(name, "onUsage", options.onUsage);
  return {
    name,
    changes: "metadata",
    ledger,
    afterModel(ctx, response) {
      const usage = response.usage;
      if (usage === undefined || response.servedFromCache === true) return;
      const model = response.resolvedModel?.name ?? "unknown";
      ledger.record(model, usage);
      onUsage?.({ runId: ctx.run.runId, callId: ctx.callId ?? "", model, usage });
    },
  };
}
