/**
 * Acceptance for run status and journals: the status store answers "what is active" while runs
 * are in flight; the live projections (status, usage/cost roll-ups, timing) equal the ones
 * rebuilt from the journal (JSONL and SQLite); lineage is right on every observation of a
 * sub-agent tree; latency metrics come out of the journal.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentHarness,
  type AgentObservation,
  AppendLogEventJournal,
  attachObservability,
  EventSink,
  type HarnessStatusStore,
  InMemoryHarnessStatusStore,
  lookupPricing,
  rollUpCost,
  runText,
  SubAgent,
  SubAgentTool,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { FileKeyValueStore, JsonlAppendLog } from "@tinyagents/harness/node";
import {
  AgentLatencyMetrics,
  JournalSink,
  KeyValueHarnessStatusStore,
  rebuildProjections,
} from "@tinyagents/harness/observability";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { DeterministicClock, DeterministicIds, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { assistant, type ChatModel, ProviderError, toolCall, usage, user } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let dir: string;
const cleanups: (() => unknown)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-observability-"));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const statusStores: [string, () => HarnessStatusStore][] = [
  ["in memory", () => new InMemoryHarnessStatusStore()],
  ["over JSON files", () => new KeyValueHarnessStatusStore(new FileKeyValueStore(join(dir, "status")))],
  [
    "in SQLite",
    () => {
      const store = SqliteStore.open(join(dir, "status.sqlite"));
      cleanups.push(() => store.close());
      return store.statusStore;
    },
  ],
];

describe.each(statusStores)("status store %s", (_name, makeStore) => {
  it("answers active runs correctly while runs are in flight, and finished ones after", async () => {
    const statusStore = makeStore();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = 0;
    let bothInTool: () => void = () => {};
    const inTool = new Promise<void>((resolve) => {
      bothInTool = resolve;
    });
    // Calls the tool first, answers once the transcript holds its result.
    const model: ChatModel = {
      provider: "test",
      modelId: "tool-then-answer",
      async invoke(request) {
        const done = request.messages.some((m) => m.role === "tool");
        return done
          ? {
              message: assistant("done"),
              finishReason: "stop",
              usage: usage({ inputTokens: 10, outputTokens: 2 }),
            }
          : { message: assistant("", [toolCall("c1", "wait")]), finishReason: "tool_calls" };
      },
    };
    const clock = new DeterministicClock();
    const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() })
      .registerModel("m", model, { pricing: { inputPerMillion: 1, outputPerMillion: 1 } })
      .registerTool(
        FakeTool.of("wait", async () => {
          if (++entered === 2) bothInTool();
          await gate;
          return "ok";
        }),
      );
    const start = (runId: string, threadId: string) => {
      const events = new EventSink(runId, { now: () => clock.now() });
      const obs = attachObservability(events, { statusStore });
      const outcome = lowerLayer(harness).invokeCollectingPartial(
        undefined,
        undefined,
        { runId, threadId },
        "go",
        {
          events,
        },
      );
      return { obs, outcome };
    };
    const a = start("run-a", "t1");
    const b = start("run-b", "t2");
    await inTool;
    await Promise.all([a.obs.flush(), b.obs.flush()]);

    const active = await statusStore.list({ active: true });
    expect(
      active.map((s) => [s.runId, s.status, s.phase, s.activeToolCalls, s.modelCalls, s.toolCalls]),
    ).toEqual([
      ["run-a", "running", "tools", ["c1"], 1, 1],
      ["run-b", "running", "tools", ["c1"], 1, 1],
    ]);
    expect((await statusStore.list({ threadId: "t2" })).map((s) => s.runId)).toEqual(["run-b"]);
    expect(await statusStore.list({ active: false })).toEqual([]);

    release();
    const [outA] = await Promise.all([a.outcome, b.outcome]);
    await Promise.all([a.obs.close(), b.obs.close()]);
    expect(await statusStore.list({ active: true })).toEqual([]);
    const finished = await statusStore.get("run-a");
    expect(finished).toMatchObject({
      status: "completed",
      phase: "done",
      activeToolCalls: [],
      threadId: "t1",
      rootRunId: "run-a",
      modelCalls: outA.status.modelCalls,
      toolCalls: outA.status.toolCalls,
      usage: outA.status.usage,
      cost: outA.status.cost,
      endedAt: outA.status.endedAt,
    });
    expect((await statusStore.list({ active: false })).map((s) => s.runId)).toEqual(["run-a", "run-b"]);
  });
});

/** A three-level tree (orchestrator -> researcher -> summarizer) on Anthropic catalog prices, with a retry and cache tokens. */
function agentTree(clock: DeterministicClock) {
  const ids = new DeterministicIds();
  const pricing = lookupPricing("anthropic", "claude-sonnet-4-5");
  if (pricing === undefined) throw new Error("catalog lacks claude-sonnet-4-5");
  const make = () =>
    new AgentHarness<undefined, undefined>({ clock, ids, policy: { retry: { maxRetries: 1 } } });
  const cached = usage({ inputTokens: 1_000, cacheReadTokens: 600, cacheWriteTokens: 200, outputTokens: 50 });
  const summarizer = new SubAgent({
    name: "summarizer",
    description: "Summarizes notes",
    harness: make().registerModel(
      "m",
      new ScriptedModel(["summary"], { usage: usage({ inputTokens: 5, outputTokens: 1 }) }),
      {
        pricing,
      },
    ),
  });
  const researcher = new SubAgent({
    name: "researcher",
    description: "Researches",
    harness: make()
      .registerModel(
        "m",
        new ScriptedModel(
          [{ toolCalls: [{ id: "r-1", name: "summarizer", arguments: { input: "notes" } }] }, "found it"],
          {
            usage: cached,
          },
        ),
        { pricing },
      )
      .registerTool(new SubAgentTool(summarizer)),
  });
  const root = make()
    .registerModel(
      "m",
      new ScriptedModel(
        [
          new ProviderError({
            provider: "test",
            message: "overloaded",
            kind: "upstream_unhealthy",
            status: 529,
          }),
          { toolCalls: [{ id: "o-1", name: "researcher", arguments: { input: "what?" } }] },
          "the answer",
        ],
        { usage: cached },
      ),
      { pricing },
    )
    .registerTool(new SubAgentTool(researcher));
  return root;
}

describe("journal and projections", () => {
  it("rebuild from the JSONL and SQLite journals to exactly the live projections, with correct lineage", async () => {
    const jsonlLog = new JsonlAppendLog(join(dir, "journal"));
    cleanups.push(() => jsonlLog.close());
    const jsonlJournal = new AppendLogEventJournal(jsonlLog);
    const sqlite = SqliteStore.open(join(dir, "journal.sqlite"));
    cleanups.push(() => sqlite.close());
    const sqliteJournal = new AppendLogEventJournal(sqlite.appendLog);
    const statusStore = sqlite.statusStore;
    const clock = new DeterministicClock();
    const events = new EventSink("root", { now: () => clock.now() });
    const obs = attachObservability(events, {
      journal: jsonlJournal,
      statusStore,
      sinks: [new JournalSink(sqliteJournal)],
    });
    const items = [];
    for await (const item of lowerLayer(agentTree(clock)).invokeStreaming(
      undefined,
      undefined,
      { runId: "root", threadId: "t", tags: ["team:search", "exp:7"] },
      "go",
      {
        events,
      },
    )) {
      items.push(item);
    }
    await obs.close();
    const last = items.at(-1);
    if (last?.type !== "completed") throw new Error(`run did not complete: ${JSON.stringify(last)}`);
    expect(runText(last.run)).toBe("the answer");
    expect(obs.journalSink?.dropped).toBe(0);

    const live = obs.projections.snapshots();
    const reopenedLog = new JsonlAppendLog(join(dir, "journal"));
    cleanups.push(() => reopenedLog.close());
    const reopened = new AppendLogEventJournal(reopenedLog);
    for (const journal of [jsonlJournal, sqliteJournal, reopened]) {
      expect(await rebuildProjections(journal, "root")).toEqual(live);
    }
    const records = await jsonlJournal.read("root");
    expect(live.status.sourceOffset).toBe(records.at(-1)?.offset);
    expect(live.status.projectionVersion).toBe(1);
    expect(live.usage.sourceOffset).toBe(live.status.sourceOffset);

    // Lineage on every observation: one root stream, monotonic offsets, parent and depth per run.
    const childOf = new Map<string, { parent: string; depth: number }>([["root", { parent: "", depth: 0 }]]);
    for (const r of records) {
      if (r.event.type === "subagent.started")
        childOf.set(r.event.childRunId, { parent: r.runId, depth: r.event.depth });
    }
    expect(childOf.size).toBe(3);
    records.forEach((r: AgentObservation, k) => {
      expect(r.rootRunId).toBe("root");
      // Monotonic (gaps where the default journal left bookkeeping events out).
      if (k > 0) expect(r.offset).toBeGreaterThan((records[k - 1] as AgentObservation).offset);
      const expected = childOf.get(r.runId);
      expect(r.depth).toBe(expected?.depth);
      expect(r.parentRunId ?? "").toBe(expected?.parent);
    });

    // The live status equals the run's own final status record on what matters.
    const rootStatus = live.status.value.find((s) => s.runId === "root");
    expect(rootStatus).toMatchObject({
      status: "completed",
      threadId: "t",
      modelCalls: last.status.modelCalls,
      toolCalls: last.status.toolCalls,
      usage: last.status.usage,
      endedAt: last.status.endedAt,
    });
    expect(rootStatus?.cost.total).toBeCloseTo(last.status.cost.total, 12);
    expect(await statusStore.get("root")).toEqual(rootStatus);
    expect((await statusStore.list({ rootRunId: "root" })).length).toBe(3);

    // The run's tags: on its run.started event, its live record, the stored and the rebuilt
    // records; sub-agents inherit them.
    const tags = ["team:search", "exp:7"];
    expect(records[0]?.event).toEqual({ type: "run.started", threadId: "t", input: 1, tags });
    expect(last.status.tags).toEqual(tags);
    expect(rootStatus?.tags).toEqual(tags);
    for (const s of await statusStore.list({ rootRunId: "root" })) expect(s.tags).toEqual(tags);
    const rebuilt = await rebuildProjections(sqliteJournal, "root");
    expect(rebuilt.status.value.find((s) => s.runId === "root")?.tags).toEqual(tags);

    // Usage/cost roll-up: each tree total is its own cost plus its children's tree totals, and
    // the root's tree total is what the run reported.
    const usageByRun = live.usage.value;
    for (const entry of Object.values(usageByRun)) {
      const kids = Object.values(usageByRun).filter((k) => k.parentRunId === entry.runId);
      expect(entry.tree.cost).toEqual(
        rollUpCost(
          entry.own.cost,
          kids.map((k) => k.tree.cost),
        ),
      );
    }
    expect(usageByRun.root?.tree.cost.total).toBeCloseTo(last.run.cost.total, 12);
    expect(usageByRun.root?.tree.usage).toEqual(last.run.usage);

    // Timing and latency come out of the journal too.
    expect(live.timing.value.root).toMatchObject({ modelAttempts: 3, toolCalls: 1 });
    expect(live.timing.value.root?.firstTokenMs).toBeGreaterThanOrEqual(0);
    const metrics = AgentLatencyMetrics.fromRecords(records);
    expect(metrics.model.count).toBe(
      records.filter((r) => r.event.type === "model.completed" || r.event.type === "model.failed").length,
    );
    expect(metrics.tool.count).toBe(2);
    expect(metrics.timeToFirstToken.count).toBeGreaterThan(0);
    expect(metrics.totalMs).toBe(live.timing.value.root?.durationMs);
  });

  it("a rebuilt projection differs from the live one when the journal dropped observations, and says so", async () => {
    const log = new JsonlAppendLog(join(dir, "small"));
    cleanups.push(() => log.close());
    const journal = new AppendLogEventJournal(log);
    const clock = new DeterministicClock();
    const events = new EventSink("root", { now: () => clock.now() });
    const obs = attachObservability(events, { journal, maxQueue: 2 });
    await lowerLayer(agentTree(clock)).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "root" },
      "go",
      { events },
    );
    await obs.close();
    expect(obs.journalSink?.dropped).toBeGreaterThan(0);
    const dropped = await journal.read("root", { types: ["journal.dropped"] });
    expect(dropped.length).toBeGreaterThan(0);
    expect(await rebuildProjections(journal, "root")).not.toEqual(obs.projections.snapshots());
  });

  it("records the tags of a direct model call, and none for a run without tags", async () => {
    const statusStore = new InMemoryHarnessStatusStore();
    const harness = new AgentHarness<undefined, undefined>({ ids: new DeterministicIds() }).registerModel(
      "m",
      new ScriptedModel(["one", "two"]),
    );
    const seen: AgentObservation[] = [];
    const observe = (runId: string) => {
      const events = new EventSink(runId);
      events.subscribe((record) => seen.push(record));
      return { events, obs: attachObservability(events, { statusStore }) };
    };
    const direct = observe("direct");
    const { status } = await lowerLayer(harness).callModelWithStatus(
      undefined,
      { messages: [user("hi")] },
      { runId: "direct", tags: ["batch:nightly"] },
      { events: direct.events },
    );
    await direct.obs.close();
    expect(status.tags).toEqual(["batch:nightly"]);
    expect((await statusStore.get("direct"))?.tags).toEqual(["batch:nightly"]);

    const plain = observe("plain");
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "plain" },
      "go",
      {
        events: plain.events,
      },
    );
    await plain.obs.close();
    expect("tags" in outcome.status).toBe(false);
    expect(await statusStore.get("plain")).not.toHaveProperty("tags");
    const started = seen.find((o) => o.runId === "plain" && o.event.type === "run.started");
    expect(started?.event).toEqual({ type: "run.started", input: 1 });
  });
});
