import type {
  AgentObservation,
  HarnessEventJournal,
  HarnessRunStatus,
  HarnessStatusStore,
} from "@tinyagents/harness";
import type { EvalStore } from "@tinyagents/harness/evals";
import { cacheView, costBreakdown } from "./cost-breakdown.js";
import { DASHBOARD_EVENTS, DASHBOARD_MAX_RUNS, dashboardMatches, dashboardView } from "./dashboard.js";
import { evalRunRow, evalView } from "./eval-view.js";
import {
  type JournalFacts,
  journalFacts,
  readInChunks,
  summaryFromJournal,
  yieldToEventLoop,
} from "./journal-reading.js";
import { newestRuns } from "./newest-runs.js";
import type { InspectorControls } from "./run-controls.js";
import { statusSummary } from "./run-summary.js";
import { timelineSpans } from "./timeline-spans.js";
import { buildTranscript } from "./transcript.js";
import type {
  ApprovalView,
  ControlView,
  DashboardQuery,
  DashboardView,
  EvalRunRow,
  EvalView,
  RunDescription,
  RunDetail,
  RunListPage,
  RunSummary,
} from "./view-types.js";

/** Statuses after which a run's journal no longer changes. */
const FINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/**
 * The stores the inspector reads: the same interfaces every backend implements (SQLite today,
 * Postgres or in-memory stores alike), never a second reader of their tables.
 */
export interface InspectorStores {
  journal: HarnessEventJournal;
  statusStore: HarnessStatusStore;
  /** Extra facts about a run (prompt, tags, what started it), when the host has them. */
  describeRun?: (runId: string) => Promise<RunDescription | undefined>;
  /** Eval results (an `EvalStore`, as `tinyagents eval` keeps them): the evals pages. */
  evals?: Pick<EvalStore, "list" | "get">;
}

/** Reads runs from the stores and shapes them for the web app. */
export class InspectorData {
  private readonly stores: InspectorStores;
  private readonly controls: InspectorControls | undefined;
  /** Models and timing of finished runs (their journal no longer changes). */
  private readonly factsOf = new Map<string, JournalFacts>();
  /** Run details being computed or recently computed (finished runs only stay). */
  private readonly details = new Map<string, Promise<RunDetail | undefined>>();

  constructor(stores: InspectorStores, controls?: InspectorControls) {
    this.stores = stores;
    this.controls = controls;
  }

  /** Top-level runs, newest first (at most `limit`): the first page of {@link listRunsPage}. */
  async listRuns(limit = 500): Promise<RunSummary[]> {
    return (await this.listRunsPage({ limit, includeEvals: true })).runs;
  }

  /**
   * A page of the runs list, newest first, from the status store's (start, run id) order: the
   * store answers with an index (SQLite, Postgres), never by loading every run. Filters (status,
   * eval trials, search) apply as the page fills; at most {@link MAX_SCAN} records are looked at
   * per request (`next` then continues the scan).
   */
  async listRunsPage(query: RunListQuery): Promise<RunListPage> {
    const runs: RunSummary[] = [];
    // A time window starts the scan at its end (the index does the seeking) and stops at its start.
    let cursor = query.after ?? (query.to === undefined ? undefined : { startedAt: query.to, runId: "" });
    let hiddenEvalTrials = 0;
    let scanned = 0;
    const needle = query.search?.trim().toLowerCase() ?? "";
    const batchSize = Math.min(500, Math.max(50, query.limit * 2));
    for (;;) {
      const batch = await newestRuns(this.stores.statusStore, {
        limit: batchSize,
        ...(cursor === undefined ? {} : { after: cursor }),
      });
      for (const status of batch) {
        scanned++;
        cursor = { startedAt: status.startedAt, runId: status.runId };
        if (query.from !== undefined && status.startedAt < query.from) return { runs, hiddenEvalTrials };
        if (status.parentRunId !== undefined || status.component === "model_call") continue;
        if (query.status !== undefined && status.status !== query.status) continue;
        if (!query.includeEvals && (status.tags ?? []).includes("eval")) {
          hiddenEvalTrials++;
          continue;
        }
        const summary = await this.summary(status);
        if (needle !== "" && !matches(summary, needle)) continue;
        runs.push(summary);
        if (runs.length === query.limit) return { runs, next: cursor, hiddenEvalTrials };
      }
      if (batch.length < batchSize) return { runs, hiddenEvalTrials };
      if (scanned >= MAX_SCAN)
        return { runs, ...(cursor === undefined ? {} : { next: cursor }), hiddenEvalTrials };
    }
  }

  /**
   * Everything the run page shows, or `undefined` for an unknown run. A finished run's detail is
   * computed once and kept (the few most recent: {@link DETAIL_CACHE_SIZE}); concurrent requests
   * for the same run share one computation, so ten readers of a big run cost one read of it.
   */
  async runDetail(runId: string): Promise<RunDetail | undefined> {
    const detail = await this.sharedDetail(runId);
    if (detail === undefined) return undefined;
    // What this process can do to the run changes without its journal: never cached.
    const control = this.controlView(runId, detail.summary.status);
    const held = this.heldApprovals(runId);
    return held.length > 0 ? { ...detail, control, approvals: held } : { ...detail, control };
  }

  private sharedDetail(runId: string): Promise<RunDetail | undefined> {
    const cached = this.details.get(runId);
    if (cached !== undefined) {
      // Most recently used last (a Map keeps insertion order: its first key is evicted first).
      this.details.delete(runId);
      this.details.set(runId, cached);
      return cached;
    }
    const computing = this.computeDetail(runId).then(
      (detail) => {
        // Only a run that can no longer change stays: completed, failed or cancelled.
        if (detail === undefined || !FINAL.has(detail.summary.status)) this.details.delete(runId);
        return detail;
      },
      (error: unknown) => {
        this.details.delete(runId);
        throw error;
      },
    );
    this.details.set(runId, computing);
    while (this.details.size > DETAIL_CACHE_SIZE) {
      const oldest = this.details.keys().next().value as string;
      this.details.delete(oldest);
    }
    return computing;
  }

  private controlView(runId: string, status: string): ControlView {
    return (
      this.controls?.view(runId, status) ?? {
        listening: false,
        canPause: false,
        canResume: false,
        canCancel: false,
        canDecide: false,
        note: "This inspector was started without run controls (tinyagents ui reads the stores only): it cannot act on runs. Approve, pause or cancel a run in the process that runs it.",
      }
    );
  }

  private async computeDetail(runId: string): Promise<RunDetail | undefined> {
    const [status, observations] = await Promise.all([
      this.stores.statusStore.get(runId),
      readInChunks(this.stores.journal, runId),
    ]);
    if (status === undefined && observations.length === 0) return undefined;
    const description = await this.stores.describeRun?.(runId);
    const summary =
      status === undefined
        ? summaryFromJournal(runId, observations)
        : await this.summary(status, observations);
    // Each view is one pass over the journal; the server answers other requests in between.
    const { entries, contentCaptured } = buildTranscript(observations, description?.prompt);
    await yieldToEventLoop();
    const { byModel, bySubAgent } = costBreakdown(observations);
    await yieldToEventLoop();
    const spans = timelineSpans(observations);
    await yieldToEventLoop();
    const last = observations.at(-1);
    return {
      summary,
      nextOffset: last === undefined ? 0 : last.offset + 1,
      observations: observations.length,
      spans,
      transcript: entries,
      contentCaptured,
      contentCapture:
        description?.contentCaptured === false ? "turned_off" : contentCaptured ? "captured" : "not_captured",
      byModel,
      bySubAgent,
      cache: cacheView(observations),
      approvals: this.approvals(runId, summary.status, observations),
      control: this.controlView(runId, summary.status),
    };
  }

  /**
   * The dashboard over the runs that started in [`from`, `to`) and match the filter: read newest
   * first from the status store's (start, run id) index, at most {@link DASHBOARD_MAX_RUNS}.
   */
  async dashboard(query: DashboardQuery): Promise<DashboardView> {
    const matched: RunSummary[] = [];
    const observationsOf = new Map<string, AgentObservation[]>();
    const agents = new Set<string>();
    const models = new Set<string>();
    const tags = new Set<string>();
    const threads = new Set<string>();
    let cursor: { startedAt: number; runId: string } = { startedAt: query.to, runId: "" };
    let capped = false;
    // Without an agent or model filter (what only the host's description and the journal know),
    // the status records alone decide which runs match.
    const fromStatusOnly = query.agent === undefined && query.model === undefined;
    scan: for (;;) {
      const batch = await newestRuns(this.stores.statusStore, { limit: DASHBOARD_BATCH, after: cursor });
      for (const status of batch) {
        cursor = { startedAt: status.startedAt, runId: status.runId };
        if (status.startedAt < query.from) break scan;
        if (status.parentRunId !== undefined || status.component === "model_call") continue;
        if (fromStatusOnly) {
          // Every run of the window counts in the run-level figures, from its status record alone;
          // the newest DASHBOARD_MAX_RUNS also bring their journal (models, tools, call latency).
          const lite = statusSummary(status);
          for (const t of lite.tags) tags.add(t);
          if (lite.threadId !== undefined && threads.size < 100) threads.add(lite.threadId);
          if (!dashboardMatches(lite, query)) continue;
          if (observationsOf.size === DASHBOARD_MAX_RUNS) {
            matched.push(lite);
            continue;
          }
        }
        // One journal read per run serves both its summary and its figures.
        const observations = await this.stores.journal.read(status.runId, { types: DASHBOARD_EVENTS });
        const run = await this.summary(status, observations);
        agents.add(run.rootAgent);
        for (const m of run.models) models.add(m);
        for (const t of run.tags) tags.add(t);
        if (run.threadId !== undefined && threads.size < 100) threads.add(run.threadId);
        if (!dashboardMatches(run, query)) continue;
        if (!fromStatusOnly && matched.length === DASHBOARD_MAX_RUNS) {
          capped = true;
          break scan;
        }
        matched.push(run);
        observationsOf.set(run.runId, observations);
      }
      if (batch.length < DASHBOARD_BATCH) break;
      await yieldToEventLoop();
    }
    return dashboardView(query, matched, observationsOf, capped, {
      agents: [...agents].sort(),
      models: [...models].sort(),
      tags: [...tags].sort(),
      threads: [...threads].sort(),
    });
  }

  /** Eval runs, newest first (none without an eval store). */
  async listEvals(): Promise<EvalRunRow[]> {
    return ((await this.stores.evals?.list()) ?? []).map(evalRunRow);
  }

  /** An eval run's page, compared with `baselineId` when given; `undefined` for an unknown id. */
  async evalDetail(evalRunId: string, baselineId?: string): Promise<EvalView | undefined> {
    const evals = this.stores.evals;
    if (evals === undefined) return undefined;
    const result = await evals.get(evalRunId);
    if (result === undefined) return undefined;
    const baseline = baselineId === undefined ? undefined : await evals.get(baselineId);
    if (baselineId !== undefined && baseline === undefined) return undefined;
    return evalView(result, baseline, await this.listEvals());
  }

  /** Observations of `runId` from `fromOffset` on (the live tail). */
  tail(runId: string, fromOffset: number): Promise<AgentObservation[]> {
    return this.stores.journal.read(runId, { fromOffset });
  }

  /** Approvals waiting in this process's controls for `runId`. */
  private heldApprovals(runId: string): ApprovalView[] {
    return (this.controls?.pending(runId) ?? []).map((r) => ({
      approvalId: r.id,
      runId: r.runId,
      callId: r.callId,
      toolName: r.toolName,
      arguments: r.arguments,
    }));
  }

  private approvals(
    runId: string,
    status: string,
    observations: readonly AgentObservation[],
  ): ApprovalView[] {
    const held = this.heldApprovals(runId);
    if (held.length > 0) return held;
    if (status !== "interrupted") return [];
    // From the journal: requests after the last resume (a resumed run's old requests are decided).
    let views: ApprovalView[] = [];
    for (const o of observations) {
      const e = o.event;
      if (e.type === "run.resumed") views = [];
      if (e.type === "approval.requested")
        views.push({ approvalId: e.approvalId, runId: o.runId, callId: e.callId, toolName: e.toolName });
    }
    return views;
  }

  private async summary(
    status: HarnessRunStatus,
    observations?: readonly AgentObservation[],
  ): Promise<RunSummary> {
    const description = await this.stores.describeRun?.(status.runId);
    const finished = status.endedAt !== undefined;
    let facts = this.factsOf.get(status.runId);
    if (facts === undefined) {
      const read =
        observations ??
        (await this.stores.journal.read(status.runId, {
          types: ["model.started", "run.started", "run.interrupted"],
        }));
      facts = journalFacts(status.runId, read);
      if (finished) {
        // Bounded: a store of 100,000 runs read page by page does not keep them all.
        if (this.factsOf.size >= FACTS_CACHE_SIZE) this.factsOf.clear();
        this.factsOf.set(status.runId, facts);
      }
    }
    return statusSummary(status, facts, description);
  }
}

/** Status records per read of the dashboard's scan. */
const DASHBOARD_BATCH = 1000;
/** How many finished runs' journal facts (models, first start, pauses) the runs list keeps. */
const FACTS_CACHE_SIZE = 20_000;
/** How many finished runs' details the inspector keeps computed. */
const DETAIL_CACHE_SIZE = 4;
/** Status records one runs-list request looks at, at most (filters that match little stop here). */
const MAX_SCAN = 5000;

/** A runs-list request (`GET /api/run-list`). */
export interface RunListQuery {
  limit: number;
  /** Continue after this run (the previous page's `next`). */
  after?: { startedAt: number; runId: string };
  status?: string;
  /** Show eval trials (runs tagged `eval`); hidden by default. */
  includeEvals: boolean;
  /** Words to find in the run id, prompt, thread, root agent, models or tags. */
  search?: string;
  /** Only runs that started in [`from`, `to`) (epoch ms): a dashboard bar's runs. */
  from?: number;
  to?: number;
}

/** Whether a run's searchable text contains `needle` (lower case). */
function matches(r: RunSummary, needle: string): boolean {
  return [r.runId, r.prompt ?? "", r.threadId ?? "", r.rootAgent, ...r.models, ...r.tags].some((x) =>
    x.toLowerCase().includes(needle),
  );
}
