/**
 * Reading a run from its journal for the inspector: the whole journal in chunks (other requests
 * go between them), the facts the runs list needs (models, first start, pauses), and a summary
 * for a run that has a journal but no status record.
 */
import type { AgentObservation, HarnessEventJournal } from "@tinyagents/harness";
import { costBreakdown } from "./cost-breakdown.js";
import type { RunSummary } from "./view-types.js";

/** A summary for a run with a journal but no status record (a store that kept only the journal). */
export function summaryFromJournal(runId: string, observations: readonly AgentObservation[]): RunSummary {
  const first = observations[0];
  const last = observations.at(-1);
  let status = "running";
  for (const o of observations) {
    if (o.depth !== 0) continue;
    if (o.event.type === "run.completed") status = "completed";
    if (o.event.type === "run.failed") status = "failed";
    if (o.event.type === "run.interrupted") status = "interrupted";
  }
  const { byModel } = costBreakdown(observations);
  const tokens = byModel.reduce(
    (t, r) => ({
      inputTokens: t.inputTokens + r.tokens.inputTokens,
      outputTokens: t.outputTokens + r.tokens.outputTokens,
      totalTokens: t.totalTokens + r.tokens.totalTokens,
      cacheReadTokens: t.cacheReadTokens + r.tokens.cacheReadTokens,
      cacheWriteTokens: t.cacheWriteTokens + r.tokens.cacheWriteTokens,
      reasoningTokens: t.reasoningTokens + r.tokens.reasoningTokens,
    }),
    {
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    },
  );
  const cost = byModel.reduce(
    (c, r) => ({
      total: c.total + r.cost.total,
      input: c.input + r.cost.input,
      output: c.output + r.cost.output,
      cacheRead: c.cacheRead + r.cost.cacheRead,
      cacheWrite: c.cacheWrite + r.cost.cacheWrite,
      unknown: c.unknown || r.cost.unknown,
    }),
    { total: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, unknown: false },
  );
  const summary: RunSummary = {
    runId,
    status,
    phase: status === "running" ? "model" : "done",
    rootAgent: "agent",
    models: byModel.map((r) => r.key),
    startedAt: first?.ts ?? 0,
    tokens,
    cost,
    modelCalls: byModel.reduce((n, r) => n + r.calls, 0),
    toolCalls: observations.filter((o) => o.event.type === "tool.started").length,
    tags: first?.event.type === "run.started" ? (first.event.tags ?? []) : [],
  };
  if (status !== "running" && last !== undefined && first !== undefined) {
    summary.endedAt = last.ts;
    summary.durationMs = last.ts - first.ts;
  }
  return summary;
}

/**
 * Observations per journal read: the server answers other requests between chunks. A SQLite read
 * of 250 (query and JSON parse) takes a few ms; of 1,000, 15-85 ms on a loaded 2-core machine.
 */
const READ_CHUNK = 250;

/**
 * A run's whole journal, read `READ_CHUNK` observations at a time with a yield to the event loop
 * between reads: a synchronous store (SQLite) never holds the server for the whole run.
 */
export async function readInChunks(journal: HarnessEventJournal, runId: string): Promise<AgentObservation[]> {
  const all: AgentObservation[] = [];
  let from = 0;
  for (;;) {
    const chunk = await journal.read(runId, { fromOffset: from, limit: READ_CHUNK });
    for (const o of chunk) all.push(o);
    const last = chunk.at(-1);
    if (chunk.length < READ_CHUNK || last === undefined) return all;
    from = last.offset + 1;
    await yieldToEventLoop();
  }
}

/** Let the server handle what is waiting (other requests) before going on. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What the runs list needs from a run's journal: its models, first start and time paused. */
export interface JournalFacts {
  models: string[];
  firstStartedAt: number | undefined;
  pausedMs: number;
}

/**
 * Models, first start and paused time of root run `runId`: a resumed run keeps the start of its
 * first segment, and each `run.interrupted` → `run.started` gap of the root is time paused.
 */
export function journalFacts(runId: string, observations: readonly AgentObservation[]): JournalFacts {
  const models = new Set<string>();
  let firstStartedAt: number | undefined;
  let pausedAt: number | undefined;
  let pausedMs = 0;
  for (const o of observations) {
    const e = o.event;
    if (e.type === "model.started") models.add(e.model);
    if (o.runId !== runId) continue;
    if (e.type === "run.started") {
      firstStartedAt ??= o.ts;
      if (pausedAt !== undefined) pausedMs += Math.max(0, o.ts - pausedAt);
      pausedAt = undefined;
    } else if (e.type === "run.interrupted") {
      pausedAt = o.ts;
    }
  }
  return { models: [...models], firstStartedAt, pausedMs };
}
