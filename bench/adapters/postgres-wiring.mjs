// The Postgres journal and status store wired the way the CLI wires SQLite (see cli-wiring.mjs),
// with `@tinyagents/postgres` in place of the SQLite file: one PostgresStore (a schema of its
// own per process, on the throwaway server `bench/run.mjs` starts with startTestPostgres and
// names in TINYAGENTS_BENCH_POSTGRES_URL), an AppendLogEventJournal over its append log with the
// "journal-" stream prefix, its status store; per run the same observedRun as the SQLite rows.
import { AppendLogEventJournal } from "@tinyagents/harness";
import { PostgresStore } from "@tinyagents/postgres";
import pg from "pg";

export { observedRun } from "./cli-wiring.mjs";

let stores = 0;

/** A fresh store (its own schema) on the bench's server; the pool lets the process exit when idle. */
export async function openPostgresStore() {
  const url = process.env.TINYAGENTS_BENCH_POSTGRES_URL;
  if (url === undefined || url === "") {
    throw new Error(
      "TINYAGENTS_BENCH_POSTGRES_URL is not set: run the Postgres adapter through bench/run.mjs, which starts a throwaway server",
    );
  }
  // The store's default pool size (10); allowExitOnIdle so a finished child process exits.
  const pool = new pg.Pool({ connectionString: url, max: 10, allowExitOnIdle: true });
  // An idle connection ended by the server (a tool stopping its server at exit) is not a crash.
  pool.on("error", () => undefined);
  const store = await PostgresStore.open({ pool, schema: `bench_${process.pid}_${++stores}` });
  return { journal: new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" }), store };
}
