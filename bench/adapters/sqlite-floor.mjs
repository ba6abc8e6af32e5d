// The SQLite storage floor (issue 40): the hand-written loop plus what the raw driver
// (better-sqlite3) needs to write for a crash-proof, inspectable run, nothing else. Per step, in
// ONE IMMEDIATE transaction (one commit per step): one journal row for the model response, one
// per tool result, and the run's status row (inserted on the first step, then updated). Same file
// layout, schema and pragmas as the store (the file is created by `SqliteStore.open`: WAL,
// synchronous NORMAL, busy timeout, secure delete), statements prepared once, JSON encoded once per record.
// The journaled tinyagents rows are reported as a ratio to this one.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { scriptedModel } from "./hand-written.mjs";

export const info = { name: "sqlite-floor", storage: "sqlite" };

export { loopText } from "./hand-written.mjs";

const Database = createRequire(import.meta.resolve("@tinyagents/harness/sqlite"))("better-sqlite3");
const dir = mkdtempSync(join(tmpdir(), "tinyagents-bench-sqlite-floor-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A fresh file with the store's schema and pragmas, opened with the raw driver. */
export function openFloorDb() {
  const file = join(dir, `floor-${++files}.sqlite`);
  SqliteStore.open(file).close(); // schema, WAL (persistent), user_version
  const db = new Database(file);
  db.pragma("busy_timeout = 5000");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("secure_delete = ON");
  process.once("exit", () => db.close());
  return db;
}

/** A step writer over `db`: `write(runId, step, records, status)` in one transaction. */
export function sqliteFloorWriter(db) {
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const insert = db.prepare("INSERT INTO log (stream, offset, value) VALUES (?, ?, ?)");
  const insertStatus = db.prepare(
    "INSERT INTO run_status (run_id, root_run_id, thread_id, status, active, started_at, updated_at, ended_at, record) VALUES (?, ?, NULL, ?, 1, ?, ?, NULL, ?)",
  );
  const updateStatus = db.prepare(
    "UPDATE run_status SET status = ?, active = ?, updated_at = ?, ended_at = ?, record = ? WHERE run_id = ?",
  );
  return (runId, offset, lines, status, now) => {
    begin.run();
    try {
      for (let i = 0; i < lines.length; i++) insert.run(runId, offset + i, lines[i]);
      const record = JSON.stringify(status);
      if (status.step === 1) insertStatus.run(runId, runId, status.phase, now, now, record);
      else {
        const done = status.phase !== "running";
        updateStatus.run(status.phase, done ? 0 : 1, now, done ? now : null, record, runId);
      }
      commit.run();
    } catch (error) {
      db.prepare("ROLLBACK").run();
      throw error;
    }
  };
}

/** The hand-written loop, journaling each step through `write` (see the header). */
/** Run ids unique in the process: the Postgres floor's loops share one schema. */
let runs = 0;

export function journaledLoop({ steps, yieldEachCall, counters }, write) {
  const invoke = scriptedModel(steps, yieldEachCall, counters);
  const tools = { echo: async ({ n }) => String(n) };
  return async function run() {
    const runId = `floor-run-${++runs}`;
    const messages = [{ role: "user", content: "go" }];
    let offset = 0;
    let step = 0;
    for (;;) {
      const reply = await invoke(messages);
      messages.push(reply);
      step++;
      const lines = [JSON.stringify({ type: "model.completed", step, message: reply })];
      for (const call of reply.toolCalls) {
        counters.tool++;
        const output = await tools[call.name](call.arguments);
        const message = { role: "tool", toolCallId: call.id, content: output };
        messages.push(message);
        lines.push(JSON.stringify({ type: "tool.completed", step, message }));
      }
      const phase = reply.toolCalls.length === 0 ? "done" : "running";
      await write(runId, offset, lines, { runId, phase, step }, Date.now());
      offset += lines.length;
      if (phase === "done") return messages;
    }
  };
}

export function createLoop({ steps, yieldEachCall = false, counters }) {
  return journaledLoop({ steps, yieldEachCall, counters }, sqliteFloorWriter(openFloorDb()));
}

/** Storage is written synchronously, step by step: nothing to wait for. */
export async function settle() {}
