/**
 * Finishing a run at the retention bound on Postgres (issue 37 item 11): the store's eviction
 * reads the oldest finished rows through the run_status_finished index, not a sort of every
 * finished row. Against a throwaway server; time budget about 10 s.
 */
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

    it("keeps exactly maxFinishedRuns and evicts through the index", async () => {
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
      for (let i = 3_000; i < 3_050; i++) await store.statusStore.save(finished(i));
      const { rows } = await store.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM "retention".run_status WHERE active = false`,
      );
      expect(Number(rows[0]?.n)).toBe(2_000);
      await store.pool.query(`ANALYZE "retention".run_status`);
      const evict = (Reflect.get(store.statusStore, "sql") as { evict: string }).evict;
      const plan = await store.pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${evict.replace("$1", "1")}`);
      const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(text).toMatch(/Index (Only )?Scan using run_status_finished/);
    });
  },
);
