/**
 * The dashboard's figures equal the same aggregates computed independently from the journal
 * (issue 39, acceptance): real agent runs (scripted models, priced and unpriced, a failing tool,
 * a failed run) journaled into in-memory stores, then every figure recomputed here from the raw
 * observations and compared.
 */
import {
  AgentHarness,
  type AgentObservation,
  attachObservability,
  EventSink,
  InMemoryEventJournal,
  InMemoryHarnessStatusStore,
} from "@tinyagents/harness";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { ProviderError, usage } from "@tinyagents/inference";
import { beforeAll, describe, expect, it } from "vitest";
import { quantile } from "./dashboard.js";
import { InspectorData } from "./inspector-data.js";
import type { DashboardView } from "./view-types.js";

const stores = { journal: new InMemoryEventJournal(), statusStore: new InMemoryHarnessStatusStore() };
const tokens = (input: number, output: number, cached = 0) => ({
  usage: usage({ inputTokens: input, outputTokens: output, cacheReadTokens: cached }),
});
const priced = { pricing: { inputPerMillion: 2, outputPerMillion: 8, cacheReadPerMillion: 0.5 } };
const runIds: string[] = [];

async function record(runId: string, harness: AgentHarness, prompt: string, tags?: string[]): Promise<void> {
  const events = new EventSink(runId);
  const obs = attachObservability(events, stores);
  try {
    await harness.run(prompt, { runId, events, ...(tags ? { tags } : {}) });
  } catch {
    // a failed run is journaled as such
  }
  await obs.close();
  runIds.push(runId);
}

let view: DashboardView;

beforeAll(async () => {
  for (let i = 0; i < 4; i++) {
    const h = new AgentHarness()
      .registerModel(
        "priced-model",
        new ScriptedModel(
          [{ toolCalls: [{ name: i % 2 === 0 ? "lookup" : "flaky", arguments: { q: i } }] }, `answer ${i}`],
          tokens(100 + i, 10, 40),
        ),
        priced,
      )
      .registerTool(FakeTool.returning("lookup", "found"))
      .registerTool(FakeTool.failing("flaky", "the backend timed out"));
    await record(`priced-${i}`, h, `question ${i}`);
  }
  await record(
    "unpriced",
    new AgentHarness().registerModel("local-model", new ScriptedModel(["hello"], tokens(70, 7))),
    "hi",
    ["nightly"],
  );
  await record(
    "broken",
    new AgentHarness().registerModel(
      "priced-model",
      new ScriptedModel([
        new ProviderError({ provider: "p", message: "bad request", kind: "non_retryable", status: 400 }),
      ]),
      priced,
    ),
    "fail please",
  );
  view = await new InspectorData(stores).dashboard({ from: 0, to: Date.now() + 60_000 });
});

/** Every figure again, from the journal alone. */
async function fromJournal() {
  const all: AgentObservation[] = [];
  for (const id of runIds) all.push(...(await stores.journal.read(id)));
  const root = (o: AgentObservation) => o.depth === 0;
  const errorsByCode = new Map<string, number>();
  let failed = 0;
  for (const o of all)
    if (root(o) && o.event.type === "run.failed") {
      failed++;
      errorsByCode.set(o.event.error.code, (errorsByCode.get(o.event.error.code) ?? 0) + 1);
    }
  let input = 0;
  let cacheRead = 0;
  let total = 0;
  let usd = 0;
  const priced = new Set<string>();
  const used = new Set<string>();
  const modelCalls = new Map<string, number>();
  const toolCalls = new Map<string, number>();
  const toolFailures = new Map<string, number>();
  const callDurations: number[] = [];
  for (const o of all) {
    const e = o.event;
    // The default ("essential") journal keeps each attempt's billed usage and cost on its end
    // (`model.completed`, or `model.failed` for a stream that broke), not in separate records.
    expect(e.type).not.toBe("usage.recorded");
    expect(e.type).not.toBe("cost.recorded");
    if ((e.type === "model.completed" && !e.servedFromCache) || e.type === "model.failed") {
      if (e.usage !== undefined) {
        input += e.usage.inputTokens;
        cacheRead += e.usage.cacheReadTokens;
        total += e.usage.totalTokens;
        used.add(`${o.runId}/${e.callId}`);
      }
      if (e.cost !== undefined) {
        usd += e.cost.total;
        priced.add(`${o.runId}/${e.callId}`);
      }
    }
    if (e.type === "model.completed") {
      modelCalls.set(e.model, (modelCalls.get(e.model) ?? 0) + 1);
      callDurations.push(e.durationMs);
    }
    if (e.type === "tool.started") toolCalls.set(e.toolName, (toolCalls.get(e.toolName) ?? 0) + 1);
    if (e.type === "tool.failed" || (e.type === "tool.completed" && e.isError))
      toolFailures.set(e.toolName, (toolFailures.get(e.toolName) ?? 0) + 1);
  }
  return {
    runs: new Set(all.filter(root).map((o) => o.runId)).size,
    failed,
    errorsByCode: Object.fromEntries(errorsByCode),
    tokens: { input, cacheRead, total },
    usd,
    costUnknown: [...used].some((call) => !priced.has(call)),
    modelCalls: Object.fromEntries(modelCalls),
    toolCalls: Object.fromEntries(toolCalls),
    toolFailures: Object.fromEntries(toolFailures),
    callP50: quantile(callDurations, 0.5),
    callP95: quantile(callDurations, 0.95),
  };
}

describe("the dashboard's figures against the journal", () => {
  it("runs, failures and errors by code", async () => {
    const want = await fromJournal();
    expect(view.runs).toBe(want.runs);
    expect(view.runs).toBe(6);
    expect(view.byStatus.failed ?? 0).toBe(want.failed);
    expect(Object.fromEntries(view.errorsByCode.map((e) => [e.code, e.count]))).toEqual(want.errorsByCode);
    expect(view.buckets.reduce((n, b) => n + b.runs, 0)).toBe(want.runs);
    expect(view.buckets.reduce((n, b) => n + b.failed, 0)).toBe(want.failed);
  });

  it("tokens, prompt-cache hit share and cost (unknown because one model has no price)", async () => {
    const want = await fromJournal();
    expect(view.tokens.total).toBe(want.tokens.total);
    expect(view.tokens.input).toBe(want.tokens.input);
    expect(view.cacheHitShare).toBeCloseTo(want.tokens.cacheRead / want.tokens.input, 12);
    expect(view.cost.total).toBeCloseTo(want.usd, 12);
    expect(view.cost.unknown).toBe(want.costUnknown);
    expect(view.cost.unknown).toBe(true);
    expect(view.buckets.reduce((n, b) => n + b.tokens, 0)).toBe(want.tokens.total);
  });

  it("model calls by model, their latency, and tool calls and failures by tool", async () => {
    const want = await fromJournal();
    expect(Object.fromEntries(view.byModel.map((m) => [m.model, m.calls]))).toEqual(want.modelCalls);
    expect(view.byModel.find((m) => m.model === "local-model")?.cost.unknown).toBe(true);
    expect(view.byModel.find((m) => m.model === "priced-model")?.cost.unknown).toBe(false);
    expect(Object.fromEntries(view.tools.map((t) => [t.tool, t.calls]))).toEqual(want.toolCalls);
    expect(
      Object.fromEntries(view.tools.filter((t) => t.failures > 0).map((t) => [t.tool, t.failures])),
    ).toEqual(want.toolFailures);
    expect(view.modelLatency.p50).toBe(want.callP50);
    expect(view.modelLatency.p95).toBe(want.callP95);
  });

  it("a tag filter: the runs tagged `nightly` only", async () => {
    const nightly = await new InspectorData(stores).dashboard({
      from: 0,
      to: Date.now() + 60_000,
      tag: "nightly",
    });
    expect(view.tags).toContain("nightly");
    expect(nightly.runs).toBe(1);
    expect(nightly.byModel.map((m) => m.model)).toEqual(["local-model"]);
    expect(nightly.cost.unknown).toBe(true);
  });

  it("a filter narrows every figure: the failed runs only", async () => {
    const failedOnly = await new InspectorData(stores).dashboard({
      from: 0,
      to: Date.now() + 60_000,
      status: "failed",
    });
    expect(failedOnly.runs).toBe(1);
    expect(failedOnly.errorsByCode).toEqual([{ code: "provider", count: 1 }]);
    expect(failedOnly.agents.length).toBeGreaterThan(0);
    // The model choices are those of the matching runs (their journals are the ones read).
    expect(failedOnly.models).toEqual(["priced-model"]);
    expect(view.models).toEqual(["local-model", "priced-model"]);
  });
});
