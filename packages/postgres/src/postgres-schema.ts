import { TinyAgentsError, validationError } from "@tinyagents/inference";
import type pg from "pg";
import { guardPg, pgDatabase } from "./postgres-errors.js";

/** The default schema of the tinyagents tables. */
export const DEFAULT_POSTGRES_SCHEMA = "tinyagents";

/** The schema version this library writes (the highest migration). */
export const POSTGRES_SCHEMA_VERSION = 1;

/** Qualified, quoted table names in one schema. */
export interface PostgresTables {
  schema: string;
  kv: string;
  log: string;
  logStreams: string;
  runStatus: string;
  responseCache: string;
  migrations: string;
}

/** Validate a schema name (lower-case SQL identifier, so quoting is exact) and name its tables. */
export function postgresTables(schema: string): PostgresTables {
  if (typeof schema !== "string" || !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw validationError(
      `schema must be a lower-case SQL identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`,
      { field: "schema" },
    );
  }
  const q = (table: string) => `"${schema}"."${table}"`;
  return {
    schema,
    kv: q("kv"),
    log: q("log"),
    logStreams: q("log_streams"),
    runStatus: q("run_status"),
    responseCache: q("response_cache"),
    migrations: q("schema_migrations"),
  };
}

/**
 * The migrations, in order; version i+1 is `MIGRATIONS[i]`. Never edit a released one: append.
 * Values are JSON text (exactly what `JSON.stringify` wrote); times are epoch ms (`bigint`).
 */
function migrations(t: PostgresTables): string[] {
  return [
    `
CREATE TABLE ${t.kv} (
  namespace text NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  expires_at bigint,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX kv_expires ON ${t.kv} (expires_at) WHERE expires_at IS NOT NULL;
-- One row per stream: its next offset. Appenders lock it (upsert), so a stream's offsets are
-- handed out one writer at a time, in commit order; the log's primary key is the backstop.
CREATE TABLE ${t.logStreams} (
  stream text PRIMARY KEY,
  next_offset bigint NOT NULL
);
CREATE TABLE ${t.log} (
  stream text NOT NULL,
  "offset" bigint NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (stream, "offset")
);
CREATE TABLE ${t.runStatus} (
  run_id text PRIMARY KEY,
  root_run_id text NOT NULL,
  thread_id text,
  status text NOT NULL,
  active boolean NOT NULL,
  started_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  ended_at bigint,
  lease_until bigint NOT NULL,
  record text NOT NULL
);
CREATE INDEX run_status_root ON ${t.runStatus} (root_run_id);
CREATE INDEX run_status_thread ON ${t.runStatus} (thread_id);
CREATE INDEX run_status_active ON ${t.runStatus} (active, lease_until);
CREATE INDEX run_status_started ON ${t.runStatus} (started_at, run_id);
CREATE TABLE ${t.responseCache} (
  key text PRIMARY KEY,
  value text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint
);
`,
    // 2: the oldest finished runs in eviction order, so finishing a run at the retention bound
    // deletes one row through this index instead of sorting every finished row (issue 37).
    `
CREATE INDEX run_status_finished ON ${t.runStatus} (ended_at NULLS FIRST, run_id) WHERE active = false;
`,
  ];
}

/**
 * Create the schema and apply the missing migrations, idempotently and safely when several
 * workers start at once: one transaction under an advisory lock per schema. Throws `storage`
 * when the database was migrated by a newer library (its version is above ours).
 */
export async function migratePostgres(pool: pg.Pool, t: PostgresTables): Promise<number> {
  return guardPg(
    `migrate schema "${t.schema}"`,
    async () => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`tinyagents.migrate.${t.schema}`]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${t.schema}"`);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
        );
        const { rows } = await client.query<{ v: number | null }>(
          `SELECT max(version) AS v FROM ${t.migrations}`,
        );
        const current = rows[0]?.v ?? 0;
        const all = migrations(t);
        if (current > all.length) {
          throw new TinyAgentsError(
            "storage",
            `Postgres schema "${t.schema}" is at version ${current}, this library knows up to ${all.length}; ` +
              "upgrade @tinyagents/postgres on this worker or use another schema",
            { details: { schema: t.schema, version: current } },
          );
        }
        for (let v = current + 1; v <= all.length; v++) {
          await client.query(all[v - 1] as string);
          await client.query(`INSERT INTO ${t.migrations} (version) VALUES ($1)`, [v]);
        }
        await client.query("COMMIT");
        return all.length;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    { database: pgDatabase(pool) },
  );
}
