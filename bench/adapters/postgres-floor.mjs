// The Postgres storage floor (issue 40): the hand-written loop plus what the raw driver (pg)
// needs to write for a crash-proof, inspectable run. Per step ONE statement, so one round trip
// and one commit: a CTE that inserts the step's journal rows (one for the model response, one per
// tool result, multi-row through unnest like the store) and upserts the run's status row. Tables
// created by `PostgresStore.open` (same schema, a schema of its own per process) on the server
// bench/run.mjs starts. The journaled Postgres row is reported as a ratio to this one.
import { PostgresStore } from "@tinyagents/postgres";
import pg from "pg";
import { journaledLoop } from "./sqlite-floor.mjs";

export const info = { name: "postgres-floor", storage: "postgres" };

export { loopText } from "./hand-written.mjs";

const url = process.env.TINYAGENTS_BENCH_POSTGRES_URL;
if (url === undefined || url === "") {
  throw new Error("TINYAGENTS_BENCH_POSTGRES_URL is not set: run the Postgres floor through bench/run.mjs");
}
const schema = `bench_floor_${process.pid}`;
// The pool settings PostgresStore.open gives the pool it creates (ours opens by URL): one
// connection kept while idle (no idle timer per query), none keeping the process alive.
const pool = new pg.Pool({ connectionString: url, max: 10, min: 1, allowExitOnIdle: true });
// An idle connection ended by the server (a tool stopping its server at exit) is not a crash.
pool.on("error", () => undefined);
await PostgresStore.open({ pool, schema });
const log = `"${schema}"."log"`;
const status = `"${schema}"."run_status"`;
const STEP_SQL =
  `WITH rows AS (INSERT INTO ${log} (stream, "offset", value) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])) ` +
  `INSERT INTO ${status} AS cur (run_id, root_run_id, thread_id, status, active, started_at, updated_at, ended_at, lease_until, record) ` +
  "VALUES ($4, $4, NULL, $5, $6, $7, $7, $8, 0, $9) ON CONFLICT (run_id) DO UPDATE SET " +
  "status = excluded.status, active = excluded.active, updated_at = excluded.updated_at, ended_at = excluded.ended_at, record = excluded.record";

async function write(runId, offset, lines, statusRecord, now) {
  const done = statusRecord.phase !== "running";
  const values = [
    lines.map(() => runId),
    lines.map((_, i) => offset + i),
    lines,
    runId,
    statusRecord.phase,
    !done,
    now,
    done ? now : null,
    JSON.stringify(statusRecord),
  ];
  await pool.query({ name: "bench_floor_step", text: STEP_SQL, values });
}

export function createLoop({ steps, yieldEachCall = false, counters }) {
  return journaledLoop({ steps, yieldEachCall, counters }, write);
}

export async function settle() {}
