/**
 * Hostile scenarios for attachObservability's DeltaLane, through the public agent API (scripted
 * streaming models, virtual time, in-memory stores). Each scenario is played twice, with the lane
 * and with it turned off (a no-op extra sink sends every record down the full path), and must
 * leave the same journal, statuses and projections, drop nothing and store no secret the full
 * path would not. The last block pins leaks of the delta coalescing itself (both paths alike).
 */
import { type ModelStreamItem, registerSecrets } from "@tinyagents/inference";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { IdGenerator } from "../contracts/id-generator.js";
import { EventSink } from "../events/event-sink.js";
import { createAgent } from "../runtime/create-agent.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { StreamingMock } from "../testkit/streaming-mock.js";
import type { AgentObservation } from "./agent-observation.js";
import { attachObservability, type ObservabilityOptions } from "./attach-observability.js";
import { DeltaLane } from "./delta-lane.js";
import type { HarnessEventJournal } from "./event-journal.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";

const KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
/** A model credential (no built-in shape: only the process registry catches it). */
const CRED = "hostile-cred-4471";
/** A stream id whose record ids contain a registered credential from offset 1 on (1, 10-19, ...). */
const PFX = "hostile-pfx";
registerSecrets([CRED, `${PFX}-evt-1`]);

type Agent = ReturnType<typeof createAgent>;

const start: ModelStreamItem = { type: "start" };
const stop: ModelStreamItem = { type: "finish", finishReason: "stop" };
const textItems = (chunks: readonly string[]): ModelStreamItem[] => [
  start,
  ...chunks.map((text) => ({ type: "text_delta" as const, text })),
  stop,
];
const toolCalls = (...names: string[]): ModelStreamItem[] => [
  start,
  ...names.map((name, index) => ({
    type: "tool_call_delta" as const,
    index,
    id: `t-${name}`,
    name,
    argumentsDelta: JSON.stringify({ input: `ask ${name}` }),
  })),
  { type: "finish", finishReason: "tool_calls" },
];

/** What one scenario builds, fresh for each play. */
interface Scenario {
  streamId: string;
  runId: string;
  agent: (clock: DeterministicClock) => Agent;
  options?: Omit<ObservabilityOptions, "journal" | "statusStore" | "sinks">;
  journal?: () => HarnessEventJournal;
  /** The lane must take no delta (secret-shaped ids, custom patterns); else it must take some. */
  laneDeclines?: true;
  /** The event sink's first offset (a resumed run tree continues its journal's offsets). */
  startOffset?: number;
  /** Flush the pipeline (not awaited) just before its journal sees this text delta (1-based). */
  flushAtDelta?: number;
  /** Abort the run after this many text deltas of any run. */
  abortAfterDeltas?: number;
}

const every = (chunks: string[]) => (clock: DeterministicClock) =>
  createAgent({ model: new StreamingMock([textItems(chunks)]), clock, ids: new DeterministicIds() });

/** A parent calling two sub-agents in parallel, all three streaming. */
function tree(alpha: string[], beta: string[], ids: () => IdGenerator = () => new DeterministicIds()) {
  return (clock: DeterministicClock) => {
    const child = (chunks: string[]) =>
      createAgent({ model: new StreamingMock([textItems(chunks)]), clock, ids: ids() });
    return createAgent({
      model: new StreamingMock([
        toolCalls("alpha", "beta"),
        textItems(["Both ", "answered ", KEY.slice(0, 12), KEY.slice(12)]),
      ]),
      clock,
      ids: ids(),
      tools: [
        child(alpha).asTool({ name: "alpha", description: "Answers a" }),
        child(beta).asTool({ name: "beta", description: "Answers b" }),
      ],
    });
  };
}

async function play(scenario: Scenario, lane: boolean) {
  // How many deltas the lane took (the comparison means something only when it took some).
  let taken = 0;
  const take = DeltaLane.prototype.take;
  vi.spyOn(DeltaLane.prototype, "take").mockImplementation(function (this: DeltaLane, record) {
    const byLane = take.call(this, record);
    if (byLane) taken++;
    return byLane;
  });
  const clock = new DeterministicClock();
  const journal = scenario.journal?.() ?? new InMemoryEventJournal();
  const statusStore = new InMemoryHarnessStatusStore();
  const events = new EventSink(scenario.streamId, {
    clock,
    ...(scenario.startOffset === undefined ? {} : { startOffset: scenario.startOffset }),
  });
  const errors: unknown[] = [];
  let seenDeltas = 0;
  // Subscribed before the pipeline: the flush releases the pending merges before this delta.
  events.subscribe((record) => {
    if (record.event.type === "model.text_delta" && ++seenDeltas === scenario.flushAtDelta)
      void obs.flush().catch(() => {});
  });
  const obs = attachObservability(events, {
    ...scenario.options,
    journal,
    statusStore,
    onError: (error) => errors.push(error),
    ...(lane ? {} : { sinks: [{ write: () => {} }] }),
  });
  const controller = new AbortController();
  let deltas = 0;
  let failure: unknown;
  try {
    for await (const item of scenario.agent(clock).stream("go", {
      runId: scenario.runId,
      events,
      signal: controller.signal,
    })) {
      if (item.type === "event" && item.record.event.type === "model.text_delta") {
        deltas++;
        if (deltas === scenario.abortAfterDeltas) controller.abort();
      }
    }
  } catch (error) {
    failure = error;
  }
  await obs.close();
  const stored: AgentObservation[] = [];
  for (const root of await journal.rootRuns()) stored.push(...(await journal.read(root)));
  return {
    taken,
    stored,
    journal: JSON.stringify(stored),
    status: JSON.stringify(await statusStore.list({})),
    projections: JSON.stringify(obs.projections.snapshots()),
    dropped: obs.journalSink?.dropped,
    errors: errors.map(String),
    failure: failure === undefined ? undefined : String(failure),
  };
}

const SECRETS = [KEY, CRED, "AbCdEfGhIjKlMnOpQrSt", "hunter2hunter2"];

async function sameWithAndWithoutLane(scenario: Scenario) {
  const lane = await play(scenario, true);
  const full = await play(scenario, false);
  expect(lane.journal).toBe(full.journal);
  expect(lane.status).toBe(full.status);
  expect(lane.projections).toBe(full.projections);
  expect(lane.dropped).toBe(full.dropped);
  expect(lane.errors).toEqual(full.errors);
  expect(lane.failure).toBe(full.failure);
  expect(full.taken).toBe(0);
  // Lane on: it took deltas (or, where every id is secret-shaped, stepped aside); off: none.
  if (lane.taken === 0) expect(scenario.laneDeclines).toBe(true);
  else expect(scenario.laneDeclines).toBeUndefined();
  const offsets = lane.stored.map((r) => r.offset);
  expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  expect(new Set(offsets).size).toBe(offsets.length);
  return lane;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("DeltaLane under hostile streams (same records as the full path)", () => {
  it("secrets inside, split across and glued to deltas, registered credentials, unicode split inside a surrogate pair", async () => {
    const emoji = "😀";
    const lane = await sameWithAndWithoutLane({
      streamId: "run-1",
      runId: "run-1",
      agent: every([
        "Hi ",
        "x",
        "the key ",
        KEY,
        " and ",
        CRED.slice(0, 5),
        CRED.slice(5),
        " and password=",
        "hunter2hunter2",
        " ",
        emoji[0] as string,
        emoji[1] as string,
        " é\u0301 ",
        "ＳＫ-全角",
      ]),
    });
    expect(lane.stored.map((r) => r.event.type)).not.toContain("journal.dropped");
    for (const secret of SECRETS) {
      expect(lane.journal).not.toContain(secret);
      expect(lane.status).not.toContain(secret);
    }
    const text = lane.stored
      .filter((r) => r.event.type === "model.text_delta")
      .map((r) => (r.event as { text: string }).text)
      .join("");
    expect(text).toContain(`${emoji} é\u0301 ＳＫ-全角`);
  });

  it("two sub-agents streaming in parallel under a streaming parent, with secrets in every stream", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "tree-1",
      runId: "tree-1",
      agent: tree(["Hi ", "a2 ", KEY, " a4 ", CRED, " bye"], ["b1 ", `${KEY} `, "b3 ", CRED]),
    });
    for (const secret of [KEY, CRED]) expect(lane.journal).not.toContain(secret);
    expect(new Set(lane.stored.map((r) => r.runId)).size).toBe(3);
  });

  it("run, call and sub-agent ids shaped like keys (the lane must decline them all)", async () => {
    // Every id the harness generates carries a key: run ids of sub-agents, model call ids.
    const keyIds = (): IdGenerator => {
      let n = 0;
      return { next: (prefix) => `${prefix}-${KEY}-${++n}` };
    };
    const lane = await sameWithAndWithoutLane({
      streamId: `s-${KEY}`,
      runId: `run-${KEY}`,
      agent: tree(["Hi ", "a2 ", "a3"], ["b1 ", "b2 ", "b3"], keyIds),
      laneDeclines: true,
    });
    expect(lane.journal).not.toContain(KEY);
    expect(lane.status).not.toContain(KEY);
    expect(lane.projections).not.toContain(KEY);
  });

  it("a credential registered mid-stream that is a streaming sub-agent's run id (the lane's memos are dropped)", async () => {
    // Played twice in one process: the registry only grows, so each play has its own ids (a tag
    // of the same length), compared once the tag is blanked out.
    const playTagged = async (tag: string, lane: boolean) => {
      const tagged = (): IdGenerator => {
        let n = 0;
        return { next: (prefix) => `${prefix}-${tag}-${++n}` };
      };
      const clock = new DeterministicClock();
      // Beta is done early: alpha then streams alone (the lane's memo of its run id is not
      // refreshed by another run's delta in between).
      const agent = tree(
        Array.from({ length: 12 }, (_, i) => `a${i} `),
        ["b0 ", "b1"],
        tagged,
      )(clock);
      const journal = new InMemoryEventJournal();
      const statusStore = new InMemoryHarnessStatusStore();
      const events = new EventSink(`tree-${tag}`, { clock });
      let registered = "";
      let registeredAt = -1;
      // Subscribed first: the credential is registered before the lane sees this delta.
      events.subscribe((record) => {
        const event = record.event;
        if (event.type === "model.text_delta" && event.text === "a8 ") {
          registered = record.runId;
          registeredAt = record.offset;
          registerSecrets([registered]);
        }
      });
      let taken = 0;
      const take = DeltaLane.prototype.take;
      vi.spyOn(DeltaLane.prototype, "take").mockImplementation(function (this: DeltaLane, record) {
        const byLane = take.call(this, record);
        if (byLane) taken++;
        return byLane;
      });
      const obs = attachObservability(events, {
        journal,
        statusStore,
        ...(lane ? {} : { sinks: [{ write: () => {} }] }),
      });
      for await (const _ of agent.stream("go", { runId: `tree-${tag}`, events })) {
        // drain the stream
      }
      await obs.close();
      vi.restoreAllMocks();
      const blank = (text: string) => text.split(tag).join("TAG");
      const stored = await journal.read(`tree-${tag}`);
      return {
        registered,
        registeredAt,
        taken,
        stored,
        journal: blank(JSON.stringify(stored)),
        status: blank(JSON.stringify(await statusStore.list({}))),
        projections: blank(JSON.stringify(obs.projections.snapshots())),
      };
    };
    const lane = await playTagged("lane01", true);
    const full = await playTagged("full01", false);
    expect(lane.taken).toBeGreaterThan(0);
    expect(full.taken).toBe(0);
    expect(lane.journal).toBe(full.journal);
    expect(lane.status).toBe(full.status);
    expect(lane.projections).toBe(full.projections);
    // From the registration on, no record carries the credential (the memos of both fast paths,
    // the lane's and RedactingSink's, were dropped with the registry's change).
    expect(lane.registered).toMatch(/lane01/);
    const after = lane.stored.filter((r) => r.offset >= lane.registeredAt);
    expect(after.filter((r) => r.event.type === "model.text_delta").length).toBeGreaterThan(1);
    expect(JSON.stringify(after)).not.toContain(lane.registered);
  });

  it.each([
    ["a stream id ending in digits before -evt-", "9-evt-9", "9-evt-9"],
    // sk- and 14 characters before the digits: a key (16+) from offset 10 on, not before.
    ["a stream id that becomes a key once offsets reach two digits", "sk-abcdefghi", "r-2"],
    ["a registered credential ending where offsets begin", PFX, "r-3"],
  ])("ids near -evt-: %s", async (_case, streamId, runId) => {
    const lane = await sameWithAndWithoutLane({
      streamId,
      runId,
      agent: every(Array.from({ length: 30 }, (_, i) => `t${i} `)),
      ...(streamId === PFX ? { laneDeclines: true as const } : {}),
    });
    for (const out of [lane.journal, lane.status, lane.projections]) {
      expect(out).not.toMatch(/sk-abcdefghi-evt-\d\d/);
      expect(out).not.toContain(`${PFX}-evt-1`);
    }
  });

  it("offsets crossing a digit count (a sink continuing a journal at offset 9,990)", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-resumed",
      runId: "run-resumed",
      startOffset: 9_990,
      agent: every(Array.from({ length: 30 }, (_, i) => (i === 12 ? KEY : `t${i} `))),
    });
    const offsets = lane.stored.map((r) => r.offset);
    expect(Math.min(...offsets)).toBeLessThan(10_000);
    expect(Math.max(...offsets)).toBeGreaterThan(10_000);
    expect(lane.journal).not.toContain(KEY);
  });

  it("reasoning with and without signatures, switching with text", async () => {
    await sameWithAndWithoutLane({
      streamId: "run-r",
      runId: "run-r",
      agent: (clock) =>
        createAgent({
          model: new StreamingMock([
            [
              start,
              { type: "reasoning_delta", text: "thinking " },
              { type: "reasoning_delta", text: "about sk-proj-" },
              { type: "reasoning_delta", text: "AbCdEfGhIjKlMnOp" },
              { type: "reasoning_delta", text: "QrSt", signature: "sig-1" },
              { type: "reasoning_delta", text: "more " },
              { type: "reasoning_delta", text: "more" },
              { type: "text_delta", text: "answer " },
              { type: "text_delta", text: "is " },
              { type: "reasoning_delta", text: "wait " },
              { type: "reasoning_delta", text: `${CRED} ` },
              { type: "text_delta", text: "final" },
              stop,
            ],
          ]),
          clock,
          ids: new DeterministicIds(),
        }),
    });
  });

  it("very long deltas", async () => {
    const long = `${"lorem ipsum ".repeat(20_000)}${KEY} ${"x".repeat(70_000)}`;
    const lane = await sameWithAndWithoutLane({
      streamId: "run-long",
      runId: "run-long",
      agent: every(["first ", long, long, "y".repeat(100_000)]),
    });
    expect(lane.journal).not.toContain(KEY);
  });

  it("a run aborted mid-stream", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-abort",
      runId: "run-abort",
      agent: every(Array.from({ length: 20 }, (_, i) => `w${i} `)),
      abortAfterDeltas: 7,
    });
    expect(lane.failure ?? lane.stored.map((r) => r.event.type).join()).toMatch(/cancel|interrupt|abort/i);
  });

  it("a slow journal with back-pressure (overflow: wait, tiny queue and batches)", async () => {
    const slow = (): HarnessEventJournal => {
      const inner = new InMemoryEventJournal();
      let turn = 0;
      return Object.assign(Object.create(inner) as HarnessEventJournal, {
        appendMany: async (batch: readonly AgentObservation[]) => {
          // Each batch waits a few microtask turns: storage lags behind the stream.
          for (let i = 0; i < 3 + (turn++ % 4); i++) await Promise.resolve();
          await inner.appendMany(batch);
        },
      });
    };
    await sameWithAndWithoutLane({
      streamId: "run-slow",
      runId: "run-slow",
      agent: tree(
        Array.from({ length: 40 }, (_, i) => `a${i} `),
        Array.from({ length: 25 }, (_, i) => `b${i} `),
      ),
      journal: slow,
      options: { journalOverflow: "wait", maxQueue: 4, batchSize: 2 },
    });
  });

  it.each([
    ["a queue that overflows and drops (journal.dropped reported the same)", { maxQueue: 3, batchSize: 1 }],
    [
      "journalEvents: all (bookkeeping events journaled between the deltas)",
      { journalEvents: "all" as const },
    ],
    ["redaction without the built-in rules (registered credentials only)", { redact: { defaults: false } }],
    ["another replacement and extra field names", { redact: { replacement: "<gone>", fields: ["note"] } }],
  ])("%s", async (_case, options) => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-opts",
      runId: "run-opts",
      agent: tree(
        Array.from({ length: 30 }, (_, i) => `a${i} `),
        Array.from({ length: 20 }, (_, i) => `b${i} `),
      ),
      options,
    });
    if ("maxQueue" in options) {
      expect(lane.dropped).toBeGreaterThan(0);
      expect(lane.stored.map((r) => r.event.type)).toContain("journal.dropped");
    }
  });

  it("a journal that fails some batches (the same records lost, reported the same)", async () => {
    const failing = (): HarnessEventJournal => {
      const inner = new InMemoryEventJournal();
      let batches = 0;
      return Object.assign(Object.create(inner) as HarnessEventJournal, {
        appendMany: async (batch: readonly AgentObservation[]) => {
          if (++batches % 3 === 0) throw new Error("disk full");
          await inner.appendMany(batch);
        },
      });
    };
    const lane = await sameWithAndWithoutLane({
      streamId: "run-fail",
      runId: "run-fail",
      agent: tree(
        Array.from({ length: 30 }, (_, i) => `a${i} `),
        Array.from({ length: 30 }, (_, i) => `b${i} `),
      ),
      journal: failing,
      options: { batchSize: 3 },
    });
    expect(lane.errors.length).toBeGreaterThan(0);
  });

  it("custom redaction patterns and fields (the lane steps aside; a pattern only the joined text matches)", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-custom",
      runId: "run-custom",
      agent: every(["order ", "ORD-", "12", "34-", "5678", " shipped"]),
      options: { redact: { patterns: [/ORD-\d{4}-\d{4}/g], fields: ["note"] } },
      laneDeclines: true,
    });
    expect(lane.journal).not.toContain("ORD-1234-5678");
  });
});

/** The stored text of one run's text deltas, in order. */
function storedText(stored: readonly AgentObservation[], runId: (id: string) => boolean): string[] {
  return stored
    .filter((r) => runId(r.runId) && r.event.type === "model.text_delta")
    .map((r) => (r.event as { text: string }).text);
}

describe("secrets streamed across the boundaries of a call's journal records", () => {
  it("a key starting in the call's first delta (stored alone) and ending in the merged rest", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-first",
      runId: "run-first",
      agent: every([KEY.slice(0, 12), KEY.slice(12, 28), KEY.slice(28), " done"]),
    });
    const parts = storedText(lane.stored, () => true);
    // The first record alone matches no shape; what follows it is redacted with it in view.
    expect(parts).toEqual([KEY.slice(0, 12), "[REDACTED] done"]);
    expect(lane.journal).not.toContain(KEY.slice(12, 28));
  });

  it("a key split across merged deltas, glued to the word of the call's first delta", async () => {
    // With the first delta in front, the joined text has no word boundary before "sk-": the
    // merge alone must still be redacted as it was.
    const lane = await sameWithAndWithoutLane({
      streamId: "run-glued",
      runId: "run-glued",
      agent: every(["x", KEY.slice(0, 12), KEY.slice(12), " done"]),
    });
    expect(storedText(lane.stored, () => true)).toEqual(["x", "[REDACTED] done"]);
  });

  it("a key split by a sibling sub-agent's record (the tree's merges are released mid-key)", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "tree-split",
      runId: "tree-split",
      agent: tree(
        ["Hi ", "a2 ", "a3 ", "a4 ", "sk-proj-", "AbCdEfGh", "IjKlMnOp", "QrStUvWx", " bye"],
        ["b1 ", "b2 "],
      ),
    });
    const alpha = storedText(lane.stored, (id) => id.startsWith("alpha"));
    // Beta's completion split alpha's text into three records; the key is redacted across them
    // (each later record replaces its own part of it).
    expect(alpha.length).toBeGreaterThan(2);
    expect(alpha.join("")).toBe("Hi a2 a3 a4 sk-proj-[REDACTED][REDACTED] bye");
    for (const piece of ["AbCdEfGh", "IjKlMnOp", "QrStUvWx"]) expect(lane.journal).not.toContain(piece);
  });

  // A delta that completes a key shape by itself is redacted alone ("[REDACTED]") on its way to
  // the journal; the merge keeps the deltas' raw text, so the key's rest, streamed in the next
  // deltas, is still seen as part of the key when the merge is redacted.
  it("a key completed within one delta, its rest in the next", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-tail",
      runId: "run-tail",
      agent: every(["a ", KEY.slice(0, 26), KEY.slice(26), " done"]),
    });
    expect(storedText(lane.stored, () => true)).toEqual(["a ", "[REDACTED] done"]);
    expect(lane.journal).not.toContain(KEY.slice(26));
  });

  it("a key completed by its first of three deltas, its rest in the other two", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-three",
      runId: "run-three",
      agent: every(["a ", KEY.slice(0, 24), KEY.slice(24, 32), KEY.slice(32), " done"]),
    });
    expect(storedText(lane.stored, () => true)).toEqual(["a ", "[REDACTED] done"]);
    for (const piece of [KEY.slice(24, 32), KEY.slice(32)]) expect(lane.journal).not.toContain(piece);
  });

  it("a key completed in the call's first delta (stored alone), its rest merged", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-first-tail",
      runId: "run-first-tail",
      agent: every([KEY.slice(0, 26), KEY.slice(26, 32), KEY.slice(32), " done"]),
    });
    expect(storedText(lane.stored, () => true)).toEqual(["[REDACTED]", "[REDACTED] done"]);
    expect(lane.journal).not.toContain(KEY.slice(26, 32));
  });

  it("a key glued to the word before it within the merge (a word boundary only in its own delta)", async () => {
    const other = "sk-ZyXwVuTsRqPoNmLkJiHg9876";
    const lane = await sameWithAndWithoutLane({
      streamId: "run-glue",
      runId: "run-glue",
      agent: every(["hi", " or x", other, " end"]),
    });
    expect(storedText(lane.stored, () => true)).toEqual(["hi", " or x[REDACTED] end"]);
    expect(lane.journal).not.toContain(other.slice(3));
  });

  it("a registered credential across three deltas, glued, and whole in a later delta", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-cred",
      runId: "run-cred",
      agent: every(["c ", "x", CRED.slice(0, 6), CRED.slice(6, 12), CRED.slice(12), ` y${CRED}z`, " ok"]),
    });
    expect(storedText(lane.stored, () => true)).toEqual(["c ", "x[REDACTED] y[REDACTED]z ok"]);
  });

  it("keep shapes keep their label: an assignment completed in one delta and continued, a Bearer token split", async () => {
    const lane = await sameWithAndWithoutLane({
      streamId: "run-keep",
      runId: "run-keep",
      agent: every([
        "x ",
        "password=hunt",
        "er2hunter2 ok",
        " auth: Bearer ",
        "abcd1234",
        "efgh5678",
        " end",
      ]),
    });
    expect(storedText(lane.stored, () => true)).toEqual([
      "x ",
      "password=[REDACTED] ok auth: Bearer [REDACTED] end",
    ]);
    for (const piece of ["hunter2", "er2", "abcd1234", "efgh5678"]) expect(lane.journal).not.toContain(piece);
  });

  it("a registered credential split by a flush between its deltas", async () => {
    // The keeper of a top-level run flushes only at its end: flush by hand mid-stream.
    const lane = await sameWithAndWithoutLane({
      streamId: "run-flush",
      runId: "run-flush",
      agent: every(["creds: ", "x ", CRED.slice(0, 8), CRED.slice(8), " ok"]),
      flushAtDelta: 4,
    });
    expect(storedText(lane.stored, () => true)).toEqual([
      "creds: ",
      `x ${CRED.slice(0, 8)}`,
      "[REDACTED] ok",
    ]);
    expect(lane.journal).not.toContain(CRED.slice(8));
  });
});
