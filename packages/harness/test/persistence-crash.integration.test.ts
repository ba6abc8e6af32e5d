/**
 * Crash test: a child process appends to a JSONL append log and to a SQLite store in a loop,
 * printing each acknowledged offset; it is SIGKILLed mid-write. Reopening must lose no
 * acknowledged entry, keep offsets monotonic (and never renumber them), and ignore a torn last
 * line with a warning. The batched journal (group commit, as the CLI wires it) keeps the same
 * promise for what `flush()` acknowledged.
 *
 * Budget: about 5 s on 2 cores at load 15 (two writer processes, 300 and 100 acknowledgements
 * before the kill; 4.5 s measured). The children load transpile-cached sources
 * (fixtures/ts-loader.mjs): the first run after a source change pays the transpile, ~15 s.
 */
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppendLogEventJournal } from "@tinyagents/harness";
import { JsonlAppendLog } from "@tinyagents/harness/node";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import type { StoreWarning } from "@tinyagents/harness/store";
import { afterEach, describe, expect, it } from "vitest";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Ack {
  i: number;
  jsonl: number;
  sqlite: number;
}

/** Run the writer until `minAcks` acknowledgements arrived, then SIGKILL it (mid-write). */
async function runAndKill(minAcks: number): Promise<Ack[]> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      join(fixtures, "register-ts.mjs"),
      join(fixtures, "crash-writer.ts"),
      dir,
      join(dir, "db.sqlite"),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const acks: Ack[] = [];
  let stderr = "";
  let buffered = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      const [, i, jsonl, sqlite] = line.split(" ").map(Number);
      acks.push({ i: i as number, jsonl: jsonl as number, sqlite: sqlite as number });
      if (acks.length === minAcks) child.kill("SIGKILL");
    }
  });
  const signal = await exited;
  if (signal !== "SIGKILL") throw new Error(`the writer exited on its own (${String(signal)}): ${stderr}`);
  return acks;
}

describe("crash safety", () => {
  it("loses no acknowledged entry of a JSONL log or a SQLite store when the writer is killed mid-write", async () => {
    dir = mkdtempSync(join(tmpdir(), "tinyagents-crash-"));
    const acks = await runAndKill(300);
    expect(acks.length).toBeGreaterThanOrEqual(300);
    // Acknowledged offsets are monotonic (dense, even) in both stores.
    expect(acks.map((a) => a.jsonl)).toEqual(acks.map((_, k) => k));
    expect(acks.map((a) => a.sqlite)).toEqual(acks.map((_, k) => k));

    // A kill may or may not land inside a write; make sure a torn tail exists either way.
    const file = join(dir, "journal.jsonl");
    if (readFileSync(file, "utf8").endsWith("\n")) appendFileSync(file, '{"i":999999,"pad":"xxxx');

    const warnings: StoreWarning[] = [];
    const log = new JsonlAppendLog(dir, { onWarning: (w) => warnings.push(w) });
    const entries = await log.readFrom("journal", 0, 1_000_000);
    const byOffset = new Map(entries.map((e) => [e.offset, e.value as { i: number; pad: string }]));
    for (const ack of acks) {
      const value = byOffset.get(ack.jsonl);
      expect(value?.i).toBe(ack.i);
      expect(value?.pad.length).toBe((ack.i * 7919) % 262_144);
    }
    expect(entries.map((e) => e.offset)).toEqual(entries.map((_, k) => k)); // nothing renumbered or skipped
    expect(warnings.map((w) => w.code)).toEqual(["torn_tail"]);
    // Appending after the crash continues past every acknowledged offset without renumbering.
    const next = await log.append("journal", { i: -1, pad: "" });
    expect(next).toBeGreaterThan(acks.at(-1)?.jsonl ?? -1);
    expect((await log.readFrom("journal", acks.at(-1)?.jsonl ?? 0, 1))[0]?.value).toMatchObject({
      i: acks.at(-1)?.i,
    });
    await log.close();

    const store = SqliteStore.open(join(dir, "db.sqlite"));
    try {
      const rows = await store.appendLog.readFrom("journal", 0, 1_000_000);
      const sqliteByOffset = new Map(rows.map((r) => [r.offset, r.value as { i: number }]));
      for (const ack of acks) expect(sqliteByOffset.get(ack.sqlite)?.i).toBe(ack.i);
      expect(rows.map((r) => r.offset)).toEqual(rows.map((_, k) => k));
      expect(await store.keyValue.get("acks", "last")).toBeGreaterThanOrEqual(acks.at(-1)?.i ?? 0);
      expect(await store.appendLog.append("journal", { i: -1 })).toBe(rows.length);
    } finally {
      store.close();
    }
  }, 60_000);
});

describe("crash safety of the batched journal and status store (group commit)", () => {
  it("loses no event or status of a run whose flush() resolved when the writer is killed", async () => {
    dir = mkdtempSync(join(tmpdir(), "tinyagents-crash-batched-"));
    const db = join(dir, "db.sqlite");
    const child = spawn(
      process.execPath,
      ["--import", join(fixtures, "register-ts.mjs"), join(fixtures, "crash-journal-writer.ts"), db],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const acks: { runId: string; events: number }[] = [];
    let stderr = "";
    let buffered = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        const [, runId, events] = line.split(" ");
        acks.push({ runId: runId as string, events: Number(events) });
        if (acks.length === 100) child.kill("SIGKILL");
      }
    });
    const signal = await exited;
    if (signal !== "SIGKILL") throw new Error(`the writer exited on its own (${String(signal)}): ${stderr}`);
    expect(acks.length).toBeGreaterThanOrEqual(100);

    const store = SqliteStore.open(db);
    try {
      const journal = new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" });
      for (const ack of acks) {
        const journaled = await journal.read(ack.runId);
        // Every emitted event is there: merged delta records stand for `deltas` events each.
        const count = journaled.reduce(
          (n, o) =>
            n + (o.event.type === "model.text_delta" ? ((o.event as { deltas?: number }).deltas ?? 1) : 1),
          0,
        );
        expect(count, ack.runId).toBe(ack.events);
        expect(journaled.at(-1)?.event.type).toBe("run.completed");
        expect((await store.statusStore.get(ack.runId))?.status, ack.runId).toBe("completed");
      }
    } finally {
      store.close();
    }
  }, 120_000);
});
