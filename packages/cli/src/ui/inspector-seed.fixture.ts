/**
 * Test support (not part of the build's entries): synthetic runs written straight into a store's
 * journal and status store — any run id, any size — for the inspector's safety and load tests.
 */
import type {
  AgentEvent,
  AgentObservation,
  HarnessEventJournal,
  HarnessRunStatus,
  HarnessStatusStore,
} from "@tinyagents/harness";

interface Stores {
  journal: HarnessEventJournal;
  statusStore: HarnessStatusStore;
}

/** What a seeded run looks like. */
export interface SeedOptions {
  /** Model calls (each one call of `model`, two text deltas, usage, cost, then one tool call). */
  steps?: number;
  startedAt?: number;
  status?: "completed" | "failed";
  tags?: string[];
  model?: string;
  /** USD per call; `undefined`: the model has no price (no `cost.recorded`, cost unknown). */
  usdPerCall?: number;
  error?: { code: string; message: string };
  /**
   * Each reply's text arrives whole at the end of its call (a model without streaming under a
   * streaming run): its deltas, usage and completion share one timestamp.
   */
  replayed?: boolean;
}

const usage = {
  inputTokens: 120,
  outputTokens: 30,
  totalTokens: 150,
  cacheReadTokens: 40,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

/** Write run `runId` (journal and status record); returns its number of observations. */
export async function seedRun(stores: Stores, runId: string, options: SeedOptions = {}): Promise<number> {
  const steps = options.steps ?? 2;
  const t0 = options.startedAt ?? Date.UTC(2026, 11, 1, 9, 0, 0);
  const model = options.model ?? "m";
  const priced = options.usdPerCall !== undefined;
  const events: AgentEvent[] = [
    { type: "run.started", input: 1, ...(options.tags ? { tags: options.tags } : {}) },
  ];
  for (let i = 0; i < steps; i++) {
    const callId = `c${i}`;
    events.push(
      { type: "model.started", callId, model, provider: "p", providerModelId: model, attempt: 1 },
      { type: "model.text_delta", callId, text: `step ${i} ` },
      { type: "model.text_delta", callId, text: "thinking about it" },
      { type: "usage.recorded", callId, model, usage },
    );
    if (priced)
      events.push({
        type: "cost.recorded",
        callId,
        model,
        cost: {
          total: options.usdPerCall ?? 0,
          input: options.usdPerCall ?? 0,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          currency: "USD",
        },
      });
    events.push(
      { type: "model.completed", callId, model, durationMs: 5, usage, toolCalls: 1, servedFromCache: false },
      { type: "tool.started", callId: `t${i}`, toolName: "lookup", arguments: { q: `item ${i}` } },
      {
        type: "tool.completed",
        callId: `t${i}`,
        toolName: "lookup",
        durationMs: 3,
        outputBytes: 64,
        isError: false,
      } as AgentEvent,
    );
  }
  const failed = options.status === "failed";
  const error = options.error ?? { code: "provider", message: "upstream failed" };
  const totals = {
    ...usage,
    calls: steps,
    inputTokens: usage.inputTokens * steps,
    outputTokens: usage.outputTokens * steps,
    totalTokens: usage.totalTokens * steps,
    cacheReadTokens: usage.cacheReadTokens * steps,
  };
  const cost = {
    total: (options.usdPerCall ?? 0) * steps,
    currency: "USD" as const,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    ...(priced ? {} : { unknown: true as const }),
  };
  events.push(
    failed
      ? ({ type: "run.failed", error } as AgentEvent)
      : { type: "run.completed", modelCalls: steps, toolCalls: steps, usage: totals, cost },
  );
  let heldTs: number | undefined;
  const tsOf = (event: AgentEvent, offset: number): number => {
    if (options.replayed !== true) return t0 + offset * 2;
    if (event.type === "model.text_delta") heldTs ??= t0 + offset * 2;
    const ts = heldTs ?? t0 + offset * 2;
    if (event.type === "model.completed") heldTs = undefined;
    return ts;
  };
  const observations: AgentObservation[] = events.map((event, offset) => ({
    id: `${runId}-evt-${offset}`,
    offset,
    ts: tsOf(event, offset),
    runId,
    rootRunId: runId,
    depth: 0,
    event,
  }));
  for (let i = 0; i < observations.length; i += 2000)
    await stores.journal.appendMany(observations.slice(i, i + 2000));
  const endedAt = t0 + (observations.length - 1) * 2;
  const status = {
    runId,
    rootRunId: runId,
    component: "agent",
    status: failed ? "failed" : "completed",
    phase: "done",
    modelCalls: steps,
    toolCalls: steps,
    activeToolCalls: [],
    usage: totals,
    cost,
    startedAt: t0,
    updatedAt: endedAt,
    endedAt,
    ...(options.tags ? { tags: options.tags } : {}),
    ...(failed ? { error } : {}),
    identity: {
      runId,
      rootRunId: runId,
      component: "agent",
      ...(options.tags ? { tags: options.tags } : {}),
    },
  } as unknown as HarnessRunStatus;
  await stores.statusStore.save(status);
  return observations.length;
}
