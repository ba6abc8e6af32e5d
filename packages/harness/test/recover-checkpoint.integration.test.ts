/**
 * Issue 17 items 2 and 3: a run checkpointed at its safe boundaries is continued after its
 * process died (`harness.recover`), with the same final transcript as an uninterrupted run;
 * `sideEffects: "once"` tools never run twice (an unknown outcome becomes an error result),
 * at-least-once tools run at most twice with one idempotency key; exactly one recoverer wins.
 * "The process died" is simulated in-process: a tool or model hook that never settles, after
 * which the run is abandoned (its `finally` never runs, like a SIGKILL). The cross-process
 * version is recover-crash.integration.test.ts.
 * Budget: about 1 s (in-process; the crash point is awaited, never slept for).
 */
import { join } from "node:path";
import {
  AgentHarness,
  AppendLogEventJournal,
  attachObservability,
  CheckpointStore,
  InMemoryKeyValueStore,
  type KeyValueStore,
  tool,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { FileKeyValueStore } from "@tinyagents/harness/node";
import { continueEventSink } from "@tinyagents/harness/observability";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { DeterministicClock, ScriptedModel, type ScriptStep } from "@tinyagents/harness/testkit";
import { type Message, TinyAgentsError } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp-dir.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const SCRIPT: ScriptStep[] = [
  { toolCalls: [{ id: "c1", name: "fetch_page", arguments: { q: "a" } }] },
  {
    toolCalls: [
      { id: "c2", name: "charge", arguments: { cents: 500 } },
      { id: "c3", name: "fetch_page", arguments: { q: "b" } },
    ],
  },
  { toolCalls: [{ id: "c4", name: "fetch_page", arguments: { q: "c" } }] },
  "done",
];

/** Who ran what: every execution of a tool, with its idempotency key. */
type Ledger = { tool: string; key: string }[];

interface Crash {
  /** Hang (the process "dies") inside this tool call id... */
  inToolCall?: string;
  /** ...or inside this model call (1-based). */
  inModelCall?: number;
  /** Told when the run reaches that model call (and hangs there). */
  reachedModelCall?: () => void;
}

const never = new Promise<never>(() => undefined);

function harness(ledger: Ledger, script: ScriptStep[], crash: Crash = {}) {
  const h = new AgentHarness<undefined, undefined>();
  // A model call that never answers: the process dies while it is in flight.
  const steps = script.map(
    (step, i): ScriptStep =>
      i + 1 === crash.inModelCall
        ? () => {
            crash.reachedModelCall?.();
            return never;
          }
        : step,
  );
  h.registerModel("m", new ScriptedModel(steps));
  h.registerTool(
    tool({
      name: "fetch_page",
      description: "read a page (at-least-once)",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      execute: async (args, ctx) => {
        ledger.push({ tool: "fetch_page", key: ctx.idempotencyKey ?? "" });
        if (ctx.callId === crash.inToolCall) return never;
        return `page ${String(args.q)}`;
      },
    }),
  );
  h.registerTool(
    tool({
      name: "charge",
      description: "charge a card (at most once)",
      sideEffects: "once",
      inputSchema: { type: "object", properties: { cents: { type: "number" } } },
      execute: async (args, ctx) => {
        ledger.push({ tool: "charge", key: ctx.idempotencyKey ?? "" });
        if (ctx.callId === crash.inToolCall) return never;
        return `charged ${String(args.cents)}`;
      },
    }),
  );
  return h;
}

/** Start a run and let it "die": resolves once `dead()` says the crash point was reached. */
async function crashRun(
  h: AgentHarness<undefined, undefined>,
  store: CheckpointStore,
  runId: string,
  dead: () => boolean | Promise<boolean>,
) {
  // The "dead" run is stopped after the test only so it leaves no liveness timer behind. It runs
  // on a virtual clock that never moves: it never heartbeats again, and its lease (virtual time
  // 0 + 30 s) lapsed long ago on the recoverers' clock, as a dead process's would.
  const stop = new AbortController();
  cleanup.push(() => stop.abort());
  lowerLayer(h)
    .invoke(undefined, undefined, { runId }, "go", {
      signal: stop.signal,
      clock: new DeterministicClock(),
      durability: { checkpoints: store, ownerId: "dead-worker" },
    })
    .catch(() => undefined);
  for (let i = 0; i < 2000 && !(await dead()); i++) await new Promise((r) => setTimeout(r, 1));
  expect(await dead()).toBe(true);
}

async function uninterrupted(): Promise<Message[]> {
  const run = await lowerLayer(harness([], SCRIPT)).invoke(undefined, undefined, { runId: "r" }, "go");
  return run.messages;
}

const backends: [string, () => Promise<KeyValueStore>][] = [
  ["in memory", async () => new InMemoryKeyValueStore()],
  ["file", async () => new FileKeyValueStore(await tempDir(cleanup, "tinyagents-recover-"))],
  [
    "SQLite",
    async () => {
      const store = SqliteStore.open(join(await tempDir(cleanup, "tinyagents-recover-"), "t.db"));
      cleanup.push(() => store.close());
      return store.keyValue;
    },
  ],
];

describe.each(backends)("recover from a checkpoint (%s)", (_name, open) => {
  it("continues a run that died inside an at-least-once tool: same transcript, the tool ran twice with one key", async () => {
    const store = new CheckpointStore(await open());
    const ledger: Ledger = [];
    await crashRun(harness(ledger, SCRIPT, { inToolCall: "c4" }), store, "r", () =>
      ledger.some((e) => e.key === "r:c4"),
    );
    const checkpoint = await store.load("r");
    expect(checkpoint?.modelCalls).toBe(3);
    expect(checkpoint?.pendingToolCalls.map((c) => c.id)).toEqual(["c4"]);

    const run = await lowerLayer(harness(ledger, SCRIPT.slice(3))).recover(undefined, undefined, "r", {
      durability: { checkpoints: store },
    });
    expect(run.stopReason).toBe("completed");
    expect(run.messages).toEqual(await uninterrupted());
    expect(ledger.filter((e) => e.key === "r:c4")).toHaveLength(2);
    expect(ledger.filter((e) => e.tool === "charge")).toHaveLength(1);
    expect(await store.list()).toEqual([]); // a finished run deletes its checkpoint
  });

  it("never runs a 'once' tool again: the model gets an 'outcome unknown' error result", async () => {
    const store = new CheckpointStore(await open());
    const ledger: Ledger = [];
    await crashRun(harness(ledger, SCRIPT, { inToolCall: "c2" }), store, "r", () =>
      ledger.some((e) => e.key === "r:c2"),
    );
    const run = await lowerLayer(harness(ledger, SCRIPT.slice(2))).recover(undefined, undefined, "r", {
      durability: { checkpoints: store },
    });
    expect(run.stopReason).toBe("completed");
    expect(ledger.filter((e) => e.tool === "charge")).toEqual([{ tool: "charge", key: "r:c2" }]);
    const result = run.messages.find((m) => m.role === "tool" && m.toolCallId === "c2");
    expect(result?.role === "tool" && result.isError).toBe(true);
    expect(JSON.stringify(result)).toContain('outcome of tool \\"charge\\" (call c2) is unknown');
    // The at-least-once sibling of the same batch ran again, with the same key.
    expect(ledger.filter((e) => e.key === "r:c3")).toHaveLength(2);
    // The model's next request carried that error result.
    expect(run.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("answers a 'once' call that finished before the crash from its recorded result", async () => {
    const store = new CheckpointStore(await open());
    const ledger: Ledger = [];
    // c2 (once) finishes, its sibling c3 hangs: the batch was never checkpointed.
    await crashRun(
      harness(ledger, SCRIPT, { inToolCall: "c3" }),
      store,
      "r",
      async () =>
        ledger.some((e) => e.key === "r:c3") && (await store.intent("r", "c2"))?.result !== undefined,
    );
    const run = await lowerLayer(harness(ledger, SCRIPT.slice(2))).recover(undefined, undefined, "r", {
      durability: { checkpoints: store },
    });
    expect(run.messages).toEqual(await uninterrupted());
    expect(ledger.filter((e) => e.tool === "charge")).toHaveLength(1);
    expect(ledger.filter((e) => e.key === "r:c3")).toHaveLength(2);
  });

  it("issues a model call that was in flight again", async () => {
    const store = new CheckpointStore(await open());
    const ledger: Ledger = [];
    // "Dead" once the run is inside its third model call, which never answers.
    let inThirdCall = false;
    const crashing = harness(ledger, SCRIPT, {
      inModelCall: 3,
      reachedModelCall: () => {
        inThirdCall = true;
      },
    });
    await crashRun(crashing, store, "r", () => inThirdCall);
    const checkpoint = await store.load("r");
    expect(checkpoint?.modelCalls).toBe(2);
    expect(checkpoint?.pendingToolCalls).toEqual([]);
    const run = await lowerLayer(harness(ledger, SCRIPT.slice(2))).recover(undefined, undefined, "r", {
      durability: { checkpoints: store },
    });
    expect(run.messages).toEqual(await uninterrupted());
    expect(run.modelCalls).toBe(4);
    expect(ledger).toHaveLength(4); // nothing ran twice
  });

  it("lets exactly one of several concurrent recoverers proceed", async () => {
    const backend = await open();
    const ledger: Ledger = [];
    await crashRun(harness(ledger, SCRIPT, { inToolCall: "c4" }), new CheckpointStore(backend), "r", () =>
      ledger.some((e) => e.key === "r:c4"),
    );
    // Four workers (distinct owners): the first take holds a live lease, the others are refused.
    const attempts = await Promise.allSettled(
      Array.from({ length: 4 }, (_, i) =>
        lowerLayer(harness(ledger, SCRIPT.slice(3))).recover(undefined, undefined, "r", {
          durability: { checkpoints: new CheckpointStore(backend), ownerId: `worker-${i}` },
        }),
      ),
    );
    const won = attempts.filter((a) => a.status === "fulfilled");
    const lost = attempts.flatMap((a) => (a.status === "rejected" ? [a.reason as unknown] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(3);
    for (const error of lost) {
      expect(TinyAgentsError.isInstance(error) && error.code).toBe("conflict");
      expect(String((error as Error).message)).toContain('"r"');
    }
    expect(ledger.filter((e) => e.key === "r:c4")).toHaveLength(2);
  });
});

describe("recover", () => {
  it("continues the journal: offsets and event ids stay unique and increasing across the crash", async () => {
    const sqlite = SqliteStore.open(join(await tempDir(cleanup, "tinyagents-recover-"), "j.db"));
    cleanup.push(() => sqlite.close());
    const journal = new AppendLogEventJournal(sqlite.appendLog);
    const store = new CheckpointStore(sqlite.keyValue);
    const ledger: Ledger = [];

    const first = harness(ledger, SCRIPT, { inToolCall: "c4" });
    const events1 = await continueEventSink(journal, "r");
    const observed1 = attachObservability(events1, { journal });
    const dead = new AbortController();
    cleanup.push(() => dead.abort());
    lowerLayer(first)
      .invoke(undefined, undefined, { runId: "r" }, "go", {
        signal: dead.signal,
        // A process that dies: its clock never moves again (its lease lapsed long ago).
        clock: new DeterministicClock(),
        events: events1,
        durability: { checkpoints: store, flush: () => observed1.flush() },
      })
      .catch(() => undefined);
    for (let i = 0; i < 2000 && !ledger.some((e) => e.key === "r:c4"); i++)
      await new Promise((r) => setTimeout(r, 1));
    await observed1.flush(); // what the dead process had written; then it is gone
    observed1.detach();

    const events2 = await continueEventSink(journal, "r");
    const observed2 = attachObservability(events2, { journal });
    const run = await lowerLayer(harness(ledger, SCRIPT.slice(3))).recover(undefined, undefined, "r", {
      events: events2,
      durability: { checkpoints: store, flush: () => observed2.flush() },
    });
    await observed2.close();
    expect(run.stopReason).toBe("completed");

    const records = await journal.read("r");
    const offsets = records.map((o) => o.offset);
    expect(new Set(offsets).size).toBe(offsets.length);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    const ids = records.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(records.filter((o) => o.event.type === "run.completed")).toHaveLength(1);
  });

  it("gives the checkpoint back when the recovered run cannot start (bad options)", async () => {
    const store = new CheckpointStore(new InMemoryKeyValueStore());
    const ledger: Ledger = [];
    await crashRun(harness(ledger, SCRIPT, { inToolCall: "c4" }), store, "r", () =>
      ledger.some((e) => e.key === "r:c4"),
    );
    const bad = lowerLayer(harness(ledger, SCRIPT.slice(3))).recover(undefined, undefined, "r", {
      durability: { checkpoints: store, leaseMs: 1 },
    });
    await expect(bad).rejects.toMatchObject({ code: "validation" });
    expect((await store.load("r"))?.pendingToolCalls.map((c) => c.id)).toEqual(["c4"]);
    const run = await lowerLayer(harness(ledger, SCRIPT.slice(3))).recover(undefined, undefined, "r", {
      durability: { checkpoints: store },
    });
    expect(run.stopReason).toBe("completed");
  });

  it("needs the checkpoint store, and says so", async () => {
    const h = harness([], SCRIPT);
    const missing = lowerLayer(h).recover(undefined, undefined, "r", {
      durability: {} as { checkpoints: CheckpointStore },
    });
    await expect(missing).rejects.toMatchObject({ code: "validation" });
    const none = lowerLayer(h).recover(undefined, undefined, "nope", {
      durability: { checkpoints: new CheckpointStore(new InMemoryKeyValueStore()) },
    });
    await expect(none).rejects.toMatchObject({ code: "not_found", message: expect.stringMatching(/"nope"/) });
  });

  it("a run without failures drops its checkpoint but keeps its once intents, and cannot be recovered", async () => {
    const backend = new InMemoryKeyValueStore();
    const store = new CheckpointStore(backend);
    const ledger: Ledger = [];
    const run = await lowerLayer(harness(ledger, SCRIPT)).invoke(undefined, undefined, { runId: "r" }, "go", {
      durability: { checkpoints: store },
    });
    expect(run.messages).toEqual(await uninterrupted());
    expect(await store.list()).toEqual([]);
    const record = await store.record("r");
    expect(record?.state).toBe("completed");
    expect(record?.checkpoint).toBeUndefined();
    // The intent and result of the "once" call stay: a late owner of the run must find them.
    expect((await store.intent("r", "c2"))?.result?.content).toBeDefined();
    const late = lowerLayer(harness(ledger, SCRIPT)).recover(undefined, undefined, "r", {
      durability: { checkpoints: store, ownerId: "late" },
    });
    await expect(late).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/"r".*finished/),
    });
    expect(ledger.filter((e) => e.tool === "charge")).toHaveLength(1);
  });

  it("rejects a bad sideEffects value with a validation error", () => {
    expect(() =>
      tool({
        name: "x",
        description: "x",
        // @ts-expect-error: only "once" | "at-least-once"
        sideEffects: "twice",
        inputSchema: { type: "object", properties: {} },
        execute: () => "x",
      }),
    ).toThrow(/sideEffects/);
  });
});
