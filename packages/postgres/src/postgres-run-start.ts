import type { HarnessRunStatus } from "@tinyagents/harness";
import { validateStatus } from "@tinyagents/harness/observability";
import type pg from "pg";
import { pgCode } from "./postgres-errors.js";
import { statementName } from "./postgres-one-statement-commit.js";
import type { PostgresTables } from "./postgres-schema.js";
import { statusRow, statusUpsertTail } from "./postgres-status-row.js";
import { isRetryable } from "./postgres-transaction.js";

/**
 * A new run's record (a key-value row, created only when absent or expired) and its first,
 * active status (upserted under the status store's rule, only if the record was created) as ONE
 * statement: one round trip instead of BEGIN, two statements and COMMIT, and as atomic.
 * `$1..$4`: namespace, key, now, record; `$5..$14`: the status row (`statusRow`).
 */
export function runStartSql(t: PostgresTables, named = true): { name: string | undefined; text: string } {
  const text =
    `WITH created AS (INSERT INTO ${t.kv} AS kv (namespace, key, value, expires_at) VALUES ($1, $2, $4, NULL) ` +
    "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires_at = NULL " +
    "WHERE kv.expires_at IS NOT NULL AND kv.expires_at <= $3 RETURNING 1), " +
    `saved AS (INSERT INTO ${t.runStatus} AS cur (run_id, root_run_id, thread_id, status, active, started_at, updated_at, ended_at, lease_until, record) ` +
    "SELECT $5::text, $6::text, $7::text, $8::text, $9::boolean, $10::bigint, $11::bigint, $12::bigint, $13::bigint, $14::text " +
    `WHERE EXISTS (SELECT 1 FROM created) ${statusUpsertTail()}RETURNING 1) ` +
    // One row without columns when the record was created (its count is the command tag's); the
    // status upsert runs whether or not the outer query reads it, as every data-modifying CTE does.
    "SELECT FROM created";
  return { name: named ? statementName("tinyagents_start", text) : undefined, text };
}

/**
 * Run the start statement (`create`: the record's `[namespace, key, now, value]`); true when the
 * record was created. A deadlock or serialization failure runs it again (up to 3 times).
 */
export async function startRun(
  pool: pg.Pool,
  sql: { name: string | undefined; text: string },
  create: unknown[],
  status: HarnessRunStatus,
): Promise<boolean> {
  validateStatus(status);
  let named = sql.name !== undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      const { rowCount } = await pool.query({
        // A pooler that lost the named statement (26000): the same statement, unnamed.
        ...(named ? sql : { text: sql.text }),
        values: [...create, ...statusRow(status, true)],
      });
      return rowCount === 1;
    } catch (error) {
      if (named && pgCode(error) === "26000") named = false;
      else if (attempt >= 3 || !isRetryable(error)) throw error;
    }
  }
}
