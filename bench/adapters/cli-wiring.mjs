// The SQLite journal and status store wired exactly as the CLI wires them
// (packages/cli/src/core/cli-store.ts + execute-turn.ts) and as docs/persistence-observability.md
// tells users to: one SqliteStore file (WAL), an AppendLogEventJournal over its append log with
// the "journal-" stream prefix, its status store; per run a fresh EventSink,
// attachObservability({ journal, statusStore }) with the default redaction and projections,
// `agent.run(prompt, { runId, events })`, and obs.close() when the run ends. (The CLI also puts
// one run record in the key-value table per run; that is the CLI's listing, not the journal, and
// is left out.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppendLogEventJournal, attachObservability, EventSink } from "@tinyagents/harness";
import { SqliteStore } from "@tinyagents/harness/sqlite";

const dir = mkdtempSync(join(tmpdir(), "tinyagents-bench-sqlite-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
let files = 0;
let runs = 0;

/** A fresh store file, as `openCliStore` opens it. */
export function openCliLikeStore() {
  const store = SqliteStore.open(join(dir, `store-${++files}.sqlite`));
  process.once("exit", () => store.close());
  return { journal: new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" }), store };
}

/** Wrap `start(runId, events)` as the CLI's executeTurn does: sink, observability, close. */
export function observedRun(cli, start) {
  return async () => {
    const runId = `run-${++runs}`;
    const events = new EventSink(runId);
    const obs = attachObservability(events, { journal: cli.journal, statusStore: cli.store.statusStore });
    try {
      return await start(runId, events);
    } finally {
      await obs.close();
    }
  };
}

/** `obs.close()` waited for every write of the run: nothing left to wait for. */
export async function settle() {}
