// The Postgres journal and status store wired the way the CLI wires SQLite (see cli-wiring.mjs),
// with `@tinyagents/postgres` in place of the SQLite file: one PostgresStore (a schema of its
// own per process, on the throwaway server `bench/run.mjs` starts with startTestPostgres and
// names in TINYAGENTS_BENCH_POSTGRES_URL), an AppendLogEventJournal over its append log with the
// "journal-" stream prefix, its status store; per run the same observedRun as the SQLite rows.
import { AppendLogEventJournal } from "@tinyagents/harness";
import { PostgresStore } from "@tinyagents/postgres";

export { observedRun } from "./cli-wiring.mjs";

let stores = 0;

/**
 * A fresh store (its own schema) on the bench's server, opened by URL as docs/scale-out/postgres.md
 * shows (the store's own pool: one connection kept while idle, none keeping the process alive).
 */
export async function openPostgresStore() {
  const url = process.env.TINYAGENTS_BENCH_POSTGRES_URL;
  if (url === undefined || url === "") {
    throw new Error(
      "TINYAGENTS_BENCH_POSTGRES_URL is not set: run the Postgres adapter through bench/run.mjs, which starts a throwaway server",
    );
  }
  const store = await PostgresStore.open({ url, schema: `bench_${process.pid}_${++stores}`, max: 10 });
  return { journal: new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" }), store };
}
