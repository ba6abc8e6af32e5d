/**
 * Hostile ids (issue 37 items 7 and 8) on Postgres, against a throwaway server: lone surrogates
 * and NUL are refused with `validation` (the driver would turn each lone surrogate into U+FFFD,
 * so "lone-\uD800" and "lone-\uDBFF" would share one row), and hostile but valid ids stay apart.
 * Time budget: about 10 s (server start included).
 */
import { hostileKeyConformance, hostileStreamConformance } from "@tinyagents/harness/testkit";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, afterEach, beforeAll, describe, it } from "vitest";

let server: TestPostgres;
const stores: PostgresStore[] = [];
let schemas = 0;

async function open(): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url: server.url, schema: `hostile_${++schemas}`, max: 2 });
  stores.push(store);
  return store;
}

describe.skipIf(skipPostgres())(
  "Postgres with hostile ids (skipped only by TINYAGENTS_SKIP_POSTGRES=1)",
  () => {
    beforeAll(async () => {
      server = await startTestPostgres();
    }, 60_000);
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((s) => s.close()));
    });
    afterAll(async () => {
      await server?.stop();
    });

    describe("PostgresKeyValueStore", () => {
      for (const c of hostileKeyConformance({ open: async () => ({ store: (await open()).keyValue }) }))
        it(c.name, c.run);
    });
    describe("PostgresAppendLog", () => {
      for (const c of hostileStreamConformance({ open: async () => ({ log: (await open()).appendLog }) }))
        it(c.name, c.run);
    });
  },
);
