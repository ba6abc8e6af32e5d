/**
 * The inspector's cost views and `show`'s timeline read the same figures from every journal
 * format (issue 40: an "essential" journal keeps each attempt's usage and cost on its
 * `model.completed` / `model.failed` only): a journal with only the terminal events, one with
 * `usage.recorded` / `cost.recorded` as well ("all"), and one as versions before the fold wrote
 * it (separate records, no `cost` on `model.completed`, no usage on `model.failed`).
 */
import {
  type AgentEvent,
  AgentHarness,
  type AgentObservation,
  attachObservability,
  EventSink,
  InMemoryEventJournal,
  InMemoryHarnessStatusStore,
  InMemoryResponseCache,
} from "@tinyagents/harness";
import { DeterministicClock, FakeTool, ScriptedModel, StreamingMock } from "@tinyagents/harness/testkit";
import { ProviderError, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { renderTimeline } from "../render/timeline.js";
import { costBreakdown } from "./cost-breakdown.js";
import { InspectorData } from "./inspector-data.js";

const pricing = { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 }; // $1 / $2 per token
const tokens = (input: number, output: number) => usage({ inputTokens: input, outputTokens: output });
type Format = "essential" | "all" | "older";

/** The runs: priced with a tool step, unpriced, a stream broken after its usage then retried, a cache hit. */
async function recordRuns(format: Format) {
  const journal = new InMemoryEventJournal();
  const statusStore = new InMemoryHarnessStatusStore();
  const stores = { journal, statusStore };
  const written = format === "essential" ? journal : new InMemoryEventJournal();
  // Virtual time: the timelines of the three recordings compare character for character.
  const clock = new DeterministicClock({ start: Date.UTC(2026, 11, 1) });
  const record = async (runId: string, go: (events: EventSink) => Promise<unknown>) => {
    const events = new EventSink(runId, { now: () => clock.now() });
    const observed = attachObservability(events, {
      journal: written,
      statusStore,
      journalEvents: format === "essential" ? "essential" : "all",
    });
    await go(events).catch(() => undefined);
    await observed.close();
    if (written !== journal)
      for (const o of await written.read(runId)) await journal.append(rewrite(o, format));
  };
  await record("priced", (events) =>
    new AgentHarness({ clock })
      .registerModel(
        "priced-model",
        new ScriptedModel([{ toolCalls: [{ name: "lookup", arguments: {} }] }, "done"], {
          usage: tokens(5, 1),
        }),
        { pricing },
      )
      .registerTool(FakeTool.returning("lookup", "found"))
      .run("q", { runId: "priced", events }),
  );
  await record("unpriced", (events) =>
    new AgentHarness({ clock })
      .registerModel("local-model", new ScriptedModel(["hi"], { usage: tokens(7, 3) }))
      .run("q", { runId: "unpriced", events }),
  );
  await record("broken-stream", (events) => {
    const model = new StreamingMock([
      [
        { type: "start" },
        { type: "usage", usage: tokens(10, 2) },
        { type: "error", message: "overloaded", status: 529, retryable: true },
      ],
      [{ type: "start" }, { type: "text_delta", text: "ok" }, { type: "usage", usage: tokens(3, 1) }],
    ]);
    return new AgentHarness({ clock, policy: { retry: { maxRetries: 1, initialBackoffMs: 0 } } })
      .registerModel("priced-model", model, { pricing })
      .stream("q", { runId: "broken-stream", events }).result;
  });
  await record("fallback", (events) => {
    // A priced model's stream breaks after billing $14; the call falls back to an unpriced model.
    const broken = new StreamingMock([
      [
        { type: "start" },
        { type: "usage", usage: tokens(10, 2) },
        { type: "error", message: "overloaded", status: 529, retryable: true },
      ],
    ]);
    const local = new StreamingMock([
      [{ type: "start" }, { type: "text_delta", text: "ok" }, { type: "usage", usage: tokens(3, 1) }],
    ]);
    return new AgentHarness({ clock, policy: { retry: { maxRetries: 0 }, fallback: ["fallback-local"] } })
      .registerModel("fallback-priced", broken, { pricing })
      .registerModel("fallback-local", local)
      .stream("q", { runId: "fallback", events }).result;
  });
  await record("cache-hit", async (events) => {
    const harness = new AgentHarness({ clock })
      .registerModel("cached-model", new ScriptedModel(["same", "same"], { usage: tokens(2, 2) }), {
        pricing,
      })
      .withResponseCache(new InMemoryResponseCache());
    await harness.run("q", { runId: "cache-fill" });
    return harness.run("q", { runId: "cache-hit", events });
  });
  await record("refused", (events) =>
    new AgentHarness({ clock })
      .registerModel(
        "priced-model",
        new ScriptedModel([
          new ProviderError({ provider: "p", message: "bad", kind: "non_retryable", status: 400 }),
        ]),
        { pricing },
      )
      .run("q", { runId: "refused", events }),
  );
  const observations: AgentObservation[] = [];
  for (const id of ["priced", "unpriced", "broken-stream", "fallback", "cache-hit", "refused"])
    observations.push(...(await journal.read(id)));
  return { stores, observations };
}

/** "all" as written; "older" without what the fold added to the terminal events. */
function rewrite(o: AgentObservation, format: Format): AgentObservation {
  if (format !== "older") return o;
  const event = { ...o.event } as AgentEvent & { cost?: unknown; usage?: unknown };
  if (event.type === "model.completed") delete event.cost;
  if (event.type === "model.failed") {
    delete event.cost;
    delete event.usage;
  }
  return { ...o, event: event as AgentEvent };
}

/** The timeline of one run, without the header's count of observations (the formats differ in it). */
function timelineOf(observations: readonly AgentObservation[], runId: string): string {
  return renderTimeline(observations.filter((o) => o.runId === runId)).replace(/ · \d+ observations/, "");
}

describe("cost views read every journal format alike", () => {
  it("costBreakdown, the dashboard's usage and cost by model, and the timeline", async () => {
    const formats = await Promise.all((["essential", "all", "older"] as const).map(recordRuns));
    const [essential] = formats;
    const types = new Set(essential?.observations.map((o) => o.event.type));
    expect(types.has("usage.recorded")).toBe(false);
    expect(types.has("cost.recorded")).toBe(false);

    const breakdowns = formats.map((f) => costBreakdown(f.observations));
    const byModel = Object.fromEntries(
      (breakdowns[0]?.byModel ?? []).map((r) => [r.key, { tokens: r.tokens.totalTokens, cost: r.cost }]),
    );
    // priced: 2 calls of 6 tokens ($7 each); broken-stream: 12 tokens ($14) billed before the break
    // (a lower bound: the stream may have billed more), then 4 ($5); local-model: 10 tokens, no
    // price: unknown, never $0.
    expect(byModel["priced-model"]?.tokens).toBe(28);
    expect(byModel["priced-model"]?.cost).toMatchObject({ total: 33, unknown: true });
    expect(byModel["local-model"]?.tokens).toBe(10);
    expect(byModel["local-model"]?.cost).toMatchObject({ total: 0, unknown: true });
    // The fallback: each attempt on its own model's row. The unpriced model's answer is not
    // priced by the broken attempt's $14 on the other model.
    expect(byModel["fallback-priced"]).toMatchObject({ tokens: 12, cost: { total: 14, unknown: true } });
    expect(byModel["fallback-local"]).toMatchObject({ tokens: 4, cost: { total: 0, unknown: true } });
    // A cache hit is free and known.
    expect(byModel["cached-model"]).toMatchObject({ tokens: 0, cost: { total: 0, unknown: false } });
    for (const other of breakdowns.slice(1)) expect(other).toEqual(breakdowns[0]);

    const dashboards = await Promise.all(
      formats.map((f) => new InspectorData(f.stores).dashboard({ from: 0, to: Date.now() + 60_000 })),
    );
    const models = dashboards.map((d) =>
      Object.fromEntries(d.byModel.map((m) => [m.model, { calls: m.calls, tokens: m.tokens, cost: m.cost }])),
    );
    expect(models[0]?.["priced-model"]).toMatchObject({
      calls: 3,
      tokens: 28,
      cost: { total: 33, unknown: true },
    });
    expect(models[0]?.["local-model"]).toMatchObject({ tokens: 10, cost: { unknown: true } });
    expect(models[0]?.["fallback-local"]).toMatchObject({ calls: 1, tokens: 4, cost: { unknown: true } });
    expect(models[0]?.["cached-model"]).toMatchObject({ calls: 1, tokens: 0, cost: { unknown: false } });
    for (const other of models.slice(1)) expect(other).toEqual(models[0]);

    // Each attempt's line shows its own cost: the retry's answer $5 (not the broken attempt's $14),
    // the fallback's unpriced answer "cost unknown" (not $14), a cache hit "not billed".
    const [brokenStream, fallback, cacheHit] = ["broken-stream", "fallback", "cache-hit"].map((id) =>
      timelineOf(formats[0]?.observations ?? [], id),
    );
    expect(brokenStream).toMatch(/model call 1 · priced-model · .* · \$5\.0+ · /);
    expect(fallback).toMatch(/model call 1 · fallback-local · .* · cost unknown · /);
    expect(cacheHit).toMatch(/model call 1 · cached-model · .* · not billed · .*\(from cache\)/);
    for (const runId of ["priced", "unpriced", "broken-stream", "fallback", "cache-hit"]) {
      const timelines = formats.map((f) => timelineOf(f.observations, runId));
      expect(timelines[0]).toMatch(
        runId === "unpriced" || runId === "fallback" ? /cost unknown/ : /\$|not billed/,
      );
      for (const other of timelines.slice(1)) expect(other).toBe(timelines[0]);
    }
  });
});
