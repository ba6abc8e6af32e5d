import type { AgentObservation, CostTotals } from "@tinyagents/harness";
import { type CallBilling, callBillingOf } from "@tinyagents/harness/observability";
import type { Usage } from "@tinyagents/inference";
import type { CacheCallView, CostRow, CostView, TokenCounts } from "./view-types.js";

/** Zero tokens. */
export function noTokens(): TokenCounts {
  return {
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

/** A cost view of harness cost totals; `unknown` also when calls reported no usage. */
export function costView(cost: CostTotals, missingUsage = false): CostView {
  return {
    total: cost.total,
    input: cost.input,
    output: cost.output,
    cacheRead: cost.cacheRead,
    cacheWrite: cost.cacheWrite,
    unknown: cost.unknown === true || missingUsage,
  };
}

function addTokens(into: TokenCounts, u: Usage): void {
  into.inputTokens += u.inputTokens;
  into.outputTokens += u.outputTokens;
  into.totalTokens += u.totalTokens;
  into.cacheReadTokens += u.cacheReadTokens;
  into.cacheWriteTokens += u.cacheWriteTokens;
  into.reasoningTokens += u.reasoningTokens;
}

function addCost(into: CostView, c: CostTotals): void {
  into.total += c.total;
  into.input += c.input;
  into.output += c.output;
  into.cacheRead += c.cacheRead;
  into.cacheWrite += c.cacheWrite;
  if (c.unknown === true) into.unknown = true;
}

const emptyCostView = (): CostView => ({
  total: 0,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  unknown: false,
});

/**
 * Usage and cost of a run tree grouped two ways: by model (each attempt's billed usage and cost:
 * its `usage.recorded` / `cost.recorded`, or its `model.completed` / `model.failed` in an
 * `"essential"` journal, counted once: `CallBilling`) and by run (the root as `main`, each
 * sub-agent by its name). A completed call that reported no usage makes its group's cost unknown,
 * never a silent $0.
 */
export function costBreakdown(observations: readonly AgentObservation[]): {
  byModel: CostRow[];
  bySubAgent: CostRow[];
} {
  const byModel = new Map<string, CostRow>();
  const byRun = new Map<string, CostRow>();
  const names = new Map<string, string>();
  const row = (map: Map<string, CostRow>, key: string): CostRow => {
    let r = map.get(key);
    if (r === undefined) {
      r = { key, calls: 0, tokens: noTokens(), cost: emptyCostView() };
      map.set(key, r);
    }
    return r;
  };
  const billing = new Map<string, CallBilling>();
  const bill = (model: string, runKey: string, usage?: Usage, cost?: CostTotals) => {
    if (usage !== undefined) {
      addTokens(row(byModel, model).tokens, usage);
      addTokens(row(byRun, runKey).tokens, usage);
    }
    if (cost !== undefined) {
      addCost(row(byModel, model).cost, cost);
      addCost(row(byRun, runKey).cost, cost);
    }
  };
  for (const o of observations) {
    const e = o.event;
    if (e.type === "subagent.started") names.set(e.childRunId, e.name);
    const runKey = o.depth === 0 ? "main" : (names.get(o.runId) ?? o.runId);
    if (e.type === "model.started" || e.type === "model.abandoned") {
      billing.get(o.runId)?.attemptStarted(e.callId);
      continue;
    }
    if (
      e.type !== "model.completed" &&
      e.type !== "model.failed" &&
      e.type !== "usage.recorded" &&
      e.type !== "cost.recorded"
    )
      continue;
    const calls = callBillingOf(billing, o.runId);
    if (e.type === "usage.recorded") {
      bill(e.model, runKey, e.usage);
      calls.usageRecorded(e.callId);
    } else if (e.type === "cost.recorded") {
      bill(e.model, runKey, undefined, e.cost);
      calls.costRecorded(e.callId);
    } else {
      // Each attempt on its own: one billed on an unpriced model (after a fallback, say) makes its
      // model's and its run's cost unknown, whatever the call's other attempts cost.
      const attempt = calls.attemptEnded(e);
      bill(e.model, runKey, attempt.usage, attempt.cost);
      if (attempt.costUnknown) {
        row(byModel, e.model).cost.unknown = true;
        row(byRun, runKey).cost.unknown = true;
      }
      if (e.type === "model.completed") {
        row(byModel, e.model).calls++;
        row(byRun, runKey).calls++;
      }
    }
  }
  return { byModel: [...byModel.values()], bySubAgent: [...byRun.values()] };
}

/**
 * The prompt-cache view: for each successful model call, its stable-prefix fingerprint (recorded
 * by trace details: on `model.started`, or `model.request` in journals of earlier versions),
 * whether the prefix was preserved or busted since the previous call of the same run, the
 * declared layout changes (`cache.layout_changed`, naming the middleware and segment) in between,
 * and the share of input tokens read from the cache.
 */
export function cacheView(observations: readonly AgentObservation[]): CacheCallView[] {
  const calls: CacheCallView[] = [];
  const fingerprints = new Map<string, string>();
  const previous = new Map<string, string | undefined>();
  const changes = new Map<string, { middleware: string; segment?: string }[]>();
  const seenCall = new Set<string>();
  for (const o of observations) {
    const e = o.event;
    if (e.type === "model.started" && e.details?.stablePrefix !== undefined) {
      fingerprints.set(`${o.runId}/${e.callId}`, e.details.stablePrefix);
    } else if (e.type === "cache.layout_changed") {
      const list = changes.get(o.runId) ?? [];
      list.push(
        e.segment === undefined
          ? { middleware: e.middleware }
          : { middleware: e.middleware, segment: e.segment },
      );
      changes.set(o.runId, list);
    } else if (e.type === "model.request" && e.stablePrefix !== undefined) {
      fingerprints.set(`${o.runId}/${e.callId}`, e.stablePrefix);
    } else if (e.type === "model.completed") {
      const key = `${o.runId}/${e.callId}`;
      if (seenCall.has(key)) continue;
      seenCall.add(key);
      const fingerprint = fingerprints.get(key);
      const declared = changes.get(o.runId) ?? [];
      changes.set(o.runId, []);
      const isFirst = !previous.has(o.runId);
      const before = previous.get(o.runId);
      previous.set(o.runId, fingerprint);
      const prefix: CacheCallView["prefix"] = isFirst
        ? "first"
        : fingerprint !== undefined && before !== undefined
          ? fingerprint === before
            ? "preserved"
            : "busted"
          : declared.length > 0
            ? "busted"
            : "unknown";
      const u = e.usage;
      const view: CacheCallView = {
        callId: e.callId,
        runId: o.runId,
        model: e.model,
        prefix,
        changes: declared,
        inputTokens: u?.inputTokens ?? 0,
        cacheReadTokens: u?.cacheReadTokens ?? 0,
        cacheWriteTokens: u?.cacheWriteTokens ?? 0,
      };
      if (fingerprint !== undefined) view.fingerprint = fingerprint;
      if (u !== undefined && u.inputTokens > 0) view.cachedShare = u.cacheReadTokens / u.inputTokens;
      calls.push(view);
    }
  }
  return calls;
}
