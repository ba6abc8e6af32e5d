import type { AgentEventType, AgentObservation, CostTotals } from "@tinyagents/harness";
import { type CallBilling, callBillingOf } from "@tinyagents/harness/observability";
import type { Usage } from "@tinyagents/inference";
import type { CostView, DashboardBucket, DashboardQuery, DashboardView, RunSummary } from "./view-types.js";

/** Runs a dashboard reads at most (the newest of the window); the view says when it stopped. */
export const DASHBOARD_MAX_RUNS = 5000;

/**
 * The journal events the dashboard needs from each run (tools, model calls, their usage and cost:
 * a failed attempt's `model.failed` carries what it billed in an `"essential"` journal).
 */
export const DASHBOARD_EVENTS: readonly AgentEventType[] = [
  "model.completed",
  "model.failed",
  "usage.recorded",
  "cost.recorded",
  "tool.started",
  "tool.completed",
  "tool.failed",
  // What a run's summary needs from its journal (its models, first start, pauses).
  "model.started",
  "run.started",
  "run.interrupted",
];

const emptyCost = (): CostView => ({
  total: 0,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  unknown: false,
});

function addCost(into: CostView, c: CostView): void {
  into.total += c.total;
  into.input += c.input;
  into.output += c.output;
  into.cacheRead += c.cacheRead;
  into.cacheWrite += c.cacheWrite;
  if (c.unknown) into.unknown = true;
}

/** The `q`-quantile (0..1) of `values` by nearest rank; undefined when there are none. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** A bucket width that gives 12 to 60 buckets over the window: an hour, six hours, a day, a week. */
export function bucketFor(from: number, to: number): number {
  const span = Math.max(1, to - from);
  const hour = 3_600_000;
  for (const size of [hour, 6 * hour, 24 * hour, 7 * 24 * hour]) if (span / size <= 60) return size;
  return 30 * 24 * hour;
}

/** Whether a run passes the dashboard's filter. */
export function dashboardMatches(run: RunSummary, query: DashboardQuery): boolean {
  return (
    (query.agent === undefined || run.rootAgent === query.agent) &&
    (query.model === undefined || run.models.includes(query.model)) &&
    (query.status === undefined || run.status === query.status) &&
    (query.tag === undefined || run.tags.includes(query.tag)) &&
    (query.thread === undefined || run.threadId === query.thread)
  );
}

/**
 * Aggregate the runs of a window: runs, failures and cost/tokens per time bucket (from the runs'
 * status records), errors by code, run latency p50/p95, prompt-cache hit share; and from each
 * run's journal (`observationsOf`: its {@link DASHBOARD_EVENTS}), model-call latency, usage and cost by model and tool calls and failures by tool.
 * Unknown cost stays unknown: a bucket with one unpriced run prints `unknown (≥ $x)`.
 */
export function dashboardView(
  query: DashboardQuery,
  runs: readonly RunSummary[],
  observationsOf: ReadonlyMap<string, readonly AgentObservation[]>,
  capped: boolean,
  choices: { agents: string[]; models: string[]; tags: string[]; threads: string[] },
): DashboardView {
  const bucketMs = bucketFor(query.from, query.to);
  const first = Math.floor(query.from / bucketMs) * bucketMs;
  const buckets: DashboardBucket[] = [];
  for (let start = first; start < query.to; start += bucketMs)
    buckets.push({ start, runs: 0, failed: 0, tokens: 0, cost: emptyCost() });
  const byStatus: Record<string, number> = {};
  const errors = new Map<string, number>();
  const durations: number[] = [];
  const tokens = { input: 0, output: 0, cacheRead: 0, total: 0 };
  const cost = emptyCost();
  for (const run of runs) {
    byStatus[run.status] = (byStatus[run.status] ?? 0) + 1;
    const bucket = buckets[Math.floor((run.startedAt - first) / bucketMs)];
    if (bucket !== undefined) {
      bucket.runs++;
      if (run.status === "failed") bucket.failed++;
      bucket.tokens += run.tokens.totalTokens;
      addCost(bucket.cost, run.cost);
    }
    if (run.error !== undefined) errors.set(run.error.code, (errors.get(run.error.code) ?? 0) + 1);
    if (run.durationMs !== undefined && run.status !== "running" && run.status !== "pending")
      durations.push(run.durationMs - (run.pausedMs ?? 0));
    tokens.input += run.tokens.inputTokens;
    tokens.output += run.tokens.outputTokens;
    tokens.cacheRead += run.tokens.cacheReadTokens;
    tokens.total += run.tokens.totalTokens;
    addCost(cost, run.cost);
  }
  const models = new Map<string, { model: string; calls: number; tokens: number; cost: CostView }>();
  const tools = new Map<string, { tool: string; calls: number; failures: number }>();
  const modelDurations: number[] = [];
  const model = (name: string) => {
    let row = models.get(name);
    if (row === undefined) {
      row = { model: name, calls: 0, tokens: 0, cost: emptyCost() };
      models.set(name, row);
    }
    return row;
  };
  const tool = (name: string) => {
    let row = tools.get(name);
    if (row === undefined) {
      row = { tool: name, calls: 0, failures: 0 };
      tools.set(name, row);
    }
    return row;
  };
  for (const run of runs) {
    const observations = observationsOf.get(run.runId) ?? [];
    const toolNames = new Map<string, string>();
    // Each attempt's usage and cost once (separate records, or its end in an "essential" journal),
    // and each attempt on its own: one billed on an unpriced model makes its model's cost unknown.
    const billing = new Map<string, CallBilling>();
    const bill = (name: string, usage: Usage | undefined, cost: CostTotals | undefined) => {
      if (usage !== undefined) model(name).tokens += usage.totalTokens;
      if (cost !== undefined) addCost(model(name).cost, { ...cost, unknown: cost.unknown === true });
    };
    for (const o of observations) {
      const e = o.event;
      if (e.type === "model.completed" || e.type === "model.failed") {
        const attempt = callBillingOf(billing, o.runId).attemptEnded(e);
        bill(e.model, attempt.usage, attempt.cost);
        if (attempt.costUnknown) model(e.model).cost.unknown = true;
        if (e.type === "model.completed") {
          model(e.model).calls++;
          modelDurations.push(e.durationMs);
        }
      } else if (e.type === "model.started" || e.type === "model.abandoned") {
        billing.get(o.runId)?.attemptStarted(e.callId);
      } else if (e.type === "usage.recorded") {
        bill(e.model, e.usage, undefined);
        callBillingOf(billing, o.runId).usageRecorded(e.callId);
      } else if (e.type === "cost.recorded") {
        bill(e.model, undefined, e.cost);
        callBillingOf(billing, o.runId).costRecorded(e.callId);
      } else if (e.type === "tool.started") {
        tool(e.toolName).calls++;
        toolNames.set(`${o.runId}/${e.callId}`, e.toolName);
      } else if (e.type === "tool.failed" || (e.type === "tool.completed" && e.isError)) {
        const name = toolNames.get(`${o.runId}/${e.callId}`) ?? e.toolName;
        tool(name).failures++;
      }
    }
  }
  const view: DashboardView = {
    query,
    bucketMs,
    runs: runs.length,
    capped,
    journalRuns: observationsOf.size,
    byStatus,
    buckets,
    errorsByCode: [...errors].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count),
    latency: withQuantiles(durations),
    modelLatency: withQuantiles(modelDurations),
    tokens,
    cost,
    byModel: [...models.values()].sort((a, b) => b.calls - a.calls),
    tools: [...tools.values()].sort((a, b) => b.calls - a.calls),
    agents: choices.agents,
    models: choices.models,
    tags: choices.tags,
    threads: choices.threads,
  };
  if (tokens.input > 0) view.cacheHitShare = tokens.cacheRead / tokens.input;
  return view;
}

function withQuantiles(values: readonly number[]): { count: number; p50?: number; p95?: number } {
  const out: { count: number; p50?: number; p95?: number } = { count: values.length };
  const p50 = quantile(values, 0.5);
  const p95 = quantile(values, 0.95);
  if (p50 !== undefined) out.p50 = p50;
  if (p95 !== undefined) out.p95 = p95;
  return out;
}
