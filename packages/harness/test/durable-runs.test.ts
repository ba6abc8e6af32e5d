/**
 * Issue 32: crash-proof runs from the front door (`agent.run(input, { durable })`,
 * `agent.recover`, `agent.resume`), in one process: fenced ownership (a live owner is never
 * robbed; a stale owner stops at its next boundary), every boundary checkpointed (the first model
 * call, the final answer, a pause), typed refusals, and status counters that continue after a
 * recovery. "The process died" is a run that never settles (a hung model call, tool or hook) on a
 * virtual clock that never moves: it never heartbeats again and its lease lapsed long ago on the
 * recoverer's clock, as a dead process's would. The cross-process suite is
 * durable-crash.integration.test.ts.
 */
import {
  AgentHarness,
  type AgentRunError,
  attachObservability,
  CheckpointStore,
  EventSink,
  InMemoryEventJournal,
  InMemoryHarnessStatusStore,
  InMemoryKeyValueStore,
  type RunOptions,
  tool,
} from "@tinyagents/harness";
import { continueEventSink } from "@tinyagents/harness/observability";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { DeterministicClock, ScriptedModel, type ScriptStep } from "@tinyagents/harness/testkit";
import type { Message } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { agent, type Ledger, SCRIPT, until } from "./durable-helpers.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** Options of a run of a process whose clock never moves (so it never heartbeats again). */
function deadOptions(store: CheckpointStore, extra: Partial<RunOptions<undefined, undefined>> = {}) {
  const stop = new AbortController();
  cleanup.push(() => stop.abort());
  return {
    runId: "r",
    signal: stop.signal,
    clock: new DeterministicClock({ start: 0 }),
    durable: { store, ownerId: "dead", leaseMs: 1_000 },
    ...extra,
  } satisfies RunOptions<undefined, undefined>;
}

/** Options of a recoverer, on a clock far past the dead owner's lease. */
function liveOptions(store: CheckpointStore, ownerId = "recoverer") {
  return { clock: new DeterministicClock({ start: 1_000_000 }), durable: { store, ownerId } };
}

async function uninterrupted() {
  const statusStore = new InMemoryHarnessStatusStore();
  const events = new EventSink("r");
  const observed = attachObservability(events, { statusStore });
  const { h } = agent([], SCRIPT);
  const result = await h.run("go", { runId: "r", events, clock: new DeterministicClock() });
  await observed.close();
  return { result, status: await statusStore.get("r") };
}

const stores: [string, () => CheckpointStore][] = [
  ["in memory", () => new CheckpointStore(new InMemoryKeyValueStore())],
  [
    "SQLite",
    () => {
      const sqlite = SqliteStore.open(":memory:");
      cleanup.push(() => sqlite.close());
      return new CheckpointStore(sqlite.keyValue);
    },
  ],
];

describe.each(stores)("durable runs (%s)", (_name, open) => {
  it("a crash in the first model call is recovered from the recorded input, counters intact", async () => {
    const store = open();
    const ledger: Ledger = [];
    const { h: dying } = agent(ledger, SCRIPT, { model: 1 });
    void dying.run("go", deadOptions(store)).catch(() => undefined);
    await until(async () => (await store.load("r")) !== undefined, "the first checkpoint");
    const first = await store.record("r");
    expect(first?.start?.input).toEqual([{ role: "user", content: [{ type: "text", text: "go" }] }]);
    expect(first?.checkpoint?.messages.map((m: Message) => m.role)).toEqual(["user"]);

    const statusStore = new InMemoryHarnessStatusStore();
    const events = new EventSink("r");
    const observed = attachObservability(events, { statusStore });
    const { h } = agent(ledger, SCRIPT);
    const recovered = await h.recover("r", { ...liveOptions(store), events });
    await observed.close();
    const baseline = await uninterrupted();
    expect(recovered.messages).toEqual(baseline.result.messages);
    expect([recovered.modelCalls, recovered.toolCalls]).toEqual([3, 2]);
    expect(recovered.usage).toEqual(baseline.result.usage);
    const status = await statusStore.get("r");
    expect(status).toMatchObject({
      status: "completed",
      modelCalls: baseline.status?.modelCalls,
      toolCalls: baseline.status?.toolCalls,
      usage: baseline.status?.usage,
      epoch: 2,
    });
    expect((await store.record("r"))?.state).toBe("completed");
  });

  it("a crash after the final answer completes on recovery with no model or tool call", async () => {
    const store = open();
    const ledger: Ledger = [];
    const { h: dying } = agent(ledger, SCRIPT, { afterAgent: true });
    void dying.run("go", deadOptions(store)).catch(() => undefined);
    await until(async () => (await store.record("r"))?.final === true, "the final checkpoint");
    const executed = ledger.length;

    const statusStore = new InMemoryHarnessStatusStore();
    const events = new EventSink("r");
    const observed = attachObservability(events, { statusStore });
    const { h, model } = agent(ledger, []); // any model call would exhaust this script
    const recovered = await h.recover("r", { ...liveOptions(store), events });
    await observed.close();
    expect(model.requests).toHaveLength(0);
    expect(ledger).toHaveLength(executed);
    const baseline = await uninterrupted();
    expect(recovered.messages).toEqual(baseline.result.messages);
    expect(recovered.text).toBe("done");
    expect([recovered.modelCalls, recovered.usage]).toEqual([3, baseline.result.usage]);
    expect(await statusStore.get("r")).toMatchObject({ status: "completed", modelCalls: 3, toolCalls: 2 });
  });

  it("recover refuses a live, heartbeating owner; the owner finishes alone", async () => {
    const store = open();
    const ledger: Ledger = [];
    const clock = new DeterministicClock({ autoAdvance: false });
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { h: owner } = agent(ledger, SCRIPT, { tool: "c1", gate });
    const running = owner.run("go", {
      runId: "r",
      clock,
      durable: { store, ownerId: "owner", leaseMs: 1_000, heartbeatMs: 100 },
    });
    await until(() => ledger.length === 1, "the owner inside its tool");
    // 5 s later (five leases), the owner still renews its lease every 100 ms.
    for (let i = 0; i < 50; i++) clock.advance(100);
    await until(async () => ((await store.record("r"))?.leaseUntil ?? 0) >= clock.now() + 900, "renewals");
    const { h, model } = agent(ledger, SCRIPT);
    const refused = h.recover("r", { clock, durable: { store, ownerId: "thief" } });
    await expect(refused).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/"r".*"owner" holds a live lease/),
    });
    expect(model.requests).toHaveLength(0);
    release();
    const done = await running;
    expect(done.text).toBe("done");
    expect(ledger.map((e) => e.key)).toEqual(["r:c1", "r:c2"]);
    expect(await store.record("r")).toMatchObject({ state: "completed", ownerId: "owner", epoch: 1 });
  });

  it("a stale owner stops at its next boundary with conflict and executes nothing more", async () => {
    const store = open();
    const ledger: Ledger = [];
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { h: slow, model: slowModel } = agent(ledger, SCRIPT, { tool: "c1", gate });
    const stale = slow.run("go", deadOptions(store));
    await until(() => ledger.length === 1, "the slow owner inside its tool");
    const { h } = agent(ledger, SCRIPT.slice(1));
    const recovered = await h.recover("r", liveOptions(store));
    expect(recovered.text).toBe("done");
    release();
    const error = (await stale.then(
      () => undefined,
      (e: unknown) => e,
    )) as AgentRunError;
    expect(error.code).toBe("conflict");
    expect(error.message).toMatch(/run "r" was taken from owner "dead" \(epoch 1\)/);
    expect(slowModel.requests).toHaveLength(1); // no model call after it lost the run
    expect(ledger.map((e) => e.key)).toEqual(["r:c1", "r:c1", "r:c2"]); // pay ran once
    expect(await store.record("r")).toMatchObject({ state: "completed", ownerId: "recoverer", epoch: 2 });
  });

  it("refuses, naming the run and executing nothing: an existing run id, and finished, unknown runs", async () => {
    const store = open();
    const ledger: Ledger = [];
    await agent(ledger, SCRIPT).h.run("go", { runId: "r", durable: { store } });
    const { h, model } = agent(ledger, SCRIPT);
    const seen: string[] = [];
    const again = h.run("go", { runId: "r", durable: { store }, onEvent: (e) => seen.push(e.event.type) });
    await expect(again).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/cannot start run "r": the run id already exists/),
    });
    await expect(h.recover("r", liveOptions(store))).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/cannot recover run "r": it has finished/),
    });
    await expect(h.recover("nobody", liveOptions(store))).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringMatching(/"nobody".*no durable record/),
    });
    await expect(h.resume("r", { durable: { store } })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/cannot resume run "r": it is no longer paused/),
    });
    await expect(h.recover("r", {})).rejects.toMatchObject({ code: "validation" });
    expect([seen, model.requests.length, ledger.length]).toEqual([[], 0, 2]);
  });

  it("a pause replaces the checkpoint in one write; resume by id continues it; a second resume is refused", async () => {
    const store = open();
    const ledger: Ledger = [];
    const { h } = agent(ledger, SCRIPT);
    let paused = false;
    h.use({
      name: "pause_once",
      afterModel: (ctx, response) => {
        if (!paused && response.message.toolCalls.length > 0) {
          paused = true;
          ctx.run.requestControl({ kind: "interrupt", reason: "check" });
        }
      },
    });
    const first = await h.run("go", { runId: "r", durable: { store } });
    expect(first.stopReason).toBe("interrupted");
    const record = await store.record("r");
    expect(record?.state).toBe("paused");
    expect(record?.checkpoint?.reason).toBe("check");
    expect(record?.checkpoint?.pendingToolCalls.map((c: { id: string }) => c.id)).toEqual(["c1"]);
    await expect(h.recover("r", liveOptions(store))).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/"r".*paused.*resume it/),
    });
    const resumed = await h.resume("r", { durable: { store, ownerId: "resumer" } });
    expect(resumed.text).toBe("done");
    expect([resumed.modelCalls, resumed.toolCalls]).toEqual([3, 2]);
    expect(await store.record("r")).toMatchObject({ state: "completed", ownerId: "resumer", epoch: 2 });
    await expect(h.resume("r", { durable: { store } })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/no longer paused/),
    });
    expect(ledger.map((e) => e.key)).toEqual(["r:c1", "r:c2"]);
  });

  it("a durable sub-agent: same child id in every process, continued from its own checkpoint", async () => {
    const store = open();
    const ledger: Ledger = [];
    const CHILD: ScriptStep[] = [
      { toolCalls: [{ id: "k1", name: "work", arguments: { n: 9 } }] },
      "child done",
    ];
    const PARENT: ScriptStep[] = [
      { toolCalls: [{ id: "c1", name: "helper", arguments: { input: "sub task" } }] },
      "parent done",
    ];
    const parentAgent = (child: AgentHarness<undefined, undefined>, script: ScriptStep[]) => {
      const h = new AgentHarness<undefined, undefined>();
      h.registerModel("m", new ScriptedModel(script));
      h.registerTool(child.asTool({ name: "helper", description: "does sub tasks" }));
      return h;
    };
    // The first process dies inside the child's second model call (its tool batch checkpointed).
    const dyingChild = agent(ledger, [CHILD[0] as ScriptStep, () => new Promise<never>(() => undefined)]);
    void parentAgent(dyingChild.h, PARENT)
      .run("go", deadOptions(store))
      .catch(() => undefined);
    await until(
      async () => (await store.record("r.helper.c1"))?.checkpoint?.toolCalls === 1,
      "the child's checkpoint",
    );
    expect(await store.record("r.helper.c1")).toMatchObject({
      parentRunId: "r",
      rootRunId: "r",
      state: "running",
    });
    await expect(agent(ledger, CHILD).h.recover("r.helper.c1", liveOptions(store))).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/child run of "r": recover its root run "r"/),
    });

    const child = agent(ledger, CHILD.slice(1));
    const recovered = await parentAgent(child.h, PARENT.slice(1)).recover("r", liveOptions(store));
    expect(recovered.text).toBe("parent done");
    // The child was continued, not restarted: one model call, seeing its own tool result.
    expect(child.model.requests).toHaveLength(1);
    expect(JSON.stringify(child.model.requests[0]?.messages)).toContain("work 9");
    expect(ledger.map((e) => e.key)).toEqual(["r.helper.c1:k1"]);
    expect(recovered.children?.map((c) => c.runId)).toEqual(["r.helper.c1"]);
    expect(await store.record("r.helper.c1")).toMatchObject({
      state: "completed",
      ownerId: "recoverer",
      epoch: 2,
    });
    expect((await store.record("r"))?.state).toBe("completed");
    const baseline = await parentAgent(agent([], CHILD).h, PARENT).run("go", { runId: "r" });
    expect(recovered.messages).toEqual(baseline.messages);
  });

  it("two children of one tool call (option parent): distinct ids, the same after a recovery; the finished one is not re-run", async () => {
    const store = open();
    const parentWith = (a: ScriptedModel, b: ScriptedModel, script: ScriptStep[]) => {
      const childA = new AgentHarness<undefined, undefined>();
      childA.registerModel("m", a);
      const childB = new AgentHarness<undefined, undefined>();
      childB.registerModel("m", b);
      const h = new AgentHarness<undefined, undefined>();
      h.registerModel("m", new ScriptedModel(script));
      h.registerTool(
        tool({
          name: "both",
          description: "asks two children",
          inputSchema: { type: "object", properties: {} },
          execute: async (_args, ctx) => {
            const ra = await childA.run("q", { parent: ctx });
            const rb = await childB.run("q", { parent: ctx });
            return `${ra.text} + ${rb.text}`;
          },
        }),
      );
      return h;
    };
    const PARENT: ScriptStep[] = [{ toolCalls: [{ id: "c1", name: "both", arguments: {} }] }, "parent done"];
    // The first process finishes child a, then dies inside child b's model call.
    const firstA = new ScriptedModel(["answer a"]);
    void parentWith(firstA, new ScriptedModel([() => new Promise<never>(() => undefined)]), PARENT)
      .run("go", deadOptions(store))
      .catch(() => undefined);
    await until(async () => (await store.record("r.child.c1.2")) !== undefined, "child b's record");
    expect((await store.record("r.child.c1"))?.state).toBe("completed");

    const againA = new ScriptedModel(["answer a (again)"]);
    const againB = new ScriptedModel(["answer b"]);
    const recovered = await parentWith(againA, againB, PARENT.slice(1)).recover("r", liveOptions(store));
    expect(recovered.text).toBe("parent done");
    // Child a answered from its own finished checkpoint; child b ran under its own id.
    expect(againA.requests).toHaveLength(0);
    expect(againB.requests).toHaveLength(1);
    expect(JSON.stringify(recovered.messages)).toContain("answer a + answer b");
    expect(recovered.children?.map((c) => c.runId)).toEqual(["r.child.c1", "r.child.c1.2"]);
    expect((await store.record("r.child.c1.2"))?.state).toBe("completed");
  });

  it("a crash while completing (run.completed journaled, outcome not yet recorded) adds no second run.completed", async () => {
    const store = open();
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const ledger: Ledger = [];
    const events = await continueEventSink(journal, "r");
    const observed = attachObservability(events, { journal, statusStore });
    let completed = false;
    const { h: dying } = agent(ledger, SCRIPT);
    const options = deadOptions(store);
    void dying
      .run("go", {
        ...options,
        events,
        onEvent: (record) => {
          if (record.event.type === "run.completed") completed = true;
        },
        // The process dies right after its run.completed reached the journal.
        durable: {
          ...options.durable,
          flush: async () => {
            await observed.flush();
            if (completed) await new Promise<never>(() => undefined);
          },
        },
      })
      .catch(() => undefined);
    await until(
      async () => completed && (await journal.read("r")).some((o) => o.event.type === "run.completed"),
      "run.completed journaled",
    );
    expect((await store.record("r"))?.completingAt).toBeTypeOf("number");

    const again = await continueEventSink(journal, "r");
    const observedAgain = attachObservability(again, { journal, statusStore });
    const { h, model } = agent(ledger, []);
    const recovered = await h.recover("r", {
      ...liveOptions(store),
      events: again,
      durable: { store, ownerId: "recoverer", flush: () => observedAgain.flush() },
    });
    await observedAgain.close();
    expect(recovered.text).toBe("done");
    expect(model.requests).toHaveLength(0);
    const completions = (await journal.read("r")).filter(
      (o) => o.depth === 0 && o.event.type === "run.completed",
    );
    expect(completions).toHaveLength(1);
    expect(await store.record("r")).toMatchObject({ state: "completed", epoch: 2 });
    // The recovery emitted nothing: the status its previous owner flushed already says completed.
    expect(await statusStore.get("r")).toMatchObject({ status: "completed", modelCalls: 3 });
  });

  it("concurrent recoverers in one process without owner ids: exactly one proceeds (no shared default owner)", async () => {
    const store = open();
    const ledger: Ledger = [];
    void agent(ledger, SCRIPT, { tool: "c1" })
      .h.run("go", deadOptions(store))
      .catch(() => undefined);
    await until(() => ledger.length === 1, "the dead run inside its tool");
    const later = new DeterministicClock({ start: 1_000_000 });
    const attempts = await Promise.allSettled(
      [0, 1, 2].map(() =>
        agent(ledger, SCRIPT.slice(1)).h.recover("r", { clock: later, durable: { store } }),
      ),
    );
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    for (const a of attempts.filter((a) => a.status === "rejected"))
      expect((a as PromiseRejectedResult).reason).toMatchObject({ code: "conflict" });
    // The dead owner's c1 and ONE recoverer's: the refused ones executed nothing.
    expect(ledger.filter((e) => e.key === "r:c1")).toHaveLength(2);
    expect(ledger.filter((e) => e.key === "r:c2")).toHaveLength(1);
  });
});
