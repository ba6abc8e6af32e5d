/**
 * "Unknown is a value" (issue 35): over random scripts where each model call does or does not
 * report usage, and the model is or is not priced (catalog or none), no library surface — the
 * `run()` result, the `stream()` result, the `run.completed` event, the status record, and the
 * status and usage projections rebuilt from the event journal — reports a figure as known when a
 * call's usage or price is absent; `run()` and `stream()` report the very same usage and cost.
 */
import {
  attachObservability,
  type CostTotals,
  createAgent,
  type EventRecord,
  EventSink,
  formatCost,
  InMemoryEventJournal,
  InMemoryHarnessStatusStore,
} from "@tinyagents/harness";
import { evaluate, exactMatch } from "@tinyagents/harness/evals";
import { RunStatusProjection, UsageCostProjection } from "@tinyagents/harness/observability";
import { DeterministicClock, DeterministicIds, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import {
  assistant,
  type ChatModel,
  type ModelResponse,
  toolCall,
  type UsageTotals,
  usage,
} from "@tinyagents/inference";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** A call of the script: whether it reports usage, and its token counts when it does. */
interface CallSpec {
  reports: boolean;
  input: number;
  output: number;
}

const callSpec: fc.Arbitrary<CallSpec> = fc.record({
  reports: fc.boolean(),
  input: fc.integer({ min: 1, max: 5_000 }),
  output: fc.integer({ min: 1, max: 2_000 }),
});

/** Tool-call turns then an answer; each reply carries usage only when its spec says so. */
function replies(calls: readonly CallSpec[]): ModelResponse[] {
  return calls.map((spec, i) => {
    const last = i === calls.length - 1;
    const response: ModelResponse = last
      ? { message: assistant("done"), finishReason: "stop" }
      : { message: assistant("", [toolCall(`c${i}`, "lookup")]), finishReason: "tool_calls" };
    if (spec.reports) response.usage = usage({ inputTokens: spec.input, outputTokens: spec.output });
    return response;
  });
}

/** A scripted model that names itself `provider:modelId` (so the catalog prices it, or not). */
function scriptedAs(provider: string, modelId: string, calls: readonly CallSpec[]): ChatModel {
  const scripted = new ScriptedModel(replies(calls));
  return {
    provider,
    modelId,
    invoke: (request, options) => scripted.invoke(request, options),
    stream: (request, options) => scripted.stream(request, options),
  };
}

function agentFor(priced: boolean, calls: readonly CallSpec[]) {
  // openai:gpt-4.1-mini is in the built-in catalog; local:unpriced is not.
  const model = priced ? scriptedAs("openai", "gpt-4.1-mini", calls) : scriptedAs("local", "unpriced", calls);
  return createAgent({
    model,
    tools: [FakeTool.returning("lookup", "facts")],
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
  });
}

/** What one surface says about a run's usage and cost. */
interface Figures {
  surface: string;
  usage: UsageTotals;
  cost: CostTotals;
}

/** Every surface of one run, read after it ended. */
function surfaces(
  result: {
    usage: UsageTotals;
    cost: CostTotals;
    status: { runId: string; usage: UsageTotals; cost: CostTotals };
  },
  records: EventRecord[],
  how: string,
): Figures[] {
  const completed = records.find((r) => r.event.type === "run.completed");
  if (completed === undefined || completed.event.type !== "run.completed")
    throw new Error("no run.completed");
  const status = new RunStatusProjection();
  const usageCost = new UsageCostProjection();
  for (const record of records) {
    status.apply(record);
    usageCost.apply(record);
  }
  const projected = status.get(result.status.runId);
  const tree = usageCost.snapshot().value[result.status.runId];
  if (projected === undefined || tree === undefined) throw new Error("projections lost the run");
  return [
    { surface: `${how} result`, usage: result.usage, cost: result.cost },
    { surface: `${how} status record`, usage: result.status.usage, cost: result.status.cost },
    { surface: `${how} run.completed event`, usage: completed.event.usage, cost: completed.event.cost },
    { surface: `${how} journal status projection`, usage: projected.usage, cost: projected.cost },
    { surface: `${how} journal usage projection`, usage: tree.tree.usage, cost: tree.tree.cost },
  ];
}

/** The figures a surface must show for this script. */
function expectHonest(f: Figures, calls: readonly CallSpec[], priced: boolean): void {
  const unreported = calls.some((c) => !c.reports);
  const reported = calls.filter((c) => c.reports);
  const where = `${f.surface} (${JSON.stringify({ calls, priced })})`;
  expect(f.usage.calls, where).toBe(reported.length);
  expect(f.usage.inputTokens, where).toBe(reported.reduce((n, c) => n + c.input, 0));
  if (unreported) expect(f.usage.unknown, where).toBe(true);
  else expect(f.usage.unknown, where).toBeUndefined();
  if (unreported || !priced) {
    expect(f.cost.unknown, where).toBe(true);
    expect(formatCost(f.cost), where).not.toMatch(/^\$/);
  } else {
    expect(f.cost.unknown, where).toBeUndefined();
    expect(f.cost.total, where).toBeGreaterThan(0);
    expect(formatCost(f.cost), where).toMatch(/^\$\d/);
  }
}

describe("unknown usage and price are never shown as known figures", () => {
  it("run() and stream() report the same honest usage and cost on every surface", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callSpec, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (calls, priced) => {
          const runRecords: EventRecord[] = [];
          const ran = await agentFor(priced, calls).run("go", { onEvent: (r) => runRecords.push(r) });
          const streamRecords: EventRecord[] = [];
          const stream = agentFor(priced, calls).stream("go", { onEvent: (r) => streamRecords.push(r) });
          const streamedEvents: EventRecord[] = [];
          let streamedResult: typeof ran | undefined;
          for await (const item of stream) {
            if (item.type === "event") streamedEvents.push(item.record);
            else streamedResult = item.result;
          }
          const streamed = await stream.result;
          expect(streamedResult).toBe(streamed);
          expect(streamed.usage).toEqual(ran.usage);
          expect(streamed.cost).toEqual(ran.cost);
          const all: Figures[] = [
            ...surfaces(ran, runRecords, "run"),
            ...surfaces(streamed, streamRecords, "stream"),
            ...surfaces(streamed, streamedEvents, "stream items"),
          ];
          // The stores behind the journal: a run journaled through attachObservability, its
          // saved status record and the journal read back, as `tinyagents show` reads them.
          const journal = new InMemoryEventJournal();
          const statusStore = new InMemoryHarnessStatusStore();
          const events = new EventSink("stored");
          const observed = attachObservability(events, { journal, statusStore });
          const stored = await agentFor(priced, calls).run("go", { runId: "stored", events });
          await observed.close();
          const saved = await statusStore.get("stored");
          if (saved === undefined) throw new Error("no saved status record");
          all.push(
            { surface: "status store record", usage: saved.usage, cost: saved.cost },
            ...surfaces(stored, await journal.read("stored"), "journal read back"),
          );
          for (const figures of all) expectHonest(figures, calls, priced);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a catalog-priced model streaming without a usage chunk reports unknown, not zero", async () => {
    const calls = [{ reports: false, input: 1, output: 1 }];
    const result = await agentFor(true, calls).stream("hi").result;
    expect(result.usage).toMatchObject({ calls: 0, unknown: true });
    expect(result.cost).toMatchObject({ total: 0, unknown: true });
    expect(formatCost(result.cost)).toBe("unknown");
  });
});

describe("formatCost", () => {
  const cost = (total: number, unknown?: true): CostTotals => ({
    currency: "USD",
    input: total,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    total,
    ...(unknown ? { unknown } : {}),
  });

  it("prints known amounts in dollars, unknown as unknown, partial as a lower bound", () => {
    expect(formatCost(cost(0.0123456))).toBe("$0.012346");
    expect(formatCost(cost(0))).toBe("$0.000000");
    expect(formatCost(cost(0.0000001))).toBe("<$0.000001");
    expect(formatCost(cost(0, true))).toBe("unknown");
    expect(formatCost(cost(0.5, true))).toBe("at least $0.500000");
  });
});

describe("eval reports", () => {
  it("a trial whose model reported no usage makes the report's usage and cost unknown", async () => {
    const result = await evaluate({
      agent: () => agentFor(true, [{ reports: false, input: 1, output: 1 }]),
      dataset: { name: "one", cases: [{ id: "q", input: "go", expected: "done" }] },
      scorers: [exactMatch()],
    });
    expect(result.report.usage.unknown).toBe(true);
    expect(result.report.cost.unknown).toBe(true);
    expect(result.trials[0]?.usage).toMatchObject({ unknown: true });
  });
});
