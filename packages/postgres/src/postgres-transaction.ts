import type pg from "pg";
import { pgCode } from "./postgres-errors.js";

/** SQLSTATEs after which the whole transaction may simply run again. */
const RETRYABLE = new Set(["40P01", "40001"]);

/** Whether Postgres aborted the transaction only to let another writer through (rerun it). */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE.has(pgCode(error) ?? "");
}

/**
 * Run `work` in one transaction on a pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws. A deadlock or serialization failure (Postgres aborted it to let another writer through)
 * runs it again, up to `attempts` times, so `work` must only touch the database and state it
 * rebuilds on each call.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch (rollback) {
        broken = rollback as Error; // the connection is unusable: drop it from the pool
      }
      if (attempt >= attempts || !isRetryable(error)) throw error;
    } finally {
      client.release(broken);
    }
  }
}
