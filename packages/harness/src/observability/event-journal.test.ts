import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import { InMemoryAppendLog } from "../store/append-log.js";
import { JsonlAppendLog } from "../store/jsonl-append-log.js";
import type { AgentObservation } from "./agent-observation.js";
import { AppendLogEventJournal } from "./append-log-event-journal.js";
import type { HarnessEventJournal } from "./event-journal.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";

const dirs: string[] = [];
const logs: JsonlAppendLog[] = [];
afterAll(async () => {
  await Promise.all(logs.map((log) => log.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A run tree: root "r" with child "r.c" (depth 1), 6 observations. */
function tree(root: string): AgentObservation[] {
  const events: [string, AgentEvent][] = [
    [root, { type: "run.started", input: 1 }],
    [root, { type: "tool.started", callId: "t1", toolName: "delegate", arguments: {} }],
    [`${root}.c`, { type: "run.started", input: 1 }],
    [
      `${root}.c`,
      {
        type: "run.completed",
        modelCalls: 0,
        toolCalls: 0,
        usage: {
          calls: 0,
          inputTokens: 0,
          outputTokens: 0,
          totalTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
        cost: { currency: "USD", input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
    ],
    [
      root,
      {
        type: "tool.completed",
        callId: "t1",
        toolName: "delegate",
        durationMs: 5,
        isError: false,
        outputBytes: 2,
      },
    ],
    [root, { type: "run.interrupted", reason: "test" }],
  ];
  return events.map(([runId, event], offset) => ({
    id: `${root}-evt-${offset}`,
    offset,
    ts: 1000 + offset,
    runId,
    rootRunId: root,
    depth: runId === root ? 0 : 1,
    ...(runId === root ? {} : { parentRunId: root }),
    event,
  }));
}

const journals: [string, () => HarnessEventJournal][] = [
  ["in memory", () => new InMemoryEventJournal()],
  ["over an in-memory AppendLog", () => new AppendLogEventJournal(new InMemoryAppendLog())],
  [
    "over a JSONL AppendLog",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "tinyagents-journal-"));
      dirs.push(dir);
      const log = new JsonlAppendLog(dir);
      logs.push(log);
      return new AppendLogEventJournal(log);
    },
  ],
];

describe.each(journals)("HarnessEventJournal %s", (_name, make) => {
  it("stores run trees apart and reads them back verbatim, in order", async () => {
    const journal = make();
    const a = tree("run-a");
    const b = tree("run/b");
    await journal.appendMany([...a.slice(0, 3), ...b]);
    for (const o of a.slice(3)) await journal.append(o);
    expect(await journal.read("run-a")).toEqual(a);
    expect(await journal.read("run/b")).toEqual(b);
    expect((await journal.rootRuns()).sort()).toEqual(["run-a", "run/b"]);
    expect(await journal.read("nope")).toEqual([]);
  });

  it("reads windows and filters", async () => {
    const journal = make();
    const a = tree("r");
    await journal.appendMany(a);
    expect((await journal.read("r", { fromOffset: 2, toOffset: 4 })).map((o) => o.offset)).toEqual([2, 3]);
    expect((await journal.read("r", { fromOffset: 1, limit: 2 })).map((o) => o.offset)).toEqual([1, 2]);
    expect((await journal.read("r", { runId: "r.c" })).map((o) => o.event.type)).toEqual([
      "run.started",
      "run.completed",
    ]);
    expect(
      (await journal.read("r", { types: ["tool.started", "tool.completed"] })).map((o) => o.offset),
    ).toEqual([1, 4]);
    await expect(journal.read("r", { limit: -1 })).rejects.toThrow(/limit/);
  });

  it("replays from an offset to an async listener, in order", async () => {
    const journal = make();
    await journal.appendMany(tree("r"));
    const seen: number[] = [];
    const count = await journal.replay("r", 3, async (o) => {
      await Promise.resolve();
      seen.push(o.offset);
    });
    expect(count).toBe(3);
    expect(seen).toEqual([3, 4, 5]);
  });
});

describe("InMemoryEventJournal bounds", () => {
  it("evicts the oldest run tree when more than maxRuns are held", async () => {
    const journal = new InMemoryEventJournal({ maxRuns: 2 });
    for (const root of ["a", "b", "c"]) await journal.appendMany(tree(root));
    expect(await journal.rootRuns()).toEqual(["b", "c"]);
    expect(await journal.read("a")).toEqual([]);
    expect(journal.size).toBe(12);
    expect(() => new InMemoryEventJournal({ maxRuns: 0 })).toThrow(/maxRuns/);
  });
});
