/**
 * Finishing a run at the retention bound on Postgres (issue 37 item 11): the store's eviction
 * reads the oldest finished rows through the run_status_finished index, not a sort of every
 * finished row. Against a throwaway server; time budget about 10 s.
 */
import { databaseEvictBatch } from "@tinyagents/harness/observability";
import { conformanceStatus } from "@tinyagents/harness/testkit";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: TestPostgres;
let store: PostgresStore | undefined;

describe.skipIf(skipPostgres())(
  "Postgres status retention (skipped only by TINYAGENTS_SKIP_POSTGRES=1)",
  () => {
    beforeAll(async () => {
      server = await startTestPostgres();
    }, 60_000);
    afterAll(async () => {
      await store?.close();
      await server?.stop();
    });

    it("keeps the newest maxFinishedRuns (and fewer than a batch more), evicting in batches through the index", async () => {
      store = await PostgresStore.open({
        url: server.url,
        schema: "retention",
        max: 2,
        maxFinishedRuns: 2_000,
      });
      const finished = (i: number) =>
        conformanceStatus(`run-${String(i).padStart(5, "0")}`, {
          status: "completed",
          updatedAt: i,
          endedAt: i,
        });
      for (let from = 0; from < 3_000; from += 500) {
        await store.statusStore.saveMany(Array.from({ length: 500 }, (_, i) => finished(from + i)));
      }
      const evict = (Reflect.get(store.statusStore, "sql") as { evict: string }).evict;
      let evictions = 0;
      const query = store.pool.query.bind(store.pool) as (...a: unknown[]) => unknown;
      Object.assign(store.pool, {
        query: (...a: unknown[]) => {
          if (a[0] === evict) evictions++;
          return query(...a);
        },
      });
      for (let i = 3_000; i < 3_060; i++) await store.statusStore.save(finished(i));
      // 60 runs finished at the bound: one delete per batch of 15, not one per run.
      const batch = databaseEvictBatch(2_000);
      expect(batch).toBe(15);
      expect(evictions).toBeGreaterThanOrEqual(Math.floor(60 / batch) - 1);
      expect(evictions).toBeLessThanOrEqual(Math.ceil(60 / batch));
      const { rows } = await store.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM "retention".run_status WHERE active = false`,
      );
      expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(2_000);
      expect(Number(rows[0]?.n)).toBeLessThan(2_000 + batch);
      const newest = await store.statusStore.list({ active: false, order: "newest", limit: 2_000 });
      expect(newest.at(-1)?.runId).toBe(finished(1_060).runId);
      expect([0, 255, 8_192, 1_000_000].map(databaseEvictBatch)).toEqual([1, 1, 64, 64]);
      await store.pool.query(`ANALYZE "retention".run_status`);
      const plan = await store.pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${evict.replace("$1", "1")}`);
      const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(text).toMatch(/Index (Only )?Scan using run_status_finished/);
    });
  },
);
