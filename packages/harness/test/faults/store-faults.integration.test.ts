/**
 * Store faults: a journal or status store that throws on write, a full disk (an injected ENOSPC
 * from the file handle, whole or after a partial write), a short-term memory store that throws,
 * a journal file truncated under the log, and two processes appending to one JSONL journal.
 *
 * Documented outcomes:
 * - observability storage failures never fail the run: the run completes, the loss is reported
 *   (`journal.dropped { reason: "write_failed" }`, `onError` with a `storage` error, and the
 *   run's own `recordsLost`);
 * - a memory write failure fails the run with `storage` (the partial transcript is kept, the
 *   stored history is untouched); a memory read failure fails it with `storage` too;
 * - a torn journal tail is skipped with a warning and appending continues without renumbering;
 *   a journal that shrank below what was read is a `storage` error, never silent renumbering;
 * - two writers never interleave lines and each finds its own acknowledged offsets.
 *
 * Budget: about 2 s on 2 cores at load 15, most of it the two-writer process race (1.4 s measured
 * with the transpile cache of fixtures/ts-loader.mjs warm, ~12 s cold).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type AgentObservation,
  AppendLogEventJournal,
  type HarnessEventJournal,
  type HarnessStatusStore,
  InMemoryAppendLog,
  InMemoryHarnessStatusStore,
  StoreChatHistory,
} from "@tinyagents/harness";
import { JsonlAppendLog } from "@tinyagents/harness/node";
import type { StoreWarning } from "@tinyagents/harness/store";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { type Message, TinyAgentsError } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BOTH_PATHS, eventsOf, expectBalancedMiddleware, expectFailedRun, runFault } from "./fault-kit.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-store-fault-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const script = () => new ScriptedModel([{ toolCalls: [{ name: "lookup" }] }, "done"]);
const lookup = () => FakeTool.returning("lookup", "ok");

/** A journal whose writes always fail with a storage error (reads see nothing). */
class BrokenJournal implements HarnessEventJournal {
  writes = 0;
  async append(): Promise<void> {
    this.writes++;
    throw new TinyAgentsError("storage", "journal backend unavailable");
  }
  async appendMany(): Promise<void> {
    return this.append();
  }
  async read(): Promise<AgentObservation[]> {
    return [];
  }
  async replay(): Promise<number> {
    return 0;
  }
  async rootRuns(): Promise<string[]> {
    return [];
  }
}

/** The prototype of the `FileHandle`s `node:fs/promises` opens (to inject write errors). */
async function fileHandlePrototype(): Promise<FileHandle> {
  const handle = await open(join(dir, "probe"), "w");
  await handle.close();
  return Object.getPrototypeOf(handle) as FileHandle;
}

/** Make every FileHandle write fail with ENOSPC, optionally after writing the first `partial` bytes. */
async function diskFull(partial?: number): Promise<{ failures: () => number }> {
  const proto = await fileHandlePrototype();
  const original = proto.write;
  let failures = 0;
  vi.spyOn(proto, "write").mockImplementation(async function (this: FileHandle, ...args: unknown[]) {
    failures++;
    if (partial !== undefined && Buffer.isBuffer(args[0])) {
      const buffer = args[0] as Buffer;
      await (original as (...a: unknown[]) => Promise<unknown>).call(
        this,
        buffer,
        0,
        Math.min(partial, buffer.length),
        null,
      );
    }
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 });
  } as never);
  return { failures: () => failures };
}

describe.each(BOTH_PATHS)("observability stores that fail (%s)", (_path, streaming) => {
  it("a journal that throws on write: the run completes and the loss is reported", async () => {
    const journal = new BrokenJournal();
    const result = await runFault({ models: { scripted: script() }, streaming, tools: [lookup()], journal });
    expect(result.error).toBeUndefined();
    expect(result.status.status).toBe("completed");
    expect(result.storedStatus?.status).toBe("completed");
    expectBalancedMiddleware(result.events);
    expect(result.types).toContain("run.completed");
    // Every event of the run was lost, and each loss is reported exactly once (the reports
    // themselves, lost too, are counted but not reported again: no feedback loop).
    const drops = eventsOf(result, "journal.dropped");
    expect(drops.length).toBeGreaterThan(0);
    expect(drops.every((d) => d.reason === "write_failed" && d.sink === "journal")).toBe(true);
    const runEvents = result.types.filter((t) => t !== "journal.dropped").length;
    expect(drops.reduce((n, d) => n + d.dropped, 0)).toBe(runEvents);
    // ... and the run's own result says its record is incomplete (not "completed" as if saved).
    expect(result.run.recordsLost).toMatchObject({ status: 0, error: { code: "storage" } });
    expect(result.run.recordsLost?.journal).toBeGreaterThanOrEqual(runEvents);
    expect(result.observabilityErrors.length).toBeGreaterThan(0);
    expect(result.observabilityErrors.every((e) => TinyAgentsError.isInstance(e, "storage"))).toBe(true);
    expect(result.leftover).toEqual([]);
  });

  it("a status store that throws on save: the run completes, the failure goes to onError", async () => {
    const broken: HarnessStatusStore = Object.assign(new InMemoryHarnessStatusStore(), {
      save: async () => {
        throw new TinyAgentsError("storage", "status backend unavailable");
      },
    });
    const result = await runFault({
      models: { scripted: script() },
      streaming,
      tools: [lookup()],
      statusStore: broken,
    });
    expect(result.error).toBeUndefined();
    expect(result.types.at(-1)).toBe("run.completed");
    expect(result.storedStatus).toBeUndefined();
    expect(result.observabilityErrors.some((e) => TinyAgentsError.isInstance(e, "storage"))).toBe(true);
    expect(result.run.recordsLost).toMatchObject({ journal: 0, error: { code: "storage" } });
    expect(result.run.recordsLost?.status).toBeGreaterThan(0);
    // The journal is unaffected.
    expect(result.journal.map((o) => o.event.type)).toEqual(result.types);
  });

  it("a full disk under the JSONL journal: drops are reported, and the log stays usable afterwards", async () => {
    const log = new JsonlAppendLog(dir, { onWarning: () => {} });
    const journal = new AppendLogEventJournal(log);
    const disk = await diskFull();
    const result = await runFault({ models: { scripted: script() }, streaming, tools: [lookup()], journal });
    vi.restoreAllMocks();
    expect(disk.failures()).toBeGreaterThan(0);
    expect(result.error).toBeUndefined();
    expect(result.status.status).toBe("completed");
    const errors = result.observabilityErrors as TinyAgentsError[];
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]?.code).toBe("storage");
    expect(errors[0]?.details?.errno).toBe("ENOSPC");
    expect(eventsOf(result, "journal.dropped").some((d) => d.reason === "write_failed")).toBe(true);
    expect(result.run.recordsLost?.error).toMatchObject({ code: "storage", details: { errno: "ENOSPC" } });
    // Space is back: appending works and nothing is corrupt.
    const offset = await log.append("journal-after", { ok: true });
    expect(await log.readFrom("journal-after", offset, 1)).toEqual([{ offset, value: { ok: true } }]);
    await log.close();
  });
});

describe("a full disk in the middle of a JSONL write", () => {
  it("leaves a torn line that is skipped; acknowledged entries keep their offsets", async () => {
    const warnings: StoreWarning[] = [];
    const log = new JsonlAppendLog(dir, { onWarning: (w) => warnings.push(w) });
    const before = await log.appendMany("s", [{ i: 0 }, { i: 1 }]);
    await diskFull(7);
    await expect(log.append("s", { i: 2, pad: "x".repeat(100) })).rejects.toMatchObject({
      code: "storage",
      details: { errno: "ENOSPC" },
    });
    vi.restoreAllMocks();
    await log.close();

    const reopened = new JsonlAppendLog(dir, { onWarning: (w) => warnings.push(w) });
    expect((await reopened.readFrom("s", 0, 10)).map((e) => e.value)).toEqual([{ i: 0 }, { i: 1 }]);
    expect(warnings.map((w) => w.code)).toEqual(["torn_tail"]);
    const next = await reopened.append("s", { i: 3 });
    // The torn fragment became a skipped line that keeps its offset; nothing was renumbered.
    expect(next).toBe(3);
    expect((await reopened.readFrom("s", 0, 10)).map((e) => [e.offset, e.value])).toEqual([
      [before[0], { i: 0 }],
      [before[1], { i: 1 }],
      [3, { i: 3 }],
    ]);
    expect(warnings.map((w) => w.code)).toEqual(["torn_tail", "corrupt_line"]);
    await reopened.close();
  });
});

/** A chat history over a log (its file writes can be made to fail). */
function fileMemory() {
  const log = new JsonlAppendLog(dir, { onWarning: () => {} });
  return { log, memory: { history: new StoreChatHistory({ log }) } };
}

describe.each(BOTH_PATHS)("short-term memory that fails (%s)", (_path, streaming) => {
  it("throws on write (disk full): the run fails with storage and the stored history is untouched", async () => {
    const { log, memory } = fileMemory();
    await memory.history.append("t1", [
      { role: "user", content: [{ type: "text", text: "earlier" }] } as Message,
    ]);
    await diskFull();
    const result = await runFault({
      models: { scripted: script() },
      streaming,
      tools: [lookup()],
      memory,
      config: { threadId: "t1" },
      // The journal must not share the full disk: keep it in memory.
      journal: new AppendLogEventJournal(new InMemoryAppendLog()),
    });
    vi.restoreAllMocks();
    expectFailedRun(result, {
      code: "storage",
      transcript: ["user", "user", "assistant", "tool", "assistant"],
    });
    expect(result.error?.message).toContain('saving thread "t1" failed');
    expect(result.status.error?.details).toEqual({ threadId: "t1" });
    expect((await memory.history.load("t1")).map((m) => m.role)).toEqual(["user"]);
    await log.close();
  });

  it("throws on read: the run fails with storage before any model call", async () => {
    const model = script();
    const result = await runFault({
      models: { scripted: model },
      streaming,
      memory: {
        history: {
          load: async () => {
            throw new Error("EIO: i/o error, read");
          },
          append: async () => {},
          clear: async () => {},
        },
      },
      config: { threadId: "t2" },
    });
    expectFailedRun(result, { code: "storage", transcript: [] });
    expect(result.error?.message).toContain('loading thread "t2" failed');
    expect(model.callCount).toBe(0);
  });
});

describe("a truncated journal file", () => {
  async function journalOfOneRun(): Promise<{ file: string; types: string[] }> {
    const log = new JsonlAppendLog(dir, { onWarning: () => {} });
    const result = await runFault({
      models: { scripted: script() },
      streaming: false,
      tools: [lookup()],
      journal: new AppendLogEventJournal(log),
      config: { runId: "trunc" },
    });
    await log.close();
    return { file: join(dir, "journal-trunc.jsonl"), types: result.types };
  }

  it("a torn last line is skipped with a warning; replay and appends go on", async () => {
    const { file, types } = await journalOfOneRun();
    const text = readFileSync(file, "utf8");
    const lastLine = text.slice(text.lastIndexOf("\n", text.length - 2) + 1);
    truncateSync(file, statSync(file).size - Math.floor(lastLine.length / 2));
    const warnings: StoreWarning[] = [];
    const log = new JsonlAppendLog(dir, { onWarning: (w) => warnings.push(w) });
    const journal = new AppendLogEventJournal(log);
    const read = await journal.read("trunc");
    expect(read.map((o) => o.event.type)).toEqual(types.slice(0, -1));
    const replayed: string[] = [];
    expect(await journal.replay("trunc", 0, (o) => void replayed.push(o.event.type))).toBe(types.length - 1);
    expect(replayed).toEqual(types.slice(0, -1));
    expect(warnings.map((w) => w.code)).toContain("torn_tail");
    await log.append("journal-trunc", { late: true });
    expect((await log.readFrom("journal-trunc", types.length, 1))[0]?.value).toEqual({ late: true });
    await log.close();
  });

  it("a file that shrank below what was read is a storage error, never a silent renumbering", async () => {
    const { file } = await journalOfOneRun();
    const log = new JsonlAppendLog(dir, { onWarning: () => {} });
    const journal = new AppendLogEventJournal(log);
    expect((await journal.read("trunc")).length).toBeGreaterThan(3);
    truncateSync(file, 10);
    await expect(journal.read("trunc")).rejects.toMatchObject({ code: "storage" });
    await expect(log.append("journal-trunc", { x: 1 })).rejects.toThrow(/shrank/);
    await log.close();
  });
});

describe("two processes append to one JSONL journal", () => {
  const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));

  function writer(
    id: string,
    count: number,
  ): { ready: Promise<void>; done: Promise<{ writer: string; offsets: number[] }> } {
    const child = spawn(
      process.execPath,
      [
        "--import",
        join(fixtures, "register-ts.mjs"),
        join(fixtures, "journal-writer.ts"),
        dir,
        "journal-root",
        id,
        String(count),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    let markReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith("ready\n")) markReady();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    const done = new Promise<{ writer: string; offsets: number[] }>((resolve, reject) => {
      child.on("exit", (code) => {
        if (code === 0)
          resolve(JSON.parse(out.slice("ready\n".length)) as { writer: string; offsets: number[] });
        else reject(new Error(`writer ${id} exited with ${String(code)}: ${err}`));
      });
    });
    return { ready, done };
  }

  it("never interleaves lines, loses nothing, and each writer's offsets point at its own entries", async () => {
    const count = 400;
    const writers = [writer("a", count), writer("b", count)];
    await Promise.all(writers.map((w) => w.ready));
    writeFileSync(join(dir, "go"), "");
    const [a, b] = await Promise.all(writers.map((w) => w.done));
    if (a === undefined || b === undefined) throw new Error("a writer reported nothing");
    const warnings: StoreWarning[] = [];
    const log = new JsonlAppendLog(dir, { onWarning: (w) => warnings.push(w) });
    const entries = await log.readFrom("journal-root", 0, 10_000);
    expect(warnings).toEqual([]);
    expect(entries).toHaveLength(2 * count);
    expect(entries.map((e) => e.offset)).toEqual(entries.map((_, i) => i));
    const byOffset = new Map(entries.map((e) => [e.offset, e.value as unknown as AgentObservation]));
    for (const { writer: id, offsets } of [a, b]) {
      expect(new Set(offsets).size).toBe(count);
      offsets.forEach((offset, i) => {
        const event = byOffset.get(offset)?.event;
        expect(event?.type === "tool.progress" ? event.callId : undefined).toBe(`${id}-${i}`);
      });
      // Each writer's own entries are in its own order.
      expect([...offsets].sort((x, y) => x - y)).toEqual(offsets);
    }
    // The writers really ran at the same time: their lines alternate in the file.
    const owners = entries.map((e) => (e.value as unknown as AgentObservation).runId);
    const switches = owners.filter((owner, i) => i > 0 && owner !== owners[i - 1]).length;
    expect(switches).toBeGreaterThanOrEqual(2);
    // The journal API reads the same tree back.
    const journal = new AppendLogEventJournal(log);
    expect(await journal.read("root")).toHaveLength(2 * count);
    await log.close();
  }, 60_000);
});
