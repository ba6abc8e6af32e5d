/**
 * A Postgres store opened with a password in its URL never prints it (issue 35): the store, its
 * sub-stores and its pool through `JSON.stringify` (or the error a circular driver object throws),
 * `util.inspect` and `String`; a supervisor over it and its report; a driver error of a live
 * store (which names the table and database) and a failed open's error, with their `cause` chains.
 * Integration tier: a throwaway Postgres. Budget: ~5 s.
 */
import { startSupervisor } from "@tinyagents/harness";
import { DeterministicClock } from "@tinyagents/harness/testkit";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectNoSecrets as expectNoneOf,
  printed,
  printedError,
} from "../../harness/test/support/printed-secrets.js";

const PG_SECRET = "pg-password-4d5e6f7a8b";

const expectNoSecrets = (text: string) => expectNoneOf(text, [PG_SECRET]);

describe.skipIf(skipPostgres())("a Postgres store opened with a password in its URL", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("prints no password: the store, its sub-stores and its pool", async () => {
    // Trust auth accepts any password: the URL carries one as a real deployment's would.
    const url = pg.url.replace("postgres@", `postgres:${PG_SECRET}@`);
    const store = await PostgresStore.open({ url, schema: "t_secrets" });
    try {
      const subStores = [store.keyValue, store.appendLog, store.statusStore, store.responseCache];
      for (const value of [store, ...subStores, store.checkpoints, store.pausedRuns, store.pool]) {
        expectNoSecrets(printed(value));
      }
      expect(JSON.stringify(store)).toContain("t_secrets");
      // A supervisor over the store (its first pass finds nothing to recover) and its report.
      const supervisor = startSupervisor({ store, intervalMs: 60_000, clock: new DeterministicClock() });
      await supervisor.stop();
      expectNoSecrets(printed(supervisor));
      expectNoSecrets(printed(supervisor.lastReport));
      // A driver error of the live store names the table and the database, not the password.
      await store.pool.query(`DROP TABLE "t_secrets".kv`);
      const error = await store.keyValue.get("ns", "k").catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "storage", details: { pgCode: "42P01" } });
      expectNoSecrets(printedError(error));
    } finally {
      await store.close();
    }
  });

  it("a failed open: no password in the error or its cause chain", async () => {
    const error = await PostgresStore.open(`postgres://postgres:${PG_SECRET}@127.0.0.1:9/none`).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeDefined();
    expectNoSecrets(printedError(error));
  });
});
